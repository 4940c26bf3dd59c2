// Serving a model (issue 5): memory of weights and KV cache, prefill and decode
// time from a per-kernel roofline, TP communication, GPUs for a request rate
// and the cost per million tokens. docs/inference.md gives every formula and
// its source.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/bilingual.hpp"
#include "gpuplan/engine.hpp"
#include "gpuplan/cost.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

// How the weights are stored.
//   fp16/bf16: 2 bytes, GEMMs at that precision;
//   fp8:       1 byte, W8A8 FP8 GEMMs on parts with FP8 tensor cores (TensorRT-LLM,
//              vLLM); weight-only (W8A16, Marlin) on parts without;
//   int8:      weight-only W8A16 with one fp16 scale per output channel;
//   int4:      weight-only W4A16 (AWQ, GPTQ) with an fp16 scale and zero per
//              group of `group_size` weights (+32/group bits: 0.25 bits/weight at 128).
enum class WeightFormat { kFp16, kBf16, kFp8, kInt8, kInt4 };
const char* weight_format_name(WeightFormat f);

// A named weight-quantisation method (data/weight_quant.json, the
// validation format's infer.weight_quant): its compute class and what a weight
// of each kind of matrix costs in bits, from the format's storage layout.
struct WeightQuant {
  std::string id;                       // "gguf-q4_k_m", "awq-int4", "nf4", ...
  WeightFormat format = WeightFormat::kFp16;
  double bits = 16;                     // layer matrices, scales and zero points included
  double embedding_bits = 16;
  double lm_head_bits = 16;
  bool experts_only = false;            // only the routed experts are quantised (gpt-oss's MXFP4)
  // llama.cpp's per-tensor exceptions: these matrices ("attn_v", "mlp_out") of
  // the layers use_more_bits picks take promoted_bits.
  std::vector<std::string> promoted;
  double promoted_bits = 0;
  // bitsandbytes: more than one token row dequantises the whole matrix to 16
  // bits in memory, then runs a 16-bit GEMM; one row runs the fused GEMV.
  bool dequantise_per_call = false;
  std::string source;
};
const std::vector<WeightQuant>& weight_quant_methods();
const WeightQuant* find_weight_quant(const std::string& id);  // nullptr when unknown
std::vector<std::string> weight_quant_ids();                  // in the catalog's order, for error sentences

