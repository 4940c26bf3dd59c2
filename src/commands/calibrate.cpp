// `gpuplan calibrate` (calibrate.hpp run_calibration): the trial's layout as
// the memory command resolves it, the factors fitted to its measurement, and
// the full run's request with them.
#include "commands/calibrate.hpp"
#include "units/quantity_text.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "estimate/uncertainty/calibration_json.hpp"
#include "gpuplan/error.hpp"
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
    run.full_run_estimate = estimate_train(tr);
  }
  return run;
}

// --save's file, whole or not at all: the text goes to a temporary file in
// the same folder, is flushed and checked, and is renamed over the target
// (rename(2) is atomic), so a kill at any moment leaves the old file or the
// new one. A target that is not a regular file (/dev/full, a FIFO) is written
// in place, its errors reported. The --model file is never overwritten.
void save_calibration_file(const Calibration& c, const std::string& path, const std::string& model) {
  const std::string text = calibration_to_json(c).dump(2) + "\n";
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target(path);
  if (!model.empty() && fs::exists(model, ec) && fs::exists(target, ec) && fs::equivalent(model, target, ec)) {
    throw InputError("--save", fmt::format("--save: {} is the --model file; choose another file for the calibration.", path),
                     fmt::format("--save：{} 就是 --model 的文件；请为校准结果另选一个文件。", path));
  }
  const fs::file_status st = fs::status(target, ec);
  const bool regular_or_new = !fs::exists(st) || fs::is_regular_file(st);
  const auto cannot = [&] {
    return InputError("--save", fmt::format("--save: cannot write {}.", path), fmt::format("--save：无法写入 {}。", path));
  };
  if (!regular_or_new) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.flush();
    if (!out) throw cannot();
    return;
  }
  const fs::path tmp = target.parent_path() / fmt::format(".{}.tmp-{}", target.filename().string(), static_cast<long>(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw cannot();
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw cannot();
  }
}

}  // namespace gpuplan
