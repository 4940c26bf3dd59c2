#include "gpuplan/calibration.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gpuplan/error.hpp"
#include "gpuplan/flops.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/units.hpp"
#include "units/json_input.hpp"
#include "estimate/uncertainty/calibration_json.hpp"

namespace gpuplan {
namespace {

constexpr double kLowestCeiling = 0.05;

// Step time falls monotonically as the GEMM ceiling rises; bisect for the
// ceiling whose predicted step equals the measured one.
double fit_ceiling(const ModelSpec& m, const Layout& l, const GpuSpec& g, StepTimeOptions o, double measured_s, bool* clamped) {
  auto step = [&](double c) {
    o.gemm_ceiling = c;
    o.explain = false;
    return estimate_step_time(m, l, g, o).step_s;
  };
  double lo = kLowestCeiling, hi = 1.0;
  if (step(hi) > measured_s) {  // faster than even a perfect GEMM ceiling explains
    *clamped = true;
    return hi;
  }
  if (step(lo) < measured_s) {  // slower than 5% efficiency: something else is wrong
    *clamped = true;
    return lo;
  }
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (step(mid) > measured_s) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

Calibration calibrate(const ModelSpec& m, const Layout& l, const GpuSpec& g, const TrialMeasurement& t) {
  return calibrate(m, l, g, t, StepTimeOptions{}, MemoryOptions{});
}

Calibration calibrate(const ModelSpec& m, const Layout& l, const GpuSpec& g, const TrialMeasurement& t,
                      const StepTimeOptions& base_step, const MemoryOptions& base_memory) {
  if (!t.step_s && !t.tokens_per_s_per_gpu) {
    throw InputError("--step-time", "--step-time or --tokens-per-s-per-gpu is required: what the trial run measured.",
                     "缺少 --step-time 或 --tokens-per-s-per-gpu：请给出试跑实测的数值。");
  }
  if (t.step_s) require_range(*t.step_s, 1e-6, 1e7, "--step-time", "a positive number of seconds per step", "正的每步秒数");
  if (t.tokens_per_s_per_gpu) require_range(*t.tokens_per_s_per_gpu, 1e-6, 1e9, "--tokens-per-s-per-gpu", "a positive throughput", "正的吞吐");
  if (t.peak_memory_bytes) require_range(*t.peak_memory_bytes, 1, 1e15, "--peak-memory-gib", "a positive amount of memory", "正的显存量");
  Calibration c;
  c.gpu_id = g.id;
  c.model_name = m.name;
  c.layout = calibration_layout_text(l);
  StepTimeOptions o = base_step;
  o.explain = false;
  const StepTime before = estimate_step_time(m, l, g, o);
  c.predicted_step_s = before.step_s;
  // tokens/s per GPU = tokens per step / (step · GPUs).
  c.measured_step_s = t.step_s ? *t.step_s
                               : before.tokens_per_step / (*t.tokens_per_s_per_gpu * static_cast<double>(l.gpus()));
  c.step_error = c.predicted_step_s / c.measured_step_s - 1;
  c.gemm_ceiling = fit_ceiling(m, l, g, o, c.measured_step_s, &c.step_clamped);
  if (c.step_clamped) {
    c.note = "the measured step lies outside what the GEMM efficiency alone can explain; check the layout you gave";
  }

  if (t.peak_memory_bytes) {
    MemoryOptions mo = base_memory;
    mo.suggest = false;
    mo.scope = MemoryScope::kDevice;
    const MemoryBreakdown br = estimate_memory(m, l, g, mo);
    c.predicted_peak_bytes = br.peak_bytes;
    c.measured_peak_bytes = *t.peak_memory_bytes;
    c.memory_error = c.predicted_peak_bytes / c.measured_peak_bytes - 1;
    // peak = allocated · (1 + fragmentation) + context; solve for the fragmentation.
    const double allocated = br.peak_bytes - br.fragmentation_bytes - br.cuda_context_bytes;
    double frag = allocated > 0 ? (c.measured_peak_bytes - br.cuda_context_bytes) / allocated - 1 : 0;
    if (frag < 0) {
      frag = 0;
      c.memory_clamped = true;
    }
    c.fragmentation = frag;
  }
  return c;
}

std::string calibration_layout_text(const Layout& l) {
  return fmt::format("tp {} pp {} dp {} cp {} ep {} vp {}, micro-batch {}, seq {}, ZeRO-{}, recompute {}", l.tp, l.pp, l.dp, l.cp, l.ep, l.vp,
                     l.micro_batch, l.seq_len, l.zero_stage, recompute_name(l.recompute));
}

void apply_calibration(const Calibration& c, StepTimeOptions* step, MemoryOptions* memory) {
  if (step && c.gemm_ceiling > 0) step->gemm_ceiling = c.gemm_ceiling;
  if (memory && c.fragmentation >= 0) memory->fragmentation = c.fragmentation;  // Calibration's own -1: not fitted
}

nlohmann::json calibration_to_json(const Calibration& c) {
  return {{"gpuplan_calibration", 1},
          {"gpu", c.gpu_id},
          {"model", c.model_name},
          {"layout", c.layout},
          {"gemm_ceiling", c.gemm_ceiling},
          {"fragmentation", c.fragmentation},
          {"predicted_step_s", c.predicted_step_s},
          {"measured_step_s", c.measured_step_s},
          {"step_error", c.step_error},
          {"predicted_peak_bytes", c.predicted_peak_bytes},
          {"measured_peak_bytes", c.measured_peak_bytes},
          {"memory_error", c.memory_error}};
}

Calibration calibration_from_json(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object() || !j.contains("gpuplan_calibration")) {
    throw InputError("--calibration", fmt::format("--calibration: {} is not a file written by gpuplan calibrate --save.", origin),
                     fmt::format("--calibration：{} 不是由 gpuplan calibrate --save 写出的文件。", origin));
  }
  Calibration c;
  auto num = [&](const char* k, double fallback) { return j.contains(k) && j[k].is_number() ? j[k].get<double>() : fallback; };
  auto text = [&](const char* k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string(); };
  c.gpu_id = text("gpu");
  c.model_name = text("model");
  c.layout = text("layout");
  c.gemm_ceiling = num("gemm_ceiling", 0);
  c.fragmentation = num("fragmentation", -1);
  if (!(c.gemm_ceiling >= 0 && c.gemm_ceiling <= 1) || !(c.fragmentation >= -1 && c.fragmentation <= 10)) {
    throw InputError("--calibration", fmt::format("--calibration: {} holds out-of-range factors (gemm_ceiling in [0, 1], fragmentation in [0, 10]).", origin),
                     fmt::format("--calibration：{} 中的系数超出范围（gemm_ceiling 应在 [0, 1]，fragmentation 应在 [0, 10]）。", origin));
  }
  c.predicted_step_s = num("predicted_step_s", 0);
  c.measured_step_s = num("measured_step_s", 0);
  c.step_error = num("step_error", 0);
  return c;
}

Calibration load_calibration_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("--calibration", fmt::format("--calibration: cannot read {}.", path), fmt::format("--calibration：无法读取 {}。", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  try {
    return calibration_from_json(parse_json_input(buffer.str(), "--calibration", "--calibration: " + path), path);
  } catch (const nlohmann::json::parse_error&) {
    throw InputError("--calibration", fmt::format("--calibration: {} is not valid JSON.", path), fmt::format("--calibration：{} 不是合法的 JSON。", path));
  }
}

}  // namespace gpuplan
