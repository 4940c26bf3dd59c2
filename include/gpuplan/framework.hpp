// Framework profiles: what a training stack does (data/frameworks/*.json, the
// format in data/frameworks/README.md). A profile states facts about the
// software at one version (the parallel dimensions it can run, its defaults,
// its kernels and schedules), each with a citation to its code or docs. It
// never holds a speed factor. The planner, memory, step time, the exporters
// and validation read the same resolved profile, so they cannot disagree.
#pragma once
#include "gpuplan/error.hpp"
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "gpuplan/bilingual.hpp"
#include "gpuplan/layout.hpp"

namespace gpuplan {

enum class SequenceParallelMode { kWithTp, kOptional, kNone };
enum class ElementwiseMode { kFused, kCompiled, kEager };
enum class Availability { kNone, kOptional, kDefault };
enum class GatherUnit { kBlock, kModule, kNone };
enum class GradAccumDtype { kFp32, kBf16, kParam };
enum class Fp8Gemms { kNone, kLinear, kLinearAndExperts };
enum class ExportFormat { kMegatron, kDeepSpeed, kTorchtitan, kMegatronBridge, kNemo, kMegatronDeepSpeed, kGptNeox, kNone };
// What a framework's own log reports as "memory": the allocator's peak
// allocated (active) bytes, its peak reserved bytes, the device total, or
// several / nothing (kNone).
enum class MemoryMetric { kAllocated, kReserved, kDevice, kNone };
// How trained weights are kept (profile master_weights): with an fp32 master
// copy; pure bf16; or pure bf16 on one GPU or DDP with an fp32 master only when
// DeepSpeed ZeRO / FSDP shard the run (a model trained in its loaded dtype).
enum class MasterWeights { kFp32, kNone, kFp32WithZero };
// What a fine-tuning stack's preparation casts to fp32 among the frozen
// weights: nothing; for QLoRA, every weight that is not 4-bit (PEFT's
// prepare_model_for_kbit_training: embeddings, LM head, norms); or that for
// LoRA too, where it is the whole 16-bit base model (XTuner calls it for every
// LoRA run). DeepSpeed's bf16/fp16 engine casts the module back under ZeRO.
enum class FrozenUpcast { kNone, kQloraNonQuantized, kLoraAndQlora };

// One property as the profile states it: its value in the file's words and
// the source that shows it (for docs/frameworks.md and the reports).
struct ProfileFact {
  std::string key;
  std::string value;
  std::string source;
};

// What a release's published benchmark scripts set for one model on one GPU
// beyond the stack's defaults (Megatron-Bridge's scripts/performance presets):
// the MoE communication switches. Unset: the profile's default.
struct PerfRecipe {
  std::optional<bool> moe_a2a_overlap;        // --overlap-moe-expert-parallel-comm
  std::optional<bool> moe_dispatch_per_node;  // DeepEP / HybridEP (flex dispatcher): one network copy per node
  std::optional<bool> moe_dispatch_hybridep;  // that dispatcher's backend is HybridEP (unset or false: DeepEP)
  std::optional<Recompute> recompute;                   // the preset's recompute granularity
  std::optional<SelectiveRecompute> recompute_policy;  // and what its selective recompute re-runs (recompute_modules)
  std::optional<int> comm_sms;                // SMs those dispatch kernels hold while computation overlaps them
  std::string release;                        // the table's key the run resolved to ("25.09")
};

// One framework at one version, every property resolved (later version
// entries override earlier ones).
struct FrameworkProfile {
  std::string id;            // "torchtitan"
  std::string name;          // "torchtitan"
  std::string version;       // the entry's version, "2024-12"
  std::string date;          // "2024-12"
  std::string release;       // the release number the entry's code is ("0.5.0"), where it has one; "" for a dated snapshot
  std::string version_source;

