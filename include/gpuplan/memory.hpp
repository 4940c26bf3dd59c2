// Per-GPU memory of a training layout (issue 3).
//
// The model (docs/memory.md has every formula with its source):
//   model states   bytes per parameter by recipe (weights, gradients, optimizer
//                  states incl. fp32 master), sharded by TP, PP, EP and ZeRO/FSDP;
//   activations    Korthikanti et al. 2022 (arXiv:2205.05198) Table 2, generalised
//                  to GQA, gated MLPs, MoE, FlashAttention, SP, CP and recompute,
//                  times the micro-batches a pipeline stage holds in flight;
//   logits         the LM head's output and the loss's fp32 copies (last stage);
//   overheads      CUDA context, communication buffers, ZeRO-3 gathered layers,
//                  allocator fragmentation; the safety margin is kept free.
// Every stage of the pipeline is evaluated; the worst one is reported.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

struct FrameworkProfile;  // gpuplan/framework.hpp

// What a measurement (or a user) counts as "memory used".
//   kDevice:    everything on the device, as nvidia-smi shows it (context included);
//   kReserved:  PyTorch's torch.cuda.max_memory_reserved (allocator cache, no context);
//   kAllocated: torch.cuda.max_memory_allocated (live tensors only).
enum class MemoryScope { kDevice, kReserved, kAllocated };

// Overheads a user can see and override; defaults documented where they are set
// (src/estimate/memory/memory.cpp) and in docs/memory.md.
struct MemoryOptions {
  std::optional<double> cuda_context_bytes;  // unset: 0.75 GiB, +0.25 GiB NCCL when > 1 GPU
  std::optional<double> fragmentation;       // fraction of allocated bytes; unset: 0.05
  double safety_margin = 0.15;        // seed 004: keep 15–20% free
  std::optional<double> comm_bucket_bytes;   // unset: 2 × 25 MiB DDP-style buckets
  // Peak bytes per token per local vocab entry of the logits and the loss.
  // Unset: the run's Layout::loss_bytes_per_logit (the framework profile's,
  // 10 without one: bf16 logits 2 + fp32 copy 4 + fp32 log-softmax 4).
  // Chunked losses keep the bf16 logits and one chunk's fp32 copies
  // (memory_activations.cpp).
  std::optional<double> logits_bytes_per_entry;
  double moe_capacity_factor = 1.0;   // tokens an expert may receive, relative to an even split (1 = dropless average)
  bool dropout = false;               // keep dropout masks (Korthikanti assumes dropout; Llama-era pretraining uses none)
  int zero3_prefetch_layers = 2;      // ZeRO-3/FSDP: layers whose full parameters are gathered at once
  MemoryScope scope = MemoryScope::kDevice;
  bool suggest = true;                // compute the largest micro-batch and the changes that make it fit
  // The software the run uses: when set, only changes it can run are suggested
  // (framework_cannot_run: no "--zero 3" for a stack whose pipeline engine
  // refuses ZeRO-2/3, no parameter offload where it has none). Unset: any.
  const FrameworkProfile* framework = nullptr;
};

// What a suggested change does to the layout (its words and the CLI flags that
// make it belong to the report: memory_change_text / memory_change_flags).
enum class MemoryChange {
  kZeroStage,           // a higher ZeRO stage (layout.zero_stage)
  kSelectiveRecompute,
  kFullRecompute,
  kSequenceParallel,
  kTensorParallel,      // a larger tp, dp divided by the same factor
  kPipelineParallel,    // a larger pp, dp divided by the same factor
  kOffloadOptimizer,    // optimizer states to CPU
  kOffloadParams,       // parameters and optimizer states to CPU (ZeRO-3 where sharded)
  kMicroBatchOne,       // micro-batch 1, more accumulation steps
};

// One change to the layout and the memory it would reach.
struct MemorySuggestion {
  MemoryChange change = MemoryChange::kZeroStage;
  Layout layout;           // the layout with the change made
  double peak_bytes = 0;
  bool fits = false;
};

