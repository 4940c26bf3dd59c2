// A train estimate and a memory breakdown from structs, through the installed
// headers and gpuplan::core only (no CLI, no text parsing). Prints
//   compute_gpu_hours <number>
//   memory_peak_bytes <number>
// for the CTest driver to compare with `gpuplan train/memory --format json`,
// and exits 1 when a number disagrees with its derivation below.
#include <gpuplan/gpuplan.hpp>  // the umbrella header: every entry point

#include <cmath>
#include <cstdio>

int main() {
  // Llama 3.1 70B on 15T tokens, 2,048 H100 at a stated 40% MFU (the README's
  // first example): compute GPU-hours = model FLOPs / (0.4 × peak) / 3600 s/h.
  gpuplan::TrainRequest train;
  train.model = "llama-3.1-70b";
  train.workload.tokens = 15e12;
  train.gpu = "h100";
  train.gpus = 2048;
  train.mfu = 0.4;
  const gpuplan::TrainEstimate t = gpuplan::estimate_train(train);
  const double expected_gpu_hours = t.total_model_flop / (0.4 * t.peak_flop_per_s) / 3600;
  if (!(std::abs(t.run.gpu_hours_compute / expected_gpu_hours - 1) < 1e-9)) return 1;

  // Llama 3.1 8B, 8 H100, pure data parallel, no ZeRO: each GPU holds the
  // mixed-precision AdamW states of every parameter, 2 (bf16 weights) + 4
  // (fp32 gradients) + 12 (fp32 master and two moments) bytes per parameter
  // (ZeRO, Rajbhandari et al. 2020 §3.1, counts 16 with bf16 gradients).
  const gpuplan::ModelSpec model = gpuplan::find_model("llama-3.1-8b");
  const gpuplan::GpuSpec& gpu = gpuplan::find_gpu("h100");
  gpuplan::Layout layout;
  layout.dp = 8;
  layout.micro_batch = 1;
  layout.global_batch = 8;
  layout.seq_len = 4096;
  const gpuplan::MemoryBreakdown m = gpuplan::estimate_memory(model, layout, gpu);
  const double states = m.weights_bytes + m.gradients_bytes + m.optimizer_bytes;
  const double per_param = m.weight_bytes_per_param + m.grad_bytes_per_param + m.optimizer_bytes_per_param;
  if (!(per_param >= 16 && std::abs(states / (per_param * m.params_on_gpu) - 1) < 1e-9)) return 1;
  if (!(m.peak_bytes > states && m.fits == (m.headroom_bytes >= 0))) return 1;
  // %.17g reads back as the same double; bytes in whole bytes, as the JSON
  // report writes them. The driver compares the parsed values.
  std::printf("{\"compute_gpu_hours\": %.17g, \"memory_peak_bytes\": %lld}\n", t.run.gpu_hours_compute, std::llround(m.peak_bytes));
  return 0;
}
