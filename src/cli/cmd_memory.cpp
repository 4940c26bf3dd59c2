// gpuplan memory: per-GPU memory of one training layout, the largest
// micro-batch that fits, and what to change when it does not fit.
#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory_report.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

struct MemoryFlags {
  OutputOptions out;
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
  bool dropout = false;
  bool fp32_grads = false;
  std::optional<double> fragmentation, cuda_context_gib;
  double safety_margin = 0.15;
};

void run(const MemoryFlags& f) {
  load_gpu_file(f.out);
  if (f.model.empty() == !f.params.has_value()) {
    throw InputError("--model", f.model.empty() ? "--model is required: a catalog id (gpuplan models), a config.json path, or --params 7B."
                                                : "--model and --params both describe the model; give only one of them.");
  }
  ModelSpec model;
  if (!f.model.empty()) {
    model = find_model(f.model);
  } else {
    const double p = *count_flag(f.params, "--params");
    require_range(p, 1e3, 1e15, "--params", "a parameter count from 1e3 to 1e15 (e.g. 7B, 70e9)");
    model = model_from_param_count(p);
  }
  if (f.gpu.empty()) throw InputError("--gpu", "--gpu is required: a GPU id or alias such as h100, a100-80g or 910b (gpuplan gpus lists them).");
  const GpuSpec& gpu = find_gpu(f.gpu);

  Layout l;
  l.tp = f.tp;
  l.pp = f.pp;
  l.cp = f.cp;
  l.ep = f.ep;
  l.vp = f.vp;
  l.micro_batch = f.micro_batch;
  l.global_batch = f.global_batch;
  l.seq_len = f.seq_len;
  l.zero_stage = f.zero;
  l.shard_group = f.shard_group;
  l.recompute = parse_recompute(f.recompute, "--recompute");
  l.sequence_parallel = f.sequence_parallel;
  l.flash_attention = !f.no_flash;
  l.precision = parse_precision(f.precision, "--precision");
  l.pure_bf16 = f.pure_bf16;
  l.optimizer = parse_optimizer(f.optimizer, "--optimizer");
  l.offload_optimizer = f.offload_optimizer;
  l.offload_params = f.offload_params;
  l.offload_activations = f.offload_activations;

  // GPU count and data parallelism: dp defaults to gpus / (tp·pp·cp).
  const int64_t model_parallel = static_cast<int64_t>(f.tp) * f.pp * f.cp;
  int64_t gpus = 0;
  if (f.gpus) {
    const double g = *count_flag(f.gpus, "--gpus");
    if (g < 1 || g > 1e7 || std::floor(g) != g) {
      throw InputError("--gpus", fmt::format("--gpus must be a whole number of GPUs from 1 to 10,000,000 (got {}).", *f.gpus));
    }
    gpus = static_cast<int64_t>(g);
  }
  if (f.dp) {
    l.dp = *f.dp;
    if (!f.gpus) gpus = model_parallel * l.dp;
  } else if (f.gpus) {
    if (model_parallel <= 0 || gpus % model_parallel != 0) {
      throw InputError("--gpus", fmt::format("--gpus {} is not a multiple of tp×pp×cp = {}×{}×{} = {}; set --dp or change the degrees.",
                                             gpus, f.tp, f.pp, f.cp, model_parallel));
    }
    l.dp = static_cast<int>(gpus / model_parallel);
  } else {
    l.dp = 1;
    gpus = model_parallel;
  }
  validate_layout(model, l, gpus);

  MemoryOptions o;
  if (f.fragmentation) {
    require_range(*f.fragmentation, 0, 1, "--fragmentation", "a fraction from 0 to 1 (0.05 = 5%)");
    o.fragmentation = *f.fragmentation;
  }
  if (f.cuda_context_gib) {
    require_range(*f.cuda_context_gib, 0, 64, "--cuda-context-gib", "GiB from 0 to 64");
    o.cuda_context_bytes = *f.cuda_context_gib * kGiB;
  }
  require_range(f.safety_margin, 0, 0.9, "--safety-margin", "a fraction from 0 to 0.9 (seed 004: 0.15–0.2)");
  o.safety_margin = f.safety_margin;
  o.dropout = f.dropout;
  o.fp32_grad_buffer = f.fp32_grads;
  print_report(memory_report(model, l, gpu, o), f.out);
}

}  // namespace