// What a breakdown assumed, as values and switches: the report writes one
// sentence per fact (report/memory_report.cpp, memory_notes), so the
// estimate itself holds no text (issue 31). Filled by estimate_memory, not by
// estimate_memory_numbers.
struct MemoryBasis {
  bool architecture = true;           // false: a bare parameter count (no activations or logits estimated)
  // TransformerEngine's fp8 weight copy and its transpose, cached between
  // micro-batches (+2 B/param); fp8_saved_inputs: the linears keep their fp8
  // inputs (1 B) for the weight gradient (the profile's fp8_saved_input).
  bool fp8_weight_cache = false;
  bool fp8_saved_inputs = false;
  // LoRA/QLoRA adapters (finetune kLora or kQlora): their rank and the matrices they adapt.
  FineTune finetune = FineTune::kNone;
  int64_t lora_rank = 0;
  std::vector<LoraModule> lora_modules;
  // What the activation model counted (Korthikanti et al. 2022 Table 2, generalised).
  bool gated_mlp = true;
  bool attention_scores_kept = false;  // a materialised s×s score matrix (no FlashAttention)
  bool dropout = false;
  bool eager = false;                  // eager mode also keeps fp32 RMSNorm inputs and activation outputs
  double loss_bytes_per_logit = 10;    // peak bytes per token per local vocab entry of the logits and the loss
  // torch.distributed.pipelining keeps every micro-batch's bf16 logits on the
  // last stage until the step ends: how many (0: not this schedule).
  int64_t kept_logits_micro_batches = 0;
  double fragmentation = 0.05;         // allocator fragmentation, fraction of allocated bytes
  double safety_margin = 0.15;         // fraction of capacity kept free
};

struct MemoryBreakdown {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;         // master weights + moments
  double activations_bytes = 0;       // all in-flight micro-batches on the worst stage
  double logits_bytes = 0;            // LM-head logits and loss copies (last stage)
  double comm_buffers_bytes = 0;
  double zero3_gathered_bytes = 0;
  double cuda_context_bytes = 0;
  double fragmentation_bytes = 0;
  double peak_bytes = 0;              // sum of the above on the worst GPU
  double capacity_bytes = 0;
  double safety_margin_bytes = 0;
  double headroom_bytes = 0;          // capacity - margin - peak (negative: does not fit)
  bool fits = false;                  // headroom >= 0: it fits and keeps the safety margin free
  bool fits_card = false;             // peak <= capacity: it fits the GPU, margin or not
  int worst_stage = 0;

  // Detail (issue 3).
  double params_on_gpu = 0;           // parameters whose weights the worst GPU holds (before ZeRO-3)
  double trainable_params_on_gpu = 0; // those with gradients and optimizer states
  double weight_bytes_per_param = 0;  // recipe, before sharding
  double grad_bytes_per_param = 0;
  double optimizer_bytes_per_param = 0;
  double host_offload_bytes = 0;      // states moved to host memory by offload
  double paged_optimizer_bytes = 0;   // paged 8-bit states: unified memory, evicted under pressure, not in peak
  double activations_per_layer_bytes = 0;  // one micro-batch, one layer of the worst stage
  double layers_on_stage = 0;
  // The pipeline split used (pp > 1 with an architecture); filled by
  // estimate_memory, not by _numbers.
  std::optional<StageSplit> stage_split;
  double inflight_micro_batches = 0;  // micro-batches whose activations the worst stage holds
  int64_t largest_micro_batch = -1;   // largest that fits (0: not even 1; -1: not computed)
  std::vector<MemorySuggestion> suggestions;  // when it does not fit
  MemoryBasis basis;
};

// Per-layer activation bytes for one micro-batch (exposed for tests and docs).
// Reproduces Korthikanti et al. 2022 Table 2 exactly for a GPT layer (4h plain MLP,
// multi-head attention, no FlashAttention, dropout on).
double activation_bytes_per_layer(const ModelSpec& model, const Layout& layout, bool moe_layer,
                                  const MemoryOptions& options = {});

MemoryBreakdown estimate_memory(const ModelSpec& model, const Layout& layout, const GpuSpec& gpu,
                                const MemoryOptions& options = {});

// The largest safety margin under which a breakdown still fits: the fraction
// of capacity its peak leaves free, rounded down to a hundredth.
double largest_margin_admitting(const MemoryBreakdown& br);

// The same numbers as estimate_memory (peak, fits, every byte field), without
// the basis (MemoryBasis, the stage split), the largest micro-batch or the
// suggestions: the planner's inner loop, where only `fits` is read.
MemoryBreakdown estimate_memory_numbers(const ModelSpec& model, const Layout& layout, const GpuSpec& gpu,
                                        const MemoryOptions& options = {});

}  // namespace gpuplan