struct InferenceOptions {
  WeightFormat weights = WeightFormat::kFp16;
  // A named method (find_weight_quant) whose bit widths replace `weights` at
  // `group_size`; its format must be `weights`. Empty: none named.
  std::string weight_quant;
  Precision kv = Precision::kFp16;      // KV cache: fp16/bf16 (2 bytes) or fp8 (1 byte)
  int64_t group_size = 128;             // weight-only quantisation group (int4)
  int tp = 1;                           // tensor-parallel degree of one replica (of one attention rank with dp_attention > 1)
  // Layout beyond TP (docs/inference.md "Deployments beyond one node").
  int pp = 1;                           // pipeline stages: layers split evenly, one micro-batch per stage in flight
  // Expert parallelism: 1 = routed experts split by TP like the dense MLP; > 1 =
  // each GPU of a stage holds E/ep whole experts and tokens reach them by all-to-all
  // (ep = tp × dp_attention: every GPU of the stage is an expert rank).
  int ep = 1;
  // Attention data-parallel ranks per stage (DeepSeek-style EP with DP attention,
  // SGLang --enable-dp-attention): each rank holds whole attention weights at TP
  // `tp` and runs its share 1/dp_attention of the stage's sequences.
  int dp_attention = 1;
  // Achieved fraction of HBM bandwidth for streaming kernels (weights, KV cache);
  // < 0: StepTimeOptions' default (the project's one constant for it).
  std::optional<double> hbm_efficiency;
  // Share of device memory the engine may use: vLLM's gpu_memory_utilization
  // default 0.90 (vllm/engine/arg_utils.py); the rest stays free.
  double memory_utilization = 0.90;
  // What memory_utilization is a share of (gpuplan/engine.hpp KvShareOf): the
  // whole device, weights and buffers included (vLLM's rule); the memory left
  // free after weights, activations and runtime (TensorRT-LLM's
  // KvCacheConfig.free_gpu_memory_fraction); or the device's total memory for
  // the KV pool alone, bounded by what is free (TurboMind before v0.2.2).
  KvShareOf kv_share_of = KvShareOf::kDevice;
  // The engine's host side (EngineProfile, data/engines/): decode steps run as
  // CUDA graphs (one launch), or eagerly at eager_layer_s of host dispatch per
  // decoder layer; host_step_s of scheduling and sampling the GPU waits for
  // each step; kv_concat_copy: every step rewrites the whole cache (HF DynamicLayer).
  bool cuda_graphs = true;
  double eager_layer_s = 0;
  double host_step_s = 0;
  bool kv_concat_copy = false;
  // kv_read_per_query_head: the decode kernel reads a KV head's cache once per
  // query head of its group (EngineProfile::kv_read_per_query_head).
  bool kv_read_per_query_head = false;
  // The first output token comes from the decode step after a prefill of all
  // prompt tokens but the last (EngineProfile::first_token_from_decode).
  bool first_token_from_decode = false;
  // EngineProfile::attention_scores_materialised: every score of the KQ
  // product is written in F32, read and written by the softmax and read by the
  // product with V (16 bytes), the product computed over every cached key.
  bool attention_scores_materialised = false;
  // EngineProfile::prefill_ubatch_tokens: prompt tokens per prefill pass (0: all).
  int64_t prefill_ubatch_tokens = 0;
  // EngineProfile::tp_allreduce_nccl: TP all-reduces at NCCL's measured cost (measured_allreduce_s).
  bool tp_allreduce_nccl = false;
  // FP8 GEMMs with more token rows than this run the vendor BLAS, which streams
  // the weights at GpuSpec::blas_fp8_decode_hbm_efficiency where the catalog
  // measured it (EngineProfile::rocm_skinny_fp8_tokens); -1: none do.
  int64_t fp8_blas_above_tokens = -1;
  // true: the KV share is taken before the activation workspace and CUDA graphs
  // exist, which then come out of the rest (SGLang sizes its pool as
  // memory_utilization of the memory free before the weights, less the weights:
  // model_runner.py profile_max_num_token; LMDeploy TurboMind takes its share of
  // the memory free after the weights: turbomind.cc CreateEngine). false: the
  // activations and CUDA graphs are subtracted first (vLLM, TensorRT-LLM).
  bool kv_sized_before_buffers = false;
  // Sequences one step may hold: rows of logits the activation peak counts
  // (vLLM's default max_num_seqs 256; an engine profile sets its own).
  int64_t max_seqs_per_step = 256;
  std::optional<double> cuda_context_bytes;  // unset: 0.75 GiB (+0.25 GiB NCCL when tp > 1)
  int64_t prefill_chunk_tokens = 8192;  // tokens one prefill step processes (activation peak)
  bool int4_supported = true;           // the user can say the part lacks an int4 kernel
};

// The share of HBM bandwidth at which FP8 GEMMs of more than `above_tokens`
// token rows stream their weights through the vendor BLAS
// (GpuSpec::blas_fp8_decode_hbm_efficiency), where the weights are FP8, the
// part multiplies in FP8, the catalog measured the BLAS and the engine hands
// it such GEMMs (above_tokens ≥ 0, EngineDefaults::fp8_blas_above_tokens); 0: none do.
double fp8_blas_hbm_efficiency(const GpuSpec& gpu, WeightFormat weights, int64_t above_tokens);

// Bytes per weight of a format (including quantisation constants).
double bytes_per_weight(WeightFormat f, int64_t group_size);

// Bytes per weight where each kind of matrix is read: the method named in
// o.weight_quant, else `weights` at `group_size` for the layers and 16 bits
// for the embedding and LM head. `layers` averages a mixed recipe (llama.cpp's
// Q4_K_M) over the model's layers, weighted by each matrix's size.
struct WeightBytes {
  double layers = 2;      // attention, dense MLPs, shared experts
  double experts = 2;     // routed experts
  double embedding = 2;
  double lm_head = 2;
  bool dequantise_per_call = false;
};
WeightBytes weight_bytes(const ModelSpec& model, const InferenceOptions& o);

