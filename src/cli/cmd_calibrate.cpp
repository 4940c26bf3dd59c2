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
#include "inputs/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "commands/calibrate.hpp"
#include "report/calibration_report.hpp"
#include "gpuplan/units.hpp"
#include "input_flags.hpp"
#include "estimate/uncertainty/calibration_json.hpp"

namespace gpuplan::cli {
namespace {

struct CalibrateFlags {
  OutputOptions out;
  CalibrateInputs in;
  std::string save;  // a file to write: the CLI's own
};

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
  const CalibrationRun run = run_calibration(f);
  const Calibration& c = run.calibration;
  Report rep = calibration_report(run);
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
