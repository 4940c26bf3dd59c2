// The inputs of `gpuplan train`, `memory` (and `calibrate`'s layout) and `plan`
// as a front end collects them, and the one place that checks them and builds
// the library's requests.
//
// Each field is named after its CLI flag (`seq_len` is --seq-len) and holds
// what the user typed: counts with SI suffixes, durations and fractions stay
// text until the builders below parse them, so every error names the flag.
// The CLI (src/cli) binds its flags to these fields; the web API
// (src/web/api.cpp) reads the request keys of the same names into them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/calibration.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/train_report.hpp"

namespace gpuplan {

// --- the software stack (train, memory, calibrate, plan) ------------------

// --framework NAME[@VERSION] and the run settings that override its defaults;
// each unset one takes the profile's default (apply_framework).
struct FrameworkInputs {
  std::string framework = "generic";
  std::optional<std::string> attention;        // --attention flash|flash3|cudnn|sdpa|materialised
  std::optional<std::string> loss;             // --loss full|fused|chunked
  std::optional<std::string> compile;          // --compile on|off
  std::optional<std::string> tp_comm_overlap;  // --tp-comm-overlap on|off
  std::optional<std::string> dp_comm_overlap;  // --dp-comm-overlap on|off
};

// The profile named by --framework (InputError naming --framework).
const FrameworkProfile& resolve_framework(const FrameworkInputs& in);
// The stated settings, checked (InputError naming the flag).
RunSettings make_run_settings(const FrameworkInputs& in);

// --- gpuplan train ---------------------------------------------------------

struct TrainInputs {
  std::string model;                    // --model: catalog id, alias or config.json path
  std::optional<std::string> params;    // --params 70B
  std::optional<ModelSpec> model_spec;  // instead of both: a model the front end built (the web's pasted config.json)
  std::optional<std::string> tokens, samples, tokens_per_sample, dataset_bytes, flops_per_sample;
  double bytes_per_token = 4;
  double epochs = 1;
  int64_t seq_len = 4096;
  bool force = false;                   // --force: a --seq-len beyond the model's context is meant
  std::optional<std::string> global_batch, batch_tokens;
  std::string gpu;
  std::optional<std::string> gpus, deadline, mfu, tflops_per_gpu;
  std::string precision = "bf16";
  std::string recompute = "none";
  bool causal = false;
  bool six_n = false;
  std::optional<double> fault_budget;
  // Operations: failures, restarts, checkpoints, spot preemptions (OperationsSettings).
  std::optional<double> gpu_mtbf_hours, restart_minutes, storage_gbytes_per_s, spot_mtbf_hours;
  std::optional<std::string> checkpoint_interval;
  double comm_margin = 0.0;
  std::optional<int> gpus_per_node;
  std::optional<std::string> price, currency;
  std::optional<std::string> market;    // --market cn|us (the front end defaults it from the language)
  std::optional<std::string> provider;  // --provider: a named listing of that market
  bool spot = false;
  std::optional<double> spot_discount, spot_overhead;
  std::vector<std::string> phase;       // NAME:GPU:COUNT:DURATION[:PRICE], repeatable
  bool compare_own = false;             // --compare-own: rent vs own
  OwnershipOverrides own;               // --own-*, --pue, --electricity-price, … (any of them implies --compare-own)
  std::optional<Calibration> calibration;  // the CLI reads --calibration FILE, the web takes the file's object
  FrameworkInputs software;
  double interval = 0.8;                // --interval: level of the prediction ranges
  double confidence = 0.8;              // --confidence: what a --deadline run is sized to
};

// Parses and checks the text fields; train_report checks the rest.
TrainRequest make_train_request(const TrainInputs& in);

// --- gpuplan memory, gpuplan calibrate -------------------------------------

// One training layout: model, GPU, degrees, batch, recipe.
struct LayoutInputs {
  std::string model;
  std::optional<std::string> params;
  std::optional<ModelSpec> model_spec;
  std::string gpu;
  std::optional<std::string> gpus;
  int tp = 1, pp = 1, cp = 1, ep = 1, vp = 1;
  std::optional<int> dp;                // default gpus / (tp·pp·cp)
  std::optional<int> first_stage_layers, last_stage_layers;  // Megatron's uneven pipeline split
  int64_t micro_batch = 1;
  int64_t global_batch = 0;
  int64_t seq_len = 4096;
  bool force = false;                   // --force: a --seq-len beyond the model's context is meant
  std::optional<int> zero;              // not given: the framework's default
  int shard_group = 0;
  std::optional<std::string> recompute; // not given: the framework's default
  bool sequence_parallel = false;       // --sequence-parallel
  bool no_sequence_parallel = false;    // --no-sequence-parallel; neither: the framework's default
  std::optional<std::string> precision; // not given: bf16, or fp16 on a GPU without bf16 (V100)
  bool pure_bf16 = false;
  bool fp32_grads = false;              // --fp32-grads: force an fp32 gradient buffer
  FrameworkInputs software;
  std::string optimizer = "adamw";
  bool offload_optimizer = false, offload_params = false, offload_activations = false;
  bool no_flash_attention = false;
  bool eager = false;
  bool zero3_per_module = false;
};

struct ResolvedLayout {
  ModelSpec model;
  GpuSpec gpu;
  Layout layout;
  int64_t gpus = 0;
};

// A precision the user typed that the GPU lacks is refused (fp8 on A100, bf16
// on V100: InputError naming --precision); an untyped one is bf16, or fp16
// where the GPU has no bf16.
Precision training_precision(const std::optional<std::string>& typed, const GpuSpec& gpu);

// Builds and validates the layout; dp defaults to gpus / (tp·pp·cp). Throws InputError.
ResolvedLayout resolve_layout(const LayoutInputs& in);

struct MemoryInputs {
  LayoutInputs layout;
  bool dropout = false;
  std::optional<double> fragmentation, cuda_context_gib;
  double safety_margin = 0.15;
};

// The memory model's options, checked.
MemoryOptions make_memory_options(const MemoryInputs& in);

// --- gpuplan plan ----------------------------------------------------------

struct PlanInputs {
  std::string model;                    // catalog id, alias or config.json path
  std::optional<ModelSpec> model_spec;  // or a model the front end built
  std::string gpu;                      // one GPU or a comma-separated list
  std::optional<std::string> gpus;      // "1024", "512,1024" or "256-4096"
  int64_t seq_len = 4096;
  bool force = false;                   // --force: a --seq-len beyond the model's context is meant
  int64_t global_batch = 0;
  int tp = 0, pp = 0, dp = 0, cp = 0, ep = 0, vp = 0;  // 0: the planner chooses
  std::optional<int> first_stage_layers, last_stage_layers;  // pinned uneven pipeline split
  int64_t micro_batch = 0;
  std::optional<int> zero;
  std::optional<std::string> recompute;
  std::optional<std::string> precision; // not given: bf16 (each GPU without it plans its 16-bit format)
  std::string optimizer = "adamw";
  std::string rank_by = "time";
  int top = 5;
  bool cross_node_tp = false;
  bool no_flash = false;
  bool eager = false;
  bool zero3_per_module = false;
  std::optional<int> gpus_per_node;
  std::optional<std::string> market, currency;  // --market cn|us, --currency usd|cny (cost columns and --rank-by cost)
  std::vector<std::string> compare_layout;  // "tp=8,pp=16,dp=8,mb=1,recompute=full,sp=off,first=7,last=7", repeatable
  FrameworkInputs software;
};

PlanRequest make_plan_request(const PlanInputs& in);

}  // namespace gpuplan
