// gpuplan validate: predictions against the published runs of a case file.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "gpuplan/error.hpp"
#include "validate/validate.hpp"
#include "report/validation_report.hpp"
#include "estimate/uncertainty/interval_json.hpp"

namespace gpuplan::cli {
namespace {

struct ValidateFlags {
  OutputOptions out;
  std::string file;
  std::string kind;
  double interval = 0.8;
  bool derive_intervals = false;
};

void run(const ValidateFlags& f) {
  load_gpu_file(f.out);
  const auto cases = read_cases(f.file);
  ValidationOptions o;
  o.kind = f.kind;
  o.best_layout = !f.derive_intervals;  // best_layout_speedup for every fully stated train_throughput case
  o.interval = f.interval;
  const ValidationResult r = run_validation(cases, o);
  if (!f.kind.empty() && r.summary.empty()) {
    throw InputError("--kind",
                     "--kind " + f.kind + ": no case of that kind in " + f.file + " (kinds: train_throughput, train_memory, train_total, inference).",
                     "--kind " + f.kind + "：" + f.file + " 中没有这一类案例（类别：train_throughput、train_memory、train_total、inference）。");
  }
  if (f.derive_intervals) {
    // The table shipped as data/intervals.json: every residual of the file.
    IntervalTable table = derive_interval_table(validation_residuals(r), 4, r.first_split);
    table.physics_centred = r.physics_centred;
    emit(interval_table_to_json(table, f.file).dump(2) + "\n");
    return;
  }
  if (parse_format(f.out.format) == Format::kJson) {
    const std::string text = validation_json(r, f.file).dump(2) + "\n";
    emit(text);
    return;
  }
  print_report(validation_report(r, f.file), f.out);
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
  auto* f = flags.get();
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
  add_output_options(cmd, &f->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
