// MindSpeed-LLM's launch flags (`plan --export megatron --framework mindspeed-llm`),
// as its pretrain_gpt.py parser takes them and as its shipped pre-training
// scripts write them. Every flag is one MindSpeed-LLM 2.1.0 takes
// (data/exports/mindspeed-llm-arguments.json: Megatron core_r0.8.0's parser,
// MindSpeed-LLM's process_args and its features' register_args; MindSpeed's own
// parser is replaced by a dummy before it loads, mindspeed_llm/tasks/megatron_adaptor.py
// l.110-131), checked by megatron_arguments_unknown. Facts cited as
// Ascend/MindSpeed-LLM@v2.1.0 (7f128db1) paths; "the DeepSeek-V3 script" is
// examples/mcore/deepseek3/pretrain_deepseek3_671b_4k_ptd.sh there.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "frameworks/launch_config.hpp"

namespace gpuplan {

namespace {

// Llama 3's frequency scaling terms beside its factor: every Llama 3.1/3.2/3.3
// config.json writes low_freq_factor 1.0, high_freq_factor 4.0 and
// original_max_position_embeddings 8192, which are also Megatron-Core's fixed
// values behind --use-rope-scaling (megatron/core/models/common/embeddings/rope_utils.py
// apply_rope_scaling at core_v0.10.0). MindSpeed-LLM has no defaults for them
// (mindspeed_llm/features_manager/common/rotary.py l.17-28: None), so they are written.
constexpr double kLlama3LowFreqFactor = 1.0, kLlama3HighFreqFactor = 4.0;
constexpr int64_t kLlama3OriginalContext = 8192;

// How an uneven pipeline split is written. --num-layer-list names each stage's
// count (arguments.py l.462), but its dense/MoE placement goes by num_layers // pp
// (MindSpeed's _get_layer_offset) and, with --first-k-dense-replace, validation
// refuses first_k >= num_layers // pp (arguments.py l.1123-1125: DeepSeek-V3's 3 on
// PP 16 always). The DeepSeek-V3 script instead pads the model with no-op layers
// (--noop-layers, identity layers without parameters; MindSpeed
// core/transformer/transformer_block.py l.155-161) so that every stage holds as
// many slots: stage s keeps its real layers first, then no-ops.
struct NoopPadding {
  int64_t slots_per_stage = 0;
  std::vector<int64_t> noops;          // slot indices
  std::vector<int64_t> slot_of_layer;  // the slot each real layer lands in
};

NoopPadding noop_padding(const StageSplit& split, int pp) {
  NoopPadding n;
  n.slots_per_stage = split.max_layers();
  for (int s = 0; s < pp; ++s) {
    const int64_t first = s * n.slots_per_stage;
    for (int64_t k = 0; k < n.slots_per_stage; ++k) {
      if (k < split.layers(s)) n.slot_of_layer.push_back(first + k);
      else n.noops.push_back(first + k);
    }
  }
  return n;
}

// MindSpeed-LLM's dense/MoE choice by (slot) index: with --first-k-dense-replace
// and --moe-layer-freq, layer i is MoE iff i >= k and i % freq == 0
// (mindspeed_llm/core/transformer/transformer_block.py l.74-95).
bool mindspeed_moe_slot(const MoeSpec& e, int64_t slot) {
  return slot >= e.first_dense_layers && (e.layer_frequency <= 1 || slot % e.layer_frequency == 0);
}

bool has_layer_pattern(const ModelSpec& m) { return m.moe && (m.moe->first_dense_layers > 0 || m.moe->layer_frequency > 1); }

// Uneven stages of a model with dense and MoE layers go as no-op padding.
bool pads_with_noops(const ModelSpec& m, const Layout& l, const StageSplit& split) {
  return l.pp > 1 && l.vp == 1 && split.rule != StageSplitRule::kEven && has_layer_pattern(m);
}

}  // namespace

Reason mindspeed_arguments_gap(const ModelSpec& m, const Layout& l) {
  auto both = [](std::string en, std::string zh) { return Reason{std::move(en), std::move(zh)}; };
  // The expert linears are sharded over the attention's TP (core_r0.8.0
  // megatron/core/transformer/moe/experts.py l.72-80): no expert-TP degree of their own.
  if (m.moe && l.expert_tp() != l.tp) {
    return both(fmt::format("MindSpeed-LLM 2.1.0 (Megatron core_r0.8.0) shards experts over the attention's TP {} and has no "
                            "--expert-tensor-parallel-size, and the layout runs expert TP {}", l.tp, l.expert_tp()),
                fmt::format("MindSpeed-LLM 2.1.0（Megatron core_r0.8.0）的专家按注意力的 TP {} 切分，没有 --expert-tensor-parallel-size，"
                            "而该布局的专家 TP 为 {}", l.tp, l.expert_tp()));
  }
  // --moe-token-dispatcher-type takes allgather or alltoall only (arguments.py l.388).
  if (m.moe && l.moe_dispatch_per_node) {
    return both("MindSpeed-LLM 2.1.0's token dispatcher is allgather or alltoall (no per-node DeepEP dispatch), and the layout dispatches once per node",
                "MindSpeed-LLM 2.1.0 的 token 分发只有 allgather 或 alltoall（没有按节点的 DeepEP 分发），而该布局按节点分发");
  }
  // Transformer Engine is replaced by a dummy module (megatron_adaptor.py pre_execute): no FP8 path.
  if (l.precision == Precision::kFp8) {
    return both("MindSpeed-LLM 2.1.0 replaces Transformer Engine with a dummy module, so it trains no FP8, and the layout is FP8",
                "MindSpeed-LLM 2.1.0 用空模块替换了 Transformer Engine，无法进行 FP8 训练，而该布局为 FP8");
  }
  if (m.moe && m.moe->shared_intermediate > 0 && (m.moe->expert_intermediate <= 0 || m.moe->shared_intermediate % m.moe->expert_intermediate != 0)) {
    return both(fmt::format("MindSpeed-LLM 2.1.0 sizes shared experts as --n-shared-experts × the routed expert width {}, and the model's shared "
                            "width {} is not a multiple of it", m.moe->expert_intermediate, m.moe->shared_intermediate),
                fmt::format("MindSpeed-LLM 2.1.0 的共享专家宽度为 --n-shared-experts × 路由专家宽度 {}，而该模型的共享宽度 {} 不是其整数倍",
                            m.moe->expert_intermediate, m.moe->shared_intermediate));
  }
  if (m.rope_scaling == "yarn" && !m.rope_original_context) {
    return both("MindSpeed-LLM 2.1.0 refuses YaRN without its base context (--rope-scaling-original-max-position-embeddings), and the model's config does not state one",
                "MindSpeed-LLM 2.1.0 不接受没有原始上下文（--rope-scaling-original-max-position-embeddings）的 YaRN，而该模型的配置没有写明");
  }
  if (m.count_only) return {};
  if (l.vp > 1) {
    const int64_t chunks = static_cast<int64_t>(l.pp) * l.vp;
    if (m.layers % chunks != 0 || l.first_stage_layers || l.last_stage_layers || !l.pipeline_layout.empty()) {
      return both(fmt::format("MindSpeed-LLM 2.1.0 (Megatron core_r0.8.0) interleaves only equal chunks (--num-layers-per-virtual-pipeline-stage), "
                              "and {} layers do not split into pp {} × vp {} equal chunks", m.layers, l.pp, l.vp),
                  fmt::format("MindSpeed-LLM 2.1.0（Megatron core_r0.8.0）只支持等长的交错分块（--num-layers-per-virtual-pipeline-stage），"
                              "而 {} 层不能等分为 pp {} × vp {} 块", m.layers, l.pp, l.vp));
    }
    return {};
  }
  if (l.pp <= 1 || !has_layer_pattern(m)) return {};
  const StageSplit split = stage_split(m, l);
  const NoopPadding pad = noop_padding(split, l.pp);
  const MoeSpec& e = *m.moe;
  bool placed = e.first_dense_layers < (split.rule == StageSplitRule::kEven ? m.layers / l.pp : pad.slots_per_stage);
  for (int64_t i = 0; placed && i < m.layers; ++i) {
    const int64_t slot = split.rule == StageSplitRule::kEven ? i : pad.slot_of_layer[static_cast<size_t>(i)];
    placed = mindspeed_moe_slot(e, slot) == m.is_moe_layer(i);
  }
  if (!placed) {
    return both(fmt::format("MindSpeed-LLM 2.1.0 places dense and MoE layers by index (--first-k-dense-replace {}, --moe-layer-freq {}), and no "
                            "padding of the {} split keeps them where the model has them, with fewer dense layers than a stage holds",
                            e.first_dense_layers, e.layer_frequency, split.describe()),
                fmt::format("MindSpeed-LLM 2.1.0 按层号安排稠密层与 MoE 层（--first-k-dense-replace {}、--moe-layer-freq {}），"
                            "而 {} 的切分无论如何补位都无法让它们留在模型原有的位置（且稠密层须少于每级层数）",
                            e.first_dense_layers, e.layer_frequency, split.describe_zh()));
  }
  return {};
}

std::string mindspeed_arguments(const ModelSpec& m, const Layout& l) {
  std::string a;
  auto arg = [&](const std::string& s) { a += s + "\n"; };
  arg(fmt::format("--tensor-model-parallel-size {}", l.tp));
  arg(fmt::format("--pipeline-model-parallel-size {}", l.pp));
  std::optional<NoopPadding> pad;
  if (l.vp > 1 && !m.count_only) arg(fmt::format("--num-layers-per-virtual-pipeline-stage {}", m.layers / (static_cast<int64_t>(l.pp) * l.vp)));
  if (l.pp > 1 && l.vp == 1 && !m.count_only) {
    const StageSplit split = stage_split(m, l);
    if (pads_with_noops(m, l, split)) {
      pad = noop_padding(split, l.pp);
    } else if (split.rule != StageSplitRule::kEven) {
      // Each stage's layer count (arguments.py l.462; the Llama 3.1 70B script writes 17,20,22,21).
      std::string list;
      for (int s = 0; s < l.pp; ++s) list += fmt::format("{}{}", s ? "," : "", split.layers(s));
      arg("--num-layer-list " + list);
    }
  }
  arg(fmt::format("--context-parallel-size {}", l.cp));
  // The algorithm the step-time model timed, named even where it is the default
  // (ulysses_cp_algo, arguments.py's default; the profile's cp_exchange).
  if (l.cp > 1) arg(cp_is_ulysses(l.cp_exchange) ? "--context-parallel-algo ulysses_cp_algo" : "--context-parallel-algo megatron_cp_algo");
  if (m.moe) arg(fmt::format("--expert-model-parallel-size {}", l.ep));
  arg(fmt::format("--micro-batch-size {}", l.micro_batch));
  arg(fmt::format("--global-batch-size {}", l.effective_global_batch()));
  arg(fmt::format("--seq-length {}", l.seq_len));
  arg(fmt::format("--max-position-embeddings {}", m.learned_positions > 0 ? std::max(m.learned_positions, l.seq_len) : l.seq_len));
  if (l.sequence_parallel) arg("--sequence-parallel");
  if (l.recompute == Recompute::kSelective) arg("--recompute-granularity selective");
  if (l.recompute == Recompute::kFull) {
    arg("--recompute-granularity full");
    arg("--recompute-method uniform");
    arg("--recompute-num-layers 1");
  }
  if (l.zero_stage >= 1) arg("--use-distributed-optimizer");
  // Communication over computation for TP (features_manager/communication/coc.py).
  if (l.tp_comm_overlap && l.tp > 1) arg("--use-ascend-coc");
  if (static_cast<int64_t>(l.dp) * l.cp > 1 && l.dp_comm_overlap) {
    arg("--overlap-grad-reduce");
    if (l.zero_stage >= 1) arg("--overlap-param-gather");  // needs the distributed optimizer (core_r0.8.0 arguments.py l.279-284)
  }
  // Megatron's dropout defaults are 0.1; the planned models train without dropout.
  arg("--attention-dropout 0.0");
  arg("--hidden-dropout 0.0");
  arg(l.precision == Precision::kFp16 ? "--fp16" : "--bf16");
  if (!keeps_attention_scores(l)) arg("--use-flash-attn");  // torch_npu.npu_fusion_attention (core/transformer/dot_product_attention.py l.274)
  // The Megatron-Core model (validate sets use_legacy_models = not use_mcore_models, arguments.py l.1476).
  arg("--use-mcore-models");
  if (m.count_only) return a;
  // The layer spec: multi-latent attention is built only by the DeepSeek spec,
  // Qwen3's per-head q/k norms only by the Qwen3 spec (pretrain_gpt.py l.62-69;
  // tasks/models/spec/deepseek_spec.py l.33-75, qwen3_spec.py l.29-30).
  if (m.mla) arg("--spec mindspeed_llm.tasks.models.spec.deepseek_spec layer_spec");
  else if (m.qk_norm) arg("--spec mindspeed_llm.tasks.models.spec.qwen3_spec layer_spec");
  // Its NPU fused kernels, as its pretrain scripts set them (each needs its op: arguments.py l.1436-1452).
  if (m.norm == NormKind::kRms) arg("--use-fused-rmsnorm");
  if (m.mlp == MlpKind::kGated) arg("--use-fused-swiglu");
  if (m.learned_positions == 0) arg("--use-fused-rotary-pos-emb");
  if (pad) {
    std::string list;
    for (int64_t slot : pad->noops) list += fmt::format("{}{}", list.empty() ? "" : ",", slot);
    arg(fmt::format("--num-layers {}", pad->slots_per_stage * l.pp));
    arg("--noop-layers " + list);
  } else {
    arg(fmt::format("--num-layers {}", m.layers));
  }
  arg(fmt::format("--hidden-size {}", m.hidden));
  arg(fmt::format("--ffn-hidden-size {}", m.intermediate));
  arg(fmt::format("--num-attention-heads {}", m.heads));
  if (!m.mla && m.kv_heads != m.heads) {
    arg("--group-query-attention");
    arg(fmt::format("--num-query-groups {}", m.kv_heads));
  }
  if (!m.mla && m.head_dim * m.heads != m.hidden) arg(fmt::format("--kv-channels {}", m.head_dim));
  if (m.mlp == MlpKind::kGated) arg("--swiglu");
  if (m.norm == NormKind::kRms) arg("--normalization RMSNorm");
  if (!m.tied_embeddings) arg("--untie-embeddings-and-output-weights");
  // The vocabulary as the model has it: --padded-vocab-size is used as given
  // (arguments.py l.487; the scripts pin it beside --make-vocab-size-divisible-by 1),
  // where padding len(tokenizer) would follow the tokenizer's own length. Where
  // TP does not divide the vocabulary, Megatron's fewest added rows (megatron_vocab).
  const MegatronVocab vocab = megatron_vocab(m, l);
  arg(fmt::format("--make-vocab-size-divisible-by {}", vocab.divisible_by));
  arg(fmt::format("--padded-vocab-size {}", vocab.padded));
  if (m.learned_positions == 0) {
    arg("--position-embedding-type rope");
    if (m.rope_theta > 0 && m.rope_theta != 10000) arg(fmt::format("--rotary-base {:.0f}", m.rope_theta));
    if (m.rope_scaling == "llama3") {
      // The five flags of the Llama 3.1 70B script (l.39-43); the factor defaults to 1.0 (arguments.py l.137).
      arg("--rope-scaling-type llama3");
      arg(fmt::format("--rope-scaling-factor {}", m.rope_scaling_factor > 0 ? m.rope_scaling_factor : 8.0));
      arg(fmt::format("--low-freq-factor {}", kLlama3LowFreqFactor));
      arg(fmt::format("--high-freq-factor {}", kLlama3HighFreqFactor));
      arg(fmt::format("--original-max-position-embeddings {}", m.rope_original_context.value_or(kLlama3OriginalContext)));
    }
  }
  // Qwen3's per-head norms (with its spec) or, on the DeepSeek spec, the q_a and
  // kv_a RMSNorms of multi-latent attention (multi_head_latent_attention.py l.96-102, l.158-164).
  if (m.qk_norm || m.mla) arg("--qk-layernorm");
  if (!m.out_bias && !m.mlp_bias) arg("--disable-bias-linear");
  if (m.qkv_bias && !m.out_bias && !m.mlp_bias) arg("--add-qkv-bias");
  if (m.moe) {
    const MoeSpec& e = *m.moe;
    arg(fmt::format("--num-experts {}", e.routed_experts));
    arg(fmt::format("--moe-router-topk {}", e.experts_per_token));
    // Without it the experts take --ffn-hidden-size (core/transformer/moe/moe_layer.py l.24-28).
    arg(fmt::format("--moe-intermediate-size {}", e.expert_intermediate));
    arg("--moe-grouped-gemm");
    arg("--moe-token-dispatcher-type alltoall");  // 2.1.0's default is allgather (arguments.py l.388)
    if (e.shared_intermediate > 0) arg(fmt::format("--n-shared-experts {}", e.shared_intermediate / e.expert_intermediate));
    if (e.shared_expert_gate) {
      arg("--shared-expert-gate");
      arg("--shared-expert-gate-output-dimension 1");  // Qwen2-MoE's gate: h -> 1 (moe_layer.py l.77-83)
    }
    if (e.router_sigmoid) arg("--moe-router-score-function sigmoid");
    if (e.router_bias) {
      // DeepSeek-V3's auxiliary-loss-free bias is the noaux_tc router, the branch that
      // also reads the groups and the scaling (core/transformer/moe/router.py l.483-516).
      arg("--moe-router-enable-expert-bias");
      arg("--moe-router-load-balancing-type noaux_tc");
    }
    if (e.routed_scaling_factor != 1.0) arg(fmt::format("--routed-scaling-factor {}", e.routed_scaling_factor));
    if (e.router_groups > 1 && e.router_group_topk > 0) {
      arg(fmt::format("--n-group {}", e.router_groups));
      arg(fmt::format("--topk-group {}", e.router_group_topk));
    }
    if (has_layer_pattern(m)) {
      arg(fmt::format("--first-k-dense-replace {}", e.first_dense_layers));
      arg(fmt::format("--moe-layer-freq {}", std::max<int64_t>(1, e.layer_frequency)));
    }
  }
  if (m.mla) {
    const MlaSpec& x = *m.mla;
    arg("--multi-head-latent-attention");
    if (x.q_lora_rank > 0) arg(fmt::format("--q-lora-rank {}", x.q_lora_rank));
    arg(fmt::format("--kv-lora-rank {}", x.kv_lora_rank));
    arg(fmt::format("--qk-nope-head-dim {}", x.qk_nope_head_dim));
    arg(fmt::format("--qk-rope-head-dim {}", x.qk_rope_head_dim));
    arg(fmt::format("--v-head-dim {}", x.v_head_dim));
  }
  if (m.rope_scaling == "yarn") {
    // YaRN's seven flags, as the DeepSeek-V3 script writes them (l.86-94); the
    // defaults are not DeepSeek's (mscale-all-dim 0.0, arguments.py l.139) and
    // yarn without a base context is refused (l.1106-1110).
    arg("--rope-scaling-type yarn");
    if (m.rope_scaling_factor > 0) arg(fmt::format("--rope-scaling-factor {}", m.rope_scaling_factor));
    if (m.rope_beta_fast) arg(fmt::format("--rope-scaling-beta-fast {}", *m.rope_beta_fast));
    if (m.rope_beta_slow) arg(fmt::format("--rope-scaling-beta-slow {}", *m.rope_beta_slow));
    if (m.rope_mscale) arg(fmt::format("--rope-scaling-mscale {}", *m.rope_mscale));
    if (m.rope_mscale_all_dim) arg(fmt::format("--rope-scaling-mscale-all-dim {}", *m.rope_mscale_all_dim));
    if (m.rope_original_context) arg(fmt::format("--rope-scaling-original-max-position-embeddings {}", *m.rope_original_context));
  }

  return a;
}

}  // namespace gpuplan
