// `gpuplan infer` run (inference.hpp run_infer): the max-throughput batch on
// the best TP, or the serving deployment for a request rate and latency target.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "gpuplan/cost.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/intervals.hpp"
#include "gpuplan/published_mfu.hpp"
#include "gpuplan/market.hpp"
#include "commands/market_terms.hpp"
#include "report/inference_notes.hpp"  // serving_why_not: the refusal's sentence, as the report says it

namespace gpuplan {
namespace {

Currency bare_currency(const std::string& text) {
  return text.find("cny") != std::string::npos || text.find("CNY") != std::string::npos || text.find("¥") != std::string::npos ? Currency::kCny : Currency::kUsd;
}

}  // namespace

namespace {

// The replicas at the median error and on the model's own throughput beside
// those sized at the confidence (ServingSizing).
std::optional<ServingSizing> size_serving_for_confidence(const ServingPlan& p, const ServingTarget& t, const ModelSpec& m, const GpuSpec& g,
                                                         bool engine_stated, double confidence) {
  check_level(confidence, "--confidence");
  if (!p.feasible || !(t.requests_per_s > 0) || !(p.replica_requests_per_s > 0)) return std::nullopt;
  const PredictionContext ctx{"inference", m.is_moe(), engine_stated, gpu_class(g.id), true};
  const std::optional<double> median = error_quantile(shipped_interval_table(), ctx, 0.5);
  if (!median) return std::nullopt;
  // A replica's request rate is a rate: at the slow end it sustains rate / factor.
  auto replicas_at = [&](double factor) {
    return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(t.requests_per_s * factor / p.replica_requests_per_s - 1e-9)));
  };
  ServingSizing s;
  s.confidence = confidence;
  s.replicas = p.replicas;  // plan_serving sized every layout at the margin (ServingTarget::rate_margin)
  s.replicas_model = replicas_at(1.0);
  s.replicas_median = replicas_at(std::max(*median, 1e-9));
  return s;
}

}  // namespace

InferRun run_infer(const InferRequest& q) {
  const ModelSpec& m = q.model;
  const GpuSpec& g = q.gpu;
  InferenceOptions o = q.options;
  const ServingTarget& t = q.target;
  InferRun run;
  if (q.max_throughput) {
    // TP: the one asked for, else the one of 1, 2, 4, 8 with the most output tokens/s per GPU.
    MaxThroughputRun& best = run.best;
    run.options = o;
    InferenceOptions& best_o = run.options;
    for (int tp : q.max_throughput_tps) {
      o.tp = tp;
      const MaxThroughputRun tried = max_throughput_run(m, g, o, engine_defaults(q.engine, m, g, o, q.target.input_len, q.target.output_len), q.target.input_len, q.target.output_len);
      const bool better = tried.feasible && (!best.feasible || tried.output_tokens_per_s_per_gpu > best.output_tokens_per_s_per_gpu);
      if (better || (best.refusal.code == InferRefusal::kNone && !best.feasible)) {
        best = tried;
        best_o = o;
      }
    }
    return run;
  }
  ServingPlan& p = run.plan;
  // Issue 15: with a request rate, every layout's replicas are sized for the
  // slow end of gpuplan's errors on published serving runs at the asked
  // confidence, before the search compares them, so the layout chosen is the
  // one with the fewest GPUs at that margin and the table ranks what the
  // headline shows.
  run.target = t;
  if (t.requests_per_s > 0) {
    check_level(q.confidence, "--confidence");
    const PredictionContext ctx{"inference", m.is_moe(), !q.engine.empty(), gpu_class(g.id), true};  // serving states its layout
    if (const std::optional<double> slow = error_quantile(shipped_interval_table(), ctx, q.confidence)) run.target.rate_margin = std::max(1.0, *slow);
  }
  p = plan_serving(m, g, o, run.target);
  if (!p.feasible) {
    // One sentence and exit status 2; the layouts tried are in --format json of a feasible request.
    // The flag to name: the target the last layout tried missed, else the GPU.
    const InferRefusal last = p.no_layout ? p.no_layout->why.code : p.refusal.code;
    const bool ttft = t.ttft_target_s > 0 && last == InferRefusal::kTtftOverTarget;
    const bool target = !ttft && t.tpot_target_s > 0 && last == InferRefusal::kTpotOverTarget;
    const Bilingual why_not = serving_why_not(p);
    std::string why = why_not.en;
    while (!why.empty() && why.back() == '.') why.pop_back();
    std::string why_zh = why_not.zh.empty() ? why : why_not.zh;
    while (why_zh.size() >= 3 && why_zh.compare(why_zh.size() - 3, 3, "。") == 0) why_zh.resize(why_zh.size() - 3);
    const std::string flag = ttft ? "--ttft-target-ms" : target ? "--latency-target-ms" : "--gpu";
    const double ms = 1e3 * (ttft ? t.ttft_target_s : t.tpot_target_s);
    throw InputError(flag,
                     ttft || target ? fmt::format("No deployment found that meets {} {:g}: {}.", flag, ms, why)
                                    : fmt::format("No deployment found on --gpu {}: {}.", g.id, why),
                     ttft || target ? fmt::format("找不到满足 {} {:g} 的部署方案：{}。", flag, ms, why_zh)
                                    : fmt::format("在 --gpu {} 上找不到可行的部署方案：{}。", g.id, why_zh));
  }
  PriceInput& pi = run.price;
  pi.text = q.price_text;
  if (q.price_text) pi.currency = bare_currency(*q.price_text);
  apply_market_terms(&pi, q.market_text, q.provider, q.currency_text, q.lang);
  run.sizing = size_serving_for_confidence(p, run.target, m, g, !q.engine.empty(), q.confidence);
  run.resolved_price = resolve_price(g.id, pi);
  return run;
}

}  // namespace gpuplan