  bool tp = true, pp = true, dp = true, cp = true, ep = true, vp = true;  // `parallel`
  std::vector<int> zero_stages{0, 1, 2, 3};
  bool hsdp = true;
  int zero_default = 0;
  SequenceParallelMode sequence_parallel = SequenceParallelMode::kOptional;
  bool sequence_parallel_default = true;
  Recompute recompute_default = Recompute::kNone;
  SelectiveRecompute recompute_selective = SelectiveRecompute::kAttentionCore;
  AttentionKernel attention = AttentionKernel::kFlash2;
  ElementwiseMode elementwise = ElementwiseMode::kFused;
  bool compile_default = false;
  LossKernel loss = LossKernel::kFused;
  Availability tp_comm_overlap = Availability::kOptional;
  bool dp_comm_overlap_default = true;
  GatherUnit zero3_gather_unit = GatherUnit::kBlock;
  bool zero3_prefetch = true;
  bool zero3_gather_copies_per_rank = false;           // one output tensor per rank in each ZeRO-3 all-gather (DeepSpeed < 0.5.5)
  Fp8Scaling fp8_scaling = Fp8Scaling::kDelayed;         // delayed (TE cast-transpose) or dynamic (torchao amax + cast + transpose)
  ExpertGemms expert_gemms = ExpertGemms::kGrouped;     // one grouped kernel, TE's per-expert GEMMs on 4 streams, or a per-expert Python loop
  bool clamp_outside_activation = false;                // a clamped SwiGLU's clamps run as their own ops before the fused activation
  // MoE token permutation around the experts, HBM traffic per routed row in
  // units of its hidden vector (2·h bytes), forward and backward (profile moe_permute_traffic).
  double moe_permute_units_f = 4, moe_permute_units_b = 4;
  bool fp8_saves_fp8_inputs = false;                     // an FP8 linear keeps its quantised input for the weight gradient (TE), not the bf16 one (torchao)
  CpExchange cp_exchange = CpExchange::kP2pRing;         // p2p ring (Megatron/TE), PyTorch context_parallel's all-gather, or Ulysses all-to-alls
  int host_calls_per_layer = 0;                          // Python-level torch calls per layer forward, counted from its code; 0: kernels
  bool tp_grad_comm_async = false;                       // column-parallel input-gradient collective runs under the weight-gradient GEMM
  int zero_max_with_pp = 3;                              // highest ZeRO stage it runs with pipelining (Colossal-AI: 1)
  int zero_max_with_ep = 3;                              // highest ZeRO stage it runs with expert parallelism (Megatron core 0.10/0.11 FSDP2: 1)
  int zero_max_with_tp = 3;                              // highest ZeRO stage it runs with tensor parallelism (DeepSpeed AutoTP 0.16: 2)
  // The lowest DeepSpeed release a stack that takes a DeepSpeed config admits
  // (its requirement pin, "0.10.0"); its DeepSpeed export is checked against the
  // keys of the newest release gpuplan has read at or below it. Empty: unpinned,
  // the newest release dated at or before the stack's version.
  std::string deepspeed_release;
  // Whether context parallelism runs beside Megatron's sequence parallelism
  // (Megatron-DeepSpeed's DeepSpeed-Ulysses refuses it: megatron/initialize.py).
  bool sequence_parallel_with_cp = true;
  OptimizerLoop optimizer_loop = OptimizerLoop::kForeach;  // multi-tensor optimizer kernels, or one op per tensor in a Python loop
  bool zero2_per_unit = false;                           // ZeRO-2 is FSDP SHARD_GRAD_OP: per-unit all-gather every forward, reduce-scatter every backward
  GradAccumDtype grad_accum_dtype = GradAccumDtype::kFp32;
  MasterWeights master_weights = MasterWeights::kFp32;
  std::vector<std::string> pipeline_schedules{"1f1b", "interleaved"};  // the first is what a pipelined run gets
  bool uneven_stages = true;
  Fp8Gemms fp8_gemms = Fp8Gemms::kLinear;
  Availability cuda_graphs = Availability::kOptional;
  bool optimizer_in_backward = false;
  std::vector<std::string> cpu_offload;
  ExportFormat export_format = ExportFormat::kMegatron;
  // Optional properties (absent: the default here).
  MemoryMetric memory_reported = MemoryMetric::kNone;  // what its own log reports as peak memory
  bool zero3_keep_gathered_with_pp = false;
  // Peak bytes per logit entry (per token per local vocab entry) of the LM
  // head's output and the cross-entropy, forward and backward, alive at once
  // beside the saved activations: without TP, and with TP's vocab-sharded
  // logits (unset: the same). Default 10: bf16 logits + fp32 copy + fp32
  // log-softmax (memory_activations.cpp logits_bytes).
  double loss_bytes_per_logit = 10;
  std::optional<double> loss_bytes_per_logit_tp;
  std::optional<double> loss_bytes_per_logit_compiled;  // without TP, when the run compiles and the stack compiles its loss with the model
  // The pipeline's last stage keeps every micro-batch's output (the bf16
  // logits) until the step ends (torch.distributed.pipelining output_chunks).
  bool pipeline_keeps_outputs = false;
  // With TP and sequence parallelism, what the column-parallel linears save
  // for their weight gradient: the sequence-sharded input, gathered again in
  // the backward (Megatron), or the all-gathered input itself (PyTorch
  // DTensor TP: PrepareModuleInput gathers to Replicate and autograd saves
  // what the matmul received). Profile tp_saved_input sharded | gathered.
  bool tp_saves_gathered_input = false;
  // A step may accumulate several micro-batches per data-parallel rank before
  // the optimizer runs. Without it (torchtitan before 2025-06) a step with pp 1
  // is one micro-batch per rank: micro-batch = global batch / dp.
  bool gradient_accumulation = true;             // FSDP under PP does not reshard after forward
  bool microbatches_default_stages = false;             // unset microbatch count = the pipeline stages (torchtitan)
  bool interleaving_opt_in = false;                     // the default schedule (first listed) runs unless another is named
  bool recompute_default_unless_named = false;          // runs take recompute_default unless their config says (shipped recipe configs)
  bool recompute_none = true;                           // a run may keep every activation (MaxText: false, every layer under remat)
  // MoE parallel folding (Megatron-Core 0.10+): the expert groups are laid out
  // apart from attention's, etp × ep × expert-dp = tp × cp × dp, so EP may span TP.
  bool moe_parallel_folding = false;
  int expert_tp_default = 0;                            // a MoE run's expert TP when unstated; 0 = the run's tp
  // Stage layouts the stack's recipes set per model (Megatron-Bridge's
  // DeepSeek-V3 layout_map): normalized model id → pp·vp stages → layout string.
  std::map<std::string, std::map<int, std::string>> pipeline_layouts;
  // The published benchmark scripts' MoE switches per release: "25.09" →
  // normalized model id → GPU id → recipe (profile perf_recipes).
  std::map<std::string, std::map<std::string, std::map<std::string, PerfRecipe>>> perf_recipes;

