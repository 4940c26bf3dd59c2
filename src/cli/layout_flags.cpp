#include "layout_flags.hpp"

#include <fmt/format.h>

#include <cmath>

#include "common.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {

void add_layout_flags(CLI::App* cmd, LayoutFlags* f) {
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
}

ResolvedLayout resolve_layout_flags(const LayoutFlags& f) {
  ResolvedLayout r;
  if (f.model.empty() == !f.params.has_value()) {
    throw InputError("--model", f.model.empty() ? "--model is required: a catalog id (gpuplan models), a config.json path, or --params 7B."
                                                : "--model and --params both describe the model; give only one of them.");
  }
  if (!f.model.empty()) {
    r.model = find_model(f.model);
  } else {
    const double p = *count_flag(f.params, "--params");
    require_range(p, 1e3, 1e15, "--params", "a parameter count from 1e3 to 1e15 (e.g. 7B, 70e9)");
    r.model = model_from_param_count(p);
  }
  if (f.gpu.empty()) throw InputError("--gpu", "--gpu is required: a GPU id or alias such as h100, a100-80g or 910b (gpuplan gpus lists them).");
  r.gpu = find_gpu(f.gpu);

  Layout& l = r.layout;
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
  validate_layout(r.model, l, gpus);
  r.gpus = gpus;
  return r;
}

}  // namespace gpuplan::cli
