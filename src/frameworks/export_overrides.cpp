// Launch configurations written as dotted overrides of a recipe (issue 29):
// Megatron-Bridge 0.6.0 (`scripts/training/run_recipe.py --recipe R KEY=VALUE ...`),
// NeMo 2.x (`nemo llm pretrain --factory R key=value ...`, NeMo-Run) and NeMo
// 24.07 (`megatron_gpt_pretraining.py key=value +key=value`, Hydra over
// megatron_gpt_config.yaml). Each reads strictly: an unknown key stops the
// launch (Hydra struct mode; fiddle's "No parameter named"), so every key
// written is checked against the keys read from that version's source
// (data/exports/megatron-bridge-config-keys.json, nemo-config-keys.json).
// Citations: MB = NVIDIA-NeMo/Megatron-Bridge@v0.6.0 (51885cf1), MC = its
// Megatron-Core submodule NVIDIA/Megatron-LM@cd4afffa; N25 = NVIDIA/NeMo@1b067109
// (r2.5.0), N24 = NVIDIA/NeMo@579983fb (r2.0.0rc1, the NeMo of the 24.07 container).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "frameworks/launch_config.hpp"
#include "frameworks/launch_readers.hpp"
#include "units/text_match.hpp"

namespace gpuplan {

namespace {

const char* kBridgeKeys = "exports/megatron-bridge-config-keys.json";
const char* kNemoKeys = "exports/nemo-config-keys.json";

std::string yes(bool v) { return v ? "true" : "false"; }

// Hydra's and NeMo-Run's parsers take a bare value of letters, digits and
// [_/\-+.$%*@?|]; anything else (a layout's parentheses) is a quoted string
// (hydra@v1.3.2 hydra/grammar/OverrideLexer.g4 l.62-63).
std::string quoted_if_needed(const std::string& v) {
  const bool bare = std::all_of(v.begin(), v.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string("_/\\-+.$%*@?|[],").find(c) != std::string::npos;
  });
  return bare ? v : "\"" + v + "\"";
}

struct Lines {
  std::vector<OverrideLine> v;
  void set(const std::string& key, const std::string& value) { v.push_back({key, quoted_if_needed(value)}); }
  void set(const std::string& key, int64_t value) { v.push_back({key, std::to_string(value)}); }
  void set_bool(const std::string& key, bool value) { v.push_back({key, yes(value)}); }
  void set_null(const std::string& key) { v.push_back({key, "null"}); }
};

// Megatron's per-layer MoE pattern as a list (TransformerConfig.moe_layer_freq: int or List[int]).
std::string moe_layer_list(const ModelSpec& m) {
  std::string s = "[";
  for (int64_t i = 0; i < m.layers; ++i) s += fmt::format("{}{}", i ? "," : "", m.is_moe_layer(i) ? 1 : 0);
  return s + "]";
}

// The parallel degrees and the stage split as Megatron-Core's ModelParallelConfig
// and TransformerConfig fields (MC megatron/core/model_parallel_config.py l.55-130,
// transformer_config.py l.96-134): under model. (Bridge) or trainer.strategy. (NeMo 2,
// whose MegatronStrategy copies them onto the model's config, N25 megatron_strategy.py l.239-291).
void parallel_fields(Lines& w, const std::string& at, const ModelSpec& m, const Layout& l) {
  w.set(at + "tensor_model_parallel_size", l.tp);
  w.set(at + "pipeline_model_parallel_size", l.pp);
  if (l.vp > 1 && l.pipeline_layout.empty()) w.set(at + "virtual_pipeline_model_parallel_size", l.vp);
  else w.set_null(at + "virtual_pipeline_model_parallel_size");
  w.set(at + "context_parallel_size", l.cp);
  w.set_bool(at + "sequence_parallel", l.sequence_parallel);
  if (m.moe) {
    w.set(at + "expert_model_parallel_size", l.ep);
    w.set(at + "expert_tensor_parallel_size", l.expert_tp());
  }
  // The split the memory and step-time models used; a recipe's own layout
  // (DeepSeek-V3's) is replaced, since a layout excludes the first/last counts (MC TC l.1936-1986).
  const StageSplit split = l.pp > 1 && !m.count_only ? stage_split(m, l) : StageSplit{};
  if (split.rule == StageSplitRule::kCustom) {
    // Without its MTP stages ("m"): the planned model has no multi-token-prediction
    // module, and the layout's m count must equal mtp_num_layers
    // (MC megatron/core/transformer/pipeline_parallel_layer_layout.py l.85-135), written null below.
    std::string layout = l.pipeline_layout;
    layout.erase(std::remove(layout.begin(), layout.end(), 'm'), layout.end());
    w.set(at + "pipeline_model_parallel_layout", layout);
  } else {
    w.set_null(at + "pipeline_model_parallel_layout");
  }
  if (split.first_stage_layers) w.set(at + "num_layers_in_first_pipeline_stage", *split.first_stage_layers);
  if (split.last_stage_layers) w.set(at + "num_layers_in_last_pipeline_stage", *split.last_stage_layers);
  if (split.rule == StageSplitRule::kEmbeddingLoss) w.set_bool(at + "account_for_embedding_in_pipeline_split", true);
  if (split.rule == StageSplitRule::kEmbeddingLoss || split.rule == StageSplitRule::kLoss) w.set_bool(at + "account_for_loss_in_pipeline_split", true);
}

// Recompute as TransformerConfig fields (MC TC l.518-546; full needs a method and a count, selective none: l.1724-1755).
void recompute_fields(Lines& w, const std::string& at, const Layout& l) {
  if (l.recompute == Recompute::kFull) {
    w.set(at + "recompute_granularity", "full");
    w.set(at + "recompute_method", "uniform");
    w.set(at + "recompute_num_layers", 1);
  } else if (l.recompute == Recompute::kSelective) {
    w.set(at + "recompute_granularity", "selective");
    w.set_null(at + "recompute_method");
    w.set_null(at + "recompute_num_layers");
  } else {
    w.set_null(at + "recompute_granularity");
    w.set_null(at + "recompute_method");
    w.set_null(at + "recompute_num_layers");
  }
}

// The architecture as Megatron-Core TransformerConfig / GPT provider fields,
// every one written so that the recipe's model class contributes nothing the
// plan did not count. `bridge`: Megatron-Bridge names the activation
// (MB src/megatron/bridge/utils/activation_map.py l.41-51); NeMo 2's is the
// config class's callable.
void architecture_fields(Lines& w, const std::string& at, const ModelSpec& m, const Layout& l, bool bridge) {
  w.set(at + "num_layers", m.layers);
  w.set(at + "hidden_size", m.hidden);
  w.set(at + "ffn_hidden_size", m.intermediate);
  w.set(at + "num_attention_heads", m.heads);
  if (!m.mla) {
    w.set(at + "num_query_groups", m.kv_heads);
    w.set(at + "kv_channels", m.head_dim > 0 ? m.head_dim : m.hidden / m.heads);
  }
  w.set_bool(at + "gated_linear_unit", m.mlp == MlpKind::kGated);
  if (bridge) w.set(at + "activation_func", m.mlp == MlpKind::kGated ? "silu" : "gelu");
  w.set(at + "normalization", m.norm == NormKind::kRms ? "RMSNorm" : "LayerNorm");
  w.set_bool(at + "add_bias_linear", m.out_bias || m.mlp_bias);
  w.set_bool(at + "add_qkv_bias", m.qkv_bias || m.out_bias || m.mlp_bias);
  w.set_bool(at + "qk_layernorm", m.qk_norm || m.mla.has_value());  // MLA: the q_a / kv_a norms
  w.set_bool(at + "share_embeddings_and_output_weights", m.tied_embeddings);
  w.set(at + "position_embedding_type", m.learned_positions > 0 ? "learned_absolute" : "rope");
  if (m.learned_positions == 0 && m.rope_theta > 0) w.set(at + "rotary_base", static_cast<int64_t>(m.rope_theta));
  w.set(at + "seq_length", l.seq_len);
  // The vocabulary exactly (or with Megatron's fewest added rows where TP does not divide it).
  const MegatronVocab vocab = megatron_vocab(m, l);
  w.set(at + "make_vocab_size_divisible_by", vocab.divisible_by);
  w.set(at + "vocab_size", vocab.padded);
  if (m.moe) {
    const MoeSpec& e = *m.moe;
    w.set(at + "num_moe_experts", e.routed_experts);
    w.set(at + "moe_router_topk", e.experts_per_token);
    w.set(at + "moe_ffn_hidden_size", e.expert_intermediate);
    if (e.shared_intermediate > 0) w.set(at + "moe_shared_expert_intermediate_size", e.shared_intermediate);
    else w.set_null(at + "moe_shared_expert_intermediate_size");
    w.set(at + "moe_layer_freq", moe_layer_list(m));
    w.set_bool(at + "moe_grouped_gemm", true);
    w.set(at + "moe_router_score_function", e.router_sigmoid ? "sigmoid" : "softmax");
    w.set_bool(at + "moe_router_enable_expert_bias", e.router_bias);
    w.set(at + "moe_router_topk_scaling_factor", fmt::format("{}", e.routed_scaling_factor));
    if (e.router_groups > 1 && e.router_group_topk > 0) {
      w.set(at + "moe_router_num_groups", e.router_groups);
      w.set(at + "moe_router_group_topk", e.router_group_topk);
    }
  }
  if (m.mla) {
    const MlaSpec& x = *m.mla;
    w.set_bool(at + "multi_latent_attention", true);
    if (x.q_lora_rank > 0) w.set(at + "q_lora_rank", x.q_lora_rank);
    else w.set_null(at + "q_lora_rank");
    w.set(at + "kv_lora_rank", x.kv_lora_rank);
    w.set(at + "qk_head_dim", x.qk_nope_head_dim);
    w.set(at + "qk_pos_emb_head_dim", x.qk_rope_head_dim);
    w.set(at + "v_head_dim", x.v_head_dim);
    if (m.rope_scaling == "yarn") {
      // YaRN's terms as MLATransformerConfig fields (MC TC l.2927-2951).
      w.set(at + "rope_type", "yarn");
      if (m.rope_scaling_factor > 0) w.set(at + "rotary_scaling_factor", fmt::format("{}", m.rope_scaling_factor));
      if (m.rope_original_context) w.set(at + "original_max_position_embeddings", *m.rope_original_context);
      if (m.rope_beta_fast) w.set(at + "beta_fast", fmt::format("{}", *m.rope_beta_fast));
      if (m.rope_beta_slow) w.set(at + "beta_slow", fmt::format("{}", *m.rope_beta_slow));
      if (m.rope_mscale) w.set(at + "mscale", fmt::format("{}", *m.rope_mscale));
      if (m.rope_mscale_all_dim) w.set(at + "mscale_all_dim", fmt::format("{}", *m.rope_mscale_all_dim));
    }
    // The plan has no multi-token-prediction module; the DeepSeek-V3 recipes switch one on
    // (MB recipes/deepseek/h100/deepseek_v3.py l.129-131; N25 recipes/deepseek_v3.py l.53-54).
    w.set_null(at + "mtp_num_layers");
  }
}

// The MoE token dispatcher the step time assumed: all-to-all, or the flex
// dispatcher with its backend (DeepEP, or HybridEP where the recipe runs it)
// where the layout dispatches once per node.
void dispatcher_fields(Lines& w, const std::string& at, const Layout& l, bool flex_backend_field) {
  w.set(at + "moe_token_dispatcher_type", l.moe_dispatch_per_node ? "flex" : "alltoall");
  if (flex_backend_field) {
    // MC TC l.869; a DeepSeek-V3 recipe picks flex + HybridEP on Hopper and newer when
    // built (MB training/flex_dispatcher_backend.py l.64-80), so the choice is written back.
    if (l.moe_dispatch_per_node) w.set(at + "moe_flex_dispatcher_backend", l.moe_dispatch_hybridep ? "hybridep" : "deepep");
    else w.set_null(at + "moe_flex_dispatcher_backend");
  } else {
    w.set_bool(at + "moe_enable_deepep", l.moe_dispatch_per_node);  // core 0.14's switch (N25's Megatron-Core)
  }
}

// The DeepSeek recipes train a multi-token-prediction module the plan does not count.
Bilingual mtp_off_note(const std::string& key) {
  return {fmt::format("note: multi-token prediction is off ({}=null): gpuplan's plan has no MTP module, while DeepSeek-V3 and its recipe "
                      "train one (about 11.6 billion parameters more on the last stage); to train it, set {}=1 and put an m before the "
                      "last stage's L in a custom layout, and plan for that stage's extra memory.", key, key),
          fmt::format("注意：多 token 预测已关闭（{}=null）：gpuplan 的规划不含 MTP 模块，而 DeepSeek-V3 及其配方会训练一个"
                      "（末级多约 116 亿参数）；如需训练，请设 {}=1，并在自定义分段串末级的 L 前加 m，同时为该级预留额外显存。", key, key)};
}

}  // namespace

