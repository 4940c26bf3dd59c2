// The optimizer step: memory-bound over the parameters one GPU updates, or
// over PCIe and host memory when the states are offloaded (docs/step-time.md).
#include "estimate/step_time/step_time_internal.hpp"

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

// Composer's DecoupledAdamW (composer/optim/decoupled_weight_decay.py at
// v0.21.3, DecoupledAdamW.adamw, the optimizer of llm-foundry's MPT yamls)
// loops over the parameters in Python and runs each op of the update on one
// fp32 tensor as its own kernel. Bytes per element: exp_avg.mul_ 4+4 and
// .add_(grad) 4+4+4; exp_avg_sq.mul_ 4+4 and .addcmul_(grad, grad) 4+4+4;
// exp_avg_sq.sqrt() 4+4, / sqrt(bias_correction2) 4+4, .add_(eps) 4+4;
// param.addcdiv_(exp_avg, denom) 4+4+4+4 = 80 B in 8 kernels (param.mul_ for
// weight decay, 4+4 more, runs only with weight_decay != 0; the MPT pretrain
// yamls set 0). The yamls' gradient_clipping (clipping_type norm) runs FSDP's
// clip_grad_norm_: a norm per gradient (4 B) and grad.mul_ (4+4): 12 B in 2
// kernels. Each tensor's step count is read with state_steps[i].item(), a
// device-to-host copy that waits for the GPU to drain, so every tensor also
// costs one host dispatch with the GPU idle.
constexpr double kPerTensorAdamWBytes = 80.0 + 12.0;
constexpr double kPerTensorAdamWKernels = 8.0 + 2.0;

double optimizer_step_s(const Ctx& c, double params, double gb, double tensors) {
  double opt_s = stream_s(c, params * optimizer_bytes_per_param(c.l.optimizer), 8);
  if (c.l.optimizer_loop == OptimizerLoop::kPerTensor && c.l.optimizer == Optimizer::kAdamW) {
    opt_s = stream_s(c, params * kPerTensorAdamWBytes, kPerTensorAdamWKernels * tensors) + tensors * c.o.host_dispatch_s;
  }
  if (c.l.offload_optimizer) {
    // Gradients down and parameters up over PCIe, Adam on the host (~50 GB/s of host memory).
    const double pcie = c.g.pcie_gen >= 5 ? 50e9 : c.g.pcie_gen == 4 ? 25e9 : 12e9;
    opt_s = params * (gb + 2.0) / pcie + params * 36.0 / 50e9;
  }
  return opt_s;
}

}  // namespace gpuplan::step_detail