struct InferenceMemory {
  double weights_bytes = 0;           // per GPU
  double weights_quantised_params = 0;  // layer GEMM weights in the chosen format (whole model)
  double weights_fp16_params = 0;       // embedding, LM head, norms kept in 16 bits (whole model)
  double kv_bytes_per_token = 0;      // whole model, all layers (one replica)
  double kv_bytes_per_token_per_gpu = 0;
  double activation_bytes = 0;        // prefill chunk activations + logits
  double runtime_bytes = 0;           // CUDA context, NCCL, CUDA graphs
  double reserved_bytes = 0;          // (1 − memory_utilization) × capacity
  double kv_budget_bytes = 0;         // what is left for the KV cache per GPU
  double max_cached_tokens = 0;       // KV budget / per-token bytes
  bool weights_fit = false;
};

InferenceMemory inference_memory(const ModelSpec& model, const GpuSpec& gpu, const InferenceOptions& o);

// KV cache bytes per token for the whole model at `bytes_per_elem`:
// MHA/GQA/MQA 2·layers·kv_heads·head_dim·bytes; MLA layers·(kv_lora_rank + qk_rope_head_dim)·bytes.
// With `context_tokens` > 0 it is the average over a sequence of that length:
// a sliding-window layer (ModelSpec::sliding_window) keeps only its last
// `sliding_window` tokens. 0 (the default, and what inference_memory passes
// today) counts every layer as caching every token: an upper bound.
double kv_bytes_per_token(const ModelSpec& model, double bytes_per_elem, double context_tokens = 0);

// Time of one forward pass of one replica (one GPU of the TP group).
struct PassTime {
  double total_s = 0;
  double gemm_s = 0;
  double attention_s = 0;
  double elementwise_s = 0;
  double tp_comm_s = 0;
  double lm_head_s = 0;
  double ep_comm_s = 0;        // expert all-to-all (dispatch + combine per MoE layer), exposed
  double pp_comm_s = 0;        // pipeline sends between stages, exposed
  double sampling_s = 0;       // logits read once by the sampler (top-k/top-p over the vocabulary)
  double weight_bytes = 0;     // bytes of weights read per GPU
  double kv_bytes = 0;         // bytes of KV cache read per GPU
  double flop = 0;             // FLOPs per GPU
  double gemm_compute_s = 0;   // Σ GEMM compute times (FLOPs / achieved peak)
  double gemm_memory_s = 0;    // Σ GEMM memory times (bytes / achieved bandwidth)
  double experts_touched = 0;  // distinct routed experts one MoE layer reads per GPU in this pass (0: dense)
  double host_launch_s = 0;    // host dispatch of the layers' operators when the engine runs eagerly (0 under CUDA graphs)
  double host_step_s = 0;      // host work per step the GPU waits for (the engine profile's host_step_ms)
  bool compute_bound = false;  // the GEMMs' compute time exceeds their memory time
};

// Prefill of `batch` sequences of `input_len` tokens (causal attention).
PassTime prefill_time(const ModelSpec& model, const GpuSpec& gpu, const InferenceOptions& o, int64_t batch,
                      int64_t input_len);
// One decode step: `batch` sequences each generating one token with `context` tokens cached.
PassTime decode_step_time(const ModelSpec& model, const GpuSpec& gpu, const InferenceOptions& o, int64_t batch,
                          double context);

// What one forward pass of a continuous-batching engine holds: `prefill_seqs`
// sequences of `prefill_len` new tokens each (fractional in a steady-state
// average) and `decode_seqs` sequences generating one token over `decode_context`
// cached tokens. prefill_time and decode_step_time are its two pure cases.
struct StepMix {
  double prefill_seqs = 0;
  int64_t prefill_len = 0;
  double prefill_prefix = 0;  // tokens each prefilling sequence already has cached (its prompt's earlier passes)
  double decode_seqs = 0;
  double decode_context = 0;
};
PassTime step_time(const ModelSpec& model, const GpuSpec& gpu, const InferenceOptions& o, const StepMix& mix);

