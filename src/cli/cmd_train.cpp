// gpuplan train: FLOPs, time, GPU count and cost of a training run.
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/train_report.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

struct TrainFlags {
  OutputOptions out;
  std::string model;
  std::optional<std::string> params, tokens, samples, tokens_per_sample, dataset_bytes, flops_per_sample;
  std::optional<std::string> gpus, deadline, mfu, global_batch, batch_tokens, tflops_per_gpu;
  double epochs = 1;
  double bytes_per_token = 4;
  int64_t seq_len = 4096;
  std::string gpu;
  std::string precision = "bf16";
  std::string recompute = "none";
  bool causal = false;
  bool six_n = false;
  std::optional<double> fault_budget;
  double comm_margin = 0.0;
  std::optional<int> gpus_per_node;
  std::optional<std::string> price, currency;
  bool spot = false;
  std::optional<double> spot_discount;
  std::optional<double> spot_overhead;
  std::optional<double> gpu_mtbf_hours, restart, storage_gbps, spot_mtbf_hours;
  std::optional<std::string> checkpoint_interval;
  std::string calibration;
  std::vector<std::string> phases;
};

void run(const TrainFlags& f) {
  load_gpu_file(f.out);
  TrainRequest r;
  r.model = f.model;
  r.params = count_flag(f.params, "--params");
  r.workload.tokens = count_flag(f.tokens, "--tokens");
  r.workload.samples = count_flag(f.samples, "--samples");
  r.workload.tokens_per_sample = count_flag(f.tokens_per_sample, "--tokens-per-sample");
  r.workload.dataset_bytes = count_flag(f.dataset_bytes, "--dataset-bytes");
  r.workload.bytes_per_token = f.bytes_per_token;
  require_range(f.bytes_per_token, 0.1, 1e6, "--bytes-per-token", "a positive number of bytes per token");
  r.workload.epochs = f.epochs;
  r.workload.seq_len = f.seq_len;
  r.workload.global_batch_seqs = count_flag(f.global_batch, "--global-batch");
  r.workload.global_batch_tokens = count_flag(f.batch_tokens, "--batch-tokens");
  r.flop_per_sample = count_flag(f.flops_per_sample, "--flops-per-sample");
  r.gpu = f.gpu;
  r.gpus = count_flag(f.gpus, "--gpus");
  if (f.deadline) r.deadline_s = parse_duration_s(*f.deadline, "--deadline");
  if (f.mfu) r.mfu = parse_fraction(*f.mfu, "--mfu");
  r.tflops_per_gpu = count_flag(f.tflops_per_gpu, "--tflops-per-gpu");
  r.precision = parse_precision(f.precision, "--precision");
  r.recompute = parse_recompute(f.recompute, "--recompute");
  r.causal_half = f.causal;
  r.six_n = f.six_n;
  r.fault_budget = f.fault_budget;
  r.comm_margin = f.comm_margin;
  r.gpus_per_node = f.gpus_per_node;
  r.price.text = f.price;
  if (f.currency) {
    const std::string c = *f.currency;
    if (c == "usd" || c == "USD") r.price.currency = Currency::kUsd;
    else if (c == "cny" || c == "CNY" || c == "rmb" || c == "RMB") r.price.currency = Currency::kCny;
    else throw InputError("--currency", "--currency must be usd or cny (got '" + c + "').");
  }
  r.price.spot = f.spot;
  r.price.spot_discount = f.spot_discount;
  r.price.spot_overhead = f.spot_overhead;
  r.phases = f.phases;
  if (f.gpu_mtbf_hours) r.ops.gpu_mtbf_hours = *f.gpu_mtbf_hours;
  if (f.restart) r.ops.restart_s = *f.restart * 60;
  if (f.storage_gbps) {
    require_range(*f.storage_gbps, 1e-3, 1e7, "--storage-gbytes-per-s", "a positive aggregate write bandwidth in GB/s");
    r.ops.storage_bytes_per_s = *f.storage_gbps * 1e9;
  }
  if (f.checkpoint_interval) r.ops.checkpoint_interval_s = parse_duration_s(*f.checkpoint_interval, "--checkpoint-interval");
  if (f.spot_mtbf_hours) r.ops.spot_node_mtbf_hours = *f.spot_mtbf_hours;
  if (!f.calibration.empty()) r.calibration = load_calibration_file(f.calibration);
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
  auto* f = flags.get();
  cmd->add_option("--model,-m", f->model, "Catalog id or alias (gpuplan models), or a config.json file or folder");
  cmd->add_option("--params", f->params, "Instead of --model: a bare parameter count (7e9, 70B); uses 6·N");
  cmd->add_option("--tokens,-t", f->tokens, "Training tokens per epoch (1T, 15e12)");
  cmd->add_option("--samples", f->samples, "Instead of --tokens: samples (sequences, images) per epoch");
  cmd->add_option("--tokens-per-sample", f->tokens_per_sample, "Tokens per sample (default: --seq-len); an image is its patch count");
  cmd->add_option("--dataset-bytes", f->dataset_bytes, "Instead of --tokens: raw text size in bytes (1T = 1 TB)");
  cmd->add_option("--bytes-per-token", f->bytes_per_token, "Bytes of raw text per token for --dataset-bytes")->capture_default_str();
  cmd->add_option("--flops-per-sample", f->flops_per_sample, "Non-LLM workloads: training FLOPs of one sample (with --samples)");
  cmd->add_option("--epochs", f->epochs, "Passes over the data")->capture_default_str();
  cmd->add_option("--seq-len", f->seq_len, "Tokens per sequence")->capture_default_str();
  cmd->add_option("--global-batch", f->global_batch, "Sequences per optimizer step (for the step count)");
  cmd->add_option("--batch-tokens", f->batch_tokens, "Or: tokens per optimizer step");
  cmd->add_option("--gpu,-g", f->gpu, "GPU id or alias: h100, a100-80g, h800, 910b, 4090 (gpuplan gpus)");
  cmd->add_option("--gpus,-n", f->gpus, "Number of GPUs");
  cmd->add_option("--deadline,-d", f->deadline, "Wall-clock deadline: 90d, 36h, 2w");
  cmd->add_option("--mfu", f->mfu, "Model FLOPs utilisation, 0.4 or 40%");
  cmd->add_option("--tflops-per-gpu", f->tflops_per_gpu, "Instead of --mfu: achieved TFLOP/s per GPU");
  cmd->add_option("--precision", f->precision, "Training precision whose peak MFU is measured against: bf16, fp16, fp8, tf32, fp32")->capture_default_str();
  cmd->add_option("--recompute", f->recompute, "Activation recomputation: none, selective, full (changes hardware FLOPs)")->capture_default_str();
  cmd->add_flag("--causal", f->causal, "Count only the causal half of attention (default: full s×s, the Megatron/PaLM convention)");
  cmd->add_flag("--six-n", f->six_n, "Time the run with 6·N FLOPs per token instead of the exact count");
  cmd->add_option("--fault-budget", f->fault_budget, "Fix the time for failures and restarts as a fraction of compute (seed 004: 0.2); default: computed");
  cmd->add_option("--gpu-mtbf-hours", f->gpu_mtbf_hours, "Per-GPU mean time between job-stopping failures, hours (default: Llama 3's 50,676)");
  cmd->add_option("--restart-minutes", f->restart, "Minutes to detect a failure, reschedule and reload (default 15)");
  cmd->add_option("--storage-gbytes-per-s", f->storage_gbps, "Aggregate checkpoint write bandwidth, GB/s (default 0.125 per GPU)");
  cmd->add_option("--checkpoint-interval", f->checkpoint_interval, "Checkpoint every (e.g. 30min); default: Daly's optimum");
  cmd->add_option("--spot-mtbf-hours", f->spot_mtbf_hours, "With --spot: mean hours between preemptions of one node (default 72)");
  cmd->add_option("--comm-margin", f->comm_margin, "Extra time for communication not in your MFU, fraction (seed 004: 0.1–0.3)")->capture_default_str();
  cmd->add_option("--gpus-per-node", f->gpus_per_node, "GPUs per node (default from the GPU catalog)");
  cmd->add_option("--price", f->price, "Price per GPU-hour: 2.49, $2.49, 15cny, or a range 15-30cny (default: catalog)");
  cmd->add_option("--currency", f->currency, "Currency of a bare --price, or to convert the catalog price to: usd or cny");
  cmd->add_flag("--spot", f->spot, "Price spot/preemptible capacity");
  cmd->add_option("--spot-discount", f->spot_discount, "Fraction off on-demand for spot, when no spot quote is known");
  cmd->add_option("--spot-overhead", f->spot_overhead, "Fix the extra GPU-hours lost to spot preemptions as a fraction; default: computed");
  cmd->add_option("--phase", f->phases, "Extra priced phase NAME:GPU:COUNT:DURATION[:PRICE], e.g. debug:a100-80g:10:72h:12cny (repeatable)");
  cmd->add_option("--calibration", f->calibration, "File written by 'gpuplan calibrate --save': factors fitted to your trial run");
  add_output_options(cmd, &f->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
