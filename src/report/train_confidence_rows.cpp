// The honest-budget rows and notes of `gpuplan train` (train_confidence_rows.hpp).
#include "report/train_confidence_rows.hpp"
#include "hardware/hardware_words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuplan::train_detail {

Note capped_mfu_note(const MfuCheck& m, const GpuSpec& gpu, double shown_mfu) {
  const PublishedMfu& p = m.published;
  const std::string where_en = p.from_class ? fmt::format("the best published for {} GPUs ({:.1f}%, {})", p.gpu_class, p.best_mfu * 100, p.run)
                                            : fmt::format("anything published: no MFU is published for {} ({}), and the best on any "
                                                          "accelerator is {:.1f}% ({})",
                                                          gpu.id, p.gpu_class, p.best_mfu * 100, p.run);
  const std::string where_zh = p.from_class ? fmt::format(" {} GPU 已公开的最好水平（{:.1f}%，{}）", gpu_class_zh(p.gpu_class), p.best_mfu * 100, p.run_zh)
                                            : fmt::format("任何已公开的数字：{}（{}）没有公开的 MFU，所有加速器上最好的是 {:.1f}%（{}）",
                                                          gpu.id, gpu_class_zh(p.gpu_class), p.best_mfu * 100, p.run_zh);
  // The numbers below are the median of the calibrated distribution, each end
  // held to the cap; the cap itself binds them only where the median would pass it.
  if (shown_mfu < m.used - 1e-9) {
    return Note{fmt::format("The step-time model predicts {:.1f}% MFU, above {}. GPU count, time and cost below use {:.1f}%, the median of "
                            "published runs of this kind against the model, no end of the range faster than the cap {:.1f}%.",
                            m.raw * 100, where_en, shown_mfu * 100, m.used * 100),
                fmt::format("步时模型预测 MFU 为 {:.1f}%，高于{}。下面的卡数、时间和费用按同类公开训练相对该模型的中位数 {:.1f}% 计算，"
                            "区间任何一端都不超过封顶值 {:.1f}%。",
                            m.raw * 100, where_zh, shown_mfu * 100, m.used * 100)};
  }
  return Note{fmt::format("The step-time model predicts {:.1f}% MFU, above {}. GPU count, time and cost below use the capped {:.1f}%.",
                          m.raw * 100, where_en, m.used * 100),
              fmt::format("步时模型预测 MFU 为 {:.1f}%，高于{}。下面的卡数、时间和费用按封顶后的 {:.1f}% 计算。", m.raw * 100, where_zh,
                          m.used * 100)};
}

namespace {

// One row's range: `low_factor` ≤ 1 ≤ `high_factor` on a cost-like value (a
// rate divides by them), and its physics at `physics_factor`.
void add(Report& rep, const std::string& section, const std::string& key, double low_factor, double high_factor, double physics_factor,
         double level, bool rate) {
  for (const Section& s : rep.sections) {
    if (s.key != section) continue;
    for (const Row& row : s.rows) {
      if (row.key != key || row.unit == Unit::kText || !std::isfinite(row.value)) continue;
      const double lo = rate ? row.value / high_factor : row.value * low_factor;
      const double hi = rate ? row.value / low_factor : row.value * high_factor;
      const double phys = rate ? row.value / physics_factor : row.value * physics_factor;
      rep.ranges.push_back(RowRange{section, key, lo, hi, level, phys});
    }
  }
}

}  // namespace

void add_train_ranges(Report& rep, const Confidence& c, const std::optional<MfuDistribution>& mfu) {
  if (mfu && c.time_range) {
    const MfuDistribution& d = *mfu;
    // Time ∝ 1 / MFU: on a row solved at the median MFU, the fast end is
    // median/fast, the slow end median/slow, the physics median/physics.
    const double lo = d.median / d.fast, hi = d.median / d.slow, phys = d.median / d.physics;
    for (const char* key : {"wall_clock_s", "compute_s", "fault_budget_s"}) add(rep, "time", key, lo, hi, phys, d.level, false);
    add(rep, "time", "mfu", lo, hi, phys, d.level, true);
    add(rep, "time", "achieved_flop_per_s_per_gpu", lo, hi, phys, d.level, true);
    for (const char* key : {"compute_gpu_hours", "fault_budget_gpu_hours", "total_gpu_hours", "total_gpu_days"}) {
      add(rep, "gpu_hours", key, lo, hi, phys, d.level, false);
    }
    // The layout rows are shown at the median too (train_report scales them).
    add(rep, "layout", "step_s", lo, hi, phys, d.level, false);
    add(rep, "layout", "tokens_per_s_per_gpu", lo, hi, phys, d.level, true);
    add(rep, "layout", "predicted_mfu", lo, hi, phys, d.level, true);
    // The money that scales with the run's time, in the cost object and its conversion.
    for (const char* section : {"cost", "cost.converted"}) {
      for (const char* key : {"compute", "fault_budget", "run", "total", "total_at_price_high"}) add(rep, section, key, lo, hi, phys, d.level, false);
    }
  }
  if (c.memory_range) {
    const ErrorRange& m = *c.memory_range;
    // The peak shown is the physics × the median factor (1 where the table
    // centres train_memory on the physics, as it does now: held out, the
    // median correction predicted memory worse than the physics alone).
    for (Section& s : rep.sections) {
      if (s.key != "memory") continue;
      for (Row& row : s.rows) {
        if (row.key != "peak_bytes" || !std::isfinite(row.value)) continue;
        const double physics = row.value;
        row.value = physics * m.median;
        rep.ranges.push_back(RowRange{"memory", "peak_bytes", physics * m.low, physics * m.high, m.level, physics});
      }
    }
  }
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