// ---- Megatron-Bridge 0.6.0 ----

OverrideExport megatron_bridge_overrides(const ModelSpec& m, const Layout& l) {
  OverrideExport out;
  // The recipe the overrides start from (MB --recipe NAME, scripts/training/run_recipe.py l.168-171):
  // the model's own where Bridge has one whose mixed_precision and comm_overlap are
  // objects (so their fields can be set), DeepSeek-V3's for multi-latent attention
  // (its provider is the one with MLA fields, MB models/deepseek/deepseek_v3_bridge.py l.44-48),
  // else GPT-3 175B's, a literal GPTModelProvider that needs no Hugging Face download
  // (MB recipes/gpt/h100/gpt3_175b.py l.34). Every architecture field is written either way.
  if (m.mla) out.recipe = "deepseek_v3_pretrain_config";                          // recipes/deepseek/deepseek_v3.py l.26-28
  else if (m.id == "llama-3.1-70b") out.recipe = "llama31_70b_pretrain_config";   // recipes/llama/llama3.py l.70-72
  else if (m.id == "qwen3-30b-a3b") out.recipe = "qwen3_30b_a3b_pretrain_config"; // recipes/qwen/qwen3_moe.py l.23
  else out.recipe = "gpt3_175b_pretrain_config";                                  // recipes/gpt/gpt3_175b.py l.20
  Lines w;
  parallel_fields(w, "model.", m, l);
  w.set("train.micro_batch_size", l.micro_batch);
  w.set("train.global_batch_size", l.effective_global_batch());
  // dataset.seq_length is Bridge's own field, copied over dataset.sequence_length at
  // finalize (MB training/config.py l.230, l.303); validate wants it equal to model.seq_length (l.1498-1504).
  w.set("dataset.seq_length", l.seq_len);
  recompute_fields(w, "model.", l);
  // Either switch turns both on (config.py l.1940-1962); Megatron-FSDP for ZeRO-2/3,
  // with the checkpoint format it requires where the recipe saves (l.1064-1115, l.1337-1341).
  w.set_bool("ddp.use_distributed_optimizer", l.zero_stage >= 1);
  w.set_bool("optimizer.use_distributed_optimizer", l.zero_stage >= 1);
  if (l.zero_stage >= 2) {
    w.set_bool("ddp.use_megatron_fsdp", true);
    w.set("ddp.data_parallel_sharding_strategy", l.zero_stage == 2 ? "optim_grads" : "optim_grads_params");
    w.set("checkpoint.ckpt_format", "fsdp_dtensor");
  }
  // Precision as the recipe's MixedPrecisionConfig fields, whose setup copies them
  // onto model, optimizer and ddp (MB training/mixed_precision.py l.113-157): gradients
  // reduced in fp32, as the profile's grad_accum_dtype says.
  w.set_bool("mixed_precision.bf16", l.precision != Precision::kFp16);
  w.set_bool("mixed_precision.fp16", l.precision == Precision::kFp16);
  w.set_bool("mixed_precision.grad_reduce_in_fp32", true);
  if (l.precision == Precision::kFp8) {
    w.set("mixed_precision.fp8", "hybrid");
    w.set("mixed_precision.fp8_recipe", l.fp8_scaling == Fp8Scaling::kDynamic ? "tensorwise" : "delayed");
  }
  // Overlaps through the recipe's CommOverlapConfig, which resets the model's and
  // ddp's same-named switches at setup (MB training/comm_overlap.py l.397-398, l.438-451, l.617-618).
  const bool dp_overlap = static_cast<int64_t>(l.dp) * l.cp > 1 && l.dp_comm_overlap;
  w.set_bool("comm_overlap.tp_comm_overlap", l.tp_comm_overlap && l.tp > 1);
  w.set_bool("comm_overlap.overlap_grad_reduce", dp_overlap);
  w.set_bool("comm_overlap.overlap_param_gather", dp_overlap && l.zero_stage >= 1);
  if (m.moe) {
    w.set_bool("comm_overlap.overlap_moe_expert_parallel_comm", l.moe_a2a_overlap && l.ep > 1);
    w.set_bool("comm_overlap.delay_wgrad_compute", l.moe_a2a_overlap && l.ep > 1);
    dispatcher_fields(w, "model.", l, true);
  }
  w.set("model.attention_dropout", "0.0");
  w.set("model.hidden_dropout", "0.0");
  if (!m.count_only) {
    architecture_fields(w, "model.", m, l, true);
    if (m.learned_positions == 0) {
      // Llama 3's frequency scaling (MB models/llama/llama_bridge.py l.74-81: rope_scaling, rope_scaling_factor).
      w.set_bool("model.rope_scaling", m.rope_scaling == "llama3");
      if (m.rope_scaling == "llama3") w.set("model.rope_scaling_factor", fmt::format("{}", m.rope_scaling_factor > 0 ? m.rope_scaling_factor : 8.0));
    }
    if (m.mla) out.notes.push_back(mtp_off_note("model.mtp_num_layers"));
    // The recipes size the vocabulary from a 32,000-token placeholder tokenizer unless
    // told to keep the model's (MB training/setup.py l.288-294, l.697-716; recipes/common.py l.114).
    w.set_bool("tokenizer.use_tokenizer_vocab_size", false);
  }
  out.lines = std::move(w.v);
  return out;
}

