// gpuplan calibrate: fit the model to what a short trial run measured, save
// the factors, and re-plan the full run with them.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "gpuplan/calibration.hpp"
#include "gpuplan/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/train_report.hpp"
#include "gpuplan/units.hpp"
#include "input_flags.hpp"

namespace gpuplan::cli {
namespace {

struct CalibrateFlags {
  OutputOptions out;
  CalibrateInputs in;
  std::string save;  // a file to write: the CLI's own
};

Report calibration_report(const ResolvedLayout& r, const Calibration& c) {
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
  return rep;
}

// --save's file, whole or not at all: the text goes to a temporary file in
// the same folder, is flushed and checked, and is renamed over the target
// (rename(2) is atomic), so a kill at any moment leaves the old file or the
// new one. A target that is not a regular file (/dev/full, a FIFO) is written
// in place, its errors reported. The --model file is never overwritten.
void save_calibration_file(const std::string& path, const std::string& text, const std::string& model) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target(path);
  if (!model.empty() && fs::exists(model, ec) && fs::exists(target, ec) && fs::equivalent(model, target, ec)) {
    throw InputError("--save", fmt::format("--save: {} is the --model file; choose another file for the calibration.", path),
                     fmt::format("--save：{} 就是 --model 的文件；请为校准结果另选一个文件。", path));
  }
  const fs::file_status st = fs::status(target, ec);
  const bool regular_or_new = !fs::exists(st) || fs::is_regular_file(st);
  const auto cannot = [&] {
    return InputError("--save", fmt::format("--save: cannot write {}.", path), fmt::format("--save：无法写入 {}。", path));
  };
  if (!regular_or_new) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.flush();
    if (!out) throw cannot();
    return;
  }
  const fs::path tmp = target.parent_path() / fmt::format(".{}.tmp-{}", target.filename().string(), static_cast<long>(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw cannot();
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw cannot();
  }
}

void run(const CalibrateFlags& flags) {
  load_gpu_file(flags.out);
  const CalibrateInputs& f = flags.in;
  const ResolvedLayout r = resolve_layout(f.layout);
  TrialMeasurement t;
  t.step_s = f.step_time;
  t.tokens_per_s_per_gpu = f.tokens_per_s_per_gpu;
  if (f.peak_memory_gib) t.peak_memory_bytes = *f.peak_memory_gib * kGiB;
  const Calibration c = calibrate(r.model, r.layout, r.gpu, t);
  Report rep = calibration_report(r, c);
  if (f.tokens) {
    // Re-plan the full run with the calibrated model.
    TrainRequest tr;
    tr.model = f.layout.model;
    tr.gpu = r.gpu.id;
    tr.workload.tokens = parse_optional_count(f.tokens, "--tokens");
    tr.workload.seq_len = r.layout.seq_len;
    tr.precision = r.layout.precision;
    tr.gpus = f.full_gpus ? parse_optional_count(f.full_gpus, "--full-gpus") : std::optional<double>(static_cast<double>(r.gpus));
    if (f.deadline) {
      tr.deadline_s = parse_duration_s(*f.deadline, "--deadline");
      if (!f.full_gpus) tr.gpus.reset();
    }
    tr.calibration = c;
    const Report full = train_report(tr);
    for (const Section& s : full.sections) {
      Section copy = s;
      copy.key = "full_run_" + s.key;
      copy.en = "Full run: " + s.en;
      copy.zh = "完整训练：" + s.zh;
      rep.sections.push_back(copy);
    }
    for (const Note& n : full.assumptions) rep.assumptions.push_back(n);
    for (const Note& n : full.warnings) rep.warnings.push_back(n);
  }
  // Written last, once every input has been read and every estimate made: a
  // bad flag leaves the old file as it was.
  if (const std::string& save = flags.save; !save.empty()) {
    save_calibration_file(save, calibration_to_json(c).dump(2) + "\n", f.layout.model);
    rep.assumptions.push_back({fmt::format("Saved to {}; pass it to later commands with --calibration {}.", save, save),
                               fmt::format("已保存到 {}；之后用 --calibration {} 使用。", save, save)});
  }
  print_report(rep, flags.out);
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto flags = std::make_shared<CalibrateFlags>();
  CLI::App* cmd = app.add_subcommand("calibrate",
      help_text("Fit gpuplan to what a short trial run measured (run ~1% of the data first),\n"
      "save the factors, and re-plan the full run with them.\n"
      "Example: ",
      "用一次短试跑的实测结果校准 gpuplan（先跑约 1% 的数据），\n"
      "保存校准系数，再用它重新规划完整训练。\n"
      "示例：") +
      "gpuplan calibrate --model llama-3.1-8b --gpu h100 --gpus 8 --tp 2 --global-batch 32 --micro-batch 2 \\\n"
      "           --step-time 2.4 --peak-memory-gib 61 --save calib.json --tokens 1T --full-gpus 256");
  auto* f = flags.get();
  add_model_flag(cmd, &f->in.layout.model);
  add_params_flag(cmd, &f->in.layout.params, "Instead of --model: a bare parameter count (7B); model states only", "代替 --model：只给参数量（7B），只算模型状态");
  visit_calibrate_inputs(f->in, BindInputs{cmd});
  cmd->add_option("--save", f->save, help_text("Write the fitted factors to this JSON file", "把拟合的系数写入这个 JSON 文件"));
  add_output_options(cmd, &f->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
