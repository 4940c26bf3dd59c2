// Validation against published runs (shared/validation/README.md format):
// read cases, build the same descriptions the CLI builds, predict with the
// estimators, and score prediction against measurement.
//
// Extension point: one predictor per case kind (src/validate/predictors.cpp,
// `predictors()`); issue 4 adds train_throughput and issue 5 inference by
// adding one function and one table row each.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuplan/bilingual.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/intervals.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

struct ValidationCase {
  std::string id;
  std::string kind;
  std::string source;
  std::string verification;
  std::string notes;
  nlohmann::json raw;  // the whole line
  int line = 0;
};

// Reads a JSON-lines file; throws InputError naming the file and line on a bad line.
std::vector<ValidationCase> read_cases(const std::string& path);
std::vector<ValidationCase> parse_cases(const std::string& text, const std::string& origin);

// The descriptions a case stands for, built from its fields only (never its
// `notes` or `source`), with every default the source left out listed in
// `flags`. What the case leaves out takes its framework's default; the
// tunables a run's engineers chose (degrees, micro-batch, interleaving, ZeRO
// stage, recompute, sequence parallelism where optional, global batch) are
// the planner's choice with every stated value pinned.
struct CaseInputs {
  ModelSpec model;
  GpuSpec gpu;
  Layout layout;                 // complete: stated, planned and framework defaults
  int64_t gpus = 0;
  const FrameworkProfile* framework = nullptr;  // train.framework, else generic
  RunSettings settings;          // the software settings the case states
  bool layout_stated = false;    // every tunable stated: the planner chose nothing
  MemoryScope memory_scope = MemoryScope::kDevice;
  std::vector<Bilingual> flags;  // each default taken, in both languages (JSON: en)
};
CaseInputs case_inputs(const ValidationCase& c);

// One predicted metric of a case.
struct Prediction {
  std::string metric;   // a key of the case's measured/derived object, e.g. peak_memory_gib
  double value = 0;
  std::vector<Bilingual> flags;
};

using Predictor = std::function<std::vector<Prediction>(const ValidationCase&, CaseInputs&)>;
struct PredictorEntry {
  std::string kind;
  Predictor predict;
};
// The kinds gpuplan predicts so far, one row each.
const std::vector<PredictorEntry>& predictors();
// Predictors, kind by kind (one per estimator issue).
std::vector<Prediction> predict_train_memory(const ValidationCase& c, CaseInputs& in);
std::vector<Prediction> predict_train_throughput(const ValidationCase& c, CaseInputs& in);  // issue 4
std::vector<Prediction> predict_train_total(const ValidationCase& c, CaseInputs& in);       // issue 6
// The step-time model on a case's layout (the planner fills what the source
// left out); shared by the throughput and total predictors. Appends to `flags`.
struct StepTime;
// The planner's best layout for a case's model, GPUs, batch, sequence,
// recipe and framework, nothing else pinned; nullopt when nothing fits.
std::optional<Layout> best_case_layout(const CaseInputs& in);
StepTime predict_case_step_time(const ValidationCase& c, CaseInputs& in, std::vector<Bilingual>& flags);
std::vector<Prediction> predict_inference(const ValidationCase& c, CaseInputs& in);         // issue 5

struct CaseResult {
  std::string id;
  std::string kind;
  std::string metric;
  std::string verification;
  // The central number (issue 25): the median of the calibrated distribution,
  // the physics times the median factor of the residuals of every other
  // source (leave-one-source-out); the physics alone where no group has
  // residuals. `error` scores it.
  double predicted = 0;
  double measured = 0;
  double error = 0;          // signed relative error, predicted / measured − 1
  double predicted_physics = 0;  // the estimators alone ("ideal-stack physics")
  double physics_error = 0;      // predicted_physics / measured − 1
  std::vector<Bilingual> flags;  // the case's defaults and the prediction's own notes
  // train_throughput cases whose layout is fully stated: the planner's best
  // layout for the same model, GPUs, batch, sequence and framework is predicted
  // this much faster than the stated one (0: the stated one is best).
  std::optional<double> best_layout_speedup;
  std::string best_layout;   // that layout, "tp 8 pp 1 dp 2 cp 1 ep 1 vp 1 mb 2 ZeRO-1 recompute selective sp on"
  // Prediction interval (issue 15): what was known, the case's source, and
  // the range at ValidationOptions::interval read from a table derived from
  // every other source's residuals (leave-one-source-out).
  std::string source;
  PredictionContext context;
  double log_ratio = 0;      // ln(actual / predicted), cost-like (rates inverted)
  std::optional<double> predicted_low;
  std::optional<double> predicted_high;
  std::string range_group;   // the residual group the range was read from
};

// Cost-like orientation: a rate's residual is ln(predicted / measured).
bool metric_is_rate(const std::string& metric);

struct KindSummary {
  std::string kind;
  int count = 0;             // scored records
  int not_predicted = 0;     // cases of a kind with no predictor yet
  int failed = 0;            // cases whose inputs could not be built
  double median_abs_pct_error = 0;  // percent, of the central number
  double mape = 0;                  // mean absolute percentage error, percent, of the central number
  double physics_median_abs_pct_error = 0;  // the same of the physics alone
  double physics_mape = 0;
  // train_throughput with ValidationOptions::best_layout: over the cases whose
  // layout is fully stated, the median best_layout_speedup (percent) and how many.
  int best_layout_cases = 0;
  double best_layout_speedup_median_pct = 0;
  // Leave-one-source-out prediction intervals: how many scored records have
  // a range, how many measurements fall inside, and the median width of the
  // range as a fraction of the prediction.
  int ranged = 0;
  int inside = 0;
  double median_range_width = 0;
};

struct ValidationResult {
  std::vector<CaseResult> cases;
  std::vector<KindSummary> summary;
  std::vector<std::string> failures;     // "id: reason"
  std::vector<std::string> failures_zh;  // the same, the reason in Chinese (InputError::zh)
  double interval = 0.8;              // the level of the cases' ranges
  // Kinds centred on the physics (IntervalTable::physics_centred), chosen
  // from these held-out predictions.
  std::vector<std::string> physics_centred;
  // Each kind's first interval dimension (IntervalTable::first_split),
  // chosen from these held-out predictions.
  std::map<std::string, FirstSplit> first_split;
};

struct ValidationOptions {
  std::string kind;             // only cases of this kind; empty: all
  bool best_layout = false;     // compute best_layout_speedup (one more search per case)
  double interval = 0.8;        // level of the leave-one-source-out ranges
};

// The residuals of a validation run, one per scored record, for deriving an
// interval table (gpuplan validate --derive-intervals).
std::vector<Residual> validation_residuals(const ValidationResult& result);

// Predicts every case (of `kind` when not empty) and scores it.
ValidationResult run_validation(const std::vector<ValidationCase>& cases, const std::string& kind = "");
ValidationResult run_validation(const std::vector<ValidationCase>& cases, const ValidationOptions& options);
// `--format json`: {"cases": [{id, kind, metric, verification, predicted, measured,
// error, flags: [...]}], "summary": {kind: {count, median_abs_pct_error, mape,
// not_predicted, failed[, note]}}, "failures": [...]}; percentages in percent.
nlohmann::json validation_json(const ValidationResult& result, const std::string& origin);
// Rows also carry predicted_low / predicted_high and range_group; the summary
// per kind interval_level, ranged, inside, coverage and median_range_width.

}  // namespace gpuplan
