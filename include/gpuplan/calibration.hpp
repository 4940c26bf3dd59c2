// Calibration from a trial run (seed 004: "measure 1% of the data first; the
// measurement is the gold standard"): fit the step-time model's compute
// efficiency and the memory model's overhead to what a short run measured,
// then plan the full run with the fitted model.
#pragma once
#include <optional>
#include <string>


#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

// The models a calibration fits (step_time.hpp, memory.hpp): declared here
// only, so that a Calibration (plain data) does not pull them in.
struct StepTimeOptions;
struct MemoryOptions;

struct TrialMeasurement {
  std::optional<double> step_s;               // seconds per optimizer step
  std::optional<double> tokens_per_s_per_gpu; // or the throughput
  std::optional<double> peak_memory_bytes;    // device memory at the peak (nvidia-smi style)
};

struct Calibration {
  // What it was fitted on; applying it to another GPU or model warns
  // (empty: a file written before these were recorded).
  std::string gpu_id;
  std::string model_name;
  std::string layout;             // "tp 1 pp 1 dp 8 cp 1 ep 1 vp 1, micro-batch 2, seq 4096, ZeRO-1, recompute none"
  // Fitted factors.
  double gemm_ceiling = 0;        // StepTimeOptions::gemm_ceiling that reproduces the measured step
  double fragmentation = -1;      // MemoryOptions::fragmentation that reproduces the peak (< 0: not fitted)
  // How far the uncalibrated model was off.
  double predicted_step_s = 0;
  double measured_step_s = 0;
  double step_error = 0;          // predicted / measured − 1, before calibration
  double predicted_peak_bytes = 0;
  double measured_peak_bytes = 0;
  double memory_error = 0;
  bool step_clamped = false;      // the measurement lies outside what an efficiency in (0.05, 1] can explain
  bool memory_clamped = false;
  std::string note;
};

// Throws InputError when neither a step time nor a throughput is given.
// The step-time and memory models start from their defaults, or from base_step and base_memory.
Calibration calibrate(const ModelSpec& model, const Layout& layout, const GpuSpec& gpu, const TrialMeasurement& measured);
Calibration calibrate(const ModelSpec& model, const Layout& layout, const GpuSpec& gpu, const TrialMeasurement& measured,
                      const StepTimeOptions& base_step, const MemoryOptions& base_memory);

// A layout in the words Calibration::layout records it.
std::string calibration_layout_text(const Layout& layout);

// Applies a calibration to later estimates.
void apply_calibration(const Calibration& c, StepTimeOptions* step, MemoryOptions* memory);

Calibration load_calibration_file(const std::string& path);                           // throws InputError

}  // namespace gpuplan
