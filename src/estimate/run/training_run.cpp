// time = FLOP / (GPUs · peak · MFU): the definition of model FLOPs utilisation
// (Chowdhery et al. 2022, PaLM, appendix B), solved for whichever of the three
// unknowns the user left out.
#include "gpuplan/training_run.hpp"
#include "units/quantity_text.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gpuplan/error.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {

RunEstimate solve_run(const RunInput& in) {
  const int given = (in.gpus ? 1 : 0) + (in.deadline_s ? 1 : 0) + (in.mfu ? 1 : 0);
  if (given < 2) {
    throw InputError("--gpus", "give two of --gpus, --deadline and --mfu (or --tflops-per-gpu): gpuplan solves the third.",
                     "--gpus：请在 --gpus、--deadline、--mfu（或 --tflops-per-gpu）中给出两个，程序求第三个。");
  }
  RunEstimate r;
  r.deadline_s = in.deadline_s;
  const double margin = 1.0 + in.comm_margin + in.fault_budget;
  if (in.gpus && in.mfu) {
    r.gpus_exact = *in.gpus;
    r.gpus = static_cast<int64_t>(*in.gpus);
    r.mfu = *in.mfu;
  } else if (in.deadline_s && in.mfu) {
    // GPUs = FLOP·(1 + margins) / (peak · MFU · deadline)  (seed 004's formula, with margins)
    r.mfu = *in.mfu;
    r.gpus_exact = in.total_model_flop * margin / (in.peak_flop_per_s * r.mfu * *in.deadline_s);
    double gpus = std::ceil(r.gpus_exact - 1e-9);
    if (gpus < 1) gpus = 1;
    if (in.round_to_nodes && gpus > in.gpus_per_node) {
      gpus = std::ceil(gpus / in.gpus_per_node) * in.gpus_per_node;
    }
    if (gpus > 1e9) {
      throw InputError("--deadline", fmt::format("--deadline: finishing in {} would need {} GPUs; allow more time.",
                                                 format_duration(*in.deadline_s), format_si(gpus, "")),
                       fmt::format("--deadline：要在 {} 内完成需要 {} 张卡；请放宽期限。", format_duration_zh(*in.deadline_s),
                                   format_si(gpus, "")));
    }
    r.gpus = static_cast<int64_t>(gpus);
    r.gpus_solved = true;
  } else {
    r.gpus_exact = *in.gpus;
    r.gpus = static_cast<int64_t>(*in.gpus);
    r.mfu = in.total_model_flop * margin / (*in.gpus * in.peak_flop_per_s * *in.deadline_s);
    r.mfu_solved = true;
    if (r.mfu > 1.0) {
      throw InputError("--deadline",
                       fmt::format("--deadline: {} GPUs cannot finish in {}: it would take {:.0f}% of peak "
                                   "throughput (MFU above 100%); add GPUs or time.",
                                   r.gpus, format_duration(*in.deadline_s), r.mfu * 100),
                       fmt::format("--deadline：{} 张卡无法在 {} 内完成：需要峰值算力的 {:.0f}%（MFU 超过 100%）；请加卡或放宽期限。",
                                   r.gpus, format_duration_zh(*in.deadline_s), r.mfu * 100));
    }
  }
  r.nodes = (r.gpus + in.gpus_per_node - 1) / in.gpus_per_node;
  r.effective_flop_per_s = static_cast<double>(r.gpus) * in.peak_flop_per_s * r.mfu;
  r.compute_s = in.total_model_flop / r.effective_flop_per_s;
  r.comm_margin_s = r.compute_s * in.comm_margin;
  r.fault_budget_s = r.compute_s * in.fault_budget;
  r.wall_s = r.compute_s + r.comm_margin_s + r.fault_budget_s;
  const double g = static_cast<double>(r.gpus);
  r.gpu_hours_compute = g * r.compute_s / kSecondsPerHour;
  r.gpu_hours_comm_margin = g * r.comm_margin_s / kSecondsPerHour;
  r.gpu_hours_fault_budget = g * r.fault_budget_s / kSecondsPerHour;
  r.gpu_hours_total = g * r.wall_s / kSecondsPerHour;
  r.gpu_days_total = r.gpu_hours_total / 24;
  if (in.deadline_s) {
    r.deadline_slack_s = *in.deadline_s - r.wall_s;
    r.deadline_met = r.deadline_slack_s >= -1e-6 * *in.deadline_s;
  }
  return r;
}

}  // namespace gpuplan
