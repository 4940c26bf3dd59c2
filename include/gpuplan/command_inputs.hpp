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

// How a front end presents one input: the CLI binds `flags` to the field with
// `help`; the web API reads the request key input_key(flags) into it. The
// field's C++ type is the input's type and TrainInputs' initialiser its default.
struct InputInfo {
  const char* flags;  // CLI11 names, "--gpus,-n"; the first is the canonical one
  const char* unit;   // of a plain number ("" where the text carries its own: 15T, 90d, 15cny)
  const char* help;   // the CLI's help line
};
// The web API's key of an input: its first flag without dashes, '-' as '_' ("--seq-len" → "seq_len").
std::string input_key(const InputInfo& input);

// Every input of `gpuplan train`, declared once: `v(info, field)` for each, in
// the CLI's order. Not here: the model (--model/--params on the CLI;
// model/params/config on the web), the framework settings (FrameworkInputs,
// shared by four commands) and the calibration (a file on the CLI, the file's
// object on the web).
template <class Visit>
void visit_train_inputs(TrainInputs& in, Visit&& v) {
  v(InputInfo{"--tokens,-t", "", "Training tokens per epoch (1T, 15e12, 1万亿, 2000亿)"}, in.tokens);
  v(InputInfo{"--samples", "", "Instead of --tokens: samples (sequences, images) per epoch"}, in.samples);
  v(InputInfo{"--tokens-per-sample", "", "Tokens per sample (default: --seq-len); an image is its patch count"}, in.tokens_per_sample);
  v(InputInfo{"--dataset-bytes", "", "Instead of --tokens: raw text size in bytes (1T = 1 TB)"}, in.dataset_bytes);
  v(InputInfo{"--bytes-per-token", "bytes", "Bytes of raw text per token for --dataset-bytes"}, in.bytes_per_token);
  v(InputInfo{"--flops-per-sample", "", "Non-LLM workloads: training FLOPs of one sample (with --samples)"}, in.flops_per_sample);
  v(InputInfo{"--epochs", "", "Passes over the data"}, in.epochs);
  v(InputInfo{"--seq-len", "tokens", "Tokens per sequence"}, in.seq_len);
  v(InputInfo{"--force", "", "Plan a --seq-len longer than the model supports"}, in.force);
  v(InputInfo{"--global-batch", "", "Sequences per optimizer step (for the step count)"}, in.global_batch);
  v(InputInfo{"--batch-tokens", "", "Or: tokens per optimizer step"}, in.batch_tokens);
  v(InputInfo{"--gpu,-g", "", "GPU id or alias: h100, a100-80g, h800, 910b, 4090 (gpuplan gpus)"}, in.gpu);
  v(InputInfo{"--gpus,-n", "", "Number of GPUs"}, in.gpus);
  v(InputInfo{"--deadline,-d", "", "Wall-clock deadline: 90d, 36h, 2w, 1month, 30天, 2周, 1个月 (a month is 30 days)"}, in.deadline);
  v(InputInfo{"--mfu", "", "Model FLOPs utilisation, 0.4 or 40%"}, in.mfu);
  v(InputInfo{"--tflops-per-gpu", "", "Instead of --mfu: achieved TFLOP/s per GPU"}, in.tflops_per_gpu);
  v(InputInfo{"--precision", "", "Training precision whose peak MFU is measured against: bf16, fp16, fp8, tf32, fp32"}, in.precision);
  v(InputInfo{"--recompute", "", "Activation recomputation: none, selective, full (changes hardware FLOPs)"}, in.recompute);
  v(InputInfo{"--causal", "", "Count only the causal half of attention (default: full s×s, the Megatron/PaLM convention)"}, in.causal);
  v(InputInfo{"--six-n", "", "Time the run with 6·N FLOPs per token instead of the exact count"}, in.six_n);
  v(InputInfo{"--fault-budget", "fraction of compute", "Fix the time for failures and restarts as a fraction of compute (seed 004: 0.2); default: computed"}, in.fault_budget);
  v(InputInfo{"--gpu-mtbf-hours", "hours", "Per-GPU mean time between job-stopping failures, hours (default: Llama 3's 50,676)"}, in.gpu_mtbf_hours);
  v(InputInfo{"--restart-minutes", "minutes", "Minutes to detect a failure, reschedule and reload (default 15)"}, in.restart_minutes);
  v(InputInfo{"--storage-gbytes-per-s", "GB/s", "Aggregate checkpoint write bandwidth, GB/s (default 0.125 per GPU)"}, in.storage_gbytes_per_s);
  v(InputInfo{"--checkpoint-interval", "", "Checkpoint every (e.g. 30min); default: Daly's optimum"}, in.checkpoint_interval);
  v(InputInfo{"--spot-mtbf-hours", "hours", "With --spot: mean hours between preemptions of one node (default 72)"}, in.spot_mtbf_hours);
  v(InputInfo{"--comm-margin", "fraction of compute", "Extra time for communication not in your MFU, fraction (seed 004: 0.1–0.3)"}, in.comm_margin);
  v(InputInfo{"--gpus-per-node", "GPUs", "GPUs per node (default from the GPU catalog)"}, in.gpus_per_node);
  v(InputInfo{"--price", "", "Price per GPU-hour: 2.49, $2.49, 15cny, or a range 15-30cny (default: catalog)"}, in.price);
  v(InputInfo{"--currency", "", "Currency every cost is shown in (and of a bare --price): usd or cny (default: the market's)"}, in.currency);
  v(InputInfo{"--market", "", "Where you rent: cn (China listings, CNY) or us (US listings, USD); default from --lang (zh: cn)"}, in.market);
  v(InputInfo{"--provider", "", "A named listing of that market instead of its default, e.g. Lambda, RunPod (gpuplan gpus GPU lists them)"}, in.provider);
  v(InputInfo{"--spot", "", "Price spot/preemptible capacity"}, in.spot);
  v(InputInfo{"--spot-discount", "fraction", "Fraction off on-demand for spot, when no spot quote is known"}, in.spot_discount);
  v(InputInfo{"--spot-overhead", "fraction of GPU-hours", "Fix the extra GPU-hours lost to spot preemptions as a fraction; default: computed"}, in.spot_overhead);
  v(InputInfo{"--phase", "", "Extra priced phase NAME:GPU:COUNT:DURATION[:PRICE], e.g. debug:a100-80g:10:72h:12cny (repeatable)"}, in.phase);
  v(InputInfo{"--compare-own", "", "Add rent vs own: owning the nodes at a fleet utilisation against renting (docs/rent-or-buy.md)"}, in.compare_own);
  v(InputInfo{"--fleet-utilisation,--fleet-utilization", "fraction", "Owned: busy share of the fleet's hours over its life, 0 to 1 (default 0.5)"}, in.own.fleet_utilisation);
  v(InputInfo{"--own-server-price", "result currency", "Owned: purchase price of one node in the result currency (default: the market's listing)"}, in.own.server_price_per_node);
  v(InputInfo{"--own-network-per-node", "result currency", "Owned: switches and cables per node, in the result currency"}, in.own.network_per_node);
  v(InputInfo{"--own-life-years", "years", "Owned: straight-line depreciation life in years"}, in.own.life_years);
  v(InputInfo{"--own-resale", "fraction", "Owned: resale value at end of life, fraction of the price"}, in.own.resale_fraction);
  v(InputInfo{"--own-node-kw", "kW", "Owned: IT power of one node at training load, kW (default GPUs' TDP + host)"}, in.own.node_power_kw);
  v(InputInfo{"--pue", "ratio", "Owned: power usage effectiveness of the machine room (at least 1)"}, in.own.pue);
  v(InputInfo{"--electricity-price", "result currency per kWh", "Owned: electricity per kWh, in the result currency"}, in.own.electricity_per_kwh);
  v(InputInfo{"--colocation-price", "result currency per kW-month", "Owned: machine room / colocation per kW of IT load per month"}, in.own.colocation_per_kw_month);
  v(InputInfo{"--staff-cost", "result currency per year", "Owned: fully loaded cost of one operations engineer per year"}, in.own.staff_cost_per_engineer_year);
  v(InputInfo{"--nodes-per-engineer", "nodes", "Owned: nodes one operations engineer runs"}, in.own.nodes_per_engineer);
  v(InputInfo{"--financing-rate", "fraction per year", "Owned: yearly interest on the capital, 0.05 = 5%"}, in.own.financing_rate);
  v(InputInfo{"--interval", "probability", "Level of the prediction ranges beside predicted times, GPU-hours, cost and memory (0.5–0.99)"}, in.interval);
  v(InputInfo{"--confidence", "probability", "With --deadline: size the GPU count to finish on time with this probability (0.5: the median estimate; up to 0.99)"}, in.confidence);
}

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
