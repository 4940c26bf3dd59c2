// Prediction intervals from gpuplan's own errors on published runs (issue 15).
//
// A residual is ln(actual / predicted) of a cost-like quantity: time (step,
// wall-clock, latency), GPU-hours or memory; a rate (tokens/s) enters as its
// reciprocal. Residuals are grouped by what was known when predicting: the
// case kind; then, per kind, one first dimension (whether the model routes
// tokens to experts or is dense, or whether the layout was stated or planned,
// or neither: IntervalTable::first_split); whether the framework was stated
// or generic; and the GPU class. A range is read
// from the finest group that holds residuals from at least `min_sources`
// independent sources (a source = the cases citing one `source` document),
// else from a coarser one. Each source weighs 1 however many cases it
// contributes; quantiles are read at the midpoints of the weighted ECDF, and
// where even the coarsest group has fewer than min_sources sources, at the
// split-conformal positions i/(n+1) over its n sources, so a range from few
// sources runs out to their extremes. data/intervals.json holds the table derived
// from ../shared/validation/cases.jsonl (`gpuplan validate FILE
// --derive-intervals`); validate itself scores each case with a table
// derived without the case's source (leave-one-source-out).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>


namespace gpuplan {

// What was known about one prediction.
struct PredictionContext {
  std::string kind;               // train_throughput, train_memory, train_total, inference
  bool moe = false;               // the model routes tokens to experts (ModelSpec::is_moe)
  bool framework_stated = false;  // false: the generic profile
  std::string gpu_class;          // published_mfu.hpp's gpu_class()
  bool layout_stated = false;     // false: the planner chose (part of) the layout
};

// The dimension a kind's residuals part by first, before framework and class.
enum class FirstSplit { kNone, kMoe, kLayout };
// Its name in JSON: "model" (MoE or dense), "layout" (stated or planned), "" for none.
const char* first_split_id(FirstSplit split);

struct Residual {
  PredictionContext context;
  std::string source;      // the case's `source`, for the weights and leave-one-source-out
  double log_ratio = 0;    // ln(actual / predicted), cost-like orientation
};

// One group of the table: every field empty or unset means "any".
struct ResidualGroup {
  std::string kind;
  std::optional<bool> moe;
  std::optional<bool> layout_stated;
  std::optional<bool> framework_stated;
  std::string gpu_class;
  int cases = 0;
  int sources = 0;
  // How many independent residuals the group is worth: Kish's (Σw)²/Σw² of
  // the weights, or just `sources` below min_sources (the conformal n).
  double effective_n = 0;
  // (log_ratio, weight), sorted by log_ratio; weights sum to `sources`.
  std::vector<std::pair<double, double>> points;
};

struct IntervalTable {
  int min_sources = 4;
  std::vector<ResidualGroup> groups;
  // Kinds whose central number is the physics itself (issue 25): on them,
  // leave-one-source-out, the median correction of the other sources'
  // residuals predicted worse than the physics alone (their bias is each
  // source's, not shared), so the evidence's most likely value is the
  // physics and the range is the residuals' spread around their median,
  // moved onto it. Every other kind is centred on physics × median factor.
  std::vector<std::string> physics_centred;
  // Each kind's first dimension (absent: none). gpuplan validate chooses it
  // per kind, held out, by a proper score of its predictive distributions,
  // as it chooses physics_centred. A side with under min_sources sources
  // backs off to the kind-wide group; the other keeps the purer set.
  std::map<std::string, FirstSplit> first_split;
  bool centred_on_physics(const std::string& kind) const;
  FirstSplit split_of(const std::string& kind) const;
};

// A range as factors on a cost-like prediction: actual lies in
// [predicted · low, predicted · high] with probability `level`.
struct ErrorRange {
  double level = 0.8;
  double low = 1;
  double high = 1;
  double median = 1;   // the central factor: low ≤ median ≤ high
  std::string group;   // "train_total, dense, generic framework" — what it was read from
  std::string group_zh;  // the same in Chinese: "训练总卡时，稠密模型，通用框架"
  int cases = 0;
  int sources = 0;
};

// Groups every residual at each back-off level (kind+first+framework+class,
// kind+first+framework, kind+first, kind), `first` the kind's entry in
// `split` (none where absent).
IntervalTable derive_interval_table(const std::vector<Residual>& residuals, int min_sources = 4,
                                    const std::map<std::string, FirstSplit>& split = {});
// Leave-one-source-out: for each source among the residuals, the table
// derive_interval_table makes of every other source's residuals. Built from
// one grouping of all of them, each source's members dropped in turn (the
// other sources' weights do not depend on it), so a file of n sources costs
// O(n · residuals), not a full derivation per source.
std::map<std::string, IntervalTable> derive_held_out_tables(const std::vector<Residual>& residuals, int min_sources = 4,
                                                            const std::map<std::string, FirstSplit>& split = {});

// The range at `level` (0.5–0.99) for a prediction made knowing `ctx`;
// nullopt when the table has no residual of that kind.
std::optional<ErrorRange> error_range(const IntervalTable& table, const PredictionContext& ctx, double level);
// The factor on a cost-like prediction that the actual stays below with
// probability p (0.5: the median error): sizing with a confidence.
std::optional<double> error_quantile(const IntervalTable& table, const PredictionContext& ctx, double p);

// The table shipped in data/intervals.json.
const IntervalTable& shipped_interval_table();


// Checks a --interval / --confidence value: a fraction from 0.5 to 0.99.
double check_level(double level, const char* field);

// A case kind (train_memory, train_throughput, train_total, inference) as people read it in Chinese.
std::string case_kind_zh(const std::string& kind);

}  // namespace gpuplan
