// How fast one GEMM runs: the achievable fraction of dense peak at a shape.
//
// Ceiling. cuBLAS-class BF16 GEMMs reach 80–87% of dense peak on A100/H100 at
// their best shapes (Maximum Achievable Matmul FLOPS, stas00/ml-engineering
// compute/accelerator/README.md; hardware_facts §5b). That is a boost-clock
// burst; a training run holds the lower sustained rate (training_gemm_ceiling
// below): `gemm_sustained_efficiency` where data/gpus.json has one, else the
// burst `gemm_efficiency`, else 0.80. FP8 GEMMs reach a
// lower fraction of their (doubled) peak: 70.9% vs 80.3% on H100, so 0.88 of
// the BF16 ceiling.
//
// Shape. A GEMM is cut into output tiles that the SMs run in waves; the last
// wave is partly idle and edge tiles are partly empty (wave and tile
// quantisation, NVIDIA "Matrix Multiplication Background" user guide). The
// library picks among tile shapes; smaller tiles waste less at the edges but
// reuse less data, so each carries a relative efficiency. A short reduction
// dimension k cannot hide the tile pipeline's prologue and epilogue: a factor
// k/(k + k0) with k0 = 64 (one or two pipeline stages of k-slices).
//
// Batches. Strided-batched and grouped GEMMs are one kernel whose grid holds
// every batch entry's tiles (cuBLAS cublasGemmStridedBatchedEx; Megatron's
// grouped GEMM for experts), so waves are counted over all of them and the
// kernel's fixed overhead is paid once. Counting each head's 1024×1024×64
// product as its own launch left two thirds of an A100 idle in the model.
//
// Roofline. Time is the larger of the compute time at that efficiency and the
// bytes the GEMM must move (A, B read once, C written once) over achieved HBM
// bandwidth, plus one kernel's fixed overhead.
#include <algorithm>
#include <cmath>
#include <string>

#include "gpuplan/step_time.hpp"

