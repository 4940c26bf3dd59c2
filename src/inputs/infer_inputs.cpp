// `gpuplan infer`'s inputs as the front ends collect them (infer_inputs.hpp)
// turned into an InferRequest: each value parsed and checked, the InputError
// naming its flag.
#include "inputs/choice_words.hpp"
#include "gpuplan/engine.hpp"
#include "inputs/infer_inputs.hpp"
#include "hardware/hardware_words.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "gpuplan/error.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {

InferRequest make_infer_request(const InferInputs& f) {
  if (f.model.empty() && !f.model_spec) {
    throw InputError("--model", "--model is required (a catalog id such as llama-3.1-70b, or a config.json).",
                     "缺少 --model：请给出模型目录中的 id（如 llama-3.1-70b）或一个 config.json。");
  }
  if (f.gpu.empty()) throw InputError("--gpu", "--gpu is required (e.g. h100, a100-80g, 4090).", "缺少 --gpu（如 h100、a100-80g、4090）。");
  InferRequest q;
  q.model = f.model_spec ? *f.model_spec : find_model(f.model);
  q.gpu = find_gpu(f.gpu);
  const ModelSpec& m = q.model;
  const GpuSpec& g = q.gpu;
  InferenceOptions& o = q.options;
  o.weights = parse_weight_format(f.precision, "--precision");
  if (!f.weight_quant.empty() && f.weight_quant != "none") {
    const WeightQuant* method = find_weight_quant(f.weight_quant);
    if (!method) {
      throw InputError("--weight-quant", fmt::format("--weight-quant must be one of {} (got '{}').", fmt::join(weight_quant_ids(), ", "), f.weight_quant),
                       fmt::format("--weight-quant 须为 {} 之一（输入为 '{}'）。", fmt::join(weight_quant_ids(), "、"), f.weight_quant));
    }
    // The method says what the weights are: it sets --precision, which may
    // only repeat it (fp16, the default, gives way).
    if (f.precision != "fp16" && parse_weight_format(f.precision, "--precision") != method->format) {
      throw InputError("--weight-quant", fmt::format("--weight-quant {} stores {} weights; --precision {} says otherwise (drop --precision).", method->id,
                                                     weight_format_name(method->format), f.precision),
                       fmt::format("--weight-quant {} 存的是 {} 权重，与 --precision {} 不符（请去掉 --precision）。", method->id,
                                   weight_format_name(method->format), f.precision));
    }
    o.weights = method->format;
    o.weight_quant = method->id;
  }
  o.kv = f.kv_precision.empty() ? (o.weights == WeightFormat::kBf16 ? Precision::kBf16 : Precision::kFp16)
                                : parse_precision(f.kv_precision, "--kv-precision");
  o.group_size = f.group_size;
  o.memory_utilization = f.memory_utilization;
  o.int4_supported = !f.no_int4;
  if (f.input < 1 || f.input > (int64_t{1} << 24)) {
    throw InputError("--input", "--input must be between 1 and 16,777,216 tokens.", "--input 须在 1 到 16,777,216 个 token 之间。");
  }
  if (f.output < 1 || f.output > (int64_t{1} << 24)) {
    throw InputError("--output", "--output must be between 1 and 16,777,216 tokens.", "--output 须在 1 到 16,777,216 个 token 之间。");
  }
  const int64_t max_ctx = model_max_context(m);
  if (max_ctx > 0 && f.input + f.output > max_ctx && !f.force) {
    throw InputError("--input", fmt::format("--input + --output = {} tokens exceeds the {:L} tokens {} supports (max_position_embeddings); add --force to plan it anyway.",
                                            f.input + f.output, max_ctx, m.name),
                     fmt::format("--input + --output = {} 个 token，超出 {} 支持的 {:L} 个 token（max_position_embeddings）；如仍要估算，请加 --force。",
                                 f.input + f.output, m.name, max_ctx));
  }
  require_range(f.rps, 0, 1e9, "--rps", "a non-negative request rate per second", "非负的每秒请求数");
  if (f.latency_target_ms && (*f.latency_target_ms < 0 || !std::isfinite(*f.latency_target_ms))) {
    throw InputError("--latency-target-ms", "--latency-target-ms must be a positive time per output token in ms (0: no target).",
                     "--latency-target-ms 须为正的每个输出 token 时延，单位毫秒（0 表示不设目标）。");
  }
  if (f.batch < 0) throw InputError("--batch", "--batch must be a positive number of sequences.", "--batch 须为正的序列条数。");
  if (f.tp < 0) throw InputError("--tp", "--tp must be 1, 2, 4 or 8.", "--tp 须为 1、2、4 或 8。");
  if (f.tp > 0) {
    o.tp = f.tp;
    validate_inference(m, g, o);
  } else {
    validate_inference(m, g, o);
  }
  q.max_throughput = f.max_throughput;
  if (f.max_throughput) {
    if (f.rps > 0) {
      throw InputError("--rps", "--rps sizes a deployment for a request rate; --max-throughput queues every request at once. Use one of them.",
                       "--rps 按请求速率配置部署，--max-throughput 则把所有请求一次排队，两者只能用一个。");
    }
    if (f.batch > 0) {
      throw InputError("--batch", "--max-throughput lets the engine choose the batch; drop --batch (or drop --max-throughput for a fixed one).",
                       "--max-throughput 由推理引擎自选批大小；请去掉 --batch（要固定批大小则去掉 --max-throughput）。");
    }
    if (f.pp > 0 || f.ep > 0 || f.disaggregate) {
      throw InputError(f.pp > 0 ? "--pp" : f.ep > 0 ? "--ep" : "--disaggregate",
                       "--max-throughput plans one TP group on one node; --pp, --ep and --disaggregate are for a serving deployment (drop --max-throughput).",
                       "--max-throughput 只规划单节点上的一个 TP 组；--pp、--ep 和 --disaggregate 用于在线服务部署（请去掉 --max-throughput）。");
    }
    if (f.latency_target_ms && *f.latency_target_ms > 0) {
      throw InputError("--latency-target-ms", "--latency-target-ms caps the batch for latency; --max-throughput does not. Use one of them.",
                       "--latency-target-ms 为了时延限制批大小，--max-throughput 则不限制，两者只能用一个。");
    }
    std::vector<int>& tps = q.max_throughput_tps;
    if (f.tp > 0) tps.push_back(f.tp);
    else for (int tp = 1; tp <= std::min(8, std::max(g.gpus_per_node, g.nvlink_domain_gpus)); tp *= 2) if (m.heads % tp == 0) tps.push_back(tp);
  }
  ServingTarget& t = q.target;
  t.input_len = f.input;
  t.output_len = f.output;
  t.requests_per_s = f.rps;
  // No target given: the default one, unless a fixed batch is asked for.
  t.tpot_target_s = f.latency_target_ms ? *f.latency_target_ms / 1e3 : (f.batch > 0 ? 0.0 : kDefaultTpotTargetS);
  if (f.ttft_target_ms < 0 || !std::isfinite(f.ttft_target_ms)) {
    throw InputError("--ttft-target-ms", "--ttft-target-ms must be a positive time to first token in ms (0: none).", "--ttft-target-ms 须为正的首 token 时间（毫秒；0：不设）。");
  }
  t.ttft_target_s = f.ttft_target_ms / 1e3;
  t.batch = f.batch;
  t.tp = f.tp;
  t.pp = f.pp;
  t.ep = f.ep;
  t.disaggregate = f.disaggregate;
  // An engine is named by its profile (gpuplan engines); an unknown one is refused here.
  if (!f.engine.empty() && find_engine(f.engine, "--engine").batching == BatchingMode::kStatic && f.max_throughput) {
    throw InputError("--max-throughput", fmt::format("--max-throughput: {} decodes one static batch per generate() call and admits no queued request; give --batch.", f.engine),
                     fmt::format("--max-throughput：{} 每次 generate() 只解码一个静态批，不接收排队请求；请给出 --batch。", f.engine));
  }
  t.engine = f.engine;
  q.price_text = f.price;
  q.market_text = f.market;
  q.provider = f.provider;
  q.currency_text = f.currency;
  q.lang = f.lang;
  q.engine = f.engine;
  q.confidence = f.confidence;
  return q;
}

}  // namespace gpuplan
