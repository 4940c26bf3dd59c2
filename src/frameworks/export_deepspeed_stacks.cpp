// The launch configurations of the two Megatron-lineage stacks that run on
// DeepSpeed (issue 29): Megatron-DeepSpeed, whose pretrain_gpt.py takes
// Megatron-style arguments beside a DeepSpeed JSON (`deepspeed pretrain_gpt.py
// ARGS --deepspeed --deepspeed_config ds_config.json`), written as one bash
// script that writes the JSON and starts the run; and GPT-NeoX, whose deepy.py
// reads one YAML of NeoXArgs fields with the DeepSpeed sections inline.
// Each is checked against the names its version's source takes
// (data/exports/megatron-deepspeed-arguments.json, gpt-neox-config-keys.json).
// Citations: B = bigscience-workshop/Megatron-DeepSpeed@0f23a729 (the 2022
// entry), M = microsoft/Megatron-DeepSpeed@f4157bea (2024), N = EleutherAI/gpt-neox@v2.0 (9610391a).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "frameworks/launch_config.hpp"
#include "frameworks/launch_readers.hpp"
#include "units/text_match.hpp"

namespace gpuplan {

namespace {

bool bigscience(const FrameworkProfile& runner) { return runner.version == "2022"; }

Reason joined(const std::string& who, const std::vector<std::string>& en, const std::vector<std::string>& zh) {
  if (en.empty()) return {};
  return {fmt::format("{} has no {}", who, join(en, ", ", " or ")), fmt::format("{} 不支持{}", who, join(zh, "、"))};
}

}  // namespace

// ---- Megatron-DeepSpeed ----

Reason megatron_deepspeed_gap(const ModelSpec& m, const Layout& l, const FrameworkProfile& runner) {
  std::vector<std::string> en, zh;
  auto miss = [&](std::string e, std::string z) {
    en.push_back(std::move(e));
    zh.push_back(std::move(z));
  };
  const bool b = bigscience(runner);
  if (m.count_only) miss("model built from a parameter count only", "仅有参数量的模型");
  if (m.mla) miss("multi-latent attention", "多头潜在注意力");
  if (!m.rope_scaling.empty()) miss(m.rope_scaling + " RoPE scaling (its rotary embedding takes a base only)", m.rope_scaling + " RoPE 缩放（其旋转位置编码只有底数）");
  if (m.qk_norm) miss("q/k normalisation", "q/k 归一化");
  if (m.qkv_bias && !m.out_bias && !m.mlp_bias) miss("q/k/v biases without the other linears' (Qwen2)", "只有 q/k/v 偏置（Qwen2）");
  if (m.moe && (b || m.moe->shared_intermediate > 0 || m.moe->first_dense_layers > 0 || m.moe->layer_frequency > 1 || m.moe->router_sigmoid ||
                m.moe->router_bias || m.moe->router_groups > 1 || m.intermediate != m.moe->expert_intermediate)) {
    miss("this mixture of experts (DeepSpeed-MoE: top-k routed experts of the dense width on every layer)", "这种混合专家（DeepSpeed-MoE：每层 top-k 路由专家，宽度同稠密层）");
  }
  if (b) {
    // B has no GQA, RMSNorm, untied embeddings, bias-free linears, RoPE base,
    // flash attention, sequence or context parallelism (B megatron/model/transformer.py
    // l.154-158, l.26, l.206; gpt_model.py l.225, l.278; mpu/layers.py l.278, l.377).
    if (!m.count_only && m.kv_heads != m.heads && !m.mla) miss("grouped-query attention", "分组查询注意力");
    if (m.norm == NormKind::kRms) miss("RMSNorm", "RMSNorm");
    if (!m.tied_embeddings) miss("untied embeddings", "不共享的输入输出嵌入");
    if (!m.out_bias && !m.mlp_bias) miss("bias-free linears", "无偏置线性层");
    if (m.learned_positions == 0 && m.rope_theta > 0 && m.rope_theta != 10000) miss(fmt::format("a RoPE base of {:.0f}", m.rope_theta), fmt::format("RoPE 底数 {:.0f}", m.rope_theta));
    if (!keeps_attention_scores(l)) miss("flash attention", "flash attention");
    if (l.cp > 1 || l.sequence_parallel) miss("sequence or context parallelism", "序列或上下文并行");
    if (l.recompute == Recompute::kSelective) miss("selective recompute", "选择性重计算");
  } else {
    // M: Ulysses refuses GQA (megatron/model/transformer.py l.729) and Megatron's
    // sequence parallelism beside it (RuntimeError, megatron/initialize.py l.247-252).
    if (l.cp > 1 && m.kv_heads != m.heads) miss("DeepSpeed-Ulysses with grouped-query attention", "DeepSpeed-Ulysses 与分组查询注意力同用");
    if (l.cp > 1 && l.sequence_parallel && l.tp > 1) miss("DeepSpeed-Ulysses with Megatron sequence parallelism", "DeepSpeed-Ulysses 与 Megatron 序列并行同用");
  }
  // DeepSpeed's PipelineEngine runs ZeRO 0-1 (pipe/engine.py l.62); B runs every model through it, M leaves it with --no-pipeline-parallel at PP 1.
  if (l.zero_stage >= 2 && (b || l.pp > 1)) miss(fmt::format("ZeRO-{} with its pipeline engine", l.zero_stage), fmt::format("流水线引擎下的 ZeRO-{}", l.zero_stage));
  return joined(runner.label(), en, zh);
}

std::vector<std::string> megatron_deepspeed_arguments(const ModelSpec& m, const Layout& l, const FrameworkProfile& runner) {
  const bool b = bigscience(runner);
  std::vector<std::string> a;
  auto arg = [&](std::string s) { a.push_back(std::move(s)); };
  arg(fmt::format("--tensor-model-parallel-size {}", l.tp));
  arg(fmt::format("--pipeline-model-parallel-size {}", l.pp));
  if (!b && l.pp == 1 && l.zero_stage >= 2) arg("--no-pipeline-parallel");  // M a.py l.954: the only way to ZeRO-2/3
  if (!b && l.cp > 1) arg(fmt::format("--ds-sequence-parallel-size {}", l.cp));
  if (!b && l.sequence_parallel && l.tp > 1) arg("--sequence-parallel");
  if (!b && m.moe) {
    // DeepSpeed-MoE on every layer (M transformer.py l.1650-1660: layers divisible by --expert-interval, default 2).
    arg(fmt::format("--num-experts {}", m.moe->routed_experts));
    arg(fmt::format("--moe-expert-parallel-size {}", l.ep));
    arg(fmt::format("--topk {}", m.moe->experts_per_token));
    arg("--expert-interval 1");
  }
  arg(fmt::format("--num-layers {}", m.layers));
  arg(fmt::format("--hidden-size {}", m.hidden));
  arg(fmt::format("--ffn-hidden-size {}", m.intermediate));
  arg(fmt::format("--num-attention-heads {}", m.heads));
  if (!b && m.kv_heads != m.heads) arg(fmt::format("--num-key-value-heads {}", m.kv_heads));
  arg(fmt::format("--seq-length {}", l.seq_len));
  // B with rotary asserts there is none (a.py l.263-264); M wants it at least the sequence (l.280-283, l.311).
  if (m.learned_positions > 0 || !b) arg(fmt::format("--max-position-embeddings {}", std::max(m.learned_positions, l.seq_len)));
  if (m.learned_positions == 0) {
    if (b) {
      arg("--position-embedding-type rotary");
    } else {
      arg("--use-rotary-position-embeddings");
      if (m.rope_theta > 0) arg(fmt::format("--rotary-position-embeddings-theta {:.0f}", m.rope_theta));  // an int flag (l.635)
    }
  }
  if (!b && m.norm == NormKind::kRms) arg("--normalization rmsnorm");
  if (m.mlp == MlpKind::kGated) {
    if (b) {
      arg("--glu-activation swiglu");  // B a.py l.403; a GLU refuses the bias-GeLU fusion (l.285-286)
      arg("--no-bias-gelu-fusion");
    } else {
      arg("--swiglu");
    }
  }
  if (!b && !m.out_bias && !m.mlp_bias) arg("--disable-bias-linear");
  if (!b && !m.tied_embeddings) arg("--untie-embeddings-and-output-weights");
  arg(fmt::format("--make-vocab-size-divisible-by {}", megatron_vocab(m, l).divisible_by));
  arg(fmt::format("--micro-batch-size {}", l.micro_batch));
  arg(fmt::format("--global-batch-size {}", l.effective_global_batch()));
  arg("--attention-dropout 0");
  arg("--hidden-dropout 0");
  arg(l.precision == Precision::kFp16 ? "--fp16" : "--bf16");
  if (!b && !keeps_attention_scores(l)) arg("--use-flash-attn-v2");  // --use-flash-attn is the FlashAttention 1.x API (M transformer.py l.540-543)
  if (l.recompute == Recompute::kFull) {
    if (b) {
      arg("--checkpoint-activations");
      arg("--checkpoint-num-layers 1");
    } else {
      arg("--recompute-granularity full");
      arg("--recompute-method uniform");
      arg("--recompute-num-layers 1");
    }
    arg("--deepspeed-activation-checkpointing");  // as the repos' scripts pair it (B run_bf16.sh l.133-138; M pretrain_llama2_distributed.sh l.86-93)
  } else if (l.recompute == Recompute::kSelective) {
    arg("--recompute-granularity selective");
  }
  // DeepSpeed reads the stage from the JSON; --zero-stage only switches on ZeRO-3's
  // initialisation, so both are written equal, as the scripts do (M pretrain_gpt.py l.49).
  arg(fmt::format("--zero-stage {}", l.zero_stage));
  return a;
}

std::string megatron_deepspeed_script(const std::vector<std::string>& arguments, const std::string& ds_config, const LaunchShape& shape,
                                      const FrameworkProfile& runner) {
  std::string s = "#!/bin/bash\n";
  s += fmt::format("# Generated by gpuplan for {}: run from the Megatron-DeepSpeed checkout; DATA_AND_TOKENIZER_ARGS are yours.\n", runner.label());
  s += "set -euo pipefail\n";
  // Megatron's sequence parallelism with TP wants one CUDA connection (M a.py l.402-407).
  if (std::find(arguments.begin(), arguments.end(), "--sequence-parallel") != arguments.end()) s += "export CUDA_DEVICE_MAX_CONNECTIONS=1\n";
  // The JSON beside the arguments, written by a heredoc as B's run_bf16.sh does (l.142-167).
  s += "cat > ds_config.json <<'GPUPLAN_DS_CONFIG'\n" + ds_config + "GPUPLAN_DS_CONFIG\n";
  s += "ARGS=(\n";
  for (const std::string& a : arguments) s += "  " + a + "\n";
  s += ")\n";
  // DeepSpeed's launcher (deepspeed/launcher/runner.py --num_nodes, --num_gpus, --hostfile), as B run_bf16.sh l.173 and M ds_pretrain_gpt_1.3B.sh l.332 start it.
  s += fmt::format("deepspeed --num_nodes {} --num_gpus {}{} pretrain_gpt.py \"${{ARGS[@]}}\" ${{DATA_AND_TOKENIZER_ARGS:-}} --deepspeed --deepspeed_config ds_config.json\n",
                   shape.nodes, shape.gpus_per_node, shape.nodes > 1 ? " --hostfile ${HOSTFILE:-hostfile}" : "");
  return s;
}

Reason megatron_deepspeed_unknown(const std::vector<std::string>& arguments, const FrameworkProfile& runner) {
  const LaunchReader* parser = launch_reader("exports/megatron-deepspeed-arguments.json", "flags", runner.version);
  if (!parser) return {};
  std::vector<std::string> flags;
  for (const std::string& a : arguments) flags.push_back(a.substr(0, a.find(' ')));
  flags.push_back("--deepspeed");
  flags.push_back("--deepspeed_config");
  const std::string list = unknown_names(*parser, flags);
  if (list.empty()) return {};
  return {fmt::format("{}'s parser ({} at {}) has no {}, and argparse stops at an unknown flag", runner.label(), parser->file, parser->commit.substr(0, 8), list),
          fmt::format("{} 的参数解析器（{}，提交 {}）没有 {}，argparse 遇到未知参数即退出", runner.label(), parser->file, parser->commit.substr(0, 8), list)};
}

// ---- GPT-NeoX ----

Reason neox_gap(const ModelSpec& m, const Layout& l, const FrameworkProfile& runner) {
  std::vector<std::string> en, zh;
  auto miss = [&](std::string e, std::string z) {
    en.push_back(std::move(e));
    zh.push_back(std::move(z));
  };
  // N: QKV is 3h wide (megatron/model/transformer.py l.221-227), the MLP 4h with an
  // ungated activation or GEGLU (l.89-95), every linear biased (mpu/layers.py l.404,
  // l.592); no sequence parallelism, no MoE; ZeRO-2/3 refused under the pipeline
  // engine (DeeperSpeed@v2.0 pipe/engine.py l.63).
  if (m.count_only) miss("model built from a parameter count only", "仅有参数量的模型");
  if (m.kv_heads != m.heads || m.mla) miss("grouped-query or latent attention", "分组查询或潜在注意力");
  if (m.mlp == MlpKind::kGated) miss("SwiGLU (its gated activation is GEGLU at 8/3 h)", "SwiGLU（其门控激活只有 8/3 h 宽的 GEGLU）");
  if (m.mlp != MlpKind::kGated && m.intermediate != 4 * m.hidden) miss(fmt::format("an MLP {} wide (it is 4 × hidden)", m.intermediate), fmt::format("宽 {} 的 MLP（固定为 4 × hidden）", m.intermediate));
  if (!m.out_bias || !m.mlp_bias) miss("bias-free linears", "无偏置线性层");
  if (m.moe) miss("mixture of experts", "混合专家");
  if (m.qk_norm) miss("q/k normalisation", "q/k 归一化");
  if (!m.rope_scaling.empty()) miss(m.rope_scaling + " RoPE scaling", m.rope_scaling + " RoPE 缩放");
  if (l.cp > 1 || l.sequence_parallel) miss("sequence or context parallelism", "序列或上下文并行");
  // checkpoint-activations recomputes whole layers (N neox_args.py l.902-907): no selective policy.
  if (l.recompute == Recompute::kSelective) miss("selective recompute", "选择性重计算");
  if (l.zero_stage >= 2 && l.pp > 1) miss(fmt::format("ZeRO-{} with pipeline parallelism", l.zero_stage), fmt::format("流水线并行下的 ZeRO-{}", l.zero_stage));
  return joined(runner.label(), en, zh);
}

std::vector<OverrideLine> neox_config(const ModelSpec& m, const Layout& l, const LaunchShape& shape) {
  std::vector<OverrideLine> y;
  auto set = [&](const char* k, std::string v) { y.push_back({k, std::move(v)}); };
  set("pipe-parallel-size", std::to_string(l.pp));
  set("model-parallel-size", std::to_string(l.tp));
  set("num-layers", std::to_string(m.layers));
  set("hidden-size", std::to_string(m.hidden));
  set("num-attention-heads", std::to_string(m.heads));
  set("seq-length", std::to_string(l.seq_len));
  set("max-position-embeddings", std::to_string(std::max(m.learned_positions, l.seq_len)));
  set("norm", m.norm == NormKind::kRms ? "rmsnorm" : "layernorm");
  if (m.learned_positions > 0) {
    set("pos-emb", "learned");
  } else {
    set("pos-emb", "rotary");
    set("rotary-pct", "1.0");
    if (m.rope_theta > 0) set("rotary-emb-base", fmt::format("{:.0f}", m.rope_theta));
  }
  set("activation", "gelu");
  set("no-weight-tying", m.tied_embeddings ? "false" : "true");
  if (m.parallel_block) set("gpt-j-residual", "true");
  set("make-vocab-size-divisible-by", std::to_string(megatron_vocab(m, l).divisible_by));
  set("attention-config", fmt::format("[[[\"{}\"], {}]]", keeps_attention_scores(l) ? "global" : "flash", m.layers));
  set("hidden-dropout", "0.0");
  set("attention-dropout", "0.0");
  // All three batch terms: gradient_accumulation_steps defaults to 1, not derived
  // (N megatron/neox_arguments/arguments.py l.684-721, asserted l.738).
  set("train_micro_batch_size_per_gpu", std::to_string(l.micro_batch));
  set("gradient_accumulation_steps", std::to_string(l.micro_batches()));
  set("train_batch_size", std::to_string(l.effective_global_batch()));
  if (l.recompute != Recompute::kNone) {
    set("checkpoint-activations", "true");
    set("checkpoint-num-layers", "1");
    set("partition-activations", l.tp > 1 ? "true" : "false");
  }
  set("zero_optimization", fmt::format("{{stage: {}, overlap_comm: true, contiguous_gradients: true}}", l.zero_stage));
  // N's bf16 is its shipped configs' fp16 block typed bfloat16 (configs/bf16_125M.yml l.61-70); there is no bf16 key at v2.0.
  if (l.precision == Precision::kFp16) {
    set("fp16", "{enabled: true, loss_scale: 0, loss_scale_window: 1000, hysteresis: 2, min_loss_scale: 1}");
  } else {
    set("precision", "bfloat16");
    set("fp16", "{enabled: true, type: bfloat16}");
    set("fp32_allreduce", "true");
  }
  // The launcher's machines (arguments.py l.751-768: num_gpus per node × hosts).
  set("num_gpus", std::to_string(shape.gpus_per_node));
  if (shape.nodes > 1) set("num_nodes", std::to_string(shape.nodes));
  return y;
}

std::string neox_yaml(const std::vector<OverrideLine>& config, const FrameworkProfile& runner) {
  std::string s = fmt::format("# Generated by gpuplan for {}: python ./deepy.py train.py THIS_FILE DATA_TOKENIZER_AND_OPTIMIZER.yml\n", runner.label());
  for (const OverrideLine& o : config) s += o.key + ": " + o.value + "\n";
  return s;
}

Reason neox_unknown(const std::vector<OverrideLine>& config, const FrameworkProfile& runner) {
  const LaunchReader* reader = launch_reader("exports/gpt-neox-config-keys.json", "keys", runner.version);
  if (!reader) return {};
  // NeoX reads '-' and '_' alike (N arguments.py l.193-196); the file lists the '-' spelling.
  std::vector<std::string> keys;
  for (const OverrideLine& o : config) {
    std::string k = o.key;
    std::replace(k.begin(), k.end(), '_', '-');
    keys.push_back(k);
  }
  const std::string list = unknown_names(*reader, keys);
  if (list.empty()) return {};
  return {fmt::format("{}'s NeoXArgs ({} at {}) have no {}, and an unknown key is a TypeError at start", runner.label(), reader->file,
                      reader->commit.substr(0, 8), list),
          fmt::format("{} 的 NeoXArgs（{}，提交 {}）没有 {}，未知键会在启动时报 TypeError", runner.label(), reader->file, reader->commit.substr(0, 8), list)};
}

}  // namespace gpuplan
