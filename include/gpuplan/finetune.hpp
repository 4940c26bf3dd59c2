// Fine-tuning (issue 5): full, LoRA and QLoRA. Memory comes from the training
// memory model (estimate_memory with Layout::finetune), step time from the
// training step-time model with the weight-gradient GEMMs of frozen weights
// removed; docs/finetune.md gives every formula with its source.
#pragma once
#include <optional>

#include "gpuplan/market.hpp"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/cost.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/typed_inputs.hpp"

namespace gpuplan {

struct FinetuneJob {
  FineTune method = FineTune::kLora;
  int64_t lora_rank = 0;                 // 0: 8 for LoRA (Hu et al. 2021), 64 for QLoRA (Dettmers et al. 2023)
  std::vector<LoraModule> modules;       // empty: q,k,v,o for LoRA; all linear for QLoRA (QLoRA §4)
  bool gradient_checkpointing = true;
  int64_t seq_len = 2048;
  int64_t micro_batch = 1;
  int64_t global_batch = 0;              // sequences per step; 0: micro_batch × GPUs
  double samples = 0;                    // sequences in the dataset
  // The dataset's mean sample length in tokens (0: every sample is seq_len).
  // Without packing each sample is padded: with micro-batch 1 to a multiple
  // of 8 of its own length (LLaMA-Factory's collator), with larger micro-batches
  // to the longest of the micro-batch, bounded here by seq_len; with packing,
  // samples fill rows of seq_len tokens. Memory is sized at seq_len either way.
  double mean_sample_tokens = 0;
  bool packing = false;
  double epochs = 1;
  std::optional<Optimizer> optimizer;    // default: AdamW (full, LoRA), paged 8-bit AdamW (QLoRA)
  // QLoRA's frozen weights; default: gptq-int4 for a GPTQ Int4 checkpoint
  // (ModelSpec::checkpoint_quant), else bitsandbytes NF4.
  std::optional<QloraBase> qlora_base;
  Precision precision = Precision::kBf16;
  int64_t gpus = 0;                      // 0: the smallest count that fits
  std::optional<int> zero_stage;         // unset: 3 (FSDP) when more than one GPU, else 0
  bool pure_bf16 = false;                // weights, gradients and states all bf16 (torchtune's recipes)
  bool offload_optimizer = false;        // FSDP/ZeRO CPU offload of optimizer states (and gradients)
  bool offload_params = false;           // ... and of parameters
  bool offload_activations = false;      // activations streamed to host (torchtune)
  MemoryScope scope = MemoryScope::kDevice;  // what "memory used" counts (device, reserved, allocated)
  // The fine-tuning stack (nullptr: generic) and the settings stated over its
  // defaults: its attention kernel, eager or fused ops, loss, master weights.
  const FrameworkProfile* framework = nullptr;
  RunSettings settings;
};

struct FinetuneFlops {
  double forward_flop = 0;          // per token, whole model incl. adapters
  double backward_flop = 0;         // per token
  double recompute_flop = 0;        // per token (gradient checkpointing)
  double total_flop = 0;            // per token: forward + backward + recompute
  double adapter_params = 0;        // trainable LoRA parameters (whole model)
  double ratio_to_6n = 0;           // (forward + backward) / (6·N_active)
};

// Exact LoRA parameter count: r·(d_in + d_out) per adapted matrix (Hu et al. 2021, §4.1).
double lora_params(const ModelSpec& model, int64_t rank, const std::vector<LoraModule>& modules);

FinetuneFlops finetune_flops(const ModelSpec& model, const FinetuneJob& job);

struct FinetuneEstimate {
  FinetuneJob job;                  // with defaults filled in
  Layout layout;                    // the layout evaluated
  MemoryBreakdown memory;           // per GPU (adapter states corrected for the chosen modules)
  FinetuneFlops flops;
  StepTime step;                    // the training step-time model for this layout (full fine-tuning)
  double step_s = 0;                // this method's step time
  double tokens_per_s = 0;
  double tokens = 0;                // tokens trained: samples × (mean length or seq_len) × epochs
  double sequences_per_epoch = 0;   // sequences a pass trains: the samples, or the packed rows holding them
  double step_tokens_per_sequence = 0;  // the length a step's sequences run at (padded length, or seq_len)
  double steps = 0;
  double wall_s = 0;
  double gpu_hours = 0;
  bool fits = false;
};

// QLoRA as its paper's recipe runs it (bf16 adapters, a paged optimizer), the
// generic choice; a named stack runs PEFT's fp32 adapters.
bool uses_qlora_recipe(const FinetuneJob& job);

// Evaluates the job on `gpus` GPUs of one type.
FinetuneEstimate estimate_finetune(const ModelSpec& model, const GpuSpec& gpu, FinetuneJob job, int64_t gpus);

// Smallest power-of-two count up to `max_gpus` (then whole nodes) that fits; 0 when none does.
int64_t smallest_fitting_gpus(const ModelSpec& model, const GpuSpec& gpu, const FinetuneJob& job, int64_t max_gpus = 1024);

struct GpuChoice {
  std::string gpu_id;
  int64_t gpus = 0;
  double wall_s = 0;
  double gpu_hours = 0;
  double cost_usd = 0;
  double price_usd_per_gpu_hour = 0;
};
// Every catalog GPU with a default price, cheapest first (those that fit with ≤ max_gpus).
// With a market, only that market's listings compete (a GPU it does not list is left out).
std::vector<GpuChoice> rank_gpus_for_finetune(const ModelSpec& model, const FinetuneJob& job, int64_t max_gpus = 1024,
                                              std::optional<Market> market = std::nullopt);

// Throws InputError naming the field for rank 0, no modules, a bad sequence length etc.
void validate_finetune(const ModelSpec& model, const FinetuneJob& job);

// `gpuplan finetune` as a request (make_finetune_request turns the front
// ends' text into it) and its answer (run_finetune): the job on the chosen or
// smallest fitting GPU count, or the fewest that meet the deadline.
struct FinetuneRequest {
  ModelSpec model;
  GpuSpec gpu;
  FinetuneJob job;                    // as given (GPU-count independent)
  std::string method_name;            // "full", "lora", "qlora": as the sentences name it
  std::optional<int64_t> gpus;        // unset: the smallest count that fits (that meets the deadline, with one)
  std::optional<double> deadline_s;
  std::string deadline_text;          // as typed, for the sentences
  // The price as typed: read once the run is sized (run_finetune), so a
  // job that fits nowhere is said before a price is questioned.
  std::optional<std::string> price_text, market_text, provider, currency_text;
  std::string lang = "en";            // picks the default market (zh: cn)
  bool rank_gpus = true;              // rank every catalog GPU by cost
  std::vector<TypedInput> typed_inputs;  // how a typed count or duration was read
};

// A change to a job that does not fit (run_finetune tries each and keeps
// those that fit, cheapest first): the front ends word them.
enum class FinetuneChange {
  kCheckpointing,        // gradient checkpointing on
  kMicroBatchOne,        // micro-batch 1 (gradient accumulation keeps the global batch)
  kAdamW8bit,            // bitsandbytes 8-bit AdamW
  kOptimizerInBackward,  // optimizer stepped in the backward (the stack offers it)
  kOffloadOptimizer,     // optimizer states in host memory (the stack offers it)
  kLora,                 // LoRA instead of full fine-tuning
  kQlora,                // QLoRA instead of full or LoRA
  kMoreGpus,             // the smallest GPU count that fits (value)
  kShorterSequence,      // the longest sequence that fits (value, tokens)
};

struct FinetuneAlternative {
  FinetuneChange change = FinetuneChange::kCheckpointing;
  int64_t value = 0;     // kMoreGpus: GPUs; kShorterSequence: tokens; else 0
  int64_t gpus = 0;      // the count it runs on
  double peak_bytes = 0; // per GPU
  double wall_s = 0;
  double gpu_hours = 0;
};

struct FinetuneRun {
  FinetuneEstimate estimate;          // on `gpus` GPUs
  int64_t gpus = 0;
  int64_t smallest_gpus = 0;          // the smallest count that fits (0: none up to 1,024)
  std::vector<GpuChoice> ranking;     // cheapest first; empty unless asked
  Price price;
  // On `gpus` GPUs: the largest micro-batch and the longest sequence (powers
  // of two) that fit, 0 when none does.
  int64_t largest_micro_batch = 0;
  int64_t longest_seq_len = 0;
  // When the job does not fit on `gpus`: single changes that make it fit,
  // fewest GPU-hours first.
  std::vector<FinetuneAlternative> alternatives;
};

// Sizes and estimates the run. A job that fits on no count up to 1,024 (with
// no count given), or misses the deadline on every count, is an InputError
// with one sentence saying what to change.
FinetuneRun run_finetune(const FinetuneRequest& request);

}  // namespace gpuplan
