// gpuplan validate: predictions against the published runs of a case file.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "gpuplan/error.hpp"
#include "commands/validate.hpp"
#include "report/validation_report.hpp"
#include "estimate/uncertainty/interval_json.hpp"

namespace gpuplan::cli {
namespace {

struct ValidateFlags {
  OutputOptions out;
  ValidateRequest request;
};

void run(const ValidateFlags& f) {
  load_gpu_file(f.out);
  const ValidateRun run = run_validate(f.request);
  if (run.intervals) {
    emit(interval_table_to_json(*run.intervals, f.request.file).dump(2) + "\n");
    return;
  }
  if (parse_format(f.out.format) == Format::kJson) {
    emit(validation_json(run.result, f.request.file).dump(2) + "\n");
    return;
  }
  print_report(validation_report(run.result, f.request.file), f.out);
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto flags = std::make_shared<ValidateFlags>();
  CLI::App* cmd = app.add_subcommand("validate",
      help_text("Predict published runs (shared/validation format) and score the predictions:\n"
      "each case's prediction, measurement and error, then per kind the median and MAPE.\n"
      "Example: gpuplan validate ../shared/validation/cases.jsonl --kind train_memory",
      "预测公开的训练与推理实测（shared/validation 格式）并给预测打分：\n"
      "每个案例的预测、实测与误差，再按类型给出中位数与 MAPE。\n"
      "示例：gpuplan validate ../shared/validation/cases.jsonl --kind train_memory --lang zh"));
  auto* f = &flags->request;
  cmd->add_option("file", f->file, help_text("A JSON-lines case file", "JSON Lines 格式的案例文件"))->required();
  cmd->add_option("--kind", f->kind, help_text("Only cases of this kind: train_memory, train_throughput, train_total, inference",
                                               "只看这一类案例：train_memory、train_throughput、train_total、inference"));
  cmd->add_option("--interval", f->interval, help_text("Level of each case's prediction interval, leave-one-source-out (0.5–0.99)",
                                                       "每个案例预测区间的置信水平，按留一来源法（0.5–0.99）"))
      ->capture_default_str();
  cmd->add_flag("--derive-intervals", f->derive_intervals,
                help_text("Print the interval table derived from every residual of the file (JSON), e.g. "
                          "gpuplan validate ../shared/validation/cases.jsonl --derive-intervals > data/intervals.json",
                          "输出由文件中全部残差推出的区间表（JSON），例如 "
                          "gpuplan validate ../shared/validation/cases.jsonl --derive-intervals > data/intervals.json"));
  add_output_options(cmd, &flags->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
