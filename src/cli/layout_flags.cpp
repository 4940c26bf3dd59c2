#include "layout_flags.hpp"

namespace gpuplan::cli {

void add_layout_flags(CLI::App* cmd, LayoutInputs* f) {
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
  cmd->add_option("--first-stage-layers", f->first_stage_layers,
                  "Transformer layers on the first pipeline stage (Megatron --decoder-first-pipeline-num-layers); the rest split evenly");
  cmd->add_option("--last-stage-layers", f->last_stage_layers,
                  "Transformer layers on the last pipeline stage (Megatron --decoder-last-pipeline-num-layers)");
  cmd->add_option("--micro-batch", f->micro_batch, "Sequences per micro-batch per data-parallel rank")->capture_default_str();
  cmd->add_option("--global-batch", f->global_batch, "Sequences per optimizer step (default dp × micro-batch)");
  cmd->add_option("--seq-len", f->seq_len, "Tokens per sequence")->capture_default_str();
  cmd->add_flag("--force", f->force, "Plan a --seq-len longer than the model supports");
  cmd->add_option("--zero", f->zero, "ZeRO stage 0–3 (1 = distributed optimizer, 2 = FSDP SHARD_GRAD_OP, 3 = FSDP FULL_SHARD)")->capture_default_str();
  cmd->add_option("--shard-group", f->shard_group, "HSDP: ZeRO-3 within groups of this many data-parallel ranks");
  cmd->add_option("--recompute", f->recompute, "Activation recomputation: none, selective, full (default: the framework's; generic: none)");
  cmd->add_flag("--sequence-parallel", f->sequence_parallel, "Sequence parallelism on (with --tp > 1); default: the framework's");
  cmd->add_flag("--no-sequence-parallel", f->no_sequence_parallel, "Sequence parallelism off where the framework makes it optional");
  cmd->add_option("--precision", f->precision, "bf16, fp16 (mixed precision, fp32 master), fp8 (fp8 GEMMs), fp32 (default bf16; fp16 on a GPU without bf16)");
  cmd->add_flag("--pure-bf16", f->pure_bf16, "Weights, gradients and optimizer states all bf16, no fp32 master (torchtune)");
  cmd->add_option("--optimizer", f->optimizer, "adamw, adamw8bit, paged_adamw8bit, sgd")->capture_default_str();
  cmd->add_flag("--offload-optimizer", f->offload_optimizer, "Optimizer states, master weights and gradients in host memory (ZeRO-Offload)");
  cmd->add_flag("--offload-params", f->offload_params, "Parameters in host memory too (ZeRO-Infinity / FSDP offload_params)");
  cmd->add_flag("--offload-activations", f->offload_activations, "Saved activations streamed to host memory");
  cmd->add_flag("--no-flash-attention", f->no_flash_attention, "Keep the s×s attention scores (no FlashAttention)");
  add_zero3_per_module_flag(cmd, &f->zero3_per_module);
  add_eager_flag(cmd, &f->eager);
  add_framework_flags(cmd, &f->software);
}

void add_framework_flags(CLI::App* cmd, FrameworkInputs* f) {
  cmd->add_option("--framework", f->framework,
                  "Training stack as NAME[@VERSION]: megatron-lm, nemo, deepspeed, torchtitan, llm-foundry, torchtune, ... "
                  "(gpuplan frameworks); its defaults and what it can run")
      ->capture_default_str();
  cmd->add_option("--attention", f->attention, "Attention kernel: flash (FA2), flash3, cudnn, sdpa, materialised; default: the framework's");
  cmd->add_option("--loss", f->loss, "Cross-entropy: full (fp32 logits), fused, chunked, vocab_parallel (Megatron's unfused); default: the framework's");
  cmd->add_option("--compile", f->compile, "torch.compile on|off (PyTorch-native stacks); default: the framework's");
  cmd->add_option("--tp-comm-overlap", f->tp_comm_overlap, "TP communication overlapped with GEMMs, on|off; default: the framework's");
  cmd->add_option("--dp-comm-overlap", f->dp_comm_overlap, "Gradient reduction and parameter gathers overlapped, on|off; default: the framework's");
}

void add_eager_flag(CLI::App* cmd, bool* eager) {
  cmd->add_flag("--eager", *eager, "Element-wise ops unfused, as eager PyTorch runs them (no torch.compile or fused kernels)");
}

void add_zero3_per_module_flag(CLI::App* cmd, bool* per_module) {
  cmd->add_flag("--zero3-per-module", *per_module,
                "ZeRO-3 gathers module by module (each norm and linear), as DeepSpeed does; default: per block, as FSDP");
}

}  // namespace gpuplan::cli
