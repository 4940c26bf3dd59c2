// Serving-engine profiles: what an inference engine does by default at a
// version (data/engines/*.json, the format in data/engines/README.md). Like a
// framework profile, a value is a fact about the software, cited to its code
// or docs at that version; none is a speed factor. The batching, KV-pool and
// step-time models read the same resolved profile.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

// One row of an engine's device-keyed defaults (vLLM's get_batch_defaults,
// LMDeploy's get_max_batch_size, SGLang's _handle_gpu_memory_settings): the
// first row whose conditions all hold gives the limits. A zero limit is "not
// set by this row".
struct EngineDeviceRule {
  double memory_gib_at_least = 0;  // device memory ≥ this (GiB; 0: any)
  double memory_gib_below = 0;     // device memory < this (GiB; 0: no bound)
  std::string name_has;            // lower-case token the device's name contains ("" any)
  std::string name_lacks;          // lower-case token it must not contain ("" any)
  int tp_at_least = 0;             // the row holds from this TP degree (0: any)
  int tp_below = 0;                // and below this one (0: no bound)
  long long max_num_seqs = 0;
  long long max_num_batched_tokens = 0;
  long long cuda_graph_max_bs = 0;
  // The KV pool's share on this row (SGLang 0.4's mem_fraction_static by TP
  // degree); 0: the profile's kv_cache_memory fraction.
  double kv_memory_fraction = 0;
};

// What an engine's own code states as a fact: the key, its value in the
// file's words and the citation (gpuplan engines, docs/engines.md).
struct EngineFact {
  std::string key;
  std::string value;
  std::string source;
};

// What the KV pool's fraction is of: the whole device, weights and buffers
// included (vLLM gpu_memory_utilization); the memory free after the weights
// load (TensorRT-LLM, TurboMind from v0.2.2); or the device's total memory for
// the pool alone (TurboMind before v0.2.2: BlockManager::GetBlockCount).
enum class KvShareOf { kDevice, kFreeAfterWeights, kDeviceTotalForPool };
// How the scheduler's limits are set when a run leaves them out:
// kDeviceTable: the first matching EngineDeviceRule; kTrtllmBenchTuning:
// trtllm-bench's sizing from model, lengths and memory; kSglangPool: SGLang's
// max_running_requests from its KV pool; kVllmV0Scheduler: vLLM V0's
// SchedulerConfig budget and long-context chunked prefill; each rule's code is cited in
// src/estimate/inference/inference_engines.cpp.
enum class BatchLimitRule { kDeviceTable, kTrtllmBenchTuning, kSglangPool, kVllmV0Scheduler };
// How a KV-pool fraction is found: fixed, SGLang's reserve formula (0.5.x,
// rounded to three decimals), or the device less a fixed reserve (SGLang 0.4.6
// above 80 GiB: (gpu_mem − reserved) / gpu_mem, unrounded).
enum class KvFractionRule { kFixed, kSglangReservedMemory, kDeviceLessReserve };
// How a batch decodes: continuous batching over a paged KV pool, or one
// static batch per generate() call (HF transformers, llama.cpp's CLI).
enum class BatchingMode { kContinuous, kStatic };

struct EngineProfile {
  std::string id;        // "vllm"
  std::string name;      // "vLLM"
  std::string version;   // the entry's version, "0.10.2"
  std::string date;      // "2025-09"
  std::string version_source;
  std::string note;      // why this entry was taken for the version asked (empty: exact)
  std::string note_zh;

