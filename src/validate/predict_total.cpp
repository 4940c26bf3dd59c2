// train_total predictor (issue 6): GPU-hours of a whole published run = the
// step-time model's throughput on the case's layout, stretched by the
// failures, checkpoints and restarts a run of that size suffers (the
// validation README: model-card GPU-hours "include downtime, restarts").
#include <fmt/format.h>

#include "gpuplan/error.hpp"
#include "gpuplan/operations.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/units.hpp"
#include "validate/validate.hpp"

namespace gpuplan {

// A published run of unstated size: per-GPU throughput barely depends on the
// count, so a typical large cluster stands in for it.
constexpr int64_t kDefaultTotalGpus = 1024;

std::vector<Prediction> predict_train_total(const ValidationCase& c, CaseInputs& in) {
  std::vector<Bilingual> flags;
  const nlohmann::json t = c.raw.contains("train") ? c.raw["train"] : nlohmann::json::object();
  if (!t.contains("tokens") || !t["tokens"].is_number() || !(t["tokens"].get<double>() > 0)) {
    throw InputError("train.tokens", c.id + ": train.tokens is required for a train_total case.", c.id + "：train_total 案例必须给出 train.tokens。");
  }
  const double tokens = t["tokens"].get<double>();
  CaseInputs sized = in;
  const bool count_stated = c.raw.contains("hardware") && c.raw["hardware"].contains("count");
  if (!count_stated) {
    ValidationCase with_count = c;
    with_count.raw["hardware"]["count"] = kDefaultTotalGpus;
    sized = case_inputs(with_count);
    flags.push_back({fmt::format("GPU count not stated: {} assumed", kDefaultTotalGpus), fmt::format("未给出卡数：按 {} 张卡计", kDefaultTotalGpus)});
  }
  const StepTime st = predict_case_step_time(c, sized, flags);
  const double gpus = static_cast<double>(sized.gpus);
  const double useful_s = tokens / (st.tokens_per_s_per_gpu * gpus);
  Layout ckpt = sized.layout;
  if (ckpt.zero_stage == 0) ckpt.zero_stage = 1;  // checkpoints are written sharded
  const OperationsEstimate ops = estimate_operations(&sized.model, ckpt, sized.gpu, sized.gpus, useful_s, OperationsSettings{});
  const double extra_pct = 100 * (1 / ops.reliability.effective_time_ratio - 1);
  flags.push_back({fmt::format("failures, checkpoints and restarts add {:.1f}% (Llama 3 per-GPU failure rate)", extra_pct),
                   fmt::format("故障、检查点与重启使耗时增加 {:.1f}%（按 Llama 3 的单卡故障率）", extra_pct)});
  Prediction p;
  p.metric = "gpu_hours";
  p.value = ops.reliability.wall_s * gpus / kSecondsPerHour;
  p.flags = flags;
  return {p};
}

}  // namespace gpuplan
