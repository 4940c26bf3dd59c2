#include "gpuplan/checkpoint.hpp"

#include <algorithm>

namespace gpuplan {

double optimizer_state_bytes_per_param(Optimizer o) {
  switch (o) {
    // fp32 master weights + fp32 first and second moments (Adam; mixed precision,
    // Micikevicius et al. 2018; ZeRO, Rajbhandari et al. 2020 §3.1: K = 12).
    case Optimizer::kAdamW: return 12;
    // fp32 master + two 8-bit moments (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization").
    case Optimizer::kAdamW8bit:
    case Optimizer::kPagedAdamW8bit: return 4 + 2;
    // fp32 master + fp32 momentum.
    case Optimizer::kSgdMomentum: return 8;
  }
  return 12;
}

CheckpointEstimate estimate_checkpoint(const ModelSpec& model, const Layout& layout, double storage_bytes_per_s,
                                       double scaleout_bytes_per_s_per_gpu) {
  CheckpointEstimate c;
  const double params = count_params(model).total;
  const double weight_bytes = layout.precision == Precision::kFp32 ? 4.0 : 2.0;
  c.weights_bytes = params * weight_bytes;
  c.optimizer_bytes = params * optimizer_state_bytes_per_param(layout.optimizer);
  c.total_bytes = c.weights_bytes + c.optimizer_bytes;
  // Model-parallel ranks each hold a distinct shard; with ZeRO ≥ 1 (or Megatron's
  // distributed optimizer) the optimizer states are further split over data-parallel ranks.
  const double model_parallel = static_cast<double>(layout.tp) * layout.pp;
  const double dp_shards = layout.zero_stage >= 1 ? static_cast<double>(layout.dp) * layout.cp : 1.0;
  c.writers = model_parallel * dp_shards;
  c.per_rank_bytes = c.weights_bytes / model_parallel + c.optimizer_bytes / (model_parallel * dp_shards);
  const double network = scaleout_bytes_per_s_per_gpu > 0 ? scaleout_bytes_per_s_per_gpu * c.writers : storage_bytes_per_s;
  const double bandwidth = std::min(storage_bytes_per_s, network);
  c.write_s = bandwidth > 0 ? c.total_bytes / bandwidth : 0;
  return c;
}

}  // namespace gpuplan
