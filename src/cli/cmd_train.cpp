// gpuplan train: FLOPs, time, GPU count and cost of a training run.
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

void add_train_command(CLI::App& app) {
  auto flags = std::make_shared<TrainFlags>();
  CLI::App* cmd = app.add_subcommand("train",
      "Compute, time, GPU count and cost of a training run.\n"
      "Give the model (--model or --params), the data (--tokens), the GPU (--gpu) and two of\n"
      "--gpus, --deadline, --mfu: gpuplan solves the third.\n"
      "Example: gpuplan train --model llama-3.1-70b --tokens 15T --gpu h100 --gpus 2048 --mfu 0.4");
  TrainInputs* f = &flags->in;
  cmd->add_option("--model,-m", f->model, "Catalog id or alias (gpuplan models), or a config.json file or folder");
  cmd->add_option("--params", f->params, "Instead of --model: a bare parameter count (7e9, 70B); uses 6·N");
  // Every other input from its one declaration (command_inputs.hpp), bound by its type:
  // a switch for a bool, the default shown for a set value (a number, bf16).
  visit_train_inputs(*f, [cmd](const InputInfo& input, auto& field) {
    using T = std::decay_t<decltype(field)>;
    if constexpr (std::is_same_v<T, bool>) {
      cmd->add_flag(input.flags, field, input.help);
    } else {
      CLI::Option* o = cmd->add_option(input.flags, field, input.help);
      if (*input.unit) o->type_name(o->get_type_name() + " (" + input.unit + ")");  // --pue FLOAT (ratio)
      if constexpr (std::is_arithmetic_v<T>) o->capture_default_str();
      if constexpr (std::is_same_v<T, std::string>) {
        if (!field.empty()) o->capture_default_str();
      }
    }
  });
  add_framework_flags(cmd, &f->software);
  cmd->add_option("--calibration", flags->calibration_file, "File written by 'gpuplan calibrate --save': factors fitted to your trial run");
  add_output_options(cmd, &flags->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
