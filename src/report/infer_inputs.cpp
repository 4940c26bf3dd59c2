// `gpuplan infer` and POST /api/infer: the checks of the inputs and the
// planning call both front ends share (infer_inputs.hpp).
#include "gpuplan/infer_inputs.hpp"
#include "gpuplan/market.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gpuplan/cost.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/inference.hpp"
#include "report/inference_report.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {
namespace {

Currency bare_currency(const std::string& text) {
  return text.find("cny") != std::string::npos || text.find("CNY") != std::string::npos || text.find("¥") != std::string::npos ? Currency::kCny : Currency::kUsd;
}

}  // namespace

Report infer_report_for(const InferInputs& f) {
  if (f.model.empty() && !f.model_spec) {
    throw InputError("--model", "--model is required (a catalog id such as llama-3.1-70b, or a config.json).",
                     "缺少 --model：请给出模型目录中的 id（如 llama-3.1-70b）或一个 config.json。");
  }
  if (f.gpu.empty()) throw InputError("--gpu", "--gpu is required (e.g. h100, a100-80g, 4090).", "缺少 --gpu（如 h100、a100-80g、4090）。");
  const ModelSpec m = f.model_spec ? *f.model_spec : find_model(f.model);
  const GpuSpec& g = find_gpu(f.gpu);
  InferenceOptions o;
  o.weights = parse_weight_format(f.precision, "--precision");
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
    // TP: the one asked for, else the one of 1, 2, 4, 8 with the most output tokens/s per GPU.
    std::vector<int> tps;
    if (f.tp > 0) tps.push_back(f.tp);
    else for (int tp = 1; tp <= std::min(8, std::max(g.gpus_per_node, g.nvlink_domain_gpus)); tp *= 2) if (m.heads % tp == 0) tps.push_back(tp);
    MaxThroughputRun best;
    InferenceOptions best_o = o;
    for (int tp : tps) {
      o.tp = tp;
      const MaxThroughputRun run = max_throughput_run(m, g, o, engine_defaults(f.engine, m, g, o, f.input, f.output), f.input, f.output);
      const bool better = run.feasible && (!best.feasible || run.output_tokens_per_s_per_gpu > best.output_tokens_per_s_per_gpu);
      if (better || (best.why_not.empty() && !best.feasible)) {
        best = run;
        best_o = o;
      }
    }
    return max_throughput_report(m, g, best_o, f.input, f.output, best);
  }
  ServingTarget t;
  t.input_len = f.input;
  t.output_len = f.output;
  t.requests_per_s = f.rps;
  // No target given: the default one, unless a fixed batch is asked for.
  t.tpot_target_s = f.latency_target_ms ? *f.latency_target_ms / 1e3 : (f.batch > 0 ? 0.0 : kDefaultTpotTargetS);
  t.batch = f.batch;
  t.tp = f.tp;
  t.pp = f.pp;
  t.ep = f.ep;
  t.disaggregate = f.disaggregate;
  t.engine = f.engine;
  ServingPlan p = plan_serving(m, g, o, t);
  if (!p.feasible) {
    // One sentence and exit status 2; the layouts tried are in --format json of a feasible request.
    const bool target = t.tpot_target_s > 0 && p.why_not.find("target") != std::string::npos;
    std::string why = p.why_not;
    while (!why.empty() && why.back() == '.') why.pop_back();
    std::string why_zh = p.why_not_zh.empty() ? why : p.why_not_zh;
    while (why_zh.size() >= 3 && why_zh.compare(why_zh.size() - 3, 3, "。") == 0) why_zh.resize(why_zh.size() - 3);
    throw InputError(target ? "--latency-target-ms" : "--gpu",
                     target ? fmt::format("No deployment found that meets --latency-target-ms {:g}: {}.", 1e3 * t.tpot_target_s, why)
                            : fmt::format("No deployment found on --gpu {}: {}.", g.id, why),
                     target ? fmt::format("找不到满足 --latency-target-ms {:g} 的部署方案：{}。", 1e3 * t.tpot_target_s, why_zh)
                            : fmt::format("在 --gpu {} 上找不到可行的部署方案：{}。", g.id, why_zh));
  }
  PriceInput pi;
  pi.text = f.price;
  if (f.price) pi.currency = bare_currency(*f.price);
  pi.market = f.market ? parse_market(*f.market, "--market") : default_market_for_lang(f.lang);
  if (f.provider && !f.provider->empty()) pi.provider = f.provider;
  if (f.currency) pi.currency = parse_currency(*f.currency, "--currency");
  // Issue 15: replicas for the slow end of gpuplan's errors on published serving runs.
  const std::optional<ServingSizing> sizing = size_serving_for_confidence(&p, t, g, !f.engine.empty(), f.confidence);
  const Price price = resolve_price(g.id, pi);
  Report rep = inference_report(m, g, o, t, p, price);
  if (sizing) add_serving_sizing(rep, *sizing);
  return rep;
}

}  // namespace gpuplan
