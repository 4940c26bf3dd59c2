// `gpuplan infer` and POST /api/infer as one chain: the request read from the
// inputs (make_infer_request), the run (run_infer, src/commands) and its
// report (src/report), with the replicas sized at the asked confidence.
#include "inputs/infer_inputs.hpp"

#include "gpuplan/inference.hpp"
#include "report/inference_report.hpp"

namespace gpuplan {

Report infer_report_for(const InferInputs& in) {
  const InferRequest q = make_infer_request(in);
  InferRun run = run_infer(q);
  if (q.max_throughput) return max_throughput_report(q.model, q.gpu, run.options, q.target.input_len, q.target.output_len, run.best);
  // Issue 15: the replicas were sized for the slow end of gpuplan's errors on published serving runs (run_infer).
  Report rep = inference_report(q.model, q.gpu, q.options, run.target, run.plan, run.resolved_price);
  if (run.sizing) add_serving_sizing(rep, *run.sizing, run.plan, run.target);
  return rep;
}

}  // namespace gpuplan
