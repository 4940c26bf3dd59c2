#include "layout_flags.hpp"

namespace gpuplan::cli {

void add_layout_flags(CLI::App* cmd, LayoutInputs* f) {
  cmd->add_option("--model,-m", f->model, help_text("Catalog id or alias (gpuplan models), or a config.json file or folder", "目录中的模型 id 或别名（gpuplan models），或 config.json 文件/所在目录"));
  cmd->add_option("--params", f->params, help_text("Instead of --model: a bare parameter count (7B); model states only", "代替 --model：只给参数量（7B），只算模型状态"));
  cmd->add_option("--gpu,-g", f->gpu, help_text("GPU id or alias: h100, a100-80g, h800, 910b, 4090 (gpuplan gpus)", "GPU id 或别名：h100、a100-80g、h800、910b、4090（gpuplan gpus）"));
  cmd->add_option("--gpus,-n", f->gpus, help_text("Number of GPUs (default tp×pp×dp×cp)", "卡数（默认 tp×pp×dp×cp）"));
  cmd->add_option("--tp", f->tp, help_text("Tensor-parallel degree", "张量并行度"))->capture_default_str();
  cmd->add_option("--pp", f->pp, help_text("Pipeline-parallel stages", "流水线并行级数"))->capture_default_str();
  cmd->add_option("--dp", f->dp, help_text("Data-parallel replicas (default gpus / (tp×pp×cp))", "数据并行副本数（默认 卡数 / (tp×pp×cp)）"));
  cmd->add_option("--cp", f->cp, help_text("Context-parallel degree (sequence split)", "上下文并行度（切分序列）"))->capture_default_str();
  cmd->add_option("--ep", f->ep, help_text("Expert-parallel degree (MoE)", "专家并行度（MoE）"))->capture_default_str();
  cmd->add_option("--vp", f->vp, help_text("Virtual pipeline stages per rank (interleaved 1F1B when > 1)", "每个 rank 的虚拟流水线级数（大于 1 时为交错 1F1B）"))->capture_default_str();
  cmd->add_option("--first-stage-layers", f->first_stage_layers,
                  help_text("Transformer layers on the first pipeline stage (Megatron --decoder-first-pipeline-num-layers); the rest split evenly",
                            "第一级流水线的 Transformer 层数（Megatron 的 --decoder-first-pipeline-num-layers）；其余各级均分"));
  cmd->add_option("--last-stage-layers", f->last_stage_layers,
                  help_text("Transformer layers on the last pipeline stage (Megatron --decoder-last-pipeline-num-layers)",
                            "最后一级流水线的 Transformer 层数（Megatron 的 --decoder-last-pipeline-num-layers）"));
  cmd->add_option("--micro-batch", f->micro_batch, help_text("Sequences per micro-batch per data-parallel rank", "每个数据并行 rank 每个微批的序列数"))->capture_default_str();
  cmd->add_option("--global-batch", f->global_batch, help_text("Sequences per optimizer step (default dp × micro-batch)", "每个优化步的序列数（默认 dp × 微批）"));
  cmd->add_option("--seq-len", f->seq_len, help_text("Tokens per sequence", "每条序列 token 数"))->capture_default_str();
  cmd->add_flag("--force", f->force, help_text("Plan a --seq-len longer than the model supports", "允许 --seq-len 超过模型支持的上下文长度"));
  cmd->add_option("--zero", f->zero, help_text("ZeRO stage 0–3 (1 = distributed optimizer, 2 = FSDP SHARD_GRAD_OP, 3 = FSDP FULL_SHARD)", "ZeRO 阶段 0–3（1 = 分布式优化器，2 = FSDP SHARD_GRAD_OP，3 = FSDP FULL_SHARD）"))->capture_default_str();
  cmd->add_option("--shard-group", f->shard_group, help_text("HSDP: ZeRO-3 within groups of this many data-parallel ranks", "HSDP：在这么多个数据并行 rank 组成的组内做 ZeRO-3"));
  cmd->add_option("--recompute", f->recompute, help_text("Activation recomputation: none, selective, full (default: the framework's; generic: none)", "激活重计算：none、selective、full（默认随框架；generic 为 none）"));
  cmd->add_flag("--sequence-parallel", f->sequence_parallel, help_text("Sequence parallelism on (with --tp > 1); default: the framework's", "开启序列并行（--tp 大于 1 时）；默认随框架"));
  cmd->add_flag("--no-sequence-parallel", f->no_sequence_parallel, help_text("Sequence parallelism off where the framework makes it optional", "在框架允许时关闭序列并行"));
  cmd->add_option("--precision", f->precision, help_text("bf16, fp16 (mixed precision, fp32 master), fp8 (fp8 GEMMs), fp32 (default bf16; fp16 on a GPU without bf16)", "bf16、fp16（混合精度，fp32 主权重）、fp8（fp8 矩阵乘）、fp32（默认 bf16；不支持 bf16 的 GPU 用 fp16）"));
  cmd->add_flag("--pure-bf16", f->pure_bf16, help_text("Weights, gradients and optimizer states all bf16, no fp32 master (torchtune)", "权重、梯度与优化器状态全为 bf16，无 fp32 主权重（torchtune）"));
  cmd->add_option("--optimizer", f->optimizer, help_text("adamw, adamw8bit, paged_adamw8bit, sgd", "优化器：adamw、adamw8bit、paged_adamw8bit、sgd"))->capture_default_str();
  cmd->add_flag("--offload-optimizer", f->offload_optimizer, help_text("Optimizer states, master weights and gradients in host memory (ZeRO-Offload)", "优化器状态、主权重与梯度放在主机内存（ZeRO-Offload）"));
  cmd->add_flag("--offload-params", f->offload_params, help_text("Parameters in host memory too (ZeRO-Infinity / FSDP offload_params)", "参数也放在主机内存（ZeRO-Infinity / FSDP offload_params）"));
  cmd->add_flag("--offload-activations", f->offload_activations, help_text("Saved activations streamed to host memory", "保存的激活卸载到主机内存"));
  cmd->add_flag("--no-flash-attention", f->no_flash_attention, help_text("Keep the s×s attention scores (no FlashAttention)", "保存 s×s 注意力分数（不用 FlashAttention）"));
  add_zero3_per_module_flag(cmd, &f->zero3_per_module);
  add_eager_flag(cmd, &f->eager);
  add_framework_flags(cmd, &f->software);
}

void add_framework_flags(CLI::App* cmd, FrameworkInputs* f) {
  cmd->add_option("--framework", f->framework,
                  help_text("Training stack as NAME[@VERSION]: megatron-lm, nemo, deepspeed, torchtitan, colossalai, mindspeed, llm-foundry, torchtune, ... "
                            "(gpuplan frameworks); its defaults and what it can run",
                            "训练框架，写作 名称[@版本]：megatron-lm、nemo、deepspeed、torchtitan、colossalai、mindspeed、llm-foundry、torchtune 等"
                            "（gpuplan frameworks）；决定默认设置与可用的并行方式"))
      ->capture_default_str();
  cmd->add_option("--attention", f->attention, help_text("Attention kernel: flash (FA2), flash3, cudnn, sdpa, npu_fusion (Ascend), materialised; default: the framework's", "注意力内核：flash（FA2）、flash3、cudnn、sdpa、npu_fusion（昇腾）、materialised；默认随框架"));
  cmd->add_option("--loss", f->loss, help_text("Cross-entropy: full (fp32 logits), fused, chunked, vocab_parallel (Megatron's unfused); default: the framework's", "交叉熵：full（fp32 logits）、fused、chunked、vocab_parallel（Megatron 未融合实现）；默认随框架"));
  cmd->add_option("--compile", f->compile, help_text("torch.compile on|off (PyTorch-native stacks); default: the framework's", "torch.compile on|off（PyTorch 原生框架）；默认随框架"));
  cmd->add_option("--tp-comm-overlap", f->tp_comm_overlap, help_text("TP communication overlapped with GEMMs, on|off; default: the framework's", "TP 通信与矩阵乘重叠，on|off；默认随框架"));
  cmd->add_option("--dp-comm-overlap", f->dp_comm_overlap, help_text("Gradient reduction and parameter gathers overlapped, on|off; default: the framework's", "梯度归约与参数收集重叠，on|off；默认随框架"));
}

void add_eager_flag(CLI::App* cmd, bool* eager) {
  cmd->add_flag("--eager", *eager, help_text("Element-wise ops unfused, as eager PyTorch runs them (no torch.compile or fused kernels)", "逐元素算子不融合，按 PyTorch eager 模式运行（不用 torch.compile 或融合内核）"));
}

void add_zero3_per_module_flag(CLI::App* cmd, bool* per_module) {
  cmd->add_flag("--zero3-per-module", *per_module,
                help_text("ZeRO-3 gathers module by module (each norm and linear), as DeepSpeed does; default: per block, as FSDP",
                          "ZeRO-3 逐模块收集参数（每个归一化层和线性层），与 DeepSpeed 相同；默认按块收集，与 FSDP 相同"));
}

}  // namespace gpuplan::cli