namespace {

// Megatron-Core's GPTModel sizes a learned position table by max_sequence_length,
// which Bridge's provider and NeMo 2's GPTConfig set from seq_length (MC
// megatron/core/models/gpt/gpt_model.py LanguageModelEmbedding(max_sequence_length)):
// a shorter planned sequence builds fewer rows than the model has.
Reason learned_positions_gap(const ModelSpec& m, const Layout& l, const std::string& who) {
  if (m.learned_positions == 0 || m.learned_positions == l.seq_len) return {};
  return {fmt::format("{} sizes a learned position table by seq_length, so a {}-token sequence builds {} rows where the model has {}; plan "
                      "at --seq-len {}", who, l.seq_len, l.seq_len, m.learned_positions, m.learned_positions),
          fmt::format("{} 按 seq_length 决定可学习位置表的行数，序列长 {} 时只建 {} 行，而该模型有 {} 行；请以 --seq-len {} 规划", who, l.seq_len,
                      l.seq_len, m.learned_positions, m.learned_positions)};
}

}  // namespace

Reason megatron_bridge_gap(const ModelSpec& m, const Layout& l) {
  if (m.count_only) {
    return {"Megatron-Bridge builds the model from its architecture fields, and this model is described by its parameter count only",
            "Megatron-Bridge 依据结构字段构建模型，而该模型只给出了参数量"};
  }
  return learned_positions_gap(m, l, "Megatron-Bridge");
}