// A static batch run as benchmark tools time it: prefill, then output_len − 1 decode steps.
struct BatchRun {
  double ttft_s = 0;           // prefill of the whole batch (+ the decode step that samples the first token, where the engine does so)
  double tpot_s = 0;           // mean decode step
  double total_s = 0;
  double output_tokens_per_s = 0;  // whole TP group
  double output_tokens_per_s_per_gpu = 0;
  PassTime prefill, decode_mid;
};
BatchRun static_batch_run(const ModelSpec& model, const GpuSpec& gpu, const InferenceOptions& o, int64_t batch,
                          int64_t input_len, int64_t output_len);

// The steady state of continuous (in-flight) batching with `batch` sequences
// running, all of `input_len` prompt and `output_len` output tokens
// (inference_batching.cpp; docs/inference.md "Continuous batching"). A sequence
// lives output_len steps: one prefill step, which yields its first token, then
// output_len − 1 decode steps. So each step prefills batch/output_len new
// sequences, decodes the other batch·(output_len − 1)/output_len at the mean
// context input_len + output_len/2, and yields `batch` output tokens.
struct BatchingSteadyState {
  double batch = 0;
  double tokens_per_step = 0;        // prefill + decode tokens of one forward pass
  double step_s = 0;                 // = time per output token of every sequence
  double decode_only_step_s = 0;     // the same batch decoding with no prefill
  double requests_per_s = 0;
  double output_tokens_per_s = 0;    // whole TP group
  double prefill_fraction = 0;       // share of the step the prefills add
  StepMix mix;
  PassTime step;
};
BatchingSteadyState continuous_batching_steady_state(const ModelSpec& model, const GpuSpec& gpu, const InferenceOptions& o,
                                                     double batch, int64_t input_len, int64_t output_len);

// Why the defaults are another engine's (engine_defaults): the run named no
// engine, one without a profile, or one that does not run on the GPU's vendor
// (TurboMind off NVIDIA). The defaults read are then vLLM's
// (EngineDefaults::profile); the sentence is the report's (engine_choice_notes
// in src/report/inference_notes.hpp).
enum class EngineFallback { kNone, kNotNamed, kNoProfile, kNotOnVendor };
struct EngineFallbackReason {
  EngineFallback reason = EngineFallback::kNone;
  std::string asked;          // the engine as the run named it (kNoProfile, kNotOnVendor)
  std::string asked_profile;  // kNotOnVendor: the profile that does not run there, "lmdeploy@0.16.0"
  std::string gpu_vendor;     // kNotOnVendor: GpuSpec::vendor
  std::string gpu_id;         // kNotOnVendor
};

// What an engine's own sizing rule chose (inference_engines.cpp), kept as the
// rule chose it: a caller may replace a limit afterwards (validate's stated
// max_num_seqs), and the report still says what the rule gave
// (engine_rule_notes in src/report/inference_notes.hpp).
// SGLang's mem_fraction_static from its reserve (KvFractionRule::kSglangReservedMemory).
struct SglangMemFraction {
  double fraction = 0;                 // of the device, rounded to three decimals as SGLang does
  double reserved_mib = 0;             // reserved_mem
  double gpu_mib = 0;                  // the device's memory
  int tp = 1;
  long long chunked_prefill_size = 0;  // the device row's
  long long cuda_graph_max_bs = 0;     // the device row's
  bool floor_above_60_gib = false;     // the device has over 60 GiB, where the reserve has a floor
};
// trtllm-bench's max_batch_size and max_num_tokens (BatchLimitRule::kTrtllmBenchTuning).
struct TrtllmBenchSizing {
  int64_t max_batch_size = 0;
  int64_t max_num_tokens = 0;
  int64_t input_len = 0;   // the lengths it sized for
  int64_t output_len = 0;
};
// SGLang's max_running_requests from its pools (BatchLimitRule::kSglangPool).
struct SglangRunningRequests {
  int64_t max_running_requests = 0;
  double kv_tokens = 0;     // the KV pool (0 where the weights do not fit)
  int64_t context_len = 0;  // the model's context; 0: unknown
};

