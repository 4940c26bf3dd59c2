// One predictor per case kind: the table below is the extension point.
// A predictor turns a case's descriptions into predicted metrics using the
// estimators only; it holds no physics of its own.
#include <fmt/format.h>

#include "gpuplan/memory.hpp"
#include "gpuplan/units.hpp"
#include "gpuplan/validate.hpp"

namespace gpuplan {

std::vector<Prediction> predict_train_memory(const ValidationCase&, CaseInputs& in) {
  MemoryOptions o;
  o.scope = in.memory_scope;
  o.fp32_grad_buffer = in.fp32_grad_buffer;
  o.suggest = false;
  Prediction p;
  p.metric = "peak_memory_gib";
  if (!in.recompute_stated) {
    // The run was measured, so it fitted: take the least recomputation that
    // fits the device (none, then selective, then full).
    const Recompute order[] = {Recompute::kNone, Recompute::kSelective, Recompute::kFull};
    for (Recompute r : order) {
      in.layout.recompute = r;
      MemoryOptions device = o;
      device.scope = MemoryScope::kDevice;
      if (estimate_memory(in.model, in.layout, in.gpu, device).peak_bytes <= in.gpu.memory_bytes) break;
    }
    p.flags.push_back(fmt::format("recompute not stated: {} assumed (least that fits the device)", recompute_name(in.layout.recompute)));
  }
  const MemoryBreakdown br = estimate_memory(in.model, in.layout, in.gpu, o);
  p.value = br.peak_bytes / kGiB;
  if (br.paged_optimizer_bytes > 0) {
    p.flags.push_back(fmt::format("paged optimizer states ({:.1f} GiB) outside PyTorch's allocator, not counted",
                                  br.paged_optimizer_bytes / kGiB));
  }
  if (o.scope == MemoryScope::kAllocated) p.flags.push_back("measured as allocated (active) memory: no context or fragmentation");
  if (o.scope == MemoryScope::kReserved) p.flags.push_back("measured as reserved memory: no CUDA context");
  return {p};
}

const std::vector<PredictorEntry>& predictors() {
  // kind → predictor. Issue 4 adds {"train_throughput", predict_train_throughput},
  // issue 5 {"inference", predict_inference}.
  static const std::vector<PredictorEntry> table = {
      {"train_memory", predict_train_memory},
      {"train_throughput", predict_train_throughput},
  };
  return table;
}

}  // namespace gpuplan