// ---- NeMo ----

namespace {

// NeMo 2.x: the recipe whose config class fixes what no override can set
// (activation_func is a Python callable; Llama 3.1's scaling is its class's):
// N25 nemo/collections/llm/recipes/{llama31_70b,llama31_8b,deepseek_v3,
// qwen3_30b_a3b,qwen25_72b,mixtral_8x7b}.py. Empty: none builds this model.
std::string nemo_run_recipe(const ModelSpec& m) {
  if (m.mlp != MlpKind::kGated) return "";
  if (m.mla) return "deepseek_v3";
  if (m.moe) return m.id == "mixtral-8x7b" ? "mixtral_8x7b" : "qwen3_30b_a3b";
  if (m.rope_scaling == "llama3") return m.id == "llama-3.1-70b" ? "llama31_70b" : "llama31_8b";
  if (m.rope_scaling.empty() && m.learned_positions == 0) return "qwen25_72b";
  return "";
}

// NeMo 2 is released as 2.x ("2.5.0"); the earlier container-dated entries
// ("24.07") run NeMo 1's YAML path, as the profile's 24.07 source says.
bool nemo_hydra(const FrameworkProfile& runner) { return runner.version.rfind("2.", 0) != 0; }

OverrideExport nemo_run_overrides(const ModelSpec& m, const Layout& l) {
  OverrideExport out;
  out.recipe = nemo_run_recipe(m);
  Lines w;
  parallel_fields(w, "trainer.strategy.", m, l);
  // Batch and length through the data module; the model's own seq_length beside it (N25 gpt/data/mock.py l.54-70, gpt/model/base.py l.298).
  w.set("data.micro_batch_size", l.micro_batch);
  w.set("data.global_batch_size", l.effective_global_batch());
  w.set("data.seq_length", l.seq_len);
  recompute_fields(w, "model.config.", l);
  w.set_bool("optim.config.use_distributed_optimizer", l.zero_stage >= 1);  // the strategy copies it into its DDP config (megatron_strategy.py l.459-461)
  if (l.zero_stage >= 2) {
    w.set("trainer.strategy.fsdp", "megatron");  // Megatron-FSDP (megatron_strategy.py l.375-384)
    w.set("trainer.strategy.ddp.data_parallel_sharding_strategy", l.zero_stage == 2 ? "optim_grads" : "optim_grads_params");
  }
  // Precision plugin fields (N25 nemo/lightning/pytorch/plugins/mixed_precision.py l.99-127); gradients reduced in fp32 (the profile's grad_accum_dtype).
  w.set("trainer.plugins.precision", l.precision == Precision::kFp16 ? "16-mixed" : "bf16-mixed");
  w.set_bool("trainer.plugins.grad_reduce_in_fp32", true);
  if (l.precision == Precision::kFp8) {
    w.set("trainer.plugins.fp8", "hybrid");
    w.set("trainer.plugins.fp8_recipe", l.fp8_scaling == Fp8Scaling::kDynamic ? "tensorwise" : "delayed");
  }
  const bool dp_overlap = static_cast<int64_t>(l.dp) * l.cp > 1 && l.dp_comm_overlap;
  w.set_bool("trainer.strategy.ddp.overlap_grad_reduce", dp_overlap);
  w.set_bool("trainer.strategy.ddp.overlap_param_gather", dp_overlap && l.zero_stage >= 1);
  if (m.moe) {
    w.set_bool("model.config.overlap_moe_expert_parallel_comm", l.moe_a2a_overlap && l.ep > 1);
    dispatcher_fields(w, "model.config.", l, false);
  }
  w.set("model.config.attention_dropout", "0.0");
  w.set("model.config.hidden_dropout", "0.0");
  if (!m.count_only) {
    architecture_fields(w, "model.config.", m, l, false);
    if (m.mla) out.notes.push_back(mtp_off_note("model.config.mtp_num_layers"));
    if (m.rope_scaling == "llama3") w.set("model.config.scale_factor", fmt::format("{}", m.rope_scaling_factor > 0 ? m.rope_scaling_factor : 8.0));
  }
  if (l.tp_comm_overlap && l.tp > 1) {
    out.notes.push_back({"note: NeMo 2 switches TP communication overlap on with the MegatronCommOverlapCallback a recipe adds under "
                         "performance_mode=True (no single override sets it); the plan counted it overlapped.",
                         "注意：NeMo 2 通过 MegatronCommOverlapCallback 开启 TP 通信重叠，该回调只在配方的 performance_mode=True 下加入"
                         "（没有单个覆盖项可设）；规划按重叠计算。"});
  }
  out.lines = std::move(w.v);
  return out;
}

// NeMo 24.07: megatron_gpt_config.yaml's keys (N24 examples/nlp/language_modeling/conf);
// a key its YAML lacks but its code reads goes with "+" (Hydra struct mode).
OverrideExport nemo_hydra_overrides(const ModelSpec& m, const Layout& l) {
  OverrideExport out;
  Lines w;
  w.set_bool("model.mcore_gpt", true);
  w.set_bool("model.transformer_engine", true);  // the TE layer spec (YAML l.221 defaults to the local one)
  w.set("model.tensor_model_parallel_size", l.tp);
  w.set("model.pipeline_model_parallel_size", l.pp);
  if (l.vp > 1) w.set("model.virtual_pipeline_model_parallel_size", l.vp);
  else w.set_null("model.virtual_pipeline_model_parallel_size");
  w.set("+model.context_parallel_size", l.cp);
  if (m.moe) w.set("model.expert_model_parallel_size", l.ep);
  w.set_bool("model.sequence_parallel", l.sequence_parallel);
  w.set("model.micro_batch_size", l.micro_batch);
  w.set("model.global_batch_size", l.effective_global_batch());
  w.set("model.encoder_seq_length", l.seq_len);
  w.set("model.max_position_embeddings", m.learned_positions > 0 ? std::max(m.learned_positions, l.seq_len) : l.seq_len);
  // Recompute (megatron_base_model.py l.527-549 maps these onto Megatron-Core's).
  if (l.recompute == Recompute::kFull) {
    w.set("model.activations_checkpoint_granularity", "full");
    w.set("model.activations_checkpoint_method", "uniform");
    w.set("model.activations_checkpoint_num_layers", 1);
  } else if (l.recompute == Recompute::kSelective) {
    w.set("model.activations_checkpoint_granularity", "selective");
  } else {
    w.set_null("model.activations_checkpoint_granularity");
  }
  // ZeRO-1: Apex's DistributedFusedAdam (YAML l.300; the launcher's LLM configs); ZeRO-2/3: torch FSDP (YAML l.171-172).
  if (l.zero_stage >= 2) {
    w.set_bool("model.fsdp", true);
    w.set("model.fsdp_sharding_strategy", l.zero_stage == 2 ? "grad" : "full");
    w.set("model.optim.name", "fused_adam");
  } else {
    w.set("model.optim.name", l.zero_stage == 1 ? "distributed_fused_adam" : "fused_adam");
  }
  const bool dp_overlap = static_cast<int64_t>(l.dp) * l.cp > 1 && l.dp_comm_overlap && l.zero_stage == 1;
  if (dp_overlap) {
    w.set_bool("+model.optim.overlap_grad_sync", true);  // megatron_gpt_model.py l.535, l.668-675
    w.set_bool("+model.optim.overlap_param_sync", true);
  }
  w.set("trainer.precision", l.precision == Precision::kFp16 ? "16-mixed" : "bf16-mixed");
  w.set_bool("model.megatron_amp_O2", true);
  if (l.precision == Precision::kFp8) {
    w.set_bool("model.fp8", true);
    w.set_bool("model.fp8_hybrid", true);
  }
  w.set_bool("model.ub_tp_comm_overlap", l.tp_comm_overlap && l.tp > 1);
  w.set("model.hidden_dropout", "0.0");
  w.set("model.attention_dropout", "0.0");
  if (!m.count_only) {
    w.set("model.num_layers", m.layers);
    w.set("model.hidden_size", m.hidden);
    w.set("model.ffn_hidden_size", m.moe && m.is_moe_layer(0) ? m.moe->expert_intermediate : m.intermediate);
    w.set("model.num_attention_heads", m.heads);
    w.set("model.num_query_groups", m.kv_heads);
    w.set("model.kv_channels", m.head_dim > 0 ? m.head_dim : m.hidden / m.heads);
    w.set("model.activation", m.mlp == MlpKind::kGated ? "fast-swiglu" : "gelu");  // YAML l.107
    w.set("model.normalization", m.norm == NormKind::kRms ? "rmsnorm" : "layernorm");
    w.set_bool("model.bias", m.out_bias || m.mlp_bias);
    if (m.qkv_bias && !m.out_bias && !m.mlp_bias) w.set_bool("+model.qkv_bias", true);
    if (m.qk_norm) w.set_bool("+model.qk_layernorm", true);
    w.set_bool("model.share_embeddings_and_output_weights", m.tied_embeddings);
    w.set("model.position_embedding_type", m.learned_positions > 0 ? "learned_absolute" : "rope");
    if (m.learned_positions == 0 && m.rope_theta > 0) w.set("+model.rotary_base", static_cast<int64_t>(m.rope_theta));
    const MegatronVocab vocab = megatron_vocab(m, l);
    w.set("model.make_vocab_size_divisible_by", vocab.divisible_by);
    w.set("+model.override_vocab_size", vocab.padded);  // used as is (megatron_gpt_model.py l.434)
    if (m.moe) {
      w.set("+model.num_moe_experts", m.moe->routed_experts);
      w.set("+model.moe_router_topk", m.moe->experts_per_token);
      w.set("+model.moe_token_dispatcher_type", "alltoall");
      w.set_bool("+model.moe_grouped_gemm", true);
    }
  }
  out.lines = std::move(w.v);
  return out;
}

}  // namespace