// An engine's scheduler and memory defaults for an offline run that leaves them
// out (inference_engines.cpp, each value cited to the engine's code at its version).
struct EngineDefaults {
  std::string profile;               // the engine profile read, "vllm@0.10.2" (data/engines/)
  std::string engine_name;           // the engine as its profile names it, "vLLM" (EngineProfile::name)
  std::string version;               // the profile entry's version, "0.10.2" (EngineProfile::version)
  double kv_memory_fraction = 0.90;  // vLLM gpu_memory_utilization / TensorRT-LLM free_gpu_memory_fraction
  KvShareOf kv_share_of = KvShareOf::kDevice;  // see InferenceOptions::kv_share_of
  bool kv_sized_before_buffers = false;  // see InferenceOptions::kv_sized_before_buffers
  int64_t max_batch_size = 256;      // sequences the scheduler may run at once
  int64_t max_num_tokens = 8192;     // tokens one step may process (prefill + decode)
  int64_t tokens_per_block = 16;     // paged KV-cache block
  bool reserve_whole_sequence = false;  // admit a sequence only with blocks for input + output free
  bool chunked_prefill = true;       // a prompt longer than the step budget is split over steps
  // true: one step holds prefills beside decodes under the one max_num_tokens
  // budget (vLLM, TensorRT-LLM, TurboMind). false: prefill batches run as steps
  // of their own (SGLang without --enable-mixed-chunk), so the budget bounds a
  // prefill batch and never the decoding batch.
  bool mixed_prefill_decode = true;
  // Context tokens the sequences prefilled in one step may hold together
  // (TurboMind max_context_token_num, = session_len); unset: no such cap.
  std::optional<int64_t> max_prefill_context_tokens;
  bool cuda_graphs = true;           // decode steps replayed as CUDA graphs
  bool static_batching = false;      // one static batch per generate() call, no continuous batching
  double host_step_s = 0;            // host work per step the GPU waits for (EngineProfile::host_step_s)
  double eager_layer_s = 0;          // host dispatch per decoder layer when run eagerly (EngineProfile::eager_layer_s)
  bool kv_concat_copy = false;       // every step rewrites the cache (EngineProfile::kv_concat_copy)
  bool kv_read_per_query_head = false;  // EngineProfile::kv_read_per_query_head
  bool first_token_from_decode = false;  // EngineProfile::first_token_from_decode
  bool attention_scores_materialised = false;  // EngineProfile::attention_scores_materialised
  int64_t prefill_ubatch_tokens = 0;  // EngineProfile::prefill_ubatch_tokens
  bool tp_allreduce_nccl = false;     // EngineProfile::tp_allreduce_nccl (tp_allreduce_rocm_nccl on AMD)
  int64_t fp8_blas_above_tokens = -1;  // EngineProfile::rocm_skinny_fp8_tokens on AMD; -1 elsewhere
  EngineFallbackReason fallback;     // why the profile is not the one named (kNone: it is)
  std::vector<Bilingual> notes;      // the profile's own note: a version resolved to another entry (EngineProfile::note)
  std::optional<EngineDeviceRule> device_row;  // the row of the profile's device table the limits came from
  std::vector<EngineFact> facts;     // the profile's facts the run used, each with its source (gpuplan/engine.hpp)
  // The limits the engine's own sizing rules set, where its profile has them.
  std::optional<SglangMemFraction> sglang_mem_fraction;
  std::optional<TrtllmBenchSizing> trtllm_bench_sizing;
  std::optional<SglangRunningRequests> sglang_running_requests;
};
// `framework` is the run's engine as ENGINE[@VERSION] (find_engine in
// gpuplan/engine.hpp: "vllm@0.6.3", "tensorrt-llm@1.0", "sglang", "lmdeploy").
// Empty, or an engine without a profile, or one that does not run on the GPU's
// vendor (TurboMind off NVIDIA): vLLM's, with the reason in `fallback`. A KV
// precision the engine does not offer throws InputError. Some engines size
// their limits from the run (trtllm-bench reads the model, the lengths and the
// GPU), hence the other arguments.
EngineDefaults engine_defaults(const std::string& framework, const ModelSpec& model, const GpuSpec& gpu,
                               const InferenceOptions& o, int64_t input_len, int64_t output_len);
