// Scoring: prediction against measurement, per case and per kind.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gpuplan/error.hpp"
#include "gpuplan/published_mfu.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/validate.hpp"

namespace gpuplan {

namespace {

const PredictorEntry* find_predictor(const std::string& kind) {
  for (const auto& p : predictors()) {
    if (p.kind == kind) return &p;
  }
  return nullptr;
}

std::optional<double> measured_value(const nlohmann::json& raw, const std::string& metric) {
  for (const char* where : {"measured", "derived"}) {
    if (raw.contains(where) && raw[where].is_object() && raw[where].contains(metric) && raw[where][metric].is_number()) {
      return raw[where][metric].get<double>();
    }
  }
  return std::nullopt;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool framework_stated(const nlohmann::json& raw) {
  for (const char* where : {"train", "infer"}) {
    if (raw.contains(where) && raw[where].is_object() && raw[where].contains("framework")) return true;
  }
  return false;
}

// Leave-one-source-out ranges: each record's range comes from a table of
// every other source's residuals, so no source calibrates its own range.
void add_ranges(ValidationResult& out, double level) {
  const std::vector<Residual> all = validation_residuals(out);
  std::map<std::string, IntervalTable> without;  // source → table of the others
  std::map<std::string, std::vector<double>> widths;
  for (CaseResult& r : out.cases) {
    if (!without.count(r.source)) {
      std::vector<Residual> others;
      for (const Residual& x : all) {
        if (x.source != r.source) others.push_back(x);
      }
      without[r.source] = derive_interval_table(others);
    }
    const std::optional<ErrorRange> range = error_range(without[r.source], r.context, level);
    if (!range) continue;
    // Cost-like: actual = predicted · factor; a rate divides by it.
    const bool rate = metric_is_rate(r.metric);
    r.predicted_low = rate ? r.predicted / range->high : r.predicted * range->low;
    r.predicted_high = rate ? r.predicted / range->low : r.predicted * range->high;
    r.range_group = range->group;
    for (KindSummary& s : out.summary) {
      if (s.kind != r.kind) continue;
      ++s.ranged;
      if (r.measured >= *r.predicted_low && r.measured <= *r.predicted_high) ++s.inside;
    }
    widths[r.kind].push_back((*r.predicted_high - *r.predicted_low) / r.predicted);
  }
  for (KindSummary& s : out.summary) s.median_range_width = median(widths[s.kind]);
}

}  // namespace

bool metric_is_rate(const std::string& metric) { return metric == "tokens_per_s_per_gpu" || metric == "output_tokens_per_s"; }

std::vector<Residual> validation_residuals(const ValidationResult& result) {
  std::vector<Residual> out;
  for (const CaseResult& r : result.cases) {
    if (!(r.predicted > 0) || !(r.measured > 0)) continue;
    out.push_back(Residual{r.context, r.source, r.log_ratio});
  }
  return out;
}

ValidationResult run_validation(const std::vector<ValidationCase>& cases, const std::string& kind) {
  ValidationOptions o;
  o.kind = kind;
  return run_validation(cases, o);
}

ValidationResult run_validation(const std::vector<ValidationCase>& cases, const ValidationOptions& options) {
  const std::string& kind = options.kind;
  ValidationResult out;
  out.interval = check_level(options.interval, "--interval");
  std::map<std::string, std::vector<double>> speedups;
  std::vector<std::string> order;
  std::map<std::string, KindSummary> summary;
  std::map<std::string, std::vector<double>> abs_pct;
  for (const auto& c : cases) {
    if (!kind.empty() && c.kind != kind) continue;
    if (!summary.count(c.kind)) {
      order.push_back(c.kind);
      summary[c.kind].kind = c.kind;
    }
    KindSummary& s = summary[c.kind];
    const PredictorEntry* p = find_predictor(c.kind);
    if (!p) {
      ++s.not_predicted;
      continue;
    }
    try {
      CaseInputs in = case_inputs(c);
      for (const Prediction& pr : p->predict(c, in)) {
        const std::optional<double> m = measured_value(c.raw, pr.metric);
        if (!m || *m == 0) continue;
        CaseResult r;
        r.id = c.id;
        r.kind = c.kind;
        r.metric = pr.metric;
        r.verification = c.verification;
        r.predicted = pr.value;
        r.measured = *m;
        r.error = pr.value / *m - 1;
        r.flags = in.flags;
        r.flags.insert(r.flags.end(), pr.flags.begin(), pr.flags.end());
        r.source = c.source;
        r.context.kind = c.kind;
        // Inference cases state their TP degree: nothing is planned.
        r.context.layout_stated = c.kind == "inference" || in.layout_stated;
        r.context.framework_stated = framework_stated(c.raw);
        r.context.gpu_class = gpu_class(in.gpu.id);
        if (pr.value > 0) r.log_ratio = metric_is_rate(pr.metric) ? std::log(pr.value / *m) : std::log(*m / pr.value);
        abs_pct[c.kind].push_back(std::fabs(r.error) * 100);
        ++s.count;
        if (options.best_layout && c.kind == "train_throughput" && in.layout_stated) {
          // How much faster the planner's best layout for the same model,
          // GPUs, batch, sequence and framework is predicted to be.
          if (const std::optional<Layout> best = best_case_layout(in)) {
            StepTimeOptions so;
            so.gpus_per_node = in.gpu.gpus_per_node;
            const double stated_s = estimate_step_time(in.model, in.layout, in.gpu, so).step_s;
            const double best_s = estimate_step_time(in.model, *best, in.gpu, so).step_s;
            r.best_layout_speedup = std::max(0.0, stated_s / best_s - 1);
            const Layout& b = *best;
            r.best_layout = fmt::format("tp {} pp {} dp {} cp {} ep {} vp {} mb {} ZeRO-{} recompute {} sp {}", b.tp, b.pp, b.dp, b.cp, b.ep,
                                        b.vp, b.micro_batch, b.zero_stage, recompute_name(b.recompute), b.sequence_parallel ? "on" : "off");
            speedups[c.kind].push_back(*r.best_layout_speedup * 100);
          }
        }
        out.cases.push_back(std::move(r));
      }
    } catch (const InputError& e) {
      ++s.failed;
      out.failures.push_back(fmt::format("{}: {}", c.id, e.what()));
    }
  }
  for (const auto& k : order) {
    KindSummary s = summary[k];
    const auto& v = abs_pct[k];
    s.median_abs_pct_error = median(v);
    double sum = 0;
    for (double x : v) sum += x;
    s.mape = v.empty() ? 0 : sum / static_cast<double>(v.size());
    s.best_layout_cases = static_cast<int>(speedups[k].size());
    s.best_layout_speedup_median_pct = median(speedups[k]);
    out.summary.push_back(s);
  }
  add_ranges(out, out.interval);
  return out;
}

namespace {

std::string join(const std::vector<Bilingual>& v, const char* sep, std::string Bilingual::*lang) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i].*lang;
  return s;
}

std::vector<std::string> english(const std::vector<Bilingual>& v) {
  std::vector<std::string> out;
  for (const auto& b : v) out.push_back(b.en);
  return out;
}

// A case kind as people read it in Chinese; JSON, CSV and --kind keep the id.
std::string kind_zh(const std::string& kind) { return case_kind_zh(kind); }

}  // namespace

