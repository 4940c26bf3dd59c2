#include "gpuplan/operations.hpp"
#include "units/quantity_text.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpuplan/error.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {

OperationsEstimate estimate_operations(const ModelSpec* model, const Layout& layout, const GpuSpec& gpu, int64_t gpus,
                                       double useful_compute_s, const OperationsSettings& s, double extra_per_hour) {
  OperationsEstimate ops;
  if (model) {
    const double storage = s.storage_bytes_per_s.value_or(s.storage_bytes_per_s_per_gpu * static_cast<double>(gpus));
    ops.checkpoint = estimate_checkpoint(*model, layout, storage, gpu.scaleout_bytes_per_s);
  }
  ReliabilityInput rel;
  rel.gpus = static_cast<double>(gpus);
  rel.useful_compute_s = useful_compute_s;
  rel.gpu_mtbf_hours = s.gpu_mtbf_hours;
  rel.restart_s = s.restart_s;
  rel.checkpoint_write_s = ops.checkpoint.write_s;
  rel.checkpoint_interval_s = s.checkpoint_interval_s;
  rel.extra_interruptions_per_hour = extra_per_hour;
  ops.reliability = estimate_reliability(rel);
  if (!ops.reliability.progresses) {
    throw InputError("--gpus", fmt::format("--gpus: with {} GPUs the job fails every {} on average, faster than it can checkpoint "
                                           "and restart; it would never finish. Use fewer GPUs or a better per-GPU MTBF.",
                                           gpus, format_duration(ops.reliability.job_mtbf_s)),
                     fmt::format("--gpus：{} 张卡时任务平均每 {} 故障一次，比保存检查点再重启还快，永远跑不完。请减少卡数或用更高的单卡 MTBF。",
                                 gpus, format_duration_zh(ops.reliability.job_mtbf_s)));
  }
  return ops;
}

}  // namespace gpuplan
