// A planned layout as the launch configuration of the stack that runs it
// (`gpuplan plan --export`, POST /api/plan/export, gpuplan.export in Python).
//
// One decision for every front end: which format, which ranked layout, which
// framework version reads it, and the refusals (a layout the version cannot
// run, a flag or key its parser does not take) as one sentence each.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/bilingual.hpp"
#include "gpuplan/plan.hpp"

namespace gpuplan {

// What to export: `to` is megatron, deepspeed, torchtitan, megatron-bridge, nemo, megatron-deepspeed or gpt-neox (unset or empty:
// the planned framework's own format); `rank` is the 1-based place in the
// ranking (unset: 1, the best layout).
struct ExportChoice {
  std::optional<std::string> to;
  std::optional<int> rank;
};

struct LaunchConfig {
  std::string format;          // megatron, deepspeed, torchtitan, megatron-bridge, nemo, megatron-deepspeed or gpt-neox
  std::string runner;          // the framework version that reads it (NAME@VERSION)
  int rank = 1;                // the ranked layout it carries
  std::string file_name;       // a name to save it under: megatron-args.txt, ds_config.json, torchtitan.toml, <format>.overrides,
                               // megatron-deepspeed.sh, neox.yml
  std::string media_type;      // text/plain, application/json or application/toml
  std::string text;            // the configuration itself
  std::string launch;          // the command that starts it on the planned nodes (torchrun ... / deepspeed ...), placeholders in capitals
  std::vector<Bilingual> notes;  // what the configuration cannot say (DeepSpeed: recompute is switched on in the model)
};

// Checks the choice against the request before any search: a known format,
// the framework's own when none is named, one GPU type and one count, a rank
// 1–100. Returns the request to plan (its ranking deep enough for the rank);
// throws InputError("--export" / "--rank") otherwise.
PlanRequest prepare_export(const PlanRequest& request, const ExportChoice& choice);

// The launch configuration of the ranked layout of `result` (plan(prepared)).
// Throws InputError naming what the reading version cannot take.
LaunchConfig launch_config(const PlanRequest& prepared, const PlanResult& result, const ExportChoice& choice);

}  // namespace gpuplan
