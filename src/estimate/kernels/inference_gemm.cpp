// GEMMs of a serving step from one token to thousands.
//
// Skinny GEMMs. A decode step multiplies M = batch tokens (a few to a few
// hundred) by every weight matrix. Padding M to the 128- or 256-row tiles of a
// training GEMM (gemm_efficiency.cpp) would make a batch-1 decode compute-bound
// on parts with a low FLOP/byte ratio (an H20 has 148 dense BF16 TFLOP/s for
// 4.0 TB/s), which real engines are not. Serving kernels swap the operands
// when M is small so that the tokens sit on the MMA's narrow N side:
// vLLM csrc/quantization/cutlass_w8a8/c3x/scaled_mm_sm90_fp8_dispatch.cuh
// ("enable swap AB for M < 64"; M in [1, 16]: TileShape 64×16×256), and the
// grouped MoE GEMM of csrc/quantization/cutlass_w8a8/moe/grouped_mm_c3x.cu
// (M in [1, 16]: 64×64×128 per expert); Marlin's W4A16 kernel likewise works in
// 16-row token tiles (Frantar et al. 2024, arXiv:2408.11743, §3). So below 64
// rows the token dimension is padded to a multiple of 16, the weight side is
// tiled 64 wide and the kernel's relative efficiency is that of the smallest
// tile in gemm_efficiency's table (0.65, 64×64); such a GEMM reads every weight
// once and is bound by HBM, as a roofline says it must be.
// From 64 rows on the kernels are the ordinary tiled ones: gemm_efficiency.
#include "estimate/kernels/inference_gemm.hpp"

#include <algorithm>
#include <cmath>

namespace gpuplan {
namespace {
constexpr double kSwapAbBelowRows = 64;   // vLLM sm90 dispatch: swap AB for M < 64
constexpr double kTokenTileRows = 16;     // 64×16 (dense) and 16-row (Marlin) token tiles
constexpr double kSkinnyTileRelative = 0.65;  // gemm_efficiency's 64×64 tile
constexpr double kPipelineK0 = 64;        // gemm_efficiency's short-k prologue/epilogue
}  // namespace

double inference_gemm_efficiency(const GpuSpec& g, Precision p, double m, double n, double k, double ceiling,
                                 double groups) {
  if (m < 1 || n < 1 || k < 1) return ceiling;
  if (m >= kSwapAbBelowRows) return gemm_efficiency(g, p, m, n, k, ceiling, groups);
  groups = std::max(1.0, groups);
  const double padded = kTokenTileRows * std::ceil(m / kTokenTileRows);
  // Weight-side tiles of 64 over every group's n, in waves over the SMs.
  const double tiles = std::ceil(n / 64.0) * groups;
  const double units = g.compute_units;
  const double waves = std::ceil(tiles / units);
  const double wave_use = tiles / (waves * units);
  double eff = ceiling * kSkinnyTileRelative * (m / padded) * wave_use * k / (k + kPipelineK0);
  if (p == Precision::kFp8) eff *= kFp8OverBf16GemmCeiling;
  return std::max(eff, 1e-4);
}

GemmRoofline inference_gemm_roofline(const GpuSpec& g, Precision p, double m, double n, double k, double ceiling,
                                     double hbm_bytes_per_s, double weight_bytes, double act_bytes, double groups) {
  groups = std::max(1.0, groups);
  return roofline_at_efficiency(g, p, m, n, k, inference_gemm_efficiency(g, p, m, n, k, ceiling, groups), hbm_bytes_per_s,
                                weight_bytes, act_bytes, groups);
}

}  // namespace gpuplan