OverrideExport nemo_overrides(const ModelSpec& m, const Layout& l, const FrameworkProfile& runner) {
  return nemo_hydra(runner) ? nemo_hydra_overrides(m, l) : nemo_run_overrides(m, l);
}

Reason nemo_gap(const ModelSpec& m, const Layout& l, const FrameworkProfile& runner) {
  const std::string who = runner.label();
  auto both = [](std::string en, std::string zh) { return Reason{std::move(en), std::move(zh)}; };
  if (m.count_only) return both("NeMo builds the model from its architecture keys, and this model is described by its parameter count only",
                                "NeMo 依据结构配置构建模型，而该模型只给出了参数量");
  if (!nemo_hydra(runner)) {
    if (const Reason r = learned_positions_gap(m, l, who); !r.empty()) return r;
    if (nemo_run_recipe(m).empty()) {
      return both(fmt::format("{}'s recipes gpuplan has read build gated (SwiGLU) models with RoPE, and a model's activation is its config "
                              "class's callable, which no override sets", who),
                  fmt::format("gpuplan 读过的 {} 配方只构建带 RoPE 的门控（SwiGLU）模型，而模型的激活函数是配置类里的可调用对象，无法用覆盖项设置", who));
    }
    return {};
  }
  // NeMo 24.07 runs Megatron-Core 0.8.0rc0 (N24 Dockerfile ARG MCORE_TAG=338af514).
  std::vector<std::string> missing, missing_zh;
  if (m.mla) { missing.push_back("multi-latent attention"); missing_zh.push_back("多头潜在注意力"); }
  if (m.rope_scaling == "llama3") {
    // The launcher's scale_positional_embedding is read by no code at r2.0.0rc1 (git grep), and core 0.8 has no rope scaling.
    missing.push_back("Llama 3's RoPE frequency scaling"); missing_zh.push_back("Llama 3 的 RoPE 频率缩放");
  } else if (!m.rope_scaling.empty()) {
    missing.push_back(m.rope_scaling + " RoPE scaling"); missing_zh.push_back(m.rope_scaling + " RoPE 缩放");
  }
  if (m.moe && (m.moe->shared_intermediate > 0 || m.moe->first_dense_layers > 0 || m.moe->layer_frequency > 1 || m.moe->router_sigmoid ||
                m.moe->router_bias || m.moe->router_groups > 1 || m.moe->routed_scaling_factor != 1.0)) {
    missing.push_back("DeepSeek-style MoE (shared experts, dense layers among MoE ones, sigmoid or group-limited routing)");
    missing_zh.push_back("DeepSeek 式 MoE（共享专家、MoE 之间的稠密层、sigmoid 或分组受限路由）");
  }
  if (l.pp > 1 && m.layers % l.pp != 0) {
    missing.push_back(fmt::format("an uneven split of {} layers over {} stages (megatron_gpt_model.py l.2041-2045)", m.layers, l.pp));
    missing_zh.push_back(fmt::format("{} 层在 {} 级上的不均匀切分（megatron_gpt_model.py l.2041-2045）", m.layers, l.pp));
  }
  if (m.moe && l.expert_tp() != l.tp) { missing.push_back("an expert TP of its own"); missing_zh.push_back("独立的专家 TP"); }
  if (m.moe && (l.moe_dispatch_per_node || l.moe_a2a_overlap)) {
    missing.push_back("DeepEP dispatch and all-to-all overlap"); missing_zh.push_back("DeepEP 分发与 all-to-all 重叠");
  }
  if (missing.empty()) return {};
  const std::string what = join(missing, ", ", " or "), what_zh = join(missing_zh, "、");
  return both(fmt::format("{} (NeMo 1 on Megatron-Core 0.8) has no {} (NeMo 2.5.0 has)", who, what),
              fmt::format("{}（NeMo 1，Megatron-Core 0.8）不支持{}（NeMo 2.5.0 支持）", who, what_zh));
}

