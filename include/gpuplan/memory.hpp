// Per-GPU memory of a training layout (issue 3).
#pragma once
#include <string>
#include <vector>

#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

// Overheads a user can see and override; defaults documented where they are set.
struct MemoryOptions {
  double cuda_context_bytes = -1;     // < 0: default for the GPU
  double fragmentation = -1;          // fraction of allocated bytes; < 0: default
  double safety_margin = 0.15;        // seed 004: keep 15–20% free
};

struct MemoryBreakdown {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;         // master weights + moments
  double activations_bytes = 0;       // all in-flight micro-batches on the worst stage
  double logits_bytes = 0;            // LM-head logits and loss copies (last stage)
  double comm_buffers_bytes = 0;
  double zero3_gathered_bytes = 0;
  double cuda_context_bytes = 0;
  double fragmentation_bytes = 0;
  double peak_bytes = 0;              // sum of the above on the worst GPU
  double capacity_bytes = 0;
  double safety_margin_bytes = 0;
  double headroom_bytes = 0;          // capacity - margin - peak (negative: does not fit)
  bool fits = false;
  int worst_stage = 0;
};

MemoryBreakdown estimate_memory(const ModelSpec& model, const Layout& layout, const GpuSpec& gpu,
                                const MemoryOptions& options = {});

}  // namespace gpuplan
