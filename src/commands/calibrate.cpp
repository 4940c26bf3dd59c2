// `gpuplan calibrate` (calibrate.hpp run_calibration): the trial's layout as
// the memory command resolves it, the factors fitted to its measurement, and
// the full run's request with them.
#include "commands/calibrate.hpp"

#include "gpuplan/units.hpp"

namespace gpuplan {

CalibrationRun run_calibration(const CalibrateInputs& f) {
  CalibrationRun run;
  run.trial = resolve_layout(f.layout);
  const ResolvedLayout& r = run.trial;
  TrialMeasurement t;
  t.step_s = f.step_time;
  t.tokens_per_s_per_gpu = f.tokens_per_s_per_gpu;
  if (f.peak_memory_gib) t.peak_memory_bytes = *f.peak_memory_gib * kGiB;
  run.calibration = calibrate(r.model, r.layout, r.gpu, t);
  if (f.tokens) {
    // Re-plan the full run with the calibrated model.
    TrainRequest tr;
    tr.model = f.layout.model;
    tr.gpu = r.gpu.id;
    tr.workload.tokens = parse_optional_count(f.tokens, "--tokens");
    tr.workload.seq_len = r.layout.seq_len;
    tr.precision = r.layout.precision;
    tr.gpus = f.full_gpus ? parse_optional_count(f.full_gpus, "--full-gpus") : std::optional<double>(static_cast<double>(r.gpus));
    if (f.deadline) {
      tr.deadline_s = parse_duration_s(*f.deadline, "--deadline");
      if (!f.full_gpus) tr.gpus.reset();
    }
    tr.calibration = run.calibration;
    run.full_run = tr;
  }
  return run;
}

}  // namespace gpuplan
