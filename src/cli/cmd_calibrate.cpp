// gpuplan calibrate: fit the model to what a short trial run measured, save
// the factors, and re-plan the full run with them.
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

namespace gpuplan::cli {
namespace {

struct CalibrateFlags {
  OutputOptions out;
  CalibrateInputs in;
  std::string save;  // a file to write: the CLI's own
};

void run(const CalibrateFlags& flags) {
  load_gpu_file(flags.out);
  const CalibrateInputs& f = flags.in;
  const CalibrationRun run = run_calibration(f);
  const Calibration& c = run.calibration;
  Report rep = calibration_report(run);
  // Written last, once every input has been read and every estimate made: a
  // bad flag leaves the old file as it was.
  if (const std::string& save = flags.save; !save.empty()) {
    save_calibration_file(c, save, f.layout.model);
    add_saved_note(&rep, save);
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