  std::vector<std::string> platforms{"nvidia"};  // vendors it runs on (GpuSpec::vendor)
  BatchingMode batching = BatchingMode::kContinuous;
  // The KV pool: `kv_memory_fraction` of the device (vLLM gpu_memory_utilization)
  // or of the memory free after the weights load (TensorRT-LLM, LMDeploy).
  double kv_memory_fraction = 0.90;
  KvShareOf kv_share_of = KvShareOf::kDevice;
  bool kv_sized_before_buffers = false;  // the pool is sized before activations and graphs are made
  KvFractionRule kv_fraction_rule = KvFractionRule::kFixed;
  BatchLimitRule batch_limit_rule = BatchLimitRule::kDeviceTable;
  std::vector<EngineDeviceRule> device_rules;
  // Forward-pass token budget = this + max_num_seqs (TurboMind's
  // max_prefill_token_num + max_batch_size); 0: the rule's max_num_batched_tokens.
  long long prefill_budget_plus_batch = 0;
  long long kv_block_tokens = 16;
  bool chunked_prefill = true;
  bool mixed_prefill_decode = true;
  bool reserve_whole_sequence = false;   // admit only with blocks for input + output free
  bool prefill_context_is_session_len = false;  // one pass's prefills hold at most the model's context
  std::vector<std::string> kv_precisions{"fp16", "bf16", "fp8"};
  bool cuda_graphs = true;               // decode steps replayed as CUDA graphs by default
  // Host work per decode step the GPU waits for (scheduling, input
  // preparation, sampling, output processing not overlapped with the
  // kernels), seconds; 0 where the engine overlaps it.
  double host_step_s = 0;
  // Host time to dispatch one decoder layer's operators when a step runs
  // eagerly (no CUDA graph), seconds: the GPU waits whenever its kernels are
  // shorter than their dispatch.
  double eager_layer_s = 0;
  // Each decode step rewrites every layer's whole cache (HF DynamicLayer's
  // torch.cat): the cache is read and written once more per step.
  bool kv_concat_copy = false;
  // The decode attention kernel runs one thread block per (sequence, query
  // head), each reading its KV head's cache: with GQA a KV head's cache is
  // read once per query head of its group (TensorRT-LLM's masked MHA before
  // XQA), not once per KV head.
  bool kv_read_per_query_head = false;
  // Where a request's first output token comes from: the pass that prefills its
  // prompt (false), or the decode step after it, the prefill covering every
  // prompt token but the last (TurboMind before v0.1.0's unified passes).
  bool first_token_from_decode = false;
  // The attention scores go through memory between kernels: the KQ product in
  // F32 over every key of the cache (masked ones too), a softmax kernel, then
  // the product with V (llama.cpp without flash attention, its default).
  bool attention_scores_materialised = false;
  // Prompt tokens one forward pass takes (llama.cpp's n_ubatch): a longer
  // prompt is prefilled in passes of this many tokens, each re-reading the
  // weights and attending to what the earlier ones cached. 0: one pass.
  long long prefill_ubatch_tokens = 0;
  // Tensor-parallel all-reduce through NCCL (RCCL) for every message size,
  // not a one-/two-shot custom all-reduce for the small ones (TGI, TensorRT-LLM
  // built without --use_custom_all_reduce).
  bool tp_allreduce_nccl = false;
  // The same on AMD GPUs where the ROCm build differs (vLLM before its ROCm
  // custom all-reduce ran RCCL at every size); unset: tp_allreduce_nccl.
  std::optional<bool> tp_allreduce_rocm_nccl;
  // On AMD GPUs, the most token rows a per-tensor FP8 GEMM may have for the
  // engine to run its own skinny kernel (vLLM's wvSplitKQ at one row); more
  // rows go to hipBLASLt (torch._scaled_mm), which streams the weights at
  // GpuSpec::blas_fp8_decode_hbm_efficiency. -1: the engine's own kernels at
  // every size (no BLAS statement).
  long long rocm_skinny_fp8_tokens = -1;
  // Named constants a rule uses (trtllm-bench's caps, SGLang's reserve
  // coefficients), each cited in the data file.
  std::vector<std::pair<std::string, double>> rule_constants;

  std::vector<EngineFact> facts;  // every property as stated, with its source

  double constant(const std::string& key) const;  // a rule constant; throws if the profile lacks it
  bool runs_on(const std::string& vendor) const;
  std::string label() const { return id + "@" + version; }
};

struct EngineFamily {
  std::string id;
  std::string name;
  std::string repository;
  std::vector<std::string> aliases;   // normalised
  std::vector<EngineProfile> versions;  // in date order, each fully resolved
};

// Every engine profile compiled in from data/engines/, sorted by id.
const std::vector<EngineFamily>& engine_catalog();

// "vllm", "vllm@0.6.3", "tensorrt-llm@1.0", "SGLang 0.5" (a space for the @),
// an alias ("trtllm", "turbomind"). The version resolves to the latest entry at
// or before it (release numbers compared part by part, or a date YYYY-MM); one
// older than every entry takes the first, saying so in `note`. Unknown engine:
// InputError naming `field` and the known ids.
EngineProfile find_engine(const std::string& spec, const std::string& field);
// Whether `spec` names an engine that has a profile (any version).
bool engine_has_profile(const std::string& spec);


}  // namespace gpuplan
