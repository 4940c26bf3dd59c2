#include "report/operations_report.hpp"

namespace gpuplan {

Section operations_section(const OperationsEstimate& o, const std::optional<OperationsEstimate>& spot) {
  Section s{"operations", "Failures and checkpoints", "故障与检查点", {}, {}, {}};
  auto row = [&](const char* key, const char* en, const char* zh, double v, Unit u) { s.rows.push_back(Row{key, en, zh, v, u, ""}); };
  const ReliabilityEstimate& r = o.reliability;
  if (o.checkpoint.total_bytes > 0) {
    row("checkpoint_bytes", "Checkpoint size (weights + optimizer)", "检查点大小（权重+优化器）", o.checkpoint.total_bytes, Unit::kBytes);
    row("checkpoint_write_s", "Checkpoint write time", "检查点写入时间", o.checkpoint.write_s, Unit::kSeconds);
  }
  row("job_mtbf_s", "Job mean time between failures", "作业平均故障间隔", r.job_mtbf_s, Unit::kSeconds);
  row("young_interval_s", "Checkpoint interval, Young 1974", "检查点间隔（Young）", r.young_interval_s, Unit::kSeconds);
  row("checkpoint_interval_s", "Checkpoint interval used (Daly 2006)", "采用的检查点间隔（Daly）", r.interval_s, Unit::kSeconds);
  row("interruptions", "Expected interruptions", "预计中断次数", r.interruptions, Unit::kCount);
  row("lost_per_interruption_s", "Lost per interruption (half an interval + restart)", "每次中断损失（半个间隔+重启）",
      r.lost_per_interruption_s, Unit::kSeconds);
  row("checkpoint_overhead_s", "Time writing checkpoints", "写检查点总时间", r.checkpoint_overhead_s, Unit::kSeconds);
  row("lost_s", "Time lost to interruptions", "中断损失总时间", r.lost_s, Unit::kSeconds);
  row("effective_time_ratio", "Effective training time ratio", "有效训练时间占比", r.effective_time_ratio, Unit::kFraction);
  if (spot) {
    const ReliabilityEstimate& p = spot->reliability;
    row("spot_job_mtbf_s", "Spot: time between interruptions", "竞价：中断间隔", p.job_mtbf_s, Unit::kSeconds);
    row("spot_interruptions", "Spot: expected interruptions", "竞价：预计中断次数", p.interruptions, Unit::kCount);
    row("spot_effective_time_ratio", "Spot: effective training time ratio", "竞价：有效训练时间占比", p.effective_time_ratio, Unit::kFraction);
    row("spot_extra_wall_s", "Spot: extra wall-clock vs on-demand", "竞价：比按需多用时间", p.wall_s - r.wall_s, Unit::kSeconds);
  }
  return s;
}

}  // namespace gpuplan
