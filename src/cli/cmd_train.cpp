// gpuplan train: FLOPs, time, GPU count and cost of a training run.
#include <memory>
#include <string>

#include "commands.hpp"
#include "common.hpp"
#include "inputs/command_inputs.hpp"
#include "report/train_report.hpp"
#include "input_flags.hpp"
#include "inputs/report_chains.hpp"
#include "hardware/hardware_words.hpp"

namespace gpuplan::cli {
namespace {

struct TrainFlags {
  OutputOptions out;
  TrainInputs in;
  std::string calibration_file;
};

void run(const TrainFlags& f) {
  load_gpu_file(f.out);
  TrainInputs in = f.in;
  if (!in.market) in.market = market_code(default_market_for_lang(f.out.lang));
  TrainRequest r = make_train_request(in);
  if (!f.calibration_file.empty()) r.calibration = load_calibration_file(f.calibration_file);
  print_report(train_report_for(r), f.out);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto flags = std::make_shared<TrainFlags>();
  CLI::App* cmd = app.add_subcommand("train",
      help_text("Compute, time, GPU count and cost of a training run.\n"
      "Give the model (--model or --params), the data (--tokens), the GPU (--gpu) and two of\n"
      "--gpus, --deadline, --mfu: gpuplan solves the third.\n"
      "Example: gpuplan train --model llama-3.1-70b --tokens 15T --gpu h100 --gpus 2048 --mfu 0.4",
      "一次训练的计算量、时间、卡数与费用。\n"
      "给出模型（--model 或 --params）、数据（--tokens）、GPU（--gpu），以及 --gpus、--deadline、--mfu\n"
      "中的两个：gpuplan 求出第三个。\n"
      "示例：gpuplan train --model llama-3.1-70b --tokens 15T --gpu h100 --gpus 2048 --mfu 0.4 --lang zh"));
  TrainInputs* f = &flags->in;
  add_model_flag(cmd, &f->model);
  add_params_flag(cmd, &f->params, "Instead of --model: a bare parameter count (7e9, 70B); uses 6·N", "代替 --model：只给参数量（7e9、70B），按 6·N 计算");
  // Every other input from its one declaration (command_inputs.hpp).
  visit_train_inputs(*f, BindInputs{cmd});
  cmd->add_option("--calibration", flags->calibration_file, help_text("File written by 'gpuplan calibrate --save': factors fitted to your trial run", "'gpuplan calibrate --save' 写出的文件：按你的试跑拟合的系数"));
  add_output_options(cmd, &flags->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
