// The flags that describe one training layout (model, GPU, degrees, batch,
// recipe), shared by `gpuplan memory` and `gpuplan calibrate`.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan::cli {

struct LayoutFlags {
  std::string model;
  std::optional<std::string> params, gpus;
  std::string gpu;
  int tp = 1, pp = 1, cp = 1, ep = 1, vp = 1;
  std::optional<int> dp;
  int64_t micro_batch = 1;
  int64_t global_batch = 0;
  int64_t seq_len = 4096;
  int zero = 0;
  int shard_group = 0;
  std::string recompute = "none";
  bool sequence_parallel = false;
  std::string precision = "bf16";
  bool pure_bf16 = false;
  std::string optimizer = "adamw";
  bool offload_optimizer = false, offload_params = false, offload_activations = false;
  bool no_flash = false;
};

void add_layout_flags(CLI::App* cmd, LayoutFlags* f);

struct ResolvedLayout {
  ModelSpec model;
  GpuSpec gpu;
  Layout layout;
  int64_t gpus = 0;
};

// Builds and validates the layout; dp defaults to gpus / (tp·pp·cp). Throws InputError.
ResolvedLayout resolve_layout_flags(const LayoutFlags& f);

}  // namespace gpuplan::cli