Report validation_report(const ValidationResult& r, const std::string& origin) {
  Report rep;
  rep.command = "validate";
  rep.csv_table = "cases";  // CSV: one line per case
  rep.title_en = "Predictions against published measurements";
  rep.title_zh = "预测与公开实测对比";
  rep.inputs = {{"file", origin}};
  Section cs{"cases", "Cases", "案例", {}, {"id", "kind", "metric", "predicted", "low", "high", "measured", "error", "flags"}, {}};
  Section fs{"case_flags", "Defaults assumed per case (inputs the source left out)", "各案例采用的默认值（来源未给出的输入）", {}, {}, {}};
  for (const auto& c : r.cases) {
    cs.records.push_back({Row{"id", "id", "编号", 0, Unit::kText, c.id},
                          Row{"kind", "kind", "类型", 0, Unit::kText, c.kind, {}, Audience::kAll, kind_zh(c.kind)},
                          Row{"metric", "metric", "指标", 0, Unit::kText, c.metric},
                          Row{"predicted", "predicted", "预测", c.predicted, Unit::kCount, ""},
                          c.predicted_low ? Row{"predicted_low", "low", "下限", *c.predicted_low, Unit::kCount, ""}
                                          : Row{"predicted_low", "low", "下限", 0, Unit::kText, "—"},
                          c.predicted_high ? Row{"predicted_high", "high", "上限", *c.predicted_high, Unit::kCount, ""}
                                           : Row{"predicted_high", "high", "上限", 0, Unit::kText, "—"},
                          Row{"measured", "measured", "实测", c.measured, Unit::kCount, ""},
                          Row{"error", "error", "误差", c.error, Unit::kFraction, ""},
                          Row{"flags", "flags", "默认值数", static_cast<double>(c.flags.size()), Unit::kCount, ""}});
    if (!c.flags.empty()) {
      fs.rows.push_back(Row{c.id, c.id, c.id, 0, Unit::kText, join(c.flags, "; ", &Bilingual::en), {}, Audience::kAll, join(c.flags, "；", &Bilingual::zh)});
    }
  }
  rep.sections.push_back(cs);
  Section ss{"summary", "Summary per kind", "按类型汇总", {}, {"kind", "count", "median |error|", "MAPE", "inside range", "median range width", "not predicted", "failed", "best layout faster by (median)"}, {}};
  for (const auto& s : r.summary) {
    ss.records.push_back({Row{"kind", "kind", "类型", 0, Unit::kText, s.kind, {}, Audience::kAll, kind_zh(s.kind)},
                          Row{"count", "count", "数量", static_cast<double>(s.count), Unit::kCount, ""},
                          Row{"median_abs_pct_error", "median", "中位数", s.median_abs_pct_error / 100, Unit::kFraction, ""},
                          Row{"mape", "MAPE", "MAPE", s.mape / 100, Unit::kFraction, ""},
                          s.ranged ? Row{"coverage", "inside range", "落在区间内", static_cast<double>(s.inside) / s.ranged, Unit::kFraction, ""}
                                   : Row{"coverage", "inside range", "落在区间内", 0, Unit::kText, "—"},
                          s.ranged ? Row{"median_range_width", "median range width", "区间宽度中位数", s.median_range_width, Unit::kFraction, ""}
                                   : Row{"median_range_width", "median range width", "区间宽度中位数", 0, Unit::kText, "—"},
                          Row{"not_predicted", "not predicted", "未预测", static_cast<double>(s.not_predicted), Unit::kCount,
                              s.not_predicted ? fmt::format("not predicted yet (kind {})", s.kind) : "", {}, Audience::kAll,
                              s.not_predicted ? fmt::format("尚未预测（类型 {}）", kind_zh(s.kind)) : ""},
                          Row{"failed", "failed", "失败", static_cast<double>(s.failed), Unit::kCount, ""},
                          s.best_layout_cases > 0
                              ? Row{"best_layout_speedup_median", "best layout faster by (median)", "最优布局快（中位数）",
                                    s.best_layout_speedup_median_pct / 100, Unit::kFraction, ""}
                              : Row{"best_layout_speedup_median", "best layout faster by (median)", "最优布局快（中位数）", 0, Unit::kText, "—"}});
  }
  rep.sections.push_back(ss);
  if (!fs.rows.empty()) rep.sections.push_back(fs);
  for (const auto& f : r.failures) rep.warnings.push_back(Note{"could not predict " + f, "无法预测 " + f});
  rep.assumptions.push_back(Note{"error = predicted / measured − 1; median and MAPE are of |error|, per kind.",
                                 "误差 = 预测 / 实测 − 1；中位数与 MAPE 均按类型对 |误差| 统计。"});
  rep.assumptions.push_back(Note{fmt::format("low–high is the {:.0f}% prediction interval, read from the residuals of every other source in the "
                                             "file (leave-one-source-out), grouped by kind, layout stated or planned, framework stated or "
                                             "generic and GPU class (docs/intervals.md).", r.interval * 100),
                                 fmt::format("下限–上限为 {:.0f}% 预测区间，取自文件中其他来源的残差（留一来源交叉验证），按类型、"
                                             "并行方案给定或规划、框架给定或通用、GPU 类别分组（docs/intervals.md）。", r.interval * 100)});
  for (const auto& s : r.summary) {
    if (!s.ranged) continue;
    rep.assumptions.push_back(Note{fmt::format("{}: {} of {} measurements ({:.0f}%) inside the {:.0f}% range; median range width {:.0f}% of the prediction.",
                                               s.kind, s.inside, s.ranged, 100.0 * s.inside / s.ranged, r.interval * 100, s.median_range_width * 100),
                                   fmt::format("{}：{} 个实测中有 {} 个（{:.0f}%）落在 {:.0f}% 区间内；区间宽度中位数为预测值的 {:.0f}%。",
                                               kind_zh(s.kind), s.ranged, s.inside, 100.0 * s.inside / s.ranged, r.interval * 100, s.median_range_width * 100)});
  }
  return rep;
}

