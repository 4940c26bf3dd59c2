// The optimizer step: memory-bound over the parameters one GPU updates, or
// over PCIe and host memory when the states are offloaded (docs/step-time.md).
#include "step_time_internal.hpp"

namespace gpuplan::step_detail {
namespace {

double optimizer_bytes_per_param(Optimizer o) {
  switch (o) {
    // AdamW with fp32 master weights: read grad, m, v, master (16 B), write
    // m, v, master (12 B) and the bf16 copy (2 B), plus grad-norm and zeroing (~6 B).
    case Optimizer::kAdamW: return 36;
    case Optimizer::kAdamW8bit:
    case Optimizer::kPagedAdamW8bit: return 22;  // 1-byte moments
    case Optimizer::kSgdMomentum: return 24;
  }
  return 36;
}

}  // namespace

double optimizer_step_s(const Ctx& c, double params, double gb) {
  double opt_s = stream_s(c, params * optimizer_bytes_per_param(c.l.optimizer), 8);
  if (c.l.offload_optimizer) {
    // Gradients down and parameters up over PCIe, Adam on the host (~50 GB/s of host memory).
    const double pcie = c.g.pcie_gen >= 5 ? 50e9 : c.g.pcie_gen == 4 ? 25e9 : 12e9;
    opt_s = params * (gb + 2.0) / pcie + params * 36.0 / 50e9;
  }
  return opt_s;
}

}  // namespace gpuplan::step_detail
