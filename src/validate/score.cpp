// Scoring: prediction against measurement, per case and per kind.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "gpuplan/error.hpp"
#include "gpuplan/published_mfu.hpp"
#include "gpuplan/step_time.hpp"
#include "validate/validate.hpp"

namespace gpuplan {

namespace {

const PredictorEntry* find_predictor(const std::string& kind) {
  for (const auto& p : predictors()) {
    if (p.kind == kind) return &p;
  }
  return nullptr;
}

std::optional<double> measured_value(const nlohmann::json& raw, const std::string& metric) {
  for (const char* where : {"measured", "derived"}) {
    if (raw.contains(where) && raw[where].is_object() && raw[where].contains(metric) && raw[where][metric].is_number()) {
      return raw[where][metric].get<double>();
    }
  }
  return std::nullopt;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The stack a case states (train.framework or infer.framework, with its
// version); nullopt where it states none.
std::optional<std::string> stated_framework(const nlohmann::json& raw) {
  for (const char* where : {"train", "infer"}) {
    if (raw.contains(where) && raw[where].is_object() && raw[where].contains("framework") && raw[where]["framework"].is_string()) {
      return raw[where]["framework"].get<std::string>();
    }
  }
  return std::nullopt;
}

bool framework_stated(const nlohmann::json& raw) { return stated_framework(raw).has_value(); }

// The runs a held-out table leaves out with a case: those stating the same
// stack on the same GPU (hardware.gpu). A publication's runs share both, so no
// publication calibrates its own range or centre, and the key comes from the
// case's fields only: no prediction reads `source` or `notes` (a case with
// them blanked predicts the same). Stricter than one source per key: two
// publications of one stack on one GPU are held out together.
std::string held_out_group(const ValidationCase& c) {
  const nlohmann::json& raw = c.raw;
  std::string gpu;
  if (raw.contains("hardware") && raw["hardware"].is_object() && raw["hardware"].contains("gpu") && raw["hardware"]["gpu"].is_string()) {
    gpu = raw["hardware"]["gpu"].get<std::string>();
  }
  return stated_framework(raw).value_or("generic") + " on " + gpu;
}

// Each kind's first interval dimension (IntervalTable::first_split): of
// none, MoE or dense, and layout stated or planned, the one whose held-out
// predictive distributions score lowest by the continuous ranked probability
// score, read as the quantile (pinball) loss averaged over levels τ = 0.05,
// 0.10, …, 0.95 (Gneiting & Raftery 2007, "Strictly proper scoring rules,
// prediction, and estimation", JASA 102, §6.2; CRPS = 2∫ρ_τ dτ, Laio &
// Tamea 2007), ρ_τ(x − q) = (x − q)(τ − [x < q]) with x = ln(actual /
// predicted) and q the table's quantile at τ, summed over the kind's cases.
// Being proper, it charges both a biased centre (τ = 0.5 is half the absolute
// error) and a range too narrow or too wide; an interval score at 80% alone
// would prefer a split that tightens ranges while it moves the headline away
// from the runs. None wins ties.
std::map<std::string, FirstSplit> choose_first_split(const ValidationResult& out, const std::vector<Residual>& residuals) {
  const FirstSplit candidates[] = {FirstSplit::kNone, FirstSplit::kMoe, FirstSplit::kLayout};
  std::map<std::string, std::map<FirstSplit, double>> score;  // kind → candidate → Σ loss
  for (const FirstSplit first : candidates) {
    std::map<std::string, FirstSplit> all_kinds;
    for (const CaseResult& r : out.cases) all_kinds[r.kind] = first;
    const std::map<std::string, IntervalTable> tables = derive_held_out_tables(residuals, 4, all_kinds);
    for (const CaseResult& r : out.cases) {
      if (!(r.predicted > 0) || !(r.measured > 0) || !tables.count(r.source)) continue;
      for (int i = 1; i <= 19; ++i) {
        const double tau = 0.05 * i;
        const std::optional<double> q = error_quantile(tables.at(r.source), r.context, tau);
        if (!q) break;
        const double d = r.log_ratio - std::log(*q);
        score[r.kind][first] += d * (tau - (d < 0 ? 1.0 : 0.0));
      }
    }
  }
  std::map<std::string, FirstSplit> chosen;
  for (const auto& [kind, by] : score) {
    FirstSplit best = FirstSplit::kNone;
    for (const auto& [first, total] : by) {
      if (total < by.at(best) - 1e-12) best = first;
    }
    if (best != FirstSplit::kNone) chosen[kind] = best;
  }
  return chosen;
}

// Leave-one-source-out ranges: each record's range comes from a table of
// every other source's residuals, so no source calibrates its own range.
// The central number of a kind is the physics times the held-out median
// factor, unless that predicts the kind worse than the physics alone, by both
// the median and the mean absolute error (then the physics is the centre, IntervalTable::physics_centred): decided here,
// per kind, from these same held-out predictions, and written with the table
// by --derive-intervals.
void add_ranges(ValidationResult& out, double level) {
  const std::vector<Residual> residuals = validation_residuals(out);
  out.first_split = choose_first_split(out, residuals);
  std::map<std::string, IntervalTable> without = derive_held_out_tables(residuals, 4, out.first_split);  // source → table of the others
  // A factor on a cost-like prediction: actual = predicted · factor; a rate divides by it.
  auto apply = [](const CaseResult& r, double factor) {
    return metric_is_rate(r.metric) ? r.predicted_physics / factor : r.predicted_physics * factor;
  };
  // Pass 1: each kind's held-out error with the median correction and without.
  std::map<std::string, std::vector<double>> corrected, physics;
  for (const CaseResult& r : out.cases) {
    const std::optional<double> mid = error_quantile(without[r.source], r.context, 0.5);
    if (!mid) continue;
    const double central = apply(r, *mid);
    corrected[r.kind].push_back(std::fabs(central / r.measured - 1));
    physics[r.kind].push_back(std::fabs(r.physics_error));
  }
  // "Worse" on both measures: a larger median |error| and a larger mean one.
  // The median alone would trade a few sources' large, shared bias (which the
  // correction removes) for the many small ones, and the headline would then
  // miss those sources by their whole bias.
  auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
  };
  for (const auto& [k, errs] : corrected) {
    if (median(errs) > median(physics[k]) && mean(errs) > mean(physics[k])) out.physics_centred.push_back(k);
  }
  for (auto& [source, table] : without) table.physics_centred = out.physics_centred;
  // Pass 2: the central number and its range.
  std::map<std::string, std::vector<double>> widths;
  for (CaseResult& r : out.cases) {
    const std::optional<ErrorRange> range = error_range(without[r.source], r.context, level);
    if (!range) continue;
    // The physics is the base of all three; a rate's low end takes the high factor.
    const bool rate = metric_is_rate(r.metric);
    r.predicted = apply(r, range->median);
    r.error = r.predicted / r.measured - 1;
    r.predicted_low = apply(r, rate ? range->high : range->low);
    r.predicted_high = apply(r, rate ? range->low : range->high);
    r.range_group = range->group;
    for (KindSummary& s : out.summary) {
      if (s.kind != r.kind) continue;
      ++s.ranged;
      if (r.measured >= *r.predicted_low && r.measured <= *r.predicted_high) ++s.inside;
    }
    widths[r.kind].push_back((*r.predicted_high - *r.predicted_low) / r.predicted);
  }
  // Each kind's errors, of the central number and of the physics alone.
  for (KindSummary& s : out.summary) {
    s.median_range_width = median(widths[s.kind]);
    std::vector<double> central, phys;
    for (const CaseResult& r : out.cases) {
      if (r.kind != s.kind) continue;
      central.push_back(std::fabs(r.error) * 100);
      phys.push_back(std::fabs(r.physics_error) * 100);
    }
    auto mean = [](const std::vector<double>& v) {
      double sum = 0;
      for (double x : v) sum += x;
      return v.empty() ? 0 : sum / static_cast<double>(v.size());
    };
    s.median_abs_pct_error = median(central);
    s.mape = mean(central);
    s.physics_median_abs_pct_error = median(phys);
    s.physics_mape = mean(phys);
  }
}

}  // namespace

bool metric_is_rate(const std::string& metric) { return metric == "tokens_per_s_per_gpu" || metric == "output_tokens_per_s"; }

std::vector<Residual> validation_residuals(const ValidationResult& result) {
  std::vector<Residual> out;
  for (const CaseResult& r : result.cases) {
    if (!(r.predicted > 0) || !(r.measured > 0)) continue;
    out.push_back(Residual{r.context, r.source, r.log_ratio});
  }
  return out;
}

ValidationResult run_validation(const std::vector<ValidationCase>& cases, const std::string& kind) {
  ValidationOptions o;
  o.kind = kind;
  return run_validation(cases, o);
}

ValidationResult run_validation(const std::vector<ValidationCase>& cases, const ValidationOptions& options) {
  const std::string& kind = options.kind;
  ValidationResult out;
  out.interval = check_level(options.interval, "--interval");
  std::map<std::string, std::vector<double>> speedups;
  std::vector<std::string> order;
  std::map<std::string, KindSummary> summary;
  std::map<std::string, std::vector<double>> abs_pct;
  for (const auto& c : cases) {
    if (!kind.empty() && c.kind != kind) continue;
    if (!summary.count(c.kind)) {
      order.push_back(c.kind);
      summary[c.kind].kind = c.kind;
    }
    KindSummary& s = summary[c.kind];
    const PredictorEntry* p = find_predictor(c.kind);
    if (!p) {
      ++s.not_predicted;
      continue;
    }
    try {
      CaseInputs in = case_inputs(c);
      for (const Prediction& pr : p->predict(c, in)) {
        const std::optional<double> m = measured_value(c.raw, pr.metric);
        if (!m || *m == 0) continue;
        CaseResult r;
        r.id = c.id;
        r.kind = c.kind;
        r.metric = pr.metric;
        r.verification = c.verification;
        r.predicted = r.predicted_physics = pr.value;
        r.measured = *m;
        r.error = r.physics_error = pr.value / *m - 1;
        r.flags = in.flags;
        r.flags.insert(r.flags.end(), pr.flags.begin(), pr.flags.end());
        r.source = held_out_group(c);
        r.context.kind = c.kind;
        r.context.moe = in.model.is_moe();
        r.context.layout_stated = c.kind == "inference" || in.layout_stated;
        r.context.framework_stated = framework_stated(c.raw);
        r.context.gpu_class = gpu_class(in.gpu.id);
        if (pr.value > 0) r.log_ratio = metric_is_rate(pr.metric) ? std::log(pr.value / *m) : std::log(*m / pr.value);
        abs_pct[c.kind].push_back(std::fabs(r.error) * 100);
        ++s.count;
        if (options.best_layout && c.kind == "train_throughput" && in.layout_stated) {
          // How much faster the planner's best layout for the same model,
          // GPUs, batch, sequence and framework is predicted to be.
          if (const std::optional<Layout> best = best_case_layout(in)) {
            StepTimeOptions so;
            so.gpus_per_node = in.gpu.gpus_per_node;
            const double stated_s = estimate_step_time(in.model, in.layout, in.gpu, so).step_s;
            const double best_s = estimate_step_time(in.model, *best, in.gpu, so).step_s;
            r.best_layout_speedup = std::max(0.0, stated_s / best_s - 1);
            const Layout& b = *best;
            r.best_layout = fmt::format("tp {} pp {} dp {} cp {} ep {} vp {} mb {} ZeRO-{} recompute {} sp {}", b.tp, b.pp, b.dp, b.cp, b.ep,
                                        b.vp, b.micro_batch, b.zero_stage, recompute_name(b.recompute), b.sequence_parallel ? "on" : "off");
            speedups[c.kind].push_back(*r.best_layout_speedup * 100);
          }
        }
        out.cases.push_back(std::move(r));
      }
    } catch (const InputError& e) {
      ++s.failed;
      out.failures.push_back(fmt::format("{}: {}", c.id, e.what()));
      out.failures_zh.push_back(fmt::format("{}：{}", c.id, e.zh()));
    }
  }
  for (const auto& k : order) {
    KindSummary s = summary[k];
    const auto& v = abs_pct[k];
    s.median_abs_pct_error = median(v);
    double sum = 0;
    for (double x : v) sum += x;
    s.mape = v.empty() ? 0 : sum / static_cast<double>(v.size());
    s.best_layout_cases = static_cast<int>(speedups[k].size());
    s.best_layout_speedup_median_pct = median(speedups[k]);
    out.summary.push_back(s);
  }
  add_ranges(out, out.interval);
  return out;
}

}  // namespace gpuplan
