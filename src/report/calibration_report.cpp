// `gpuplan calibrate`'s report: the trial run predicted against measured, the
// fitted factors, and the full run re-planned with them (calibration_report.hpp).
#include "report/calibration_report.hpp"

#include <fmt/format.h>

#include "report/train_report.hpp"

namespace gpuplan {

Report calibration_report(const CalibrationRun& run) {
  const ResolvedLayout& r = run.trial;
  const Calibration& c = run.calibration;
  Report rep;
  rep.command = "calibrate";
  rep.title_en = "Calibration from a trial run";
  rep.title_zh = "按试跑结果校准";
  rep.inputs = {{"model", r.model.name}, {"gpu", r.gpu.id}, {"gpus", r.gpus}};
  Section s{"calibration", "Trial run: predicted vs measured", "试跑：预测与实测", {}, {}, {}};
  s.rows.push_back(Row{"predicted_step_s", "Predicted step (uncalibrated)", "预测单步时间（未校准）", c.predicted_step_s, Unit::kSeconds, ""});
  s.rows.push_back(Row{"measured_step_s", "Measured step", "实测单步时间", c.measured_step_s, Unit::kSeconds, ""});
  s.rows.push_back(Row{"step_error", "Prediction error (predicted / measured − 1)", "预测误差", c.step_error, Unit::kFraction, ""});
  s.rows.push_back(Row{"gemm_ceiling", "Fitted GEMM efficiency ceiling", "拟合的 GEMM 效率上限", c.gemm_ceiling, Unit::kFraction,
                       c.step_clamped ? "(clamped: the layout alone cannot explain the measurement)" : ""});
  if (c.step_clamped) s.rows.back().text_zh = "（已截断：仅凭并行方案解释不了实测值）";
  if (c.measured_peak_bytes > 0) {
    s.rows.push_back(Row{"predicted_peak_bytes", "Predicted peak memory", "预测显存峰值", c.predicted_peak_bytes, Unit::kBytes, ""});
    s.rows.push_back(Row{"measured_peak_bytes", "Measured peak memory", "实测显存峰值", c.measured_peak_bytes, Unit::kBytes, ""});
    s.rows.push_back(Row{"memory_error", "Memory prediction error", "显存预测误差", c.memory_error, Unit::kFraction, ""});
    s.rows.push_back(Row{"fragmentation", "Fitted memory overhead (fraction of allocated)", "拟合的显存额外开销", c.fragmentation, Unit::kFraction,
                         c.memory_clamped ? "(the model over-predicts even with no overhead; kept at 0)" : ""});
    if (c.memory_clamped) s.rows.back().text_zh = "（不加额外开销时模型已高估，取 0）";
  }
  rep.sections.push_back(s);
  if (run.full_run) {
    // The full run, re-planned with the calibrated model.
    const Report full = train_report(*run.full_run, *run.full_run_estimate);
    for (const Section& fs : full.sections) {
      Section copy = fs;
      copy.key = "full_run_" + fs.key;
      copy.en = "Full run: " + fs.en;
      copy.zh = "完整训练：" + fs.zh;
      rep.sections.push_back(copy);
    }
    for (const Note& n : full.assumptions) rep.assumptions.push_back(n);
    for (const Note& n : full.warnings) rep.warnings.push_back(n);
  }
  return rep;
}

void add_saved_note(Report* report, const std::string& path) {
  report->assumptions.push_back({fmt::format("Saved to {}; pass it to later commands with --calibration {}.", path, path),
                                 fmt::format("已保存到 {}；之后用 --calibration {} 使用。", path, path)});
}

}  // namespace gpuplan