Reason overrides_unknown(const OverrideExport& e, const FrameworkProfile& runner) {
  const bool bridge = runner.id == "megatron-bridge";
  const LaunchReader* reader = launch_reader(bridge ? kBridgeKeys : kNemoKeys, "keys", runner.version);
  if (!reader) return {};
  std::vector<std::string> used;
  std::vector<std::string> bad_plus;
  const auto recipe = reader->groups.find(e.recipe);
  for (const OverrideLine& o : e.lines) {
    if (o.key.rfind('+', 0) == 0) {
      // NeMo 24.07: added keys must be ones the code reads (and not already in the YAML: Hydra refuses to append to an existing key).
      const std::string key = o.key.substr(1);
      const auto plus = reader->groups.find("+");
      if (plus == reader->groups.end() || !plus->second.count(key) || reader->names.count(key)) bad_plus.push_back(o.key);
      continue;
    }
    // NeMo 2: a model.config key must be a field of the recipe's own config class.
    if (!bridge && recipe != reader->groups.end() && o.key.rfind("model.config.", 0) == 0) {
      if (!recipe->second.count(o.key)) bad_plus.push_back(o.key);
      continue;
    }
    used.push_back(o.key);
  }
  std::string list = unknown_names(*reader, used);
  for (const std::string& k : bad_plus) list += (list.empty() ? "" : ", ") + k;
  if (list.empty()) return {};
  const std::string where = e.recipe.empty() ? reader->file : fmt::format("{} with the {} recipe", reader->file, e.recipe);
  return {fmt::format("{} reads no {} ({} at {}), and its parser stops at an unknown key", runner.label(), list, where, reader->commit.substr(0, 8)),
          fmt::format("{} 不读取 {}（{}，提交 {}），其解析器遇到未知键即停止", runner.label(), list, where, reader->commit.substr(0, 8))};
}

std::string overrides_text(const OverrideExport& e) {
  std::string s;
  for (const OverrideLine& o : e.lines) s += o.key + "=" + o.value + "\n";
  return s;
}

}  // namespace gpuplan
