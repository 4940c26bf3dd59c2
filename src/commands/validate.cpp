// `gpuplan validate` (validate.hpp): read, predict, score; or derive the
// interval table shipped as data/intervals.json.
#include "commands/validate.hpp"

#include "gpuplan/error.hpp"

namespace gpuplan {

ValidateRun run_validate(const ValidateRequest& request) {
  const auto cases = read_cases(request.file);
  ValidationOptions o;
  o.kind = request.kind;
  o.best_layout = !request.derive_intervals;  // best_layout_speedup for every fully stated train_throughput case
  o.interval = request.interval;
  ValidateRun run;
  run.result = run_validation(cases, o);
  const ValidationResult& r = run.result;
  if (!request.kind.empty() && r.summary.empty()) {
    throw InputError("--kind",
                     "--kind " + request.kind + ": no case of that kind in " + request.file +
                         " (kinds: train_throughput, train_memory, train_total, inference).",
                     "--kind " + request.kind + "：" + request.file + " 中没有这一类案例（类别：train_throughput、train_memory、train_total、inference）。");
  }
  if (request.derive_intervals) {
    // The table shipped as data/intervals.json: every residual of the file.
    IntervalTable table = derive_interval_table(validation_residuals(r), 4, r.first_split);
    table.physics_centred = r.physics_centred;
    run.intervals = std::move(table);
  }
  return run;
}

}  // namespace gpuplan
