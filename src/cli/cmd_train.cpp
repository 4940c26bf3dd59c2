// gpuplan train: FLOPs, time, GPU count and cost of a training run.
#include <map>
#include <memory>
#include <string>
#include <type_traits>

#include "commands.hpp"
#include "common.hpp"
#include "gpuplan/command_inputs.hpp"
#include "gpuplan/train_report.hpp"

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
  print_report(train_report(r), f.out);
}

}  // namespace

// A unit of the train inputs (command_inputs.hpp) as the Chinese --help writes it.
static const char* unit_zh(const char* unit) {
  static const std::map<std::string, const char*> zh = {
      {"bytes", "字节"}, {"tokens", "token"}, {"fraction of compute", "占计算时间的比例"}, {"hours", "小时"}, {"minutes", "分钟"},
      {"GB/s", "GB/s"}, {"GPUs", "卡"}, {"fraction", "比例"}, {"fraction of GPU-hours", "占卡时的比例"}, {"result currency", "结果币种"},
      {"years", "年"}, {"kW", "kW"}, {"ratio", "比值"}, {"result currency per kWh", "结果币种/kWh"},
      {"result currency per kW-month", "结果币种/(kW·月)"}, {"result currency per year", "结果币种/年"}, {"nodes", "节点"},
      {"fraction per year", "每年比例"}, {"probability", "概率"}};
  const auto it = zh.find(unit);
  return it == zh.end() ? unit : it->second;
}

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
  cmd->add_option("--model,-m", f->model, help_text("Catalog id or alias (gpuplan models), or a config.json file or folder", "目录中的模型 id 或别名（gpuplan models），或 config.json 文件/所在目录"));
  cmd->add_option("--params", f->params, help_text("Instead of --model: a bare parameter count (7e9, 70B); uses 6·N", "代替 --model：只给参数量（7e9、70B），按 6·N 计算"));
  // Every other input from its one declaration (command_inputs.hpp), bound by its type:
  // a switch for a bool, the default shown for a set value (a number, bf16).
  visit_train_inputs(*f, [cmd](const InputInfo& input, auto& field) {
    using T = std::decay_t<decltype(field)>;
    if constexpr (std::is_same_v<T, bool>) {
      cmd->add_flag(input.flags, field, help_text(input.help, *input.help_zh ? input.help_zh : input.help));
    } else {
      CLI::Option* o = cmd->add_option(input.flags, field, help_text(input.help, *input.help_zh ? input.help_zh : input.help));
      if (*input.unit) {  // --pue FLOAT (ratio); CLI11 translates only the type names it writes itself
        const std::string type = o->get_type_name();
        const std::string type_zh = type == "FLOAT" ? "数值" : type == "INT" ? "整数" : type == "UINT" ? "非负整数" : type == "TEXT" ? "文本" : type;
        o->type_name(help_text(type.c_str(), type_zh.c_str()) + " (" + help_text(input.unit, unit_zh(input.unit)) + ")");
      }
      if constexpr (std::is_arithmetic_v<T>) o->capture_default_str();
      if constexpr (std::is_same_v<T, std::string>) {
        if (!field.empty()) o->capture_default_str();
      }
    }
  });
  add_framework_flags(cmd, &f->software);
  cmd->add_option("--calibration", flags->calibration_file, help_text("File written by 'gpuplan calibrate --save': factors fitted to your trial run", "'gpuplan calibrate --save' 写出的文件：按你的试跑拟合的系数"));
  add_output_options(cmd, &flags->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