// The engine's step mechanics as InferenceOptions: CUDA graphs or eager
// launches, its per-step host work, how the cache takes new K/V and which pass
// samples the first token (a static batch run takes these alone).
inline void apply_engine_host(InferenceOptions& o, const EngineDefaults& e) {
  o.cuda_graphs = e.cuda_graphs;
  o.eager_layer_s = e.eager_layer_s;
  o.host_step_s = e.host_step_s;
  o.kv_concat_copy = e.kv_concat_copy;
  o.kv_read_per_query_head = e.kv_read_per_query_head;
  o.first_token_from_decode = e.first_token_from_decode;
  o.attention_scores_materialised = e.attention_scores_materialised;
  o.prefill_ubatch_tokens = e.prefill_ubatch_tokens;
  o.tp_allreduce_nccl = e.tp_allreduce_nccl;
  o.fp8_blas_above_tokens = e.fp8_blas_above_tokens;
}


// Why a max-throughput run or a serving replica layout is infeasible
// (MaxThroughputRun, ServingPlan, ServingLayoutTried): a code, and in
// InferRefusalReason the values its sentence needs; the sentence is the
// report's (infer_refusal_text in src/report/inference_notes.hpp).
enum class InferRefusal {
  kNone,                  // feasible
  kInvalidLayout,         // validate_inference refused the layout: `error`
  kWeightsDoNotFit,       // weights and runtime (weights_bytes per GPU) do not fit gpu_id
  kSequenceKvDoesNotFit,  // the KV cache of one context_tokens sequence does not fit beside the weights
  kBatchKvDoesNotFit,     // `batch` sequences of context_tokens need more than the cached_tokens that fit
  kPromptOverStepBudget,  // an input_tokens prompt exceeds max_num_tokens, and the engine does not chunk prefills
  kTpotOverTarget,        // even one sequence takes took_s per output token, above target_s
  kTtftOverTarget,        // one prompt's first token takes took_s, above target_s
};
struct InferRefusalReason {
  InferRefusal code = InferRefusal::kNone;
  // The TP degree the sentence names: an offline run's (run_infer tries
  // several); 0 for a serving layout, whose row shows its degrees.
  int tp = 0;
  std::string gpu_id;          // kWeightsDoNotFit
  double weights_bytes = 0;    // kWeightsDoNotFit: weights and runtime per GPU
  int64_t context_tokens = 0;  // kSequenceKvDoesNotFit, kBatchKvDoesNotFit: input + output tokens
  int64_t batch = 0;           // kBatchKvDoesNotFit: the sequences asked for (ServingTarget::batch)
  int64_t cached_tokens = 0;   // kBatchKvDoesNotFit: the tokens the KV budget holds
  int64_t input_tokens = 0;    // kPromptOverStepBudget
  int64_t max_num_tokens = 0;  // kPromptOverStepBudget: the engine's step budget
  double took_s = 0;           // kTpotOverTarget, kTtftOverTarget: the latency reached
  double target_s = 0;         // and its target
  // kInvalidLayout: the InputError's sentence, made where it was thrown (gpuplan/error.hpp).
  Bilingual error;
};

// A max-throughput (offline) run: every request queued at once, batched by the
// engine as far as its KV cache, max_batch_size and max_num_tokens allow.
struct MaxThroughputRun {
  int64_t batch = 0;                 // concurrent sequences reached
  int64_t batch_kv_limit = 0;        // sequences whose whole input+output KV blocks fit
  int64_t batch_engine_limit = 0;    // the engine's max_batch_size
  int64_t batch_token_limit = 0;     // sequences whose steady-state step fits max_num_tokens
  std::string limited_by;            // "kv_cache", "max_batch_size" or "max_num_tokens"
  double kv_blocks = 0;              // paged blocks in the KV pool per GPU
  double tokens_per_step = 0;
  double step_s = 0;
  double tpot_s = 0;                 // mean time per output token of a sequence (= step_s)
  double requests_per_s = 0;
  double output_tokens_per_s = 0;    // whole TP group
  double output_tokens_per_s_per_gpu = 0;
  double prefill_fraction = 0;
  bool feasible = false;
  InferRefusalReason refusal;        // why not feasible (code kNone when feasible)
  InferenceMemory memory;
  PassTime step;
  EngineDefaults engine;
};
// `o.tp` is the TP degree; the engine's memory rule and limits replace o's
// memory_utilization, prefill_chunk_tokens and max_seqs_per_step.
MaxThroughputRun max_throughput_run(const ModelSpec& model, const GpuSpec& gpu, InferenceOptions o,
                                    const EngineDefaults& engine, int64_t input_len, int64_t output_len);

