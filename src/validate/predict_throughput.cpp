// train_throughput predictor (issue 4): the step-time model on the case's
// layout. Where the source leaves a parallel dimension out, the planner picks
// it (a published benchmark is a tuned run); every such choice is flagged.
#include <fmt/format.h>


#include "gpuplan/plan.hpp"
#include "gpuplan/step_time.hpp"
#include "validate/validate.hpp"

namespace gpuplan {

StepTime predict_case_step_time(const ValidationCase&, CaseInputs& in, std::vector<Bilingual>&) {
  // case_inputs completed the layout (stated values, the planner's choices,
  // the framework's defaults); the step time is the model's on it.
  StepTimeOptions o;
  o.gpus_per_node = in.gpu.gpus_per_node;
  return estimate_step_time(in.model, in.layout, in.gpu, o);
}

std::optional<Layout> best_case_layout(const CaseInputs& in) {
  PlanRequest r;
  r.model = in.model;
  r.gpus = {in.gpu};
  r.gpu_counts = {in.gpus};
  r.seq_len = in.layout.seq_len;
  r.global_batch = in.layout.effective_global_batch();
  r.precision = in.layout.precision;
  r.optimizer = in.layout.optimizer;
  r.framework = in.framework;
  r.settings = in.settings;
  r.settings.sequence_parallel.reset();  // a tunable here
  r.base_layout = in.layout;
  r.step_options.gpus_per_node = in.gpu.gpus_per_node;
  // The layout `gpuplan plan` would recommend for this run, with the fit test
  // it applies to a layout nobody has measured: the default safety margin
  // (MemoryOptions). The case's own layout keeps no margin where it is
  // completed, since it was measured to fit.
  r.top_k = 1;
  const PlanResult res = plan(r);
  if (res.groups.empty() || res.groups[0].top.empty()) return std::nullopt;
  return res.groups[0].top[0].layout;
}

std::vector<Prediction> predict_train_throughput(const ValidationCase& c, CaseInputs& in) {
  std::vector<Bilingual> flags;
  const StepTime st = predict_case_step_time(c, in, flags);
  std::vector<Prediction> out;
  const auto has = [&](const char* k) {
    return (c.raw.contains("measured") && c.raw["measured"].contains(k)) || (c.raw.contains("derived") && c.raw["derived"].contains(k));
  };
  // Primary target: tokens/s per GPU, else step time (README, "Targets per kind").
  if (has("tokens_per_s_per_gpu")) out.push_back(Prediction{"tokens_per_s_per_gpu", st.tokens_per_s_per_gpu, flags});
  else if (has("step_time_s")) out.push_back(Prediction{"step_time_s", st.step_s, flags});
  return out;
}

}  // namespace gpuplan
