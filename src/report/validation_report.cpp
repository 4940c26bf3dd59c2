// The validation result as a report: each case's prediction, measurement and
// error, then per kind the median and MAPE (gpuplan validate's output).
#include "report/validation_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gpuplan/published_mfu.hpp"
#include "gpuplan/step_time.hpp"

namespace gpuplan {

namespace {

std::string join_language(const std::vector<Bilingual>& v, const char* sep, std::string Bilingual::*lang) {
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
  Section cs{"cases", "Cases", "案例", {}, {"id", "kind", "metric", "predicted", "low", "high", "physics", "measured", "error", "physics error", "flags"}, {}};
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
                          Row{"predicted_physics", "physics", "纯物理", c.predicted_physics, Unit::kCount, ""},
                          Row{"measured", "measured", "实测", c.measured, Unit::kCount, ""},
                          Row{"error", "error", "误差", c.error, Unit::kFraction, ""},
                          Row{"physics_error", "physics error", "纯物理误差", c.physics_error, Unit::kFraction, ""},
                          Row{"flags", "flags", "默认值数", static_cast<double>(c.flags.size()), Unit::kCount, ""}});
    if (!c.flags.empty()) {
      fs.rows.push_back(Row{c.id, c.id, c.id, 0, Unit::kText, join_language(c.flags, "; ", &Bilingual::en), {}, Audience::kAll, join_language(c.flags, "；", &Bilingual::zh)});
    }
  }
  rep.sections.push_back(cs);
  Section ss{"summary", "Summary per kind", "按类型汇总", {}, {"kind", "count", "median |error|", "MAPE", "physics median", "physics MAPE", "inside range", "median range width", "not predicted", "failed", "best layout faster by (median)"}, {}};
  for (const auto& s : r.summary) {
    ss.records.push_back({Row{"kind", "kind", "类型", 0, Unit::kText, s.kind, {}, Audience::kAll, kind_zh(s.kind)},
                          Row{"count", "count", "数量", static_cast<double>(s.count), Unit::kCount, ""},
                          Row{"median_abs_pct_error", "median", "中位数", s.median_abs_pct_error / 100, Unit::kFraction, ""},
                          Row{"mape", "MAPE", "MAPE", s.mape / 100, Unit::kFraction, ""},
                          Row{"physics_median_abs_pct_error", "physics median", "纯物理中位数", s.physics_median_abs_pct_error / 100, Unit::kFraction, ""},
                          Row{"physics_mape", "physics MAPE", "纯物理 MAPE", s.physics_mape / 100, Unit::kFraction, ""},
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
  for (size_t i = 0; i < r.failures.size(); ++i) {
    rep.warnings.push_back(Note{"could not predict " + r.failures[i], "无法预测 " + (i < r.failures_zh.size() ? r.failures_zh[i] : r.failures[i])});
  }
  rep.assumptions.push_back(Note{"predicted is the central number a command reports: the physics times the median of the calibrated error "
                                 "distribution of every other source (leave-one-source-out); physics is the estimators alone (ideal-stack "
                                 "physics). error = predicted / measured − 1; median and MAPE are of |error|, per kind, for both.",
                                 "预测值为命令给出的中心值：纯物理估计乘以其他来源（留一来源）校准误差分布的中位数；纯物理为估算器本身的结果"
                                 "（理想软件栈的物理模型）。误差 = 预测 / 实测 − 1；中位数与 MAPE 均按类型对 |误差| 统计，两者都给出。"});
  rep.assumptions.push_back(Note{fmt::format("low–high is the {:.0f}% prediction interval, read from the residuals of every other source in the "
                                             "file (leave-one-source-out), grouped by kind, one first dimension chosen "
                                             "per kind (MoE or dense model, or layout stated or planned), framework stated or generic and GPU class (docs/intervals.md).", r.interval * 100),
                                 fmt::format("下限–上限为 {:.0f}% 预测区间，取自文件中其他来源的残差（留一来源交叉验证），按类型、"
                                             "按类型选定的第一维度（MoE 或稠密模型，或并行方案给定或规划）、框架给定或通用、GPU 类别分组（docs/intervals.md）。", r.interval * 100)});
  for (const std::string& k : r.physics_centred) {
    rep.assumptions.push_back(Note{fmt::format("{}: centred on the physics, since the held-out median correction predicted it worse than the "
                                               "physics alone; its range is the residuals' spread around their median.", k),
                                   fmt::format("{}：以纯物理估计为中心，因为留一来源的中位数修正比纯物理估计更差；其区间为残差围绕中位数的分布。",
                                               kind_zh(k))});
  }
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
                          {"predicted", c.predicted}, {"predicted_physics", c.predicted_physics}, {"measured", c.measured},
                          {"error", c.error}, {"physics_error", c.physics_error}, {"flags", english(c.flags)}};
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
  j["physics_centred"] = r.physics_centred;
  // Each kind's first interval dimension: "model" (MoE or dense), "layout" (stated or planned); absent: neither.
  nlohmann::json first = nlohmann::json::object();
  for (const auto& [kind, split] : r.first_split) {
    if (split != FirstSplit::kNone) first[kind] = first_split_id(split);
  }
  j["first_split"] = first;
  nlohmann::json summary = nlohmann::json::object();
  for (const auto& s : r.summary) {
    nlohmann::json o = {{"count", s.count}, {"median_abs_pct_error", s.median_abs_pct_error}, {"mape", s.mape},
                        {"physics_median_abs_pct_error", s.physics_median_abs_pct_error}, {"physics_mape", s.physics_mape},
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
