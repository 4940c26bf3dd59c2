// The step-time model's assumptions in words (StepTimeBasis, filled by
// estimate_step_time under StepTimeOptions::explain).
#include "report/step_time_notes.hpp"

#include <fmt/format.h>

namespace gpuplan {
namespace {

// Where the GEMM ceiling comes from (training_gemm_ceiling's branches, gemm_efficiency.cpp).
const char* ceiling_basis(GemmCeilingBasis b) {
  switch (b) {
    case GemmCeilingBasis::kGiven: return "calibrated or given";
    case GemmCeilingBasis::kSustainedMeasured: return "sustained at the power limit, measured: MSMF";
    case GemmCeilingBasis::kSustainedFromMamf: return "sustained estimate: boost-clock MAMF × 0.848, the H200 MSMF/MAMF ratio";
    case GemmCeilingBasis::kSustainedAssumed: return "assumed: 0.80 × 0.848 sustained";
    case GemmCeilingBasis::kMamfMeasured: return "measured MAMF";
    case GemmCeilingBasis::kAssumed: return "assumed";
  }
  return "";
}

const char* ceiling_basis_zh(GemmCeilingBasis b) {
  switch (b) {
    case GemmCeilingBasis::kGiven: return "校准值或输入值";
    case GemmCeilingBasis::kSustainedMeasured: return "功耗上限下的持续值，实测 MSMF";
    case GemmCeilingBasis::kSustainedFromMamf: return "持续值估计：加速频率下的 MAMF × 0.848（H200 的 MSMF/MAMF 比值）";
    case GemmCeilingBasis::kSustainedAssumed: return "假定：0.80 × 0.848 持续值";
    case GemmCeilingBasis::kMamfMeasured: return "实测 MAMF";
    case GemmCeilingBasis::kAssumed: return "假定值";
  }
  return "";
}

// The measurement behind the attention kernel's rate (attention_rate_source).
std::string attention_basis(const AttentionRateSource& a) {
  if (a.kernel == AttentionKernel::kMaterialised) return "materialised scores: batched GEMMs and HBM streaming of the s×s matrix";
  return fmt::format("{}{} measured on {} ({}){}", a.kernel == AttentionKernel::kNpuFusion ? "npu_fusion_attention, unmeasured: " : "",
                     a.table_kernel, a.reference_gpu, a.source,
                     a.borrowed ? "; no measurement for this architecture: the Hopper table as a fraction of peak" : "");
}

std::string attention_basis_zh(const AttentionRateSource& a) {
  if (a.kernel == AttentionKernel::kMaterialised) return "显式计算注意力分数：批量 GEMM，s×s 矩阵经 HBM 读写";
  return fmt::format("{}{} 在 {} 上的实测值{}（来源：{}）", a.kernel == AttentionKernel::kNpuFusion ? "npu_fusion_attention 无实测，借用 " : "",
                     a.table_kernel, a.reference_gpu, a.borrowed ? "；该架构没有实测，按 Hopper 表占峰值的比例换算" : "", a.source);
}

}  // namespace

std::vector<Note> step_time_notes(const StepTimeBasis& b) {
  std::vector<Note> out;
  if (!b.explained) return out;
  out.push_back({fmt::format("GEMM ceiling {:.1f}% of dense {} peak ({})", 100 * b.gemm_ceiling, precision_name(b.gemm_precision),
                             ceiling_basis(b.gemm_ceiling_basis)),
                 fmt::format("GEMM 上限为 {} 稠密峰值的 {:.1f}%（{}）", precision_name(b.gemm_precision), 100 * b.gemm_ceiling,
                             ceiling_basis_zh(b.gemm_ceiling_basis))});
  out.push_back({"attention kernel: " + attention_basis(b.attention), "注意力算子：" + attention_basis_zh(b.attention)});
  if (b.clock_factor < 1) {
    out.push_back({fmt::format("power limit {:.0f} W of {:.0f} W: compute clock {:.1f}% of nominal (cube-root DVFS relation)",
                               b.power_limit_w, b.tdp_w, 100 * b.clock_factor),
                   fmt::format("功耗上限 {:.0f} W（额定 {:.0f} W）：计算频率为标称的 {:.1f}%（按 DVFS 立方根关系）",
                               b.power_limit_w, b.tdp_w, 100 * b.clock_factor)});
  }
  out.push_back({fmt::format("intra-node bus bandwidth {:.0f} GB/s, scale-out {:.1f} GB/s per GPU", b.intra_busbw_bytes_per_s / 1e9,
                             b.scaleout_bytes_per_s / 1e9),
                 fmt::format("节点内总线带宽 {:.0f} GB/s，节点间每卡 {:.1f} GB/s", b.intra_busbw_bytes_per_s / 1e9, b.scaleout_bytes_per_s / 1e9)});
  out.push_back({fmt::format("HBM streaming at {:.0f}% of {:.2f} TB/s", 100 * b.hbm_efficiency, b.hbm_bytes_per_s / 1e12),
                 fmt::format("HBM 读写按 {:.2f} TB/s 的 {:.0f}% 计", b.hbm_bytes_per_s / 1e12, 100 * b.hbm_efficiency)});
  switch (b.tp_comm) {
    case TpCommExposure::kOverlapped:
      out.push_back({"TP collectives overlapped with GEMMs", "TP 集合通信与 GEMM 重叠"});
      break;
    case TpCommExposure::kInputGradAsync:
      out.push_back({"TP collectives exposed, except the backward's input-gradient all-reduce/reduce-scatter (and SP input re-gather) run "
                     "asynchronously under the column-parallel GEMMs",
                     "TP 集合通信暴露，但反向中输入梯度的 all-reduce/reduce-scatter（以及 SP 的输入重新收集）在列并行 GEMM 下异步执行"});
      break;
    case TpCommExposure::kExposed:
      out.push_back({"TP collectives exposed (not overlapped)", "TP 集合通信不重叠（暴露）"});
      break;
  }
  out.push_back({fmt::format("DP/ZeRO traffic overlapped with compute at {:.0f}% efficiency", 100 * b.overlap_efficiency),
                 fmt::format("DP/ZeRO 通信与计算重叠，效率 {:.0f}%", 100 * b.overlap_efficiency)});
  return out;
}

}  // namespace gpuplan
