// `gpuplan finetune` and POST /api/finetune as one chain: the request read from
// the inputs (make_finetune_request), the run (run_finetune, src/commands) and
// its report (finetune_run_report, src/report).
#include "inputs/finetune_inputs.hpp"

#include "gpuplan/finetune.hpp"
#include "report/inference_report.hpp"

namespace gpuplan {

Report finetune_report_for(const FinetuneInputs& in) {
  const FinetuneRequest q = make_finetune_request(in);
  return finetune_run_report(q, run_finetune(q));
}

}  // namespace gpuplan