nlohmann::json validation_json(const ValidationResult& r, const std::string& origin) {
  nlohmann::json j = nlohmann::json::object();
  j["schema_version"] = kJsonSchemaVersion;
  j["command"] = "validate";
  j["file"] = origin;
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : r.cases) {
    nlohmann::json row = {{"id", c.id}, {"kind", c.kind}, {"metric", c.metric}, {"verification", c.verification},
                          {"predicted", c.predicted}, {"measured", c.measured}, {"error", c.error}, {"flags", english(c.flags)}};
    if (c.predicted_low && c.predicted_high) {
      row["predicted_low"] = *c.predicted_low;
      row["predicted_high"] = *c.predicted_high;
      row["range_group"] = c.range_group;
    }
    if (c.best_layout_speedup) {
      row["best_layout_speedup"] = *c.best_layout_speedup;
      row["best_layout"] = c.best_layout;
    }
    cases.push_back(row);
  }
  j["cases"] = cases;
  nlohmann::json summary = nlohmann::json::object();
  for (const auto& s : r.summary) {
    nlohmann::json o = {{"count", s.count}, {"median_abs_pct_error", s.median_abs_pct_error}, {"mape", s.mape},
                        {"not_predicted", s.not_predicted}, {"failed", s.failed}};
    if (s.not_predicted) o["note"] = fmt::format("not predicted yet (kind {})", s.kind);
    o["interval_level"] = r.interval;
    o["ranged"] = s.ranged;
    o["inside"] = s.inside;
    if (s.ranged) {
      o["coverage"] = static_cast<double>(s.inside) / s.ranged;
      o["median_range_width"] = s.median_range_width;
    }
    if (s.best_layout_cases > 0) {
      o["best_layout_cases"] = s.best_layout_cases;
      o["best_layout_speedup_median_pct"] = s.best_layout_speedup_median_pct;
      // The five stated layouts the model thinks are furthest from the best.
      std::vector<const CaseResult*> rows;
      for (const auto& c : r.cases) {
        if (c.kind == s.kind && c.best_layout_speedup) rows.push_back(&c);
      }
      std::sort(rows.begin(), rows.end(), [](const CaseResult* a, const CaseResult* b) { return *a->best_layout_speedup > *b->best_layout_speedup; });
      nlohmann::json worst = nlohmann::json::array();
      for (size_t i = 0; i < rows.size() && i < 5; ++i) {
        worst.push_back({{"id", rows[i]->id}, {"best_layout_speedup", *rows[i]->best_layout_speedup}, {"best_layout", rows[i]->best_layout}});
      }
      o["best_layout_worst"] = worst;
    }
    summary[s.kind] = o;
  }
  j["summary"] = summary;
  j["failures"] = r.failures;
  nlohmann::json closing = nlohmann::json::array();
  for (const auto& s : r.summary) {
    if (!s.ranged) continue;
    closing.push_back(fmt::format("{}: {} of {} measurements ({:.0f}%) inside the {:.0f}% range (leave-one-source-out); median range width {:.0f}% of the prediction.",
                                  s.kind, s.inside, s.ranged, 100.0 * s.inside / s.ranged, r.interval * 100, s.median_range_width * 100));
  }
  j["note"] = closing;
  return j;
}

}  // namespace gpuplan
