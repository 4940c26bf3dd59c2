// The honest-budget numbers of `gpuplan train` (train_confidence.hpp).
#include "commands/train_confidence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuplan::train_detail {

Confidence train_confidence(const TrainRequest& r, const ModelSpec* model, const GpuSpec& gpu) {
  Confidence c;
  c.interval = check_level(r.interval, "--interval");
  c.confidence = check_level(r.confidence, "--confidence");
  const bool fw = r.framework && r.framework->id != "generic";
  // Dense or MoE (a run given by its FLOPs alone has no model and is read as
  // dense), and the layout is the planner's: a whole run predicted from it
  // carries the gap between planned and achieved throughput that published
  // totals show. Which of the two parts a kind's residuals is the table's
  // (IntervalTable::first_split).
  const bool moe = model && model->is_moe();
  c.time_ctx = PredictionContext{"train_total", moe, fw, gpu_class(gpu.id), false};
  c.memory_ctx = PredictionContext{"train_memory", moe, fw, gpu_class(gpu.id), false};
  const IntervalTable& t = shipped_interval_table();
  c.time_range = error_range(t, c.time_ctx, c.interval);
  c.memory_range = error_range(t, c.memory_ctx, c.interval);
  return c;
}

MfuCheck check_mfu(double predicted, const GpuSpec& gpu, Precision precision) {
  MfuCheck m;
  m.raw = predicted;
  m.published = published_mfu(gpu.id, precision);
  m.capped = m.published.best_mfu > 0 && predicted > m.published.best_mfu;
  m.used = m.capped ? m.published.best_mfu : predicted;
  return m;
}

double capped(const MfuCheck& m, double mfu) { return m.published.best_mfu > 0 ? std::min(mfu, m.published.best_mfu) : mfu; }

double mfu_at(const Confidence& c, const MfuCheck& m, double p) {
  const double factor = error_quantile(shipped_interval_table(), c.time_ctx, p).value_or(1.0);
  return capped(m, m.raw / factor);
}

MfuDistribution mfu_distribution(const Confidence& c, const MfuCheck& m) {
  MfuDistribution d;
  d.level = c.interval;
  d.median = mfu_at(c, m, 0.5);
  d.slow = mfu_at(c, m, (1 + c.interval) / 2);
  d.fast = mfu_at(c, m, (1 - c.interval) / 2);
  d.physics = m.raw;
  return d;
}

}  // namespace gpuplan::train_detail
