// What an inference engine does when an offline (max-throughput) run leaves its
// scheduler and memory settings out: read from each engine's own code at the
// version named, one citation per value. No value here is a speed or an
// efficiency, and none is taken from a benchmark case.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "gpuplan/error.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/units.hpp"
#include "inference_internal.hpp"
#include "units/text_match.hpp"

namespace gpuplan {
namespace {

bool is_tensorrt_llm(const std::string& f) {
  return f.find("tensorrt") != std::string::npos || f.find("trt-llm") != std::string::npos ||
         f.find("trtllm") != std::string::npos;
}

// trtllm-bench's own sizing of max_batch_size and max_num_tokens when the user
// gives neither: tensorrt_llm/bench/build/tuning.py calc_engine_setting() and
// finetune_setting() (TensorRT-LLM 1.0 era; called from
// bench/benchmark/utils/general.py get_settings() through
// bench/build/build.py get_benchmark_engine_settings() for FP8, FP8 block
// scales, NVFP4 and unquantised checkpoints).
struct TrtllmBenchLimits {
  int64_t max_batch_size = 0;
  int64_t max_num_tokens = 0;
};

TrtllmBenchLimits trtllm_bench_limits(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o,
                                      double kv_fraction, int64_t input_len, int64_t output_len) {
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
  const double cache_gib = (total_gib - engine_gib) * kv_fraction;
  const double kv_max_requests = std::max(0.0, cache_gib / (gib_per_token * static_cast<double>(input_len + output_len)));
  // finetune_setting(enable_optimistic_tuning=True), pp = 1.
  const double raw_bs = std::min(kv_max_requests, 4096.0);
  const double raw_token = std::min(raw_bs * (1 + static_cast<double>(input_len) / static_cast<double>(output_len)), 32768.0);
  TrtllmBenchLimits t;
  if (raw_bs < 256) t.max_batch_size = std::max<int64_t>(64, 32 * static_cast<int64_t>(std::ceil(raw_bs / 32)));
  else if (raw_bs < 1024) t.max_batch_size = 128 * static_cast<int64_t>(std::ceil(raw_bs / 128));
  else t.max_batch_size = 256 * static_cast<int64_t>(std::ceil(raw_bs / 256));
  if (raw_token < 4096) t.max_num_tokens = std::max<int64_t>(2048, 256 * static_cast<int64_t>(std::ceil(raw_token / 256)));
  else if (raw_token < 8192) t.max_num_tokens = 512 * static_cast<int64_t>(std::ceil(raw_token / 512));
  else t.max_num_tokens = 1024 * static_cast<int64_t>(std::ceil(raw_token / 1024));
  return t;
}

EngineDefaults tensorrt_llm_defaults(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, int64_t input_len,
                                     int64_t output_len) {
  EngineDefaults e;
  e.name = "TensorRT-LLM 1.0 (PyTorch backend, trtllm-bench throughput)";
  e.name_zh = "TensorRT-LLM 1.0（PyTorch 后端，trtllm-bench 吞吐测试）";
  // trtllm-bench throughput --kv_cache_free_gpu_mem_fraction default .90, "the percentage of memory to use
  // for KV Cache after model load" (tensorrt_llm/bench/benchmark/throughput.py); perf-overview.md @00f3768
  // calls 0.90 "the default setting". It is KvCacheConfig.free_gpu_memory_fraction (llmapi/llm_args.py,
  // default 0.9): a share of the memory free after the model is loaded, not of the whole device.
  e.kv_memory_fraction = 0.90;
  e.kv_share_of_free = true;
  const TrtllmBenchLimits t = trtllm_bench_limits(m, g, o, e.kv_memory_fraction, input_len, output_len);
  e.max_batch_size = t.max_batch_size;
  // trtllm-bench runs without chunked prefill unless asked (general.py get_settings:
  // enable_chunked_prefill default False) and then raises max_num_tokens to max_isl + max_batch_size.
  e.chunked_prefill = false;
  e.max_num_tokens = std::max<int64_t>(t.max_num_tokens, input_len + t.max_batch_size);
  // KvCacheConfig.tokens_per_block default 32 (llmapi/llm_args.py).
  e.tokens_per_block = 32;
  // SchedulerConfig.capacity_scheduler_policy default GUARANTEED_NO_EVICT (llmapi/llm_args.py):
  // a request is scheduled only when blocks for its whole sequence are free.
  e.reserve_whole_sequence = true;
  // Each value in both languages; the Chinese quotes the code's own file and option names as its source.
  e.sources = {
      {"kv_cache_free_gpu_mem_fraction 0.90 of the memory free after model load: tensorrt_llm/bench/benchmark/throughput.py option default; KvCacheConfig.free_gpu_memory_fraction default 0.9 (tensorrt_llm/llmapi/llm_args.py); docs/source/performance/perf-overview.md @00f3768 ('the default setting of 0.90')",
       "KV 缓存占模型加载后剩余显存的 0.90（kv_cache_free_gpu_mem_fraction；来源：tensorrt_llm/bench/benchmark/throughput.py option default; KvCacheConfig.free_gpu_memory_fraction default 0.9 (tensorrt_llm/llmapi/llm_args.py); docs/source/performance/perf-overview.md @00f3768 ('the default setting of 0.90')）"},
      {fmt::format("max_batch_size {}, max_num_tokens {}: trtllm-bench's heuristic tensorrt_llm/bench/build/tuning.py calc_engine_setting/finetune_setting, "
                   "with max_num_tokens ≥ max_isl + max_batch_size when chunked prefill is off (bench/benchmark/utils/general.py get_settings)",
                   e.max_batch_size, e.max_num_tokens),
       fmt::format("max_batch_size {}，max_num_tokens {}：trtllm-bench 按模型、长度与显存自动估算，关闭分块预填充时 max_num_tokens 不小于 "
                   "max_isl + max_batch_size（来源：tensorrt_llm/bench/build/tuning.py calc_engine_setting/finetune_setting; "
                   "bench/benchmark/utils/general.py get_settings）",
                   e.max_batch_size, e.max_num_tokens)},
      {"chunked prefill off: bench/benchmark/utils/general.py get_settings, enable_chunked_prefill default False",
       "不分块预填充（来源：bench/benchmark/utils/general.py get_settings, enable_chunked_prefill default False）"},
      {"tokens_per_block 32: KvCacheConfig default (tensorrt_llm/llmapi/llm_args.py)",
       "每个 KV 块 32 个 token（tokens_per_block；来源：KvCacheConfig default, tensorrt_llm/llmapi/llm_args.py）"},
      {"capacity_scheduler_policy GUARANTEED_NO_EVICT: SchedulerConfig default (tensorrt_llm/llmapi/llm_args.py)",
       "调度策略保证不驱逐：整条序列的 KV 块都空出才接收请求（capacity_scheduler_policy GUARANTEED_NO_EVICT；来源：SchedulerConfig default, tensorrt_llm/llmapi/llm_args.py）"},
  };
  return e;
}

EngineDefaults vllm_defaults(const GpuSpec& g) {
  EngineDefaults e;
  e.name = "vLLM V1 (offline LLM class)";
  e.name_zh = "vLLM V1（离线 LLM 类）";
  // EngineArgs.gpu_memory_utilization default 0.90 of the whole device (vllm/engine/arg_utils.py).
  e.kv_memory_fraction = 0.90;
  e.kv_share_of_free = false;
  // EngineArgs.get_batch_defaults (vllm/engine/arg_utils.py, v0.9+): on parts with ≥ 70 GiB that are not
  // A100s, LLM_CLASS max_num_batched_tokens 16384 and max_num_seqs 1024; otherwise 8192 and 256.
  const bool big = g.memory_bytes >= 70 * kGiB && g.id.rfind("a100", 0) != 0 && g.id.rfind("a800", 0) != 0;
  e.max_num_tokens = big ? 16384 : 8192;
  e.max_batch_size = big ? 1024 : 256;
  // CacheConfig.block_size default 16 (vllm/config/cache.py); the V1 engine always chunks prefills
  // (arg_utils.py _set_default_args_v1) and allocates blocks as tokens arrive (v1/core/kv_cache_manager.py).
  e.tokens_per_block = 16;
  e.chunked_prefill = true;
  e.reserve_whole_sequence = false;
  e.sources = {
      {"gpu_memory_utilization 0.90 of the device: vllm/engine/arg_utils.py EngineArgs default",
       "占整卡显存的 0.90（gpu_memory_utilization；来源：vllm/engine/arg_utils.py EngineArgs default）"},
      {fmt::format("max_num_seqs {}, max_num_batched_tokens {}: vllm/engine/arg_utils.py get_batch_defaults, LLM_CLASS ({})",
                   e.max_batch_size, e.max_num_tokens, big ? "≥ 70 GiB, not A100" : "other GPUs"),
       fmt::format("max_num_seqs {}，max_num_batched_tokens {}（{}；来源：vllm/engine/arg_utils.py get_batch_defaults, LLM_CLASS）",
                   e.max_batch_size, e.max_num_tokens, big ? "显存 ≥ 70 GiB 且不是 A100" : "其他 GPU")},
      {"block_size 16: vllm CacheConfig default; chunked prefill always on in V1 (arg_utils.py _set_default_args_v1)",
       "每个 KV 块 16 个 token，V1 引擎始终分块预填充（block_size 16；来源：vllm CacheConfig default; arg_utils.py _set_default_args_v1）"},
      {"KV blocks allocated as tokens are generated, not reserved to completion (vllm/v1/core/kv_cache_manager.py allocate_slots)",
       "KV 块随 token 生成逐步分配，不为整条序列预留（来源：vllm/v1/core/kv_cache_manager.py allocate_slots）"},
  };
  return e;
}

// SGLang's GPU-memory-dependent defaults: python/sglang/srt/server_args.py
// ServerArgs._handle_gpu_memory_settings(gpu_mem) (v0.5.8-era main of early
// 2026, the stored copy read: has KimiK25 and piecewise_cuda_graph_compiler;
// enable_piecewise_cuda_graph, enable_dp_attention and speculative decoding off
// by default). gpu_mem is the device's capacity in MiB (utils get_device_memory_capacity,
// nvidia-smi memory.total); here the catalog's capacity.
struct SglangMemorySettings {
  int64_t chunked_prefill_size = 0;
  int64_t cuda_graph_max_bs = 0;
  double reserved_mib = 0;
  double mem_fraction_static = 0;
};

SglangMemorySettings sglang_memory_settings(double gpu_mem_mib, int tp) {
  SglangMemorySettings s;
  // "T4, 4080" < 20 GiB: 2048, 8; "A10, 4090, 5090" < 35 GiB: 2048, 24 (80 at tp ≥ 4);
  // "A100 (40GB), L40" < 60 GiB: 4096, 32 (160); "H100, A100" < 90 GiB and "H20, H200" < 160 GiB:
  // 8192, 256 (512); "B200, MI300" beyond: 16384, 512.
  if (gpu_mem_mib < 20 * 1024) s = {2048, 8};
  else if (gpu_mem_mib < 35 * 1024) s = {2048, tp < 4 ? 24 : 80};
  else if (gpu_mem_mib < 60 * 1024) s = {4096, tp < 4 ? 32 : 160};
  else if (gpu_mem_mib < 160 * 1024) s = {8192, tp < 4 ? 256 : 512};
  else s = {16384, 512};
  // reserved_mem (MiB) = 512 constant metadata + max(chunked_prefill_size, 2048) · 1.5 activations
  // + cuda_graph_max_bs · 2 CUDA graphs + tp · pp / 8 · 1024, at least 10 GiB above 60 GiB of memory;
  // mem_fraction_static = round((gpu_mem − reserved_mem) / gpu_mem, 3).
  s.reserved_mib = 512 + static_cast<double>(std::max<int64_t>(s.chunked_prefill_size, 2048)) * 1.5 +
                   static_cast<double>(s.cuda_graph_max_bs) * 2 + tp / 8.0 * 1024;
  if (gpu_mem_mib > 60 * 1024) s.reserved_mib = std::max(s.reserved_mib, 10.0 * 1024);
  s.mem_fraction_static = std::nearbyint((gpu_mem_mib - s.reserved_mib) / gpu_mem_mib * 1000) / 1000;
  return s;
}

EngineDefaults sglang_defaults(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o) {
  EngineDefaults e;
  e.name = "SGLang 0.5 (ServerArgs defaults)";
  e.name_zh = "SGLang 0.5（ServerArgs 默认值）";
  const double gpu_mem_mib = g.memory_bytes / (1024.0 * 1024.0);
  const SglangMemorySettings s = sglang_memory_settings(gpu_mem_mib, o.tp);
  e.kv_memory_fraction = s.mem_fraction_static;
  e.kv_share_of_free = false;
  e.kv_sized_before_buffers = true;
  // Prefill batches hold at most chunked_prefill_size tokens (a longer prompt is chunked) and are
  // scheduled as their own steps: enable_mixed_chunk default False (server_args.py ServerArgs).
  e.max_num_tokens = s.chunked_prefill_size;
  e.chunked_prefill = true;
  e.mixed_prefill_decode = false;
  // The KV pool in tokens (max_total_num_tokens) at this memory rule, then
  // max_running_requests = min(max_total_num_tokens // 2, req_to_token_pool size), the pool
  // holding min(max(int(tokens / context_len · 512), 2048), 4096) requests
  // (model_executor/model_runner.py: init_memory_pool and "Init max running requests").
  InferenceOptions mo = o;
  inference_detail::apply_engine_memory_rule(mo, e);  // the pool is sized before the buffers: max_batch_size does not enter it
  const InferenceMemory mem = inference_memory(m, g, mo);
  const double tokens = mem.weights_fit ? mem.max_cached_tokens : 0;
  const int64_t context_len = model_max_context(m);
  const double per_context = context_len > 0 ? tokens / static_cast<double>(context_len) * 512 : 2048;
  const int64_t pool_reqs = std::clamp<int64_t>(static_cast<int64_t>(per_context), 2048, 4096);
  e.max_batch_size = std::max<int64_t>(1, std::min(static_cast<int64_t>(tokens) / 2, pool_reqs));
  // page_size 1: RadixAttention's token-granular pool (mem_cache/memory_pool.py) for the
  // default attention backends (FA3 on Hopper, FlashInfer elsewhere); KV slots are taken as tokens
  // are computed, and the scheduler retracts requests when decoding outgrows the pool (schedule_conservativeness 1.0).
  e.tokens_per_block = 1;
  e.reserve_whole_sequence = false;
  const double gib = gpu_mem_mib / 1024;
  e.sources = {
      {fmt::format("mem_fraction_static {:.3f} of the device holds weights + KV pool: ServerArgs._handle_gpu_memory_settings "
                   "on {:.0f} GiB at TP {}, reserved_mem = 512 + max(chunked_prefill_size, 2048)·1.5 + cuda_graph_max_bs·2 + tp/8·1024 = {:.0f} MiB{}, "
                   "fraction = round((gpu_mem − reserved_mem)/gpu_mem, 3) (python/sglang/srt/server_args.py, v0.5.8-era); "
                   "the pool is that share of the memory free before the weights, less the weights (model_executor/model_runner.py profile_max_num_token)",
                   s.mem_fraction_static, gib, o.tp, s.reserved_mib, gpu_mem_mib > 60 * 1024 ? " (at least 10 GiB above 60 GiB)" : ""),
       fmt::format("整卡显存的 {:.3f} 用于权重与 KV 缓存池（mem_fraction_static）：{:.0f} GiB、TP {} 时 reserved_mem = 512 + max(chunked_prefill_size, 2048)·1.5 + "
                   "cuda_graph_max_bs·2 + tp/8·1024 = {:.0f} MiB{}，比例 = round((gpu_mem − reserved_mem)/gpu_mem, 3)；KV 池为加载权重前空闲显存的这一比例减去权重"
                   "（来源：python/sglang/srt/server_args.py ServerArgs._handle_gpu_memory_settings, v0.5.8-era; model_executor/model_runner.py profile_max_num_token）",
                   s.mem_fraction_static, gib, o.tp, s.reserved_mib, gpu_mem_mib > 60 * 1024 ? "（显存大于 60 GiB 时至少 10 GiB）" : "")},
      {fmt::format("chunked_prefill_size {} (cuda_graph_max_bs {}) for a {:.0f} GiB GPU at TP {}: ServerArgs._handle_gpu_memory_settings; "
                   "prefill batches run as their own steps (enable_mixed_chunk default False), so this budget never caps the decoding batch; "
                   "throughput is still the steady state's, which does the same prefill and decode work per output token",
                   s.chunked_prefill_size, s.cuda_graph_max_bs, gib, o.tp),
       fmt::format("分块预填充每块 {} 个 token（chunked_prefill_size；cuda_graph_max_bs {}，按 {:.0f} GiB 显存、TP {}）；预填充批单独成步"
                   "（enable_mixed_chunk 默认 False），该上限不限制解码批；吞吐仍按稳态计算，每个输出 token 的预填充与解码工作量相同"
                   "（来源：ServerArgs._handle_gpu_memory_settings）",
                   s.chunked_prefill_size, s.cuda_graph_max_bs, gib, o.tp)},
      {fmt::format("max_running_requests {}: min(max_total_num_tokens // 2, min(max(int(tokens / context_len · 512), 2048), 4096)) "
                   "with {:.0f} KV tokens and context_len {} (model_executor/model_runner.py init_memory_pool; ServerArgs max_running_requests default None)",
                   e.max_batch_size, tokens, context_len > 0 ? fmt::format("{}", context_len) : std::string("unknown")),
       fmt::format("最多 {} 条并发请求（max_running_requests）：min(max_total_num_tokens // 2, min(max(int(tokens / context_len · 512), 2048), 4096))，"
                   "KV 池 {:.0f} 个 token，context_len {}（来源：model_executor/model_runner.py init_memory_pool; ServerArgs max_running_requests default None）",
                   e.max_batch_size, tokens, context_len > 0 ? fmt::format("{}", context_len) : std::string("未知"))},
      {"max_prefill_tokens 16384 per prefill batch: ServerArgs default (server_args.py); the chunk size above is the smaller and binds",
       "每个预填充批至多 16384 个 token（max_prefill_tokens；来源：ServerArgs default, server_args.py），上面的分块大小更小，以它为准"},
      {"page_size 1: RadixAttention's token-granular KV pool with the default attention backends (server_args.py page_size; mem_cache/memory_pool.py); "
       "KV taken as tokens are computed, requests retracted when decoding outgrows the pool (schedule_conservativeness 1.0)",
       "KV 按 token 分配（page_size 1，RadixAttention 的 token 粒度缓存池），随计算逐步占用，解码超出缓存池时撤回请求"
       "（来源：server_args.py page_size; mem_cache/memory_pool.py; schedule_conservativeness 1.0）"},
  };
  return e;
}

// LMDeploy's own max_batch_size when none is given: lmdeploy/utils.py
// get_max_batch_size('cuda') (v0.16.0), which matches these names in
// torch.cuda.get_device_name(0).lower(), first match wins; every other CUDA
// device gets 128. The catalog's part names carry the same tokens
// ("NVIDIA H100 SXM5 80GB" ⊃ "h100", "NVIDIA GeForce RTX 4090" ⊃ none).
int64_t lmdeploy_cuda_max_batch_size(const GpuSpec& g, std::string* matched) {
  static const std::pair<const char*, int64_t> kMap[] = {{"a100", 384}, {"a800", 384}, {"h100", 1024},
                                                         {"h800", 1024}, {"l20y", 1024}, {"h200", 1024}};
  const std::string name = ascii_lower(g.name);
  for (const auto& [token, size] : kMap) {
    if (name.find(token) != std::string::npos) {
      *matched = token;
      return size;
    }
  }
  matched->clear();
  return 128;
}

EngineDefaults lmdeploy_turbomind_defaults(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o) {
  // TurbomindEngineConfig.__post_init__ (lmdeploy/messages.py @v0.16.0): "invalid quant_policy for TurboMind,
  // FP8 quantization is not supported"; its KV cache is 16-bit, int8 or int4 (quant_policy 0/8/4).
  if (o.kv == Precision::kFp8) {
    throw InputError("--kv-precision", "LMDeploy's TurboMind engine has no fp8 KV cache (quant_policy 8 is int8, 4 is int4): use --kv-precision int8, fp16 or bf16.",
                     "LMDeploy 的 TurboMind 引擎不支持 fp8 KV 缓存（quant_policy 8 为 int8，4 为 int4）：请用 --kv-precision int8、fp16 或 bf16。");
  }
  EngineDefaults e;
  e.name = "LMDeploy 0.16 (TurboMind engine)";
  e.name_zh = "LMDeploy 0.16（TurboMind 引擎）";
  // TurbomindEngineConfig.cache_max_entry_count 0.8 (lmdeploy/messages.py): since v0.2.1 a share of the
  // FREE memory; CreateEngine takes it of cudaMemGetInfo's free bytes once the weights are in, before the
  // model's runtime buffers are made (src/turbomind/turbomind.cc).
  e.kv_memory_fraction = 0.8;
  e.kv_share_of_free = true;
  e.kv_sized_before_buffers = true;
  std::string matched;
  e.max_batch_size = lmdeploy_cuda_max_batch_size(g, &matched);
  // max_forward_token_num = max_prefill_token_num (8192, TurbomindEngineConfig) + max_batch_size, rounded up
  // to a multiple of attn_tp · attn_cp (TurboMind::Impl::Impl, src/turbomind/turbomind.cc): the tokens one
  // forward pass holds, decodes included (engine.cc Schedule: ForwardTokenResource).
  const int64_t sp = std::max(1, o.tp);
  e.max_num_tokens = (8192 + e.max_batch_size + sp - 1) / sp * sp;
  // A prompt longer than what is left of the budget runs over several passes: ForwardTokenResource::Test
  // admits min(input_len, remaining) tokens (src/turbomind/engine/request.h).
  e.chunked_prefill = true;
  e.mixed_prefill_decode = true;
  // session_len None → the model's max length (lmdeploy/turbomind/converter.py, utils.py
  // _get_and_verify_max_len; 2048 when the config names none); max_context_token_num unset → session_len
  // (turbomind.cc HandleMissingParams), the context the step's prefills may hold (ContextTokenResource).
  const int64_t context_len = model_max_context(m);
  const int64_t session_len = context_len > 0 ? context_len : 2048;
  e.max_prefill_context_tokens = session_len;
  // cache_block_seq_len 64 (TurbomindEngineConfig); blocks are added as a sequence grows
  // (Scheduler PlanContinue → EnsureBlocks) and lower-priority sequences evicted when the pool runs short.
  e.tokens_per_block = 64;
  e.reserve_whole_sequence = false;
  e.sources = {
      {"cache_max_entry_count 0.8 of the memory free after the weights load, taken before the runtime buffers: TurbomindEngineConfig default "
       "(lmdeploy/messages.py @v0.16.0); src/turbomind/turbomind.cc CreateEngine (cudaMemGetInfo free × cache_max_entry_count)",
       "KV 缓存占权重加载后剩余显存的 0.8，先于运行时缓冲区分配（cache_max_entry_count；来源：TurbomindEngineConfig default, lmdeploy/messages.py @v0.16.0; "
       "src/turbomind/turbomind.cc CreateEngine）"},
      {matched.empty() ? fmt::format("max_batch_size 128: lmdeploy/utils.py get_max_batch_size('cuda') @v0.16.0, '{}' matches none of a100/a800 (384), "
                                     "h100/h800/l20y/h200 (1024)",
                                     g.name)
                       : fmt::format("max_batch_size {}: lmdeploy/utils.py get_max_batch_size('cuda') @v0.16.0, device name contains '{}'", e.max_batch_size, matched),
       matched.empty() ? fmt::format("max_batch_size 128：{} 不在 a100/a800（384）、h100/h800/l20y/h200（1024）之列（来源：lmdeploy/utils.py get_max_batch_size('cuda') @v0.16.0）", g.name)
                       : fmt::format("max_batch_size {}：设备名含“{}”（来源：lmdeploy/utils.py get_max_batch_size('cuda') @v0.16.0）", e.max_batch_size, matched)},
      {fmt::format("{} tokens per forward pass = max_prefill_token_num 8192 + max_batch_size {}, prefills chunked into what is left beside the decodes: "
                   "src/turbomind/turbomind.cc TurboMind::Impl (max_forward_token_num); engine/request.h ForwardTokenResource (@v0.16.0)",
                   e.max_num_tokens, e.max_batch_size),
       fmt::format("每次前向至多 {} 个 token = max_prefill_token_num 8192 + max_batch_size {}，预填充按解码之外剩余的额度分块"
                   "（来源：src/turbomind/turbomind.cc TurboMind::Impl (max_forward_token_num); engine/request.h ForwardTokenResource @v0.16.0）",
                   e.max_num_tokens, e.max_batch_size)},
      {fmt::format("session_len {}{}, also the context one pass's prefills may hold (max_context_token_num unset → session_len): "
                   "lmdeploy/turbomind/converter.py, utils.py _get_and_verify_max_len; turbomind.cc HandleMissingParams; models/llama/context_token_resource.h",
                   session_len, context_len > 0 ? " (the model's max_position_embeddings)" : " (the model's length is unknown: LMDeploy's fallback)"),
       fmt::format("session_len {}{}，也是一次前向中预填充序列可容纳的上下文总量（max_context_token_num 未设 → session_len；来源：lmdeploy/turbomind/converter.py, "
                   "utils.py _get_and_verify_max_len; turbomind.cc HandleMissingParams; models/llama/context_token_resource.h）",
                   session_len, context_len > 0 ? "（模型的 max_position_embeddings）" : "（模型长度未知，取 LMDeploy 的缺省值）")},
      {"cache_block_seq_len 64 tokens per KV block, blocks added as a sequence grows, lower-priority sequences evicted when short: TurbomindEngineConfig default; "
       "src/turbomind/engine/scheduler.cc PlanContinue/EnsureBlocks (@v0.16.0)",
       "每个 KV 块 64 个 token，随序列增长逐块分配，显存不足时驱逐低优先级序列（cache_block_seq_len；来源：TurbomindEngineConfig default; "
       "src/turbomind/engine/scheduler.cc PlanContinue/EnsureBlocks @v0.16.0）"},
  };
  return e;
}

Bilingual fallback_note(const std::string& framework) {
  if (framework.empty()) return {"engine not named: vLLM's defaults assumed", "未指定推理引擎：按 vLLM 的默认值计"};
  return {fmt::format("engine '{}' has no profile: vLLM's defaults assumed", framework), fmt::format("推理引擎“{}”没有配置：按 vLLM 的默认值计", framework)};
}

}  // namespace

EngineDefaults engine_defaults(const std::string& framework, const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o,
                               int64_t input_len, int64_t output_len) {
  const std::string f = ascii_lower(framework);
  if (is_tensorrt_llm(f)) return tensorrt_llm_defaults(m, g, o, std::max<int64_t>(1, input_len), std::max<int64_t>(1, output_len));
  if (f.find("sglang") != std::string::npos) return sglang_defaults(m, g, o);
  const bool lmdeploy = f.find("lmdeploy") != std::string::npos || f.find("turbomind") != std::string::npos;
  // TurboMind is LMDeploy's default engine and runs on CUDA only (turbomind.py calls
  // get_max_batch_size('cuda')); elsewhere, or when named, LMDeploy runs its PyTorch engine.
  if (lmdeploy && f.find("pytorch") == std::string::npos && g.vendor == "nvidia") return lmdeploy_turbomind_defaults(m, g, o);
  EngineDefaults e = vllm_defaults(g);
  if (lmdeploy) {
    e.sources.insert(e.sources.begin(),
                     f.find("pytorch") != std::string::npos
                         ? Bilingual{fmt::format("engine '{}': LMDeploy's PyTorch engine has no profile: vLLM's defaults assumed", framework),
                                     fmt::format("推理引擎“{}”：LMDeploy 的 PyTorch 引擎没有配置，按 vLLM 的默认值计", framework)}
                         : Bilingual{fmt::format("engine '{}': LMDeploy's TurboMind engine runs on NVIDIA GPUs only and its PyTorch engine (used on {}) has no profile: vLLM's defaults assumed",
                                                 framework, g.id),
                                     fmt::format("推理引擎“{}”：LMDeploy 的 TurboMind 引擎只支持 NVIDIA GPU，{} 上用的 PyTorch 引擎没有配置，按 vLLM 的默认值计", framework, g.id)});
  } else if (f.find("vllm") == std::string::npos) {
    e.sources.insert(e.sources.begin(), fallback_note(framework));
  }
  return e;
}

}  // namespace gpuplan
