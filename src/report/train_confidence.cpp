#include "train_confidence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuplan::train_detail {

Confidence train_confidence(const TrainRequest& r, const GpuSpec& gpu) {
  Confidence c;
  c.interval = check_level(r.interval, "--interval");
  c.confidence = check_level(r.confidence, "--confidence");
  const bool fw = r.framework && r.framework->id != "generic";
  // The layout is the planner's: a whole run predicted from it carries the
  // gap between planned and achieved throughput that published totals show.
  c.time_ctx = PredictionContext{"train_total", false, fw, gpu_class(gpu.id)};
  c.memory_ctx = PredictionContext{"train_memory", false, fw, gpu_class(gpu.id)};
  const IntervalTable& t = shipped_interval_table();
  c.time_range = error_range(t, c.time_ctx, c.interval);
  c.memory_range = error_range(t, c.memory_ctx, c.interval);
  c.sizing_factor = error_quantile(t, c.time_ctx, c.confidence).value_or(1.0);
  c.median_factor = error_quantile(t, c.time_ctx, 0.5).value_or(1.0);
  return c;
}

MfuCheck check_mfu(double predicted, const GpuSpec& gpu, Precision precision) {
  MfuCheck m;
  m.raw = predicted;
  m.published = published_mfu(gpu.id, precision);
  m.capped = m.published.best_mfu > 0 && predicted > m.published.best_mfu;
  m.used = m.capped ? m.published.best_mfu : predicted;
  return m;
}

double capped(const MfuCheck& m, double mfu) { return m.published.best_mfu > 0 ? std::min(mfu, m.published.best_mfu) : mfu; }

Note capped_mfu_note(const MfuCheck& m, const GpuSpec& gpu) {
  const PublishedMfu& p = m.published;
  const std::string where_en = p.from_class ? fmt::format("the best published for {} GPUs ({:.1f}%, {})", p.gpu_class, p.best_mfu * 100, p.run)
                                            : fmt::format("anything published: no MFU is published for {} ({}), and the best on any "
                                                          "accelerator is {:.1f}% ({})",
                                                          gpu.id, p.gpu_class, p.best_mfu * 100, p.run);
  const std::string where_zh = p.from_class ? fmt::format(" {} GPU 已公开的最好水平（{:.1f}%，{}）", gpu_class_zh(p.gpu_class), p.best_mfu * 100, p.run_zh)
                                            : fmt::format("任何已公开的数字：{}（{}）没有公开的 MFU，所有加速器上最好的是 {:.1f}%（{}）",
                                                          gpu.id, gpu_class_zh(p.gpu_class), p.best_mfu * 100, p.run_zh);
  return Note{fmt::format("The step-time model predicts {:.1f}% MFU, above {}. GPU count, time and cost below use the capped {:.1f}%.",
                          m.raw * 100, where_en, m.used * 100),
              fmt::format("步时模型预测 MFU 为 {:.1f}%，高于{}。下面的卡数、时间和费用按封顶后的 {:.1f}% 计算。", m.raw * 100, where_zh,
                          m.used * 100)};
}

namespace {

void add(Report& rep, const std::string& section, const std::string& key, double low_factor, double high_factor, double level, bool rate) {
  for (const Section& s : rep.sections) {
    if (s.key != section) continue;
    for (const Row& row : s.rows) {
      if (row.key != key || row.unit == Unit::kText || !std::isfinite(row.value)) continue;
      // A cost-like quantity scales with the factors; a rate by their inverse.
      const double lo = rate ? row.value / high_factor : row.value * low_factor;
      const double hi = rate ? row.value / low_factor : row.value * high_factor;
      rep.ranges.push_back(RowRange{section, key, lo, hi, level});
    }
  }
}

}  // namespace

void add_train_ranges(Report& rep, const Confidence& c, bool time_predicted, double cap_ratio) {
  if (time_predicted && c.time_range) {
    const ErrorRange& t = *c.time_range;
    // Factors on the raw prediction, no faster than the cap: time ≥ raw time / cap_ratio.
    const double floor_raw = 1 / cap_ratio;
    const double raw_lo = std::max(t.low, cap_ratio < 1 ? floor_raw : 0.0), raw_hi = std::max(t.high, cap_ratio < 1 ? floor_raw : 0.0);
    // The same on the capped figures the time, GPU-hours and cost rows show.
    const double lo = raw_lo * cap_ratio, hi = raw_hi * cap_ratio;
    add(rep, "time", "wall_clock_s", lo, hi, t.level, false);
    add(rep, "time", "mfu", lo, hi, t.level, true);
    add(rep, "time", "achieved_flop_per_s_per_gpu", lo, hi, t.level, true);
    add(rep, "gpu_hours", "total_gpu_hours", lo, hi, t.level, false);
    add(rep, "gpu_hours", "total_gpu_days", lo, hi, t.level, false);
    // The layout rows are the model's raw step and throughput.
    add(rep, "layout", "step_s", raw_lo, raw_hi, t.level, false);
    add(rep, "layout", "tokens_per_s_per_gpu", raw_lo, raw_hi, t.level, true);
    add(rep, "layout", "predicted_mfu", raw_lo, raw_hi, t.level, true);
    // The money that scales with the run's time, in the cost object and its conversion.
    for (const char* section : {"cost", "cost.converted"}) {
      for (const char* key : {"run", "total", "total_at_price_high"}) add(rep, section, key, lo, hi, t.level, false);
    }
  }
  if (c.memory_range) add(rep, "memory", "peak_bytes", c.memory_range->low, c.memory_range->high, c.memory_range->level, false);
}

void check_calibration(const Calibration& cal, const std::string& model_name, const GpuSpec& gpu, const std::string& planned_layout, Report& rep) {
  if (!cal.gpu_id.empty() && cal.gpu_id != gpu.id) {
    rep.blocking.push_back({fmt::format("The calibration was fitted on {} and is applied to {}: its GEMM efficiency and memory overhead "
                                        "belong to the other GPU. Calibrate on a trial run on {}.",
                                        cal.gpu_id, gpu.id, gpu.id),
                            fmt::format("校准文件是在 {} 上拟合的，现在用于 {}：其 GEMM 效率与显存开销属于另一种 GPU。请在 {} 上试跑后重新校准。",
                                        cal.gpu_id, gpu.id, gpu.id)});
  }
  if (!cal.model_name.empty() && cal.model_name != model_name) {
    rep.blocking.push_back({fmt::format("The calibration was fitted on {} and is applied to {}: GEMM shapes and memory differ between models.",
                                        cal.model_name, model_name),
                            fmt::format("校准文件是在 {} 上拟合的，现在用于 {}：不同模型的 GEMM 形状和显存不同。", cal.model_name, model_name)});
  }
  if (cal.gpu_id.empty() || cal.model_name.empty()) {
    rep.warnings.push_back({"The calibration file does not record the model and GPU it was fitted on (written before gpuplan recorded them); "
                            "it cannot be checked against this run.",
                            "校准文件没有记录拟合所用的模型和 GPU（旧版本写出），无法核对是否适用于本次训练。"});
  }
  if (!cal.layout.empty() && !planned_layout.empty() && cal.layout != planned_layout) {
    rep.warnings.push_back({fmt::format("The calibration was fitted on the layout {}; the planned one is {}. Communication and memory of the "
                                        "new layout are re-modelled; only the fitted efficiency carries over.",
                                        cal.layout, planned_layout),
                            fmt::format("校准所用并行方案为 {}，规划的方案为 {}。新方案的通信与显存重新建模，只沿用拟合的效率。", cal.layout, planned_layout)});
  }
}

}  // namespace gpuplan::train_detail