// The time-per-output-token target `infer` applies when none is given: 50 ms,
// 20 tokens/s per user, what DeepSeek reports its own V3/R1 service delivers
// (20–22 tokens/s; "DeepSeek-V3/R1 Inference System Overview", 2025-03-01).
inline constexpr double kDefaultTpotTargetS = 0.050;

// A serving deployment under continuous batching (inference_serving.cpp).
struct ServingTarget {
  int64_t input_len = 2048;
  int64_t output_len = 512;
  double requests_per_s = 0;    // 0: size one replica only
  // Replicas are sized for requests_per_s × rate_margin (≥ 1): the slow end of
  // gpuplan's errors on published serving runs at the asked confidence
  // (infer_report_for sets it), so the search picks the layout with the fewest
  // GPUs at that margin, the count the headline reports.
  double rate_margin = 1;
  double tpot_target_s = 0;     // 0: none; otherwise the batch is capped to meet it
  double ttft_target_s = 0;     // 0: none; otherwise a layout whose first token takes longer is infeasible
  int64_t batch = 0;            // 0: the largest that fits (and meets the target)
  int tp = 0;                   // 0: search 1, 2, 4, 8
  int pp = 0;                   // 0: search 1, 2, 4, 8 stages (1 unless the model needs more than a node)
  int ep = 0;                   // MoE: 0 searches 1 (experts split by TP) and EP = tp × dp_attention over 8…256 GPUs
  // Prefill/decode disaggregation (DistServe, Zhong et al. 2024; Splitwise,
  // Patel et al. 2024; SGLang/Dynamo/Mooncake PD pools): separate prefill and
  // decode replicas, the KV cache of each prompt sent from one to the other.
  bool disaggregate = false;
  // The serving engine as free text (engine_defaults): its KV-pool rule and
  // scheduler cap size each replica. Empty: vLLM's defaults, with the
  // InferenceOptions' memory_utilization (--memory-utilization) as given.
  std::string engine;
};

// One replica layout the search tried.
struct ServingLayoutTried {
  int tp = 1, pp = 1, ep = 1, dp_attention = 1;
  int64_t gpus_per_replica = 1;
  int64_t batch = 0;            // concurrent sequences per replica (0 when infeasible)
  double tpot_s = 0;
  double replica_requests_per_s = 0;
  int64_t replicas = 0;
  int64_t gpus = 0;
  bool feasible = false;
  InferRefusalReason refusal;   // why not feasible (code kNone when feasible)
};

// plan_serving found no layout that serves: what its sentence names
// (serving_why_not in src/report/inference_notes.hpp).
struct NoServingLayout {
  std::string model;                 // ModelSpec::name
  std::string gpu;                   // GpuSpec::name
  int64_t max_gpus_per_replica = 0;  // the largest replica the search tries
  double tpot_target_s = 0;          // the target the batches were capped to (0: none)
  bool tried_any = false;            // false: the search had no layout to try
  int tp = 1, pp = 1, ep = 1;        // the last layout tried
  InferRefusalReason why;            // why it fails (the last refusal of the search)
};

struct ServingPlan {
  int tp = 1;
  int pp = 1;
  int ep = 1;
  int dp_attention = 1;
  int64_t gpus_per_replica = 1;
  int64_t nodes_per_replica = 1;
  int64_t batch = 0;            // concurrent sequences per replica
  int64_t max_batch_memory = 0; // largest that fits at input+output context
  int64_t replicas = 1;
  int64_t gpus = 1;
  double ttft_s = 0;            // one request's prefill on an otherwise decoding replica
  double tpot_s = 0;            // decode step, inflated by interleaved prefills
  double decode_step_s = 0;     // decode step alone
  double tpot_target_s = 0;     // the target the batch was capped to (0: none)
  double replica_requests_per_s = 0;
  double replica_output_tokens_per_s = 0;
  double output_tokens_per_s = 0;            // deployment at the target rate (or capacity when no rate)
  double output_tokens_per_s_per_gpu = 0;    // at capacity
  double utilisation = 1;                    // target rate / capacity
  double prefill_fraction = 0;               // share of replica time spent in prefill
  // Disaggregated pools (ServingTarget::disaggregate): the decode pool is the
  // replicas above (decode-only steps); the prefill pool is sized for the
  // prompt tokens per second, and each prompt's KV crosses between them.
  bool disaggregated = false;
  int64_t prefill_replicas = 0;
  int64_t prefill_gpus = 0;
  double prefill_replica_tokens_per_s = 0;   // prompt tokens/s one prefill replica sustains
  double kv_transfer_s = 0;                  // one prompt's KV cache, prefill pool → decode pool
  InferenceMemory memory;
  PassTime prefill, decode;
  std::vector<ServingLayoutTried> layouts;   // every layout the search tried, in order
  bool feasible = false;
  InferRefusalReason refusal;   // this layout's refusal (code kNone when feasible)
  // Set by plan_serving when no layout serves: its sentence replaces the
  // layout's own (the plan's other fields are then the first layout refused).
  std::optional<NoServingLayout> no_layout;
  EngineDefaults engine;        // the engine defaults the replicas were sized with
};

