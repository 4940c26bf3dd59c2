// `gpuplan finetune` and POST /api/finetune: the request read from the inputs
// (make_finetune_request), the run (run_finetune) and its report: the
// estimate's sections (finetune_report), the deadline rows and how typed
// inputs were read.
#include <fmt/format.h>

#include "gpuplan/finetune.hpp"
#include "inputs/finetune_inputs.hpp"
#include "report/inference_report.hpp"
#include "report/typed_inputs_section.hpp"

namespace gpuplan {

Report finetune_run_report(const FinetuneRequest& q, const FinetuneRun& run) {
  const ModelSpec& m = q.model;
  const GpuSpec& g = q.gpu;
  const FinetuneEstimate& e = run.estimate;
  Report rep = finetune_report(m, g, e, run.smallest_gpus, run.ranking, run.price);
  if (q.deadline_s) {
    rep.inputs["deadline_s"] = *q.deadline_s;
    for (Section& s : rep.sections) {
      if (s.key != "time") continue;
      s.rows.push_back(Row{"deadline_s", "Deadline", "工期", *q.deadline_s, Unit::kSeconds, ""});
      s.rows.push_back(Row{"deadline_met", "Finishes by the deadline", "工期内完成", e.wall_s <= *q.deadline_s ? 1.0 : 0.0, Unit::kFlag, ""});
    }
    if (e.wall_s > *q.deadline_s) {
      rep.warnings.push_back(Note{fmt::format("Misses the deadline of {}: {} on {} × {}.", format_seconds(*q.deadline_s, Lang::kEn),
                                              format_seconds(e.wall_s, Lang::kEn), run.gpus, g.id),
                                  fmt::format("赶不上 {} 的工期：{} 张 {} 需 {}。", format_seconds(*q.deadline_s, Lang::kZh), run.gpus, g.id,
                                              format_seconds(e.wall_s, Lang::kZh))});
    }
  }
  if (auto s = typed_inputs_section(q.typed_inputs)) rep.sections.insert(rep.sections.begin(), *s);
  return rep;
}

}  // namespace gpuplan