namespace gpuplan {

double gemm_efficiency(const GpuSpec& g, Precision p, double m, double n, double k, double ceiling, double batch) {
  if (m < 1 || n < 1 || k < 1) return ceiling;
  batch = std::max(1.0, batch);
  const double units = g.compute_units;  // SMs / CUs / AI cores, from data/gpus.json
  struct Tile { double tm, tn, rel; };
  // Relative efficiency of each tile shape: 256×128 reuses data best; smaller
  // tiles halve the arithmetic intensity of each step.
  static constexpr Tile kTiles[] = {{256, 128, 1.0}, {128, 256, 1.0}, {128, 128, 0.93}, {128, 64, 0.82}, {64, 64, 0.65}};
  double best = 0;
  for (const Tile& t : kTiles) {
    const double tiles = std::ceil(m / t.tm) * std::ceil(n / t.tn) * batch;
    const double waves = std::ceil(tiles / units);
    const double util = (m * n * batch) / (waves * units * t.tm * t.tn);
    best = std::max(best, t.rel * util);
  }
  constexpr double k0 = 64;
  const double kfac = k / (k + k0);
  double eff = ceiling * best * kfac;
  if (p == Precision::kFp8) eff *= kFp8OverBf16GemmCeiling;
  return std::max(eff, 1e-3);
}

// Burst versus sustained. MAMF is the best GEMM rate a short burst reaches at
// the boost clock; a kernel stream that keeps every SM busy pins the board at
// its power limit and the clock settles lower: the maximum sustainable matmul
// FLOPS (MSMF; stas00/ml-engineering compute/accelerator/benchmarks/README.md,
// MSMF revision: "the power-saturated, sustained rate that matches real
// training throughput"; 8×H200 all busy: MSMF 698.6 vs MAMF 823.9 TFLOPS, B200:
// 1,426.4 vs 1,751.2). A training run is one long saturated kernel stream, so it
// gets the sustained ceiling: the catalog's `gemm_sustained_efficiency` where
// it was measured (H200, B200; GB200 from B200's ratio). NVIDIA parts with only
// a burst figure (A100, H100, ...) or none (0.80 assumed) are scaled by the
// sustained/burst ratio measured on 8×H200 (698.6 / 823.9 = 0.848; B200 gives
// 0.815): the boost clock above the power-limited one is a DVFS property every
// recent NVIDIA part shares, and no A100 sustained measurement exists in our
// sources, so this is an assumption a measurement should replace. AMD MI300X
// reaches its power cap within one kernel and has no burst to lose (same
// source); other vendors, and user-defined GPUs that name none, are
// unmeasured: their figure is used as given.
namespace {
constexpr double kSustainedOverBurst = 698.6 / 823.9;  // 8×H200, all GPUs busy (MLE-MSMF)
}  // namespace

// Power limit. A board held below its nominal limit (nvidia-smi -pl, a
// facility cap) lowers its SM clock until it fits. CMOS dynamic power is
// α·C·V²·f (Weste & Harris, CMOS VLSI Design, §5.1) and in the DVFS range the
// voltage rises with the clock, so dynamic power grows as f³ and the clock as
// its cube root. The part's idle draw does not scale: 64.4 W on a 700 W
// Hopper-class board (NVIDIA DGX B200 User Guide, "Managing Power Capping"
// §7.1, PowerLimitWatts example: Reading 64.388 at DefaultSetPoint 700), i.e.
// 9.2% of the nominal limit. So at a limit P below the nominal T the compute
// clock is ((P − 0.092·T) / (0.908·T))^(1/3) of the nominal sustained one:
// 0.88 at 500 of 700 W. HBM keeps its own clock: bandwidth is unchanged.
double power_clock_factor(const GpuSpec& g) {
  if (!(g.power_limit_w > 0 && g.tdp_w > 0 && g.power_limit_w < g.tdp_w)) return 1.0;
  constexpr double kIdleShare = 64.388 / 700.0;
  const double idle = kIdleShare * g.tdp_w;
  const double dynamic = std::max(0.05 * g.tdp_w, g.power_limit_w - idle) / (g.tdp_w - idle);
  return std::cbrt(dynamic);
}

// FP8 GEMMs take their own measured fraction where the catalog has one
// (gemm_efficiency_fp8: MI300X's hipBLASLt FP8 reaches 0.44 of its FP8 peak
// where BF16 reaches 0.51 of its own); elsewhere the BF16 fraction.
double burst_gemm_ceiling(const GpuSpec& g, Precision p) {
  const double measured = p == Precision::kFp8 && g.gemm_efficiency_fp8 > 0 ? g.gemm_efficiency_fp8 : g.gemm_efficiency;
  return (measured > 0 ? measured : 0.80) * power_clock_factor(g);
}

double training_gemm_ceiling(const GpuSpec& g, Precision p) {
  if (p == Precision::kFp8 && g.gemm_efficiency_fp8 > 0) return burst_gemm_ceiling(g, p) * sustained_over_burst(g);
  if (g.gemm_sustained_efficiency > 0) return g.gemm_sustained_efficiency * power_clock_factor(g);
  return burst_gemm_ceiling(g) * sustained_over_burst(g);
}

// The same clock physics for any compute-bound kernel measured in a short
// burst (the attention-kernel tables): the GPU's measured sustained/burst GEMM
// ratio where both are in the catalog (H200 0.706/0.803, B200 0.634/0.776),
// else 0.848 for NVIDIA parts (8×H200 MSMF/MAMF), else 1 (as above).
double sustained_over_burst(const GpuSpec& g) {
  if (g.gemm_sustained_efficiency > 0 && g.gemm_efficiency > 0) return g.gemm_sustained_efficiency / g.gemm_efficiency;
  return g.vendor == "nvidia" ? kSustainedOverBurst : 1.0;
}

GemmCeilingBasis training_gemm_ceiling_basis(const GpuSpec& g) {
  if (g.gemm_sustained_efficiency > 0) return GemmCeilingBasis::kSustainedMeasured;
  if (g.vendor == "nvidia") return g.gemm_efficiency > 0 ? GemmCeilingBasis::kSustainedFromMamf : GemmCeilingBasis::kSustainedAssumed;
  return g.gemm_efficiency > 0 ? GemmCeilingBasis::kMamfMeasured : GemmCeilingBasis::kAssumed;
}

GemmRoofline gemm_roofline(const GpuSpec& g, Precision p, double m, double n, double k, double ceiling,
                           double hbm_bytes_per_s, double weight_bytes, double act_bytes, double batch) {
  batch = std::max(1.0, batch);
  return roofline_at_efficiency(g, p, m, n, k, gemm_efficiency(g, p, m, n, k, ceiling, batch), hbm_bytes_per_s, weight_bytes,
                                act_bytes, batch);
}

GemmRoofline roofline_at_efficiency(const GpuSpec& g, Precision p, double m, double n, double k, double eff,
                                    double hbm_bytes_per_s, double weight_bytes, double act_bytes, double batch) {
  GemmRoofline r;
  batch = std::max(1.0, batch);
  r.flop = batch * 2.0 * m * n * k;
  r.compute_s = r.flop / (g.peak(p) * eff);
  r.weight_bytes = batch * n * k * weight_bytes;
  r.memory_s = (r.weight_bytes + batch * (m * k + m * n) * act_bytes) / hbm_bytes_per_s;
  return r;
}

double gemm_time_s(const GpuSpec& g, Precision p, double m, double n, double k, const StepTimeOptions& o, double batch) {
  const Precision use = g.has(p) ? p : (g.has(Precision::kFp16) ? Precision::kFp16 : Precision::kBf16);
  const double ceiling = o.gemm_ceiling ? *o.gemm_ceiling : training_gemm_ceiling(g);
  const double elem = use == Precision::kFp8 ? 1.0 : 2.0;
  return gemm_roofline(g, use, m, n, k, ceiling, g.hbm_bytes_per_s * o.hbm_efficiency, elem, elem, batch).time_s() +
         o.kernel_overhead_s;
}

}  // namespace gpuplan