// What the plan assumes of its batching and parallelism is said from its
// fields (serving_assumptions in src/report/inference_notes.hpp).
ServingPlan plan_serving(const ModelSpec& model, const GpuSpec& gpu, InferenceOptions o, const ServingTarget& t);

// The longest context the model was trained for (max_position_embeddings of its
// catalog config.json); 0 when unknown.
int64_t model_max_context(const ModelSpec& model);
// The sequence length assumed when none is given (issue 25), one rule for the
// library, CLI, web and Python: 4,096 tokens (Llama 2's pre-training context),
// or the model's own context where that is shorter (GPT-3: 2,048, Brown et al.
// 2020 §2.1), so a catalog model's default is always a length it was trained at.
inline constexpr int64_t kDefaultSeqLen = 4096;
int64_t default_seq_len(const ModelSpec& model);
// Throws InputError naming `field` when `tokens` exceed model_max_context
// (unless `force`: the user means to plan a longer context anyway).
void require_supported_context(const ModelSpec& model, int64_t tokens, bool force, const std::string& field);

// Throws InputError naming the field when the options cannot run this model on this GPU.
void validate_inference(const ModelSpec& model, const GpuSpec& gpu, const InferenceOptions& o);

// `gpuplan infer` as a request (make_infer_request turns the front ends' text
// into it) and its run (run_infer): the best max-throughput run over the TP
// degrees to try, or the serving deployment for the target.
struct InferRequest {
  ModelSpec model;
  GpuSpec gpu;
  InferenceOptions options;              // checked (validate_inference)
  bool max_throughput = false;
  std::vector<int> max_throughput_tps;   // the TP degrees an offline run tries
  ServingTarget target;                  // the serving deployment's (input and output lengths for both)
  std::string engine;                    // ENGINE@VERSION, empty: the generic engine
  double confidence = 0.8;               // replicas sized to keep up with this probability
  // The price as typed: read once a deployment is found, so an infeasible
  // target is said before a price is questioned.
  std::optional<std::string> price_text, market_text, provider, currency_text;
  std::string lang = "en";               // picks the default market (zh: cn)
};

// Issue 15: with a request rate, run_infer sizes the replicas so the
// deployment keeps up at `confidence` given gpuplan's errors on published
// serving runs (data/intervals.json, kind inference; ServingTarget::rate_margin),
// with the counts at the median error and on the model's own throughput beside it.
struct ServingSizing {
  double confidence = 0.8;
  int64_t replicas_model = 0;    // on the model's own throughput
  int64_t replicas_median = 0;   // at the median error
  int64_t replicas = 0;          // at `confidence`
};

struct InferRun {
  InferenceOptions options;              // max-throughput: the best TP's
  MaxThroughputRun best;                 // max-throughput only
  ServingPlan plan;                      // serving only
  ServingTarget target;                  // serving only: the request's target with its rate margin
  PriceInput price;                      // serving only: the price terms read
  Price resolved_price;                  // serving only: `price` resolved for the GPU
  std::optional<ServingSizing> sizing;   // serving at a request rate, where the interval table has residuals
};

// Throws InputError with one sentence where no deployment meets the target.
InferRun run_infer(const InferRequest& request);

}  // namespace gpuplan
