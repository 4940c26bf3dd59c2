#include "gpuplan/reliability.hpp"
#include "units/quantity_text.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gpuplan/error.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {

// Young, "A first order approximation to the optimum checkpoint interval",
// CACM 17(9), 1974: τ = sqrt(2·δ·M).
double young_interval_s(double delta, double mtbf) { return std::sqrt(2.0 * delta * mtbf); }

// Daly, "A higher order estimate of the optimum checkpoint interval for restart
// dumps", FGCS 22(3), 2006, eq. 37:
// τ = sqrt(2δM)·[1 + ⅓·sqrt(δ/2M) + (1/9)·(δ/2M)] − δ for δ < 2M, else τ = M.
double daly_interval_s(double delta, double mtbf) {
  if (delta >= 2.0 * mtbf) return mtbf;
  const double x = delta / (2.0 * mtbf);
  return std::sqrt(2.0 * delta * mtbf) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - delta;
}

ReliabilityEstimate estimate_reliability(const ReliabilityInput& in) {
  require_range(in.gpus, 1, 1e7, "--gpus", "a number of GPUs from 1 to 10,000,000", "1 到 10,000,000 之间的卡数");
  require_range(in.gpu_mtbf_hours, 1, 1e9, "--gpu-mtbf-hours", "a positive per-GPU MTBF in hours", "正的单卡 MTBF（小时）");
  // The checkpoint write time and the compute time are computed, not typed: say
  // what made them too large and which flag changes it.
  if (!std::isfinite(in.checkpoint_write_s) || in.checkpoint_write_s < 0 || in.checkpoint_write_s > 1e6) {
    throw InputError("--storage-gbytes-per-s",
                     fmt::format("writing one checkpoint would take {}, more than the 1,000,000 s (11.6 days) gpuplan "
                                 "models; give a faster --storage-gbytes-per-s or more GPUs.",
                                 format_duration(in.checkpoint_write_s)),
                     fmt::format("--storage-gbytes-per-s：写一次检查点要 {}，超过可建模的 1,000,000 秒（11.6 天）；"
                                 "请给出更快的 --storage-gbytes-per-s 或加卡。",
                                 format_duration_zh(in.checkpoint_write_s)));
  }
  require_range(in.restart_s / 60.0, 0, 1e5, "--restart-minutes", "a non-negative number of minutes up to 100,000", "0 到 100,000 分钟");
  if (!std::isfinite(in.useful_compute_s) || in.useful_compute_s < 0 || in.useful_compute_s > 1e12) {
    throw InputError("--gpus", fmt::format("the run would compute for {}, more than the 1e12 s (about 31,700 years) gpuplan "
                                           "models; use more GPUs, a higher --mfu or fewer tokens.",
                                           format_duration(in.useful_compute_s)),
                     fmt::format("--gpus：这次训练要算 {}，超过可建模的 1e12 秒（约 31,700 年）；请加卡、提高 --mfu 或减少 token 数。",
                                 format_duration_zh(in.useful_compute_s)));
  }
  ReliabilityEstimate r;
  // Independent failures: the job stops when any of its GPUs (or their hosts and
  // links, which the per-GPU all-cause rate includes) fails.
  require_range(in.extra_interruptions_per_hour, 0, 1e6, "--spot-mtbf-hours", "a positive preemption interval", "正的抢占间隔");
  const double per_hour = in.gpus / in.gpu_mtbf_hours + in.extra_interruptions_per_hour;
  r.job_mtbf_s = kSecondsPerHour / per_hour;
  r.young_interval_s = young_interval_s(in.checkpoint_write_s, r.job_mtbf_s);
  r.daly_interval_s = daly_interval_s(in.checkpoint_write_s, r.job_mtbf_s);
  r.interval_s = in.checkpoint_interval_s.value_or(r.daly_interval_s);
  if (in.checkpoint_interval_s) {
    require_range(*in.checkpoint_interval_s, 1, 1e9, "--checkpoint-interval", "a positive duration", "正的时长");
  }
  if (r.interval_s <= 0) r.interval_s = r.job_mtbf_s;  // δ = 0: no cost to checkpoint, keep it frequent
  // Each interruption loses, on average, half an interval of work plus the restart
  // (the standard first-order cost; Young 1974, Daly 2006 §3).
  r.lost_per_interruption_s = r.interval_s / 2.0 + in.restart_s;
  const double checkpoint_factor = 1.0 + in.checkpoint_write_s / r.interval_s;
  const double loss_rate = r.lost_per_interruption_s / r.job_mtbf_s;  // lost seconds per wall second
  if (loss_rate >= 1.0) {
    r.progresses = false;
    r.wall_s = INFINITY;
    return r;
  }
  // wall = useful·(1 + δ/τ) + (wall/M)·(τ/2 + R)  ⇒  wall = useful·(1 + δ/τ) / (1 − (τ/2 + R)/M)
  r.wall_s = in.useful_compute_s * checkpoint_factor / (1.0 - loss_rate);
  r.checkpoint_overhead_s = in.useful_compute_s * (checkpoint_factor - 1.0);
  r.interruptions = r.wall_s / r.job_mtbf_s;
  r.lost_s = r.interruptions * r.lost_per_interruption_s;
  r.effective_time_ratio = r.wall_s > 0 ? in.useful_compute_s / r.wall_s : 1.0;
  return r;
}

}  // namespace gpuplan