  // Fine-tuning stacks (LLaMA-Factory, Unsloth, ms-swift, ...): what a run
  // gets when it does not say.
  // Gradient checkpointing moves each checkpointed layer input to host memory
  // and back for the backward (Unsloth's use_gradient_checkpointing="unsloth").
  bool checkpoint_offload = false;
  int lora_rank_default = 0;                       // 0: gpuplan's rule (8 for LoRA, 64 for QLoRA)
  std::vector<LoraModule> lora_targets_default;    // empty: gpuplan's rule (q, k, v, o)
  std::optional<Optimizer> optimizer_default;      // unset: AdamW (paged 8-bit AdamW for QLoRA in `finetune`)
  FrozenUpcast frozen_upcast = FrozenUpcast::kNone;
  // The loss is computed in chunks of tokens whose fp32 logits stay under this
  // many GiB each (Unsloth's fused cross-entropy); 0: no such cap.
  double loss_chunk_cap_gib = 0;
  // The LM head and loss run over this many tokens at a time (TRL's
  // chunked_nll); 0: all of the micro-batch's tokens at once.
  int64_t loss_chunk_tokens = 0;

  // DeepSeek's own stack (V3 report §3.2-3.3): what its activations keep and
  // how its MoE communication runs (Layout fields of the same meaning).
  double attention_output_bytes = 0;          // profile attention_output_saved: bf16 rule (0) or e5m6 (1.5)
  bool swiglu_keeps_fp8_input_only = false;   // profile swiglu_saved: fp8_input
  int comm_sms = 0;                           // profile comm_sms
  bool moe_dispatch_per_node = false;         // profile moe_dispatch: per_node
  bool moe_dispatch_fp8 = false;              // profile moe_dispatch_dtype: fp8
  bool bf16_moments = false;                  // profile optimizer_moments: bf16
  bool moe_weights_in_activation = false;     // profile moe_router_weights: activation
  // MoE all-to-alls under another micro-batch's computation (Megatron-Core's
  // combined 1F1B, --overlap-moe-expert-parallel-comm, core 0.14.0+).
  Availability moe_a2a_overlap = Availability::kNone;  // profile moe_a2a_overlap

  std::vector<ProfileFact> facts;  // every property, in the file's order, with its source