void add_memory_command(CLI::App& app) {
  auto flags = std::make_shared<MemoryFlags>();
  CLI::App* cmd = app.add_subcommand("memory",
      "Per-GPU memory of one training layout: breakdown, peak on the worst GPU, fit verdict,\n"
      "largest micro-batch, and the changes that would make it fit.\n"
      "Example: gpuplan memory --model llama-3.1-70b --gpu h100 --gpus 64 --tp 8 --pp 2 --zero 1 --seq-len 8192");
  auto* f = flags.get();
  cmd->add_option("--model,-m", f->model, "Catalog id or alias (gpuplan models), or a config.json file or folder");
  cmd->add_option("--params", f->params, "Instead of --model: a bare parameter count (7B); model states only");
  cmd->add_option("--gpu,-g", f->gpu, "GPU id or alias: h100, a100-80g, h800, 910b, 4090 (gpuplan gpus)");
  cmd->add_option("--gpus,-n", f->gpus, "Number of GPUs (default tp×pp×dp×cp)");
  cmd->add_option("--tp", f->tp, "Tensor-parallel degree")->capture_default_str();
  cmd->add_option("--pp", f->pp, "Pipeline-parallel stages")->capture_default_str();
  cmd->add_option("--dp", f->dp, "Data-parallel replicas (default gpus / (tp×pp×cp))");
  cmd->add_option("--cp", f->cp, "Context-parallel degree (sequence split)")->capture_default_str();
  cmd->add_option("--ep", f->ep, "Expert-parallel degree (MoE)")->capture_default_str();
  cmd->add_option("--vp", f->vp, "Virtual pipeline stages per rank (interleaved 1F1B when > 1)")->capture_default_str();
  cmd->add_option("--micro-batch", f->micro_batch, "Sequences per micro-batch per data-parallel rank")->capture_default_str();
  cmd->add_option("--global-batch", f->global_batch, "Sequences per optimizer step (default dp × micro-batch)");
  cmd->add_option("--seq-len", f->seq_len, "Tokens per sequence")->capture_default_str();
  cmd->add_option("--zero", f->zero, "ZeRO stage 0–3 (1 = distributed optimizer, 2 = FSDP SHARD_GRAD_OP, 3 = FSDP FULL_SHARD)")->capture_default_str();
  cmd->add_option("--shard-group", f->shard_group, "HSDP: ZeRO-3 within groups of this many data-parallel ranks");
  cmd->add_option("--recompute", f->recompute, "Activation recomputation: none, selective, full")->capture_default_str();
  cmd->add_flag("--sequence-parallel", f->sequence_parallel, "Megatron sequence parallelism (with --tp > 1)");
  cmd->add_option("--precision", f->precision, "bf16, fp16 (mixed precision, fp32 master), fp8 (fp8 GEMMs), fp32")->capture_default_str();
  cmd->add_flag("--pure-bf16", f->pure_bf16, "Weights, gradients and optimizer states all bf16, no fp32 master (torchtune)");
  cmd->add_option("--optimizer", f->optimizer, "adamw, adamw8bit, paged_adamw8bit, sgd")->capture_default_str();
  cmd->add_flag("--offload-optimizer", f->offload_optimizer, "Optimizer states, master weights and gradients in host memory (ZeRO-Offload)");
  cmd->add_flag("--offload-params", f->offload_params, "Parameters in host memory too (ZeRO-Infinity / FSDP offload_params)");
  cmd->add_flag("--offload-activations", f->offload_activations, "Saved activations streamed to host memory");
  cmd->add_flag("--no-flash-attention", f->no_flash, "Keep the s×s attention scores (no FlashAttention)");
  cmd->add_flag("--dropout", f->dropout, "Count dropout masks (Korthikanti's assumption; off for Llama-era training)");
  cmd->add_flag("--fp32-grads", f->fp32_grads, "Megatron fp32 main-grad buffer (4 bytes/param of gradients)");
  cmd->add_option("--fragmentation", f->fragmentation, "Allocator fragmentation, fraction of allocated bytes (default 0.05)");
  cmd->add_option("--safety-margin", f->safety_margin, "Fraction of capacity kept free (seed 004: 0.15–0.2)")->capture_default_str();
  cmd->add_option("--cuda-context-gib", f->cuda_context_gib, "CUDA context + library workspaces in GiB (default 0.75, +0.25 with NCCL)");
  add_output_options(cmd, &f->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
