// What an inference engine does when an offline (max-throughput) run leaves its
// scheduler and memory settings out: read from each engine's own code at the
// version named, one citation per value. No value here is a speed or an
// efficiency, and none is taken from a benchmark case.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "gpuplan/inference.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

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

}  // namespace

EngineDefaults engine_defaults(const std::string& framework, const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o,
                               int64_t input_len, int64_t output_len) {
  const std::string f = lower(framework);
  if (is_tensorrt_llm(f)) return tensorrt_llm_defaults(m, g, o, std::max<int64_t>(1, input_len), std::max<int64_t>(1, output_len));
  EngineDefaults e = vllm_defaults(g);
  if (f.find("vllm") == std::string::npos) {
    e.sources.insert(e.sources.begin(), framework.empty() ? Bilingual{"engine not named: vLLM's defaults assumed", "未指定推理引擎：按 vLLM 的默认值计"}
                                                          : Bilingual{fmt::format("engine '{}' has no profile: vLLM's defaults assumed", framework),
                                                                      fmt::format("推理引擎“{}”没有配置：按 vLLM 的默认值计", framework)});
  }
  return e;
}

}  // namespace gpuplan