  std::string label() const { return id == "generic" ? id : id + "@" + version; }
  bool supports_zero(int stage) const;
  bool interleaving() const;  // offers the interleaved schedule
  bool runs_dualpipe() const;  // its pipelines run DualPipe (the first schedule it lists)
  const ProfileFact* fact(const std::string& key) const;
};

// A framework and all its versions, as one file holds them.
struct FrameworkFamily {
  std::string id;
  std::string name;
  std::vector<std::string> aliases;
  std::string repository;
  std::vector<FrameworkProfile> versions;  // resolved, in date order
};

// The built-in profiles (data/frameworks/*.json), sorted by id.
const std::vector<FrameworkFamily>& framework_catalog();

// "torchtitan", "torchtitan@2024-12", "nemo@24.07", "megatron-core@0.8.0":
// the version entry equal to the one named, else the latest one dated on or
// before it (a year means its December; NeMo-style YY.MM means 20YY-MM), else
// the first; a release number with no entry, the latest release entry at or
// before it (data/frameworks/README.md); no version: the newest. Throws InputError naming `field` with
// the known ids when nothing matches.
const FrameworkProfile& find_framework(const std::string& name_at_version, const std::string& field = "--framework");

// A version as find_framework reads it as a date: "2021" → "2021-12", "2024-07"
// as is, NeMo's "24.07" → "2024-07"; "" for anything else (a release number).
std::string framework_version_date(const std::string& version);


// What a run states about its software; unset fields take the profile's default.
// (CLI flags, API keys and validation cases' train.* fields of the same names.)
struct RunSettings {
  std::optional<bool> compile;                 // torch.compile on/off (PyTorch-native stacks)
  std::optional<bool> tp_comm_overlap;
  std::optional<bool> moe_a2a_overlap;         // Megatron --overlap-moe-expert-parallel-comm
  std::optional<bool> dp_comm_overlap;
  std::optional<AttentionKernel> attention;
  std::optional<LossKernel> loss;
  std::optional<bool> optimizer_in_backward;
  // Weights, gradients and optimizer states all bf16, no fp32 master (a model
  // loaded in bf16 and trained without an fp32 copy); unset: the profile's
  // master_weights, or what the run's own flag already set.
  std::optional<bool> pure_bf16;
  std::optional<bool> sequence_parallel;
  std::optional<SelectiveRecompute> recompute_policy;
  bool force_eager = false;                    // --eager: one PyTorch operator per kernel whatever the framework fuses
  // The version the run named after '@' ("megatron-bridge@25.09" → "25.09"):
  // the key of the profile's release-keyed recipe tables. Empty: none named.
  std::string release;
  // The release's benchmark recipe for this model and GPU (apply_perf_recipe);
  // its switches stand where the run states none. Unset: no recipe.
  std::optional<PerfRecipe> recipe;
};

// The one place a framework's defaults and a run's stated settings become the
// layout's execution switches: attention kernel, element-wise fusion, loss,
// TP/DP overlap, ZeRO-3 gather unit and prefetch, gradient accumulation dtype,
// master weights, sequence parallelism (with_tp: always with TP; optional:
// stated, else the profile's default; none: off). The parallel degrees, batch,
// ZeRO stage and recompute of `l` are left as they are; call it after they are
// set (the gradient buffer depends on the ZeRO stage). With `notes`, appends
// one line per default taken, in both languages (for flags and reports); the
// planner's inner loop passes none and allocates nothing.
void apply_framework(const FrameworkProfile& f, const RunSettings& s, Layout& l, std::vector<Bilingual>* notes = nullptr);

// Sets s.recipe to the benchmark recipe the profile's perf_recipes hold for
// s.release (that key, else the latest key dated at or before it), this model
// and this GPU; leaves it unset where the table has none. With `notes`, says
// which recipe was taken.
void apply_perf_recipe(const FrameworkProfile& f, const ModelSpec& m, const std::string& gpu_id, RunSettings& s,
                       std::vector<Bilingual>* notes = nullptr);

// The stage layout the framework's recipe sets for this model at l.pp·l.vp
// stages (profile pipeline_layouts); empty when it sets none.
std::string recipe_pipeline_layout(const FrameworkProfile& f, const ModelSpec& m, const Layout& l);

// Sets l.pipeline_layout to the recipe's when the run states no split of its
// own (no layout, no first/last stage layers) and pp > 1; notes it.
void apply_recipe_layout(const FrameworkProfile& f, const ModelSpec& m, Layout& l, std::vector<Bilingual>* notes = nullptr);

// A run on a stack gpuplan has no profile for, at a stated pp·vp Megatron's
// rules cannot split (no layout or first/last layers of its own): the most
// even split, the first stages one layer more, as stacks built on
// torch.distributed.pipelining cut a model. Empty when none is needed.
std::string unprofiled_stack_layout(const ModelSpec& m, const Layout& l);
void apply_unprofiled_stack_layout(const ModelSpec& m, Layout& l, std::vector<Bilingual>* notes = nullptr);

// Why `f` cannot run `l` (a dimension it lacks, a ZeRO stage it does not
// offer, interleaving without the schedule, sequence parallelism off where it
// always comes with TP); empty when it can.
std::string framework_cannot_run(const FrameworkProfile& f, const Layout& l);
// The same reason in English and Chinese (empty when the framework can run it).
Reason why_framework_cannot_run(const FrameworkProfile& f, const Layout& l);
// A layout under DualPipe (Layout::dualpipe) has an even pipeline and an even
// number of micro-batches per step, at least twice the stages; true without DualPipe.
bool dualpipe_can_run(const Layout& l);
// A layout with Megatron's MoE all-to-all overlap (Layout::moe_a2a_overlap)
// interleaves its pipeline when pp > 1 and does not recompute fully; true without it.
bool moe_a2a_overlap_can_run(const Layout& l);

const char* attention_kernel_name(AttentionKernel k);
const char* loss_kernel_name(LossKernel k);
const char* selective_recompute_name(SelectiveRecompute k);  // the profile's / cases' word for it

}  // namespace gpuplan
