// GEMM speed inside a serving step. Inference-only: the training step time
// keeps gemm_efficiency()/gemm_roofline() (gemm_efficiency.cpp) unchanged.
#pragma once
#include "gpuplan/step_time.hpp"

namespace gpuplan {

// Achieved fraction of dense peak for `groups` GEMMs [m×k]·[k×n] issued as one
// kernel, m being the token rows. Below 64 token rows serving kernels put the
// tokens on the MMA's narrow side (swap-AB) with a 16-row token tile; from 64
// rows on, the training tile model (gemm_efficiency) applies.
double inference_gemm_efficiency(const GpuSpec& gpu, Precision p, double m, double n, double k, double ceiling,
                                 double groups = 1);
// The roofline of those GEMMs: compute at inference_gemm_efficiency, the k×n
// weights at `weight_bytes` each and the activations at `act_bytes` moved once.
GemmRoofline inference_gemm_roofline(const GpuSpec& gpu, Precision p, double m, double n, double k, double ceiling,
                                     double hbm_bytes_per_s, double weight_bytes, double act_bytes, double groups = 1);

}  // namespace gpuplan
