// What an inference engine does when a run leaves its scheduler and memory
// settings out: the engine's profile (data/engines/*.json, every value cited to
// its code at the version) turned into the limits of one run. The few rules
// that are code in the engine (trtllm-bench's sizing, SGLang's reserve and
// pool) are here, each cited; their constants are in the profile. No value is
// a speed or an efficiency, and none is taken from a benchmark case.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include "gpuplan/engine.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/units.hpp"
#include "estimate/inference/inference_internal.hpp"
#include "units/text_match.hpp"

namespace gpuplan {
namespace {

// The first row of the profile's device table that holds for this GPU and TP.
const EngineDeviceRule& device_row(const EngineProfile& p, const GpuSpec& g, int tp) {
  const double gib = g.memory_bytes / kGiB;
  const std::string name = ascii_lower(g.name);
  for (const EngineDeviceRule& r : p.device_rules) {
    if (gib < r.memory_gib_at_least) continue;
    if (r.memory_gib_below > 0 && gib >= r.memory_gib_below) continue;
    if (!r.name_has.empty() && name.find(r.name_has) == std::string::npos) continue;
    if (!r.name_lacks.empty() && name.find(r.name_lacks) != std::string::npos) continue;
    if (tp < r.tp_at_least || (r.tp_below > 0 && tp >= r.tp_below)) continue;
    return r;
  }
  return p.device_rules.back();
}

// trtllm-bench's own sizing of max_batch_size and max_num_tokens when the user
// gives neither: tensorrt_llm/bench/build/tuning.py calc_engine_setting() and
// finetune_setting(enable_optimistic_tuning=True), pp = 1 (TensorRT-LLM 1.0).
void trtllm_bench_limits(const EngineProfile& p, const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, int64_t input_len,
                         int64_t output_len, EngineDefaults& e) {
  // BYTES_PER_ELEM: NO_QUANT 2, FP8 1, NVFP4 0.5; anything else 2.
  const double weight_elem = o.weights == WeightFormat::kFp8 ? 1.0 : 2.0;
  const double kv_elem = o.kv == Precision::kFp8 ? 1.0 : 2.0;
  // "Each GPU in TP group has at least 1 kv head": max(tp, num_key_value_heads).
  const double kv_heads = static_cast<double>(std::max<int64_t>(o.tp, m.kv_heads));
  const double gib_per_token = m.mla ? kv_bytes_per_token(m, kv_elem) / kGiB
                                     : 2.0 * static_cast<double>(m.layers) * kv_heads * static_cast<double>(m.head_dim) * kv_elem / kGiB;
  // engine_size = param_count · bytes / GiB; total memory = NVML total (GiB, bench/build/utils.py
  // get_device_memory) × GPUs; cache_memory = (total − engine) × kv_cache_gpu_mem_fraction.
  const double engine_gib = count_params(m).total * weight_elem / kGiB;
  const double total_gib = g.memory_bytes / kGiB * o.tp;
  const double cache_gib = (total_gib - engine_gib) * e.kv_memory_fraction;
  const double kv_max_requests = std::max(0.0, cache_gib / (gib_per_token * static_cast<double>(input_len + output_len)));
  const double raw_bs = std::min(kv_max_requests, p.constant("max_batch_size_cap"));
  const double raw_token = std::min(raw_bs * (1 + static_cast<double>(input_len) / static_cast<double>(output_len)), p.constant("max_num_tokens_cap"));
  if (raw_bs < 256) e.max_batch_size = std::max<int64_t>(64, 32 * static_cast<int64_t>(std::ceil(raw_bs / 32)));
  else if (raw_bs < 1024) e.max_batch_size = 128 * static_cast<int64_t>(std::ceil(raw_bs / 128));
  else e.max_batch_size = 256 * static_cast<int64_t>(std::ceil(raw_bs / 256));
  if (raw_token < 4096) e.max_num_tokens = std::max<int64_t>(2048, 256 * static_cast<int64_t>(std::ceil(raw_token / 256)));
  else if (raw_token < 8192) e.max_num_tokens = 512 * static_cast<int64_t>(std::ceil(raw_token / 512));
  else e.max_num_tokens = 1024 * static_cast<int64_t>(std::ceil(raw_token / 1024));
  // Without chunked prefill get_settings raises max_num_tokens to max_isl + max_batch_size.
  if (!p.chunked_prefill) e.max_num_tokens = std::max<int64_t>(e.max_num_tokens, input_len + e.max_batch_size);
  e.trtllm_bench_sizing = TrtllmBenchSizing{e.max_batch_size, e.max_num_tokens, input_len, output_len};
}

// SGLang's share of the device for weights + KV pool: ServerArgs._handle_gpu_memory_settings
// reserved_mem (MiB) = metadata + max(chunk, min_chunk) · per-token activations + graph bs · per-batch
// graphs + tp/8 · 1024, with a floor above 60 GiB; fraction = round((gpu_mem − reserved) / gpu_mem, 3).
void sglang_fraction(const EngineProfile& p, const GpuSpec& g, int tp, const EngineDeviceRule& row, EngineDefaults& e) {
  const double gpu_mib = g.memory_bytes / (1024.0 * 1024.0);
  double reserved = p.constant("metadata_mib") +
                    static_cast<double>(std::max<long long>(row.max_num_batched_tokens, static_cast<long long>(p.constant("min_chunk_tokens")))) *
                        p.constant("activation_mib_per_chunk_token") +
                    static_cast<double>(row.cuda_graph_max_bs) * p.constant("graph_mib_per_batch") + tp / 8.0 * p.constant("mib_per_8_ranks");
  const bool floor = gpu_mib > 60 * 1024;
  if (floor) reserved = std::max(reserved, p.constant("min_reserved_gib_above_60_gib") * 1024);
  e.kv_memory_fraction = std::nearbyint((gpu_mib - reserved) / gpu_mib * 1000) / 1000;
  e.sglang_mem_fraction = SglangMemFraction{e.kv_memory_fraction, reserved, gpu_mib, tp, row.max_num_batched_tokens, row.cuda_graph_max_bs, floor};
}

// SGLang's max_running_requests: min(max_total_num_tokens // 2, the req_to_token pool of
// min(max(int(tokens / context_len · 512), 2048), 4096)) (model_executor/model_runner.py init_memory_pool).
void sglang_pool(const EngineProfile& p, const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, EngineDefaults& e) {
  InferenceOptions mo = o;
  inference_detail::apply_engine_memory_rule(mo, e);  // the pool is sized before the buffers: max_batch_size does not enter it
  const InferenceMemory mem = inference_memory(m, g, mo);
  const double tokens = mem.weights_fit ? mem.max_cached_tokens : 0;
  const int64_t context_len = model_max_context(m);
  const double per_context = context_len > 0 ? tokens / static_cast<double>(context_len) * p.constant("pool_requests_per_context") : p.constant("pool_requests_min");
  const int64_t pool_reqs = std::clamp<int64_t>(static_cast<int64_t>(per_context), static_cast<int64_t>(p.constant("pool_requests_min")),
                                                static_cast<int64_t>(p.constant("pool_requests_max")));
  e.max_batch_size = std::max<int64_t>(1, std::min(static_cast<int64_t>(tokens) / 2, pool_reqs));
  e.sglang_running_requests = SglangRunningRequests{e.max_batch_size, tokens, context_len};
}

// vLLM V0 (vllm/engine/arg_utils.py create_engine_config @001999d2; vllm/config.py
// SchedulerConfig.__post_init__): with enable_chunked_prefill unset, chunked
// prefill is on for max_model_len > 32K on CUDA (not ROCm); its budget is
// _DEFAULT_MAX_NUM_BATCHED_TOKENS 2048, and without it max(max_model_len, 2048).
void vllm_v0_limits(const EngineProfile& p, const ModelSpec& m, const GpuSpec& g, EngineDefaults& e) {
  const int64_t context = model_max_context(m);
  const auto long_context = static_cast<int64_t>(p.constant("long_context_tokens"));
  const auto floor_tokens = static_cast<int64_t>(p.constant("min_budget_tokens"));
  e.chunked_prefill = context > long_context && g.vendor == "nvidia";
  e.max_num_tokens = e.chunked_prefill ? static_cast<int64_t>(p.constant("chunked_budget_tokens")) : std::max(context, floor_tokens);
  // Without chunking a step holds prefills or decodes, never both (vllm/core/scheduler.py _schedule_default).
  e.mixed_prefill_decode = e.chunked_prefill;
}

void table_limits(const EngineProfile& p, int tp, const EngineDeviceRule& row, EngineDefaults& e) {
  if (row.max_num_seqs > 0) e.max_batch_size = row.max_num_seqs;
  if (p.prefill_budget_plus_batch > 0) {
    // TurboMind: max_forward_token_num = max_prefill_token_num + max_batch_size, a multiple of attn_tp.
    const int64_t sp = std::max(1, tp);
    e.max_num_tokens = (p.prefill_budget_plus_batch + e.max_batch_size + sp - 1) / sp * sp;
  } else if (row.max_num_batched_tokens > 0) {
    e.max_num_tokens = row.max_num_batched_tokens;
  }
}

EngineDefaults from_profile(const EngineProfile& p, const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, int64_t input_len,
                            int64_t output_len) {
  EngineDefaults e;
  e.profile = p.label();
  e.engine_name = p.name;
  e.version = p.version;
  if (!p.note.empty()) e.notes.push_back({p.note, p.note_zh});
  e.kv_memory_fraction = p.kv_memory_fraction;
  e.kv_share_of = p.kv_share_of;
  e.kv_sized_before_buffers = p.kv_sized_before_buffers;
  e.tokens_per_block = p.kv_block_tokens;
  e.chunked_prefill = p.chunked_prefill;
  e.mixed_prefill_decode = p.mixed_prefill_decode;
  e.reserve_whole_sequence = p.reserve_whole_sequence;
  e.cuda_graphs = p.cuda_graphs;
  e.host_step_s = p.host_step_s;
  e.eager_layer_s = p.eager_layer_s;
  e.kv_concat_copy = p.kv_concat_copy;
  e.kv_read_per_query_head = p.kv_read_per_query_head;
  e.first_token_from_decode = p.first_token_from_decode;
  e.attention_scores_materialised = p.attention_scores_materialised;
  e.prefill_ubatch_tokens = p.prefill_ubatch_tokens;
  // What the ROCm build does differently (its all-reduce, its FP8 GEMM kernels)
  // applies on AMD parts only.
  const bool rocm = g.vendor == "amd";
  e.tp_allreduce_nccl = rocm && p.tp_allreduce_rocm_nccl ? *p.tp_allreduce_rocm_nccl : p.tp_allreduce_nccl;
  e.fp8_blas_above_tokens = rocm ? p.rocm_skinny_fp8_tokens : -1;
  e.static_batching = p.batching == BatchingMode::kStatic;
  if (p.prefill_context_is_session_len) {
    // session_len = the model's max length; LMDeploy's 2048 when the config names none.
    const int64_t context_len = model_max_context(m);
    e.max_prefill_context_tokens = context_len > 0 ? context_len : 2048;
  }
  const EngineDeviceRule* row = p.device_rules.empty() ? nullptr : &device_row(p, g, o.tp);
  // The pool's share: a row's own (SGLang 0.4: mem_fraction_static by TP degree), else
  // the profile's rule, else its fixed fraction (set above).
  if (row && row->kv_memory_fraction > 0) {
    e.kv_memory_fraction = row->kv_memory_fraction;
  } else if (p.kv_fraction_rule == KvFractionRule::kDeviceLessReserve) {
    // SGLang 0.4.6 server_args.py l.223-238: (gpu_mem − reserve) / gpu_mem, gpu_mem in MiB.
    const double gpu_mib = g.memory_bytes / (1024.0 * 1024.0);
    e.kv_memory_fraction = (gpu_mib - p.constant("reserved_mib")) / gpu_mib;
  } else if (p.kv_fraction_rule == KvFractionRule::kSglangReservedMemory && row) {
    sglang_fraction(p, g, o.tp, *row, e);
  }
  switch (p.batch_limit_rule) {
    case BatchLimitRule::kTrtllmBenchTuning:
      trtllm_bench_limits(p, m, g, o, std::max<int64_t>(1, input_len), std::max<int64_t>(1, output_len), e);
      break;
    case BatchLimitRule::kSglangPool:
      // Prefill batches hold at most chunked_prefill_size tokens, as steps of their own.
      if (row) e.max_num_tokens = row->max_num_batched_tokens;
      sglang_pool(p, m, g, o, e);
      break;
    case BatchLimitRule::kVllmV0Scheduler:
    case BatchLimitRule::kDeviceTable:
      if (row) table_limits(p, o.tp, *row, e);
      if (p.batch_limit_rule == BatchLimitRule::kVllmV0Scheduler) vllm_v0_limits(p, m, g, e);
      // The report names the row the limits came from (engine_limits_note).
      e.device_row = row ? std::optional<EngineDeviceRule>(*row) : std::nullopt;
      break;
  }
  // A static batch prefills its prompts in one pass: the activations of one
  // prompt's tokens per sequence (the batch's are counted one prompt at a time).
  if (e.static_batching) e.max_num_tokens = std::max<int64_t>(1, input_len);
  for (const EngineFact& f : p.facts) {
    if (f.source.rfind("not stated in the profile", 0) != 0) e.facts.push_back(f);
  }
  return e;
}

}  // namespace

EngineDefaults engine_defaults(const std::string& framework, const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o,
                               int64_t input_len, int64_t output_len) {
  // Unnamed or without a profile: vLLM's defaults, with the reason (validate's cases
  // name engines gpuplan has no profile for; the CLI refuses an unknown --engine).
  const bool known = !framework.empty() && engine_has_profile(framework);
  EngineProfile p = find_engine(known ? framework : "vllm", "engine");
  EngineFallbackReason fallback;
  if (framework.empty()) {
    fallback.reason = EngineFallback::kNotNamed;
  } else if (!known) {
    fallback = EngineFallbackReason{EngineFallback::kNoProfile, framework, "", "", ""};
  } else if (!p.runs_on(g.vendor) && p.id != "vllm") {
    // TurboMind runs on CUDA only; elsewhere LMDeploy runs its PyTorch engine, which has no profile.
    fallback = EngineFallbackReason{EngineFallback::kNotOnVendor, framework, p.label(), g.vendor, g.id};
    p = find_engine("vllm", "engine");
  }
  // A KV precision the engine does not offer is refused (TurboMind: "FP8 quantization is not supported").
  const std::string kv = precision_name(o.kv);
  if (known && fallback.reason == EngineFallback::kNone && std::find(p.kv_precisions.begin(), p.kv_precisions.end(), kv) == p.kv_precisions.end()) {
    std::string offered;
    for (const auto& k : p.kv_precisions) offered += (offered.empty() ? "" : ", ") + k;
    throw InputError("--kv-precision", fmt::format("{} has no {} KV cache: use --kv-precision {} (data/engines/{}.json).", p.label(), kv, offered, p.id),
                     fmt::format("{} 不支持 {} KV 缓存：请用 --kv-precision {}（data/engines/{}.json）。", p.label(), kv, offered, p.id));
  }
  EngineDefaults e = from_profile(p, m, g, o, input_len, output_len);
  e.fallback = fallback;
  return e;
}

}  // namespace gpuplan
