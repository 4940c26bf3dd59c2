// gpuplan train: FLOPs, time, GPU count and cost of a training run.
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "gpuplan/command_inputs.hpp"
#include "gpuplan/train_report.hpp"

namespace gpuplan::cli {
namespace {

struct TrainFlags {
  OutputOptions out;
  TrainInputs in;
  std::string calibration_file;
};

void run(const TrainFlags& f) {
  load_gpu_file(f.out);
  TrainInputs in = f.in;
  if (!in.market) in.market = market_code(default_market_for_lang(f.out.lang));
  TrainRequest r = make_train_request(in);
  if (!f.calibration_file.empty()) r.calibration = load_calibration_file(f.calibration_file);
  print_report(train_report(r), f.out);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto flags = std::make_shared<TrainFlags>();
  CLI::App* cmd = app.add_subcommand("train",
      "Compute, time, GPU count and cost of a training run.\n"
      "Give the model (--model or --params), the data (--tokens), the GPU (--gpu) and two of\n"
      "--gpus, --deadline, --mfu: gpuplan solves the third.\n"
      "Example: gpuplan train --model llama-3.1-70b --tokens 15T --gpu h100 --gpus 2048 --mfu 0.4");
  TrainInputs* f = &flags->in;
  cmd->add_option("--model,-m", f->model, "Catalog id or alias (gpuplan models), or a config.json file or folder");
  cmd->add_option("--params", f->params, "Instead of --model: a bare parameter count (7e9, 70B); uses 6·N");
  cmd->add_option("--tokens,-t", f->tokens, "Training tokens per epoch (1T, 15e12, 1万亿, 2000亿)");
  cmd->add_option("--samples", f->samples, "Instead of --tokens: samples (sequences, images) per epoch");
  cmd->add_option("--tokens-per-sample", f->tokens_per_sample, "Tokens per sample (default: --seq-len); an image is its patch count");
  cmd->add_option("--dataset-bytes", f->dataset_bytes, "Instead of --tokens: raw text size in bytes (1T = 1 TB)");
  cmd->add_option("--bytes-per-token", f->bytes_per_token, "Bytes of raw text per token for --dataset-bytes")->capture_default_str();
  cmd->add_option("--flops-per-sample", f->flops_per_sample, "Non-LLM workloads: training FLOPs of one sample (with --samples)");
  cmd->add_option("--epochs", f->epochs, "Passes over the data")->capture_default_str();
  cmd->add_option("--seq-len", f->seq_len, "Tokens per sequence")->capture_default_str();
  cmd->add_flag("--force", f->force, "Plan a --seq-len longer than the model supports");
  cmd->add_option("--global-batch", f->global_batch, "Sequences per optimizer step (for the step count)");
  cmd->add_option("--batch-tokens", f->batch_tokens, "Or: tokens per optimizer step");
  cmd->add_option("--gpu,-g", f->gpu, "GPU id or alias: h100, a100-80g, h800, 910b, 4090 (gpuplan gpus)");
  cmd->add_option("--gpus,-n", f->gpus, "Number of GPUs");
  cmd->add_option("--deadline,-d", f->deadline, "Wall-clock deadline: 90d, 36h, 2w, 1month, 30天, 2周, 1个月 (a month is 30 days)");
  cmd->add_option("--mfu", f->mfu, "Model FLOPs utilisation, 0.4 or 40%");
  cmd->add_option("--tflops-per-gpu", f->tflops_per_gpu, "Instead of --mfu: achieved TFLOP/s per GPU");
  cmd->add_option("--precision", f->precision, "Training precision whose peak MFU is measured against: bf16, fp16, fp8, tf32, fp32")->capture_default_str();
  cmd->add_option("--recompute", f->recompute, "Activation recomputation: none, selective, full (changes hardware FLOPs)")->capture_default_str();
  add_framework_flags(cmd, &f->software);
  cmd->add_flag("--causal", f->causal, "Count only the causal half of attention (default: full s×s, the Megatron/PaLM convention)");
  cmd->add_flag("--six-n", f->six_n, "Time the run with 6·N FLOPs per token instead of the exact count");
  cmd->add_option("--fault-budget", f->fault_budget, "Fix the time for failures and restarts as a fraction of compute (seed 004: 0.2); default: computed");
  cmd->add_option("--gpu-mtbf-hours", f->gpu_mtbf_hours, "Per-GPU mean time between job-stopping failures, hours (default: Llama 3's 50,676)");
  cmd->add_option("--restart-minutes", f->restart_minutes, "Minutes to detect a failure, reschedule and reload (default 15)");
  cmd->add_option("--storage-gbytes-per-s", f->storage_gbytes_per_s, "Aggregate checkpoint write bandwidth, GB/s (default 0.125 per GPU)");
  cmd->add_option("--checkpoint-interval", f->checkpoint_interval, "Checkpoint every (e.g. 30min); default: Daly's optimum");
  cmd->add_option("--spot-mtbf-hours", f->spot_mtbf_hours, "With --spot: mean hours between preemptions of one node (default 72)");
  cmd->add_option("--comm-margin", f->comm_margin, "Extra time for communication not in your MFU, fraction (seed 004: 0.1–0.3)")->capture_default_str();
  cmd->add_option("--gpus-per-node", f->gpus_per_node, "GPUs per node (default from the GPU catalog)");
  cmd->add_option("--price", f->price, "Price per GPU-hour: 2.49, $2.49, 15cny, or a range 15-30cny (default: catalog)");
  cmd->add_option("--currency", f->currency, "Currency every cost is shown in (and of a bare --price): usd or cny (default: the market's)");
  cmd->add_option("--market", f->market, "Where you rent: cn (China listings, CNY) or us (US listings, USD); default from --lang (zh: cn)");
  cmd->add_option("--provider", f->provider, "A named listing of that market instead of its default, e.g. Lambda, RunPod (gpuplan gpus GPU lists them)");
  cmd->add_flag("--spot", f->spot, "Price spot/preemptible capacity");
  cmd->add_option("--spot-discount", f->spot_discount, "Fraction off on-demand for spot, when no spot quote is known");
  cmd->add_option("--spot-overhead", f->spot_overhead, "Fix the extra GPU-hours lost to spot preemptions as a fraction; default: computed");
  cmd->add_option("--phase", f->phase, "Extra priced phase NAME:GPU:COUNT:DURATION[:PRICE], e.g. debug:a100-80g:10:72h:12cny (repeatable)");
  cmd->add_flag("--compare-own", f->compare_own, "Add rent vs own: owning the nodes at a fleet utilisation against renting (docs/rent-or-buy.md)");
  OwnershipOverrides* o = &f->own;
  cmd->add_option("--fleet-utilisation,--fleet-utilization", o->fleet_utilisation, "Owned: busy share of the fleet's hours over its life, 0 to 1 (default 0.5)");
  cmd->add_option("--own-server-price", o->server_price_per_node, "Owned: purchase price of one node in the result currency (default: the market's listing)");
  cmd->add_option("--own-network-per-node", o->network_per_node, "Owned: switches and cables per node, in the result currency");
  cmd->add_option("--own-life-years", o->life_years, "Owned: straight-line depreciation life in years");
  cmd->add_option("--own-resale", o->resale_fraction, "Owned: resale value at end of life, fraction of the price");
  cmd->add_option("--own-node-kw", o->node_power_kw, "Owned: IT power of one node at training load, kW (default GPUs' TDP + host)");
  cmd->add_option("--pue", o->pue, "Owned: power usage effectiveness of the machine room (at least 1)");
  cmd->add_option("--electricity-price", o->electricity_per_kwh, "Owned: electricity per kWh, in the result currency");
  cmd->add_option("--colocation-price", o->colocation_per_kw_month, "Owned: machine room / colocation per kW of IT load per month");
  cmd->add_option("--staff-cost", o->staff_cost_per_engineer_year, "Owned: fully loaded cost of one operations engineer per year");
  cmd->add_option("--nodes-per-engineer", o->nodes_per_engineer, "Owned: nodes one operations engineer runs");
  cmd->add_option("--financing-rate", o->financing_rate, "Owned: yearly interest on the capital, 0.05 = 5%");
  cmd->add_option("--interval", f->interval, "Level of the prediction ranges beside predicted times, GPU-hours, cost and memory (0.5–0.99)")
      ->capture_default_str();
  cmd->add_option("--confidence", f->confidence,
                  "With --deadline: size the GPU count to finish on time with this probability (0.5: the median estimate; up to 0.99)")
      ->capture_default_str();
  cmd->add_option("--calibration", flags->calibration_file, "File written by 'gpuplan calibrate --save': factors fitted to your trial run");
  add_output_options(cmd, &flags->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
