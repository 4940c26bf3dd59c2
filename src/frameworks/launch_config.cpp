#include "frameworks/launch_config.hpp"

#include "frameworks/launch_readers.hpp"
#include "units/text_match.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace gpuplan {

namespace {

// The reader of `runner`'s version, where `runner` is the stack `id` and gpuplan has its names.
const LaunchReader* reader_of(const FrameworkProfile* runner, const char* id, const char* path, const char* list) {
  if (!runner || runner->id != id) return nullptr;
  return launch_reader(path, list, runner->version);
}

// Megatron-LM's parser flags by release; torchtitan's job-config keys by version.
const LaunchReader* parser_of(const FrameworkProfile* runner) {
  return reader_of(runner, "megatron-lm", "exports/megatron-lm-arguments.json", "flags");
}
const LaunchReader* loader_of(const FrameworkProfile* runner) {
  return reader_of(runner, "torchtitan", "exports/torchtitan-config-keys.json", "keys");
}

// DeepSpeed's config keys by release (section.key; top-level keys bare), for
// DeepSpeed itself or the DeepSpeed a stack that takes its config admits
// (deepspeed_reading).
const LaunchReader* ds_reader_of(const FrameworkProfile* runner) {
  return runner ? reader_of(deepspeed_reading(*runner), "deepspeed", "exports/deepspeed-config-keys.json", "keys") : nullptr;
}

// Whether the reading parser takes `flag`; without a known parser, the newest Megatron's flags are written.
bool takes(const LaunchReader* parser, const char* flag) { return !parser || parser->names.count(flag) > 0; }

// YaRN on multi-latent attention, as Megatron-Core builds it: MLATransformerConfig
// holds the terms and multi_latent_attention.py hands them to YarnRotaryEmbedding.
// The arguments set the factor (--rotary-scaling-factor, default 1.0, which
// overrides the config's 40) and, from core 0.11, the attention scales (--mscale,
// --mscale-all-dim); β_fast 32 and β_slow 1 are the config's, with no flag. Up to
// core 0.13 the base context is the config's max_position_embeddings, which the
// arguments set from --max-position-embeddings (it must also be ≥ --seq-length:
// validate_args); from core 0.14, which also reads --rope-type, it is
// original_max_position_embeddings, 4096, with no flag for MLA (the --yarn-*
// flags of core 0.19 set the GPT path's terms). Read at core_v0.10.0 … core_v0.19.0:
// megatron/core/transformer/transformer_config.py, multi_latent_attention.py,
// megatron/training/arguments.py.
bool mla_yarn(const ModelSpec& m) { return m.mla.has_value() && m.rope_scaling == "yarn"; }
// The releases that take YaRN's base context from --max-position-embeddings (core 0.10–0.13: no --rope-type yet).
bool yarn_context_is_max_positions(const LaunchReader* parser) { return !takes(parser, "--rope-type"); }
constexpr int64_t kMegatronYarnOriginalContext = 4096;  // MLATransformerConfig.original_max_position_embeddings, core 0.14–0.19
constexpr double kMegatronYarnBetaFast = 32, kMegatronYarnBetaSlow = 1;  // MLATransformerConfig beta_fast, beta_slow, core 0.10–0.19
constexpr double kMegatronYarnMscaleCore010 = 0.707;  // MLATransformerConfig mscale and mscale_all_dim at core_v0.10.0 (no flags)

// How the layout's tokens reach their experts, one flag per line: by
// all-to-all (Megatron's default is allgather), or, where the layout
// dispatches once per node (a benchmark recipe's DeepEP), by the flex
// dispatcher with DeepEP: --moe-enable-deepep from core 0.12,
// --moe-flex-dispatcher-backend from 0.16 (data/exports/megatron-lm-arguments.json),
// which also names HybridEP where the recipe runs it.
std::string megatron_dispatcher_args(const Layout& l, const LaunchReader* parser) {
  if (l.moe_dispatch_per_node && takes(parser, "--moe-flex-dispatcher-backend")) {
    return std::string("--moe-token-dispatcher-type flex\n--moe-flex-dispatcher-backend ") + (l.moe_dispatch_hybridep ? "hybridep" : "deepep") + "\n";
  }
  if (l.moe_dispatch_per_node && takes(parser, "--moe-enable-deepep")) return "--moe-token-dispatcher-type flex\n--moe-enable-deepep\n";
  return "--moe-token-dispatcher-type alltoall\n";
}

}  // namespace

MegatronDialect megatron_dialect(const FrameworkProfile& runner) {
  return runner.id == "mindspeed-llm" ? MegatronDialect::kMindSpeedLlm : MegatronDialect::kMegatronLm;
}

MegatronVocab megatron_vocab(const ModelSpec& m, const Layout& l) {
  MegatronVocab v;
  const int64_t tp = std::max(1, l.tp);
  while (v.divisible_by > 1 && m.vocab % (v.divisible_by * tp) != 0) v.divisible_by /= 2;
  const int64_t multiple = v.divisible_by * tp;
  v.padded = (m.vocab + multiple - 1) / multiple * multiple;
  return v;
}

Reason megatron_arguments_gap(const ModelSpec& m, const Layout& l, MegatronDialect dialect, const FrameworkProfile* runner) {
  // Sharded data parallelism by release: Megatron-FSDP (--use-megatron-fsdp,
  // core 0.14) and custom FSDP (--use-custom-fsdp, core 0.12) run ZeRO-2 and
  // ZeRO-3 with any layout; before them only PyTorch FSDP2 (--use-torch-fsdp2,
  // core 0.10), full sharding alone, which validate_args refuses with pipeline
  // or expert parallelism (megatron/training/arguments.py at core_v0.10.0).
  if (dialect == MegatronDialect::kMindSpeedLlm) return mindspeed_arguments_gap(m, l);
  const LaunchReader* parser = parser_of(runner);
  if (mla_yarn(m) && runner) {
    const std::string who = runner->label();
    if (m.rope_beta_fast.value_or(kMegatronYarnBetaFast) != kMegatronYarnBetaFast ||
        m.rope_beta_slow.value_or(kMegatronYarnBetaSlow) != kMegatronYarnBetaSlow) {
      return {fmt::format("{} fixes YaRN's beta_fast and beta_slow at 32 and 1 for multi-latent attention (no flag), and the model's are {} and {}",
                          who, m.rope_beta_fast.value_or(kMegatronYarnBetaFast), m.rope_beta_slow.value_or(kMegatronYarnBetaSlow)),
              fmt::format("{} 对多头潜在注意力把 YaRN 的 beta_fast、beta_slow 固定为 32 和 1（没有参数可改），而该模型为 {} 和 {}",
                          who, m.rope_beta_fast.value_or(kMegatronYarnBetaFast), m.rope_beta_slow.value_or(kMegatronYarnBetaSlow))};
    }
    if (!takes(parser, "--mscale") && (m.rope_mscale.value_or(kMegatronYarnMscaleCore010) != kMegatronYarnMscaleCore010 ||
                                       m.rope_mscale_all_dim.value_or(kMegatronYarnMscaleCore010) != kMegatronYarnMscaleCore010)) {
      return {fmt::format("{} has no --mscale or --mscale-all-dim: YaRN's attention scales stay at its 0.707, and the model's are {} and {}", who,
                          m.rope_mscale.value_or(0), m.rope_mscale_all_dim.value_or(0)),
              fmt::format("{} 没有 --mscale 和 --mscale-all-dim：YaRN 的注意力缩放固定为 0.707，而该模型为 {} 和 {}", who,
                          m.rope_mscale.value_or(0), m.rope_mscale_all_dim.value_or(0))};
    }
    if (const std::optional<int64_t> base = m.rope_original_context) {
      if (yarn_context_is_max_positions(parser) && l.seq_len > *base) {
        return {fmt::format("{} takes YaRN's base context from --max-position-embeddings, which must also hold --seq-length: the model's base "
                            "context of {} tokens cannot be written with a {}-token sequence", who, *base, l.seq_len),
                fmt::format("{} 从 --max-position-embeddings 读取 YaRN 的原始上下文，而该值又须不小于 --seq-length：序列长 {} 时写不出该模型 {} 的原始上下文",
                            who, l.seq_len, *base)};
      }
      if (!yarn_context_is_max_positions(parser) && *base != kMegatronYarnOriginalContext) {
        return {fmt::format("{} fixes YaRN's base context for multi-latent attention at 4,096 tokens (no flag), and the model's is {}", who, *base),
                fmt::format("{} 对多头潜在注意力把 YaRN 的原始上下文固定为 4,096（没有参数可改），而该模型为 {}", who, *base)};
      }
    }
  }
  if (l.zero_stage >= 2 && !takes(parser, "--use-megatron-fsdp") && !takes(parser, "--use-custom-fsdp")) {
    if (!takes(parser, "--use-torch-fsdp2")) {
      return {fmt::format("{} has no sharded data parallelism beyond the distributed optimizer (ZeRO-1), and the layout uses ZeRO-{}", runner->label(), l.zero_stage),
              fmt::format("{} 除分布式优化器（ZeRO-1）外没有分片数据并行，而该布局用的是 ZeRO-{}", runner->label(), l.zero_stage)};
    }
    if (l.zero_stage == 2) {
      return {fmt::format("{} shards gradients only with parameters (--use-torch-fsdp2: ZeRO-3), and the layout uses ZeRO-2", runner->label()),
              fmt::format("{} 只能连同参数一起切分梯度（--use-torch-fsdp2：ZeRO-3），而该布局用的是 ZeRO-2", runner->label())};
    }
    if (l.pp > 1 || l.ep > 1) {
      return {fmt::format("{}'s --use-torch-fsdp2 runs with neither pipeline nor expert parallelism (validate_args), and the layout has pp {} × ep {}", runner->label(), l.pp, l.ep),
              fmt::format("{} 的 --use-torch-fsdp2 不能与流水线并行或专家并行同用（validate_args），而该布局为 pp {} × ep {}", runner->label(), l.pp, l.ep)};
    }
  }
  return {};
}

std::string megatron_arguments(const ModelSpec& m, const Layout& l, MegatronDialect dialect, const FrameworkProfile* runner) {
  if (dialect == MegatronDialect::kMindSpeedLlm) return mindspeed_arguments(m, l);
  const LaunchReader* parser = parser_of(runner);
  // One flag (with its value) per line and no line continuations, so the text
  // works in `$(< file)`, in `$(gpuplan ...)` and inside a bash array, the way
  // Megatron-LM's example scripts list their arguments.
  std::string a;
  auto arg = [&](const std::string& s) { a += s + "\n"; };
  arg(fmt::format("--tensor-model-parallel-size {}", l.tp));
  arg(fmt::format("--pipeline-model-parallel-size {}", l.pp));
  if (l.vp > 1 && l.pipeline_layout.empty()) {
    const int64_t chunks = static_cast<int64_t>(l.pp) * l.vp;
    // Megatron asks for the number of chunks, not their size, with
    // --decoder-first/last-pipeline-num-layers (megatron/training/arguments.py).
    const bool first_last = l.first_stage_layers || l.last_stage_layers;
    if (m.layers % chunks == 0 && !first_last) arg(fmt::format("--num-layers-per-virtual-pipeline-stage {}", m.layers / chunks));
    else arg(fmt::format("--num-virtual-stages-per-pipeline-rank {}", l.vp));
  }
  if (l.pp > 1 && !m.count_only) {
    // The split the memory and step-time models used (stage_split), in the
    // flags that make Megatron build it (megatron/training/arguments.py).
    const StageSplit split = stage_split(m, l);
    // A custom layout is passed as written; Megatron reads vp off it
    // (pipeline_parallel_layer_layout.py), so no virtual-stage flag goes with it.
    if (split.rule == StageSplitRule::kCustom) arg("--pipeline-model-parallel-layout " + l.pipeline_layout);  // unquoted: each line is split into words
    if (split.first_stage_layers) arg(fmt::format("--decoder-first-pipeline-num-layers {}", *split.first_stage_layers));
    if (split.last_stage_layers) arg(fmt::format("--decoder-last-pipeline-num-layers {}", *split.last_stage_layers));
    if (split.rule == StageSplitRule::kEmbeddingLoss) arg("--account-for-embedding-in-pipeline-split");
    if ((split.rule == StageSplitRule::kEmbeddingLoss || split.rule == StageSplitRule::kLoss)) {
      arg("--account-for-loss-in-pipeline-split");
    }
  }
  if (l.cp > 1 || takes(parser, "--context-parallel-size")) arg(fmt::format("--context-parallel-size {}", l.cp));
  if (l.ep > 1 || m.moe) arg(fmt::format("--expert-model-parallel-size {}", l.ep));
  if (m.moe && l.expert_tp() != l.tp) arg(fmt::format("--expert-tensor-parallel-size {}", l.expert_tp()));
  arg(fmt::format("--micro-batch-size {}", l.micro_batch));
  arg(fmt::format("--global-batch-size {}", l.effective_global_batch()));
  arg(fmt::format("--seq-length {}", l.seq_len));
  // A learned position table is part of the model: its rows are the model's
  // (GPT-3's 2,048 whatever the planned sequence); with RoPE the flag only
  // bounds the sequence.
  int64_t max_positions = m.learned_positions > 0 ? std::max(m.learned_positions, l.seq_len) : l.seq_len;
  // Core 0.10–0.13 read YaRN's base context off this flag (mla_yarn above).
  if (mla_yarn(m) && yarn_context_is_max_positions(parser) && m.rope_original_context) max_positions = std::max(*m.rope_original_context, l.seq_len);
  arg(fmt::format("--max-position-embeddings {}", max_positions));
  if (l.sequence_parallel) arg("--sequence-parallel");
  if (l.recompute == Recompute::kSelective) arg("--recompute-granularity selective");  // the attention core (Megatron's default module)
  if (l.recompute == Recompute::kFull) {
    arg("--recompute-granularity full");
    arg("--recompute-method uniform");
    arg("--recompute-num-layers 1");
  }
  // ZeRO-1 is Megatron's distributed optimizer. ZeRO-2/3 shard gradients (and
  // parameters) as well: Megatron-FSDP (core 0.14 on), whose sharding strategies
  // optim_grads and optim_grads_params are those two stages; before it custom
  // FSDP (core 0.12, the same strategies) or PyTorch FSDP2 (core 0.10, ZeRO-3
  // only, not with the distributed optimizer nor gradient-accumulation fusion:
  // validate_args).
  const bool fsdp2 = l.zero_stage >= 2 && !takes(parser, "--use-megatron-fsdp") && !takes(parser, "--use-custom-fsdp") && takes(parser, "--use-torch-fsdp2");
  if (l.zero_stage >= 1 && !fsdp2) arg("--use-distributed-optimizer");
  if (fsdp2) {
    arg("--use-torch-fsdp2");
    arg("--no-gradient-accumulation-fusion");
  } else if (l.zero_stage >= 2) {
    arg(takes(parser, "--use-megatron-fsdp") ? "--use-megatron-fsdp" : "--use-custom-fsdp");
    arg(fmt::format("--data-parallel-sharding-strategy {}", l.zero_stage == 2 ? "optim_grads" : "optim_grads_params"));
    arg("--no-gradient-accumulation-fusion");
    if (takes(parser, "--use-megatron-fsdp")) arg("--ckpt-format fsdp_dtensor");
  }
  // TP communication overlapped with the GEMMs (TransformerEngine userbuffers;
  // Megatron refuses it without --sequence-parallel, which the layout then has).
  if (l.tp_comm_overlap && l.tp > 1) arg("--tp-comm-overlap");
  // The MoE all-to-alls under another micro-batch's computation (combined 1F1B, core 0.14.0+).
  if (l.moe_a2a_overlap && l.ep > 1) arg("--overlap-moe-expert-parallel-comm");
  // The step-time model hides the gradient reduction behind the backward and
  // ZeRO-1's parameter all-gather behind the forward (docs/step-time.md).
  if (static_cast<int64_t>(l.dp) * l.cp > 1 && l.dp_comm_overlap) {
    arg("--overlap-grad-reduce");
    if (l.zero_stage >= 1 && !fsdp2) arg("--overlap-param-gather");
  }
  // Megatron's dropout defaults are 0.1 (--attention-dropout, --hidden-dropout,
  // megatron/training/arguments.py); the models gpuplan plans train without
  // dropout, and its memory model counts no dropout masks unless asked.
  arg("--attention-dropout 0.0");
  arg("--hidden-dropout 0.0");
  if (l.precision == Precision::kFp16) arg("--fp16");
  else arg("--bf16");
  if (l.precision == Precision::kFp8) arg("--fp8-format hybrid");
  if (!keeps_attention_scores(l)) arg("--use-flash-attn");
  if (!m.count_only) {
    arg(fmt::format("--num-layers {}", m.layers));
    arg(fmt::format("--hidden-size {}", m.hidden));
    arg(fmt::format("--ffn-hidden-size {}", m.intermediate));
    arg(fmt::format("--num-attention-heads {}", m.heads));
    if (!m.mla && m.kv_heads != m.heads) {
      arg("--group-query-attention");
      arg(fmt::format("--num-query-groups {}", m.kv_heads));
    }
    if (m.head_dim * m.heads != m.hidden && !m.mla) arg(fmt::format("--kv-channels {}", m.head_dim));
    if (m.mlp == MlpKind::kGated) arg("--swiglu");
    if (m.norm == NormKind::kRms) arg("--normalization RMSNorm");
    if (!m.tied_embeddings) arg("--untie-embeddings-and-output-weights");
    arg(fmt::format("--make-vocab-size-divisible-by {}", megatron_vocab(m, l).divisible_by));
    if (m.learned_positions == 0) {
      arg("--position-embedding-type rope");
      // The RoPE base where it is not Megatron's default 10000 (--rotary-base,
      // an int), and Llama 3.1's frequency scaling (--use-rope-scaling; factor 8
      // unless --rope-scaling-factor says otherwise). YaRN on multi-latent
      // attention (DeepSeek) is written with the MLA arguments below; on other
      // attention it is not (its flags came with core 0.19's GPT path).
      if (m.rope_theta > 0 && m.rope_theta != 10000) arg(fmt::format("--rotary-base {:.0f}", m.rope_theta));
      if (m.rope_scaling == "llama3") {
        arg("--use-rope-scaling");
        if (m.rope_scaling_factor > 0 && m.rope_scaling_factor != 8) arg(fmt::format("--rope-scaling-factor {}", m.rope_scaling_factor));
      }
    }
    if (m.qk_norm) arg("--qk-layernorm");  // Qwen3's per-head q/k RMSNorm
    // Megatron's linears carry biases unless --disable-bias-linear; the q, k, v
    // biases alone (Qwen2) are --add-qkv-bias beside it.
    if (!m.out_bias && !m.mlp_bias) arg("--disable-bias-linear");
    if (m.qkv_bias && !m.out_bias && !m.mlp_bias) arg("--add-qkv-bias");
    if (m.moe) {
      const MoeSpec& e = *m.moe;
      arg(fmt::format("--num-experts {}", e.routed_experts));
      arg(fmt::format("--moe-router-topk {}", e.experts_per_token));
      arg(fmt::format("--moe-ffn-hidden-size {}", e.expert_intermediate));
      // The step-time model runs a rank's local experts as one grouped GEMM.
      arg("--moe-grouped-gemm");
      a += megatron_dispatcher_args(l, parser);
      // The router as the model's config defines it: sigmoid scores, a scaling
      // of the chosen weights, group-limited top-k (DeepSeek-V3).
      if (e.router_sigmoid) arg("--moe-router-score-function sigmoid");
      if (e.routed_scaling_factor != 1.0) arg(fmt::format("--moe-router-topk-scaling-factor {}", e.routed_scaling_factor));
      if (e.router_groups > 1 && e.router_group_topk > 0) {
        arg(fmt::format("--moe-router-num-groups {}", e.router_groups));
        arg(fmt::format("--moe-router-group-topk {}", e.router_group_topk));
      }
      if (e.shared_intermediate > 0) arg(fmt::format("--moe-shared-expert-intermediate-size {}", e.shared_intermediate));
      if (e.shared_expert_gate) arg("--moe-shared-expert-gate");
      if (e.router_bias) arg("--moe-router-enable-expert-bias");
      // Dense layers among the MoE ones (DeepSeek's first_k_dense_replace, every
      // k-th layer): Megatron takes the per-layer pattern as a Python list
      // expression, 1 = MoE, written here run by run ("[0]*3+[1]*58"). It holds
      // no spaces, so it survives word splitting in $(< file).
      std::string pattern;
      int64_t dense = 0;
      for (int64_t i = 0; i < m.layers;) {
        const bool moe_layer = m.is_moe_layer(i);
        int64_t run = 0;
        while (i < m.layers && m.is_moe_layer(i) == moe_layer) {
          ++run;
          ++i;
        }
        if (!moe_layer) dense += run;
        pattern += fmt::format("{}[{}]*{}", pattern.empty() ? "" : "+", moe_layer ? 1 : 0, run);
      }
      if (dense > 0) arg(fmt::format("--moe-layer-freq {}", pattern));
    }
    if (m.mla) {
      // DeepSeek multi-head latent attention (Megatron's MLA arguments).
      const MlaSpec& a = *m.mla;
      arg("--multi-latent-attention");
      if (a.q_lora_rank > 0) arg(fmt::format("--q-lora-rank {}", a.q_lora_rank));
      arg(fmt::format("--kv-lora-rank {}", a.kv_lora_rank));
      arg(fmt::format("--qk-head-dim {}", a.qk_nope_head_dim));
      arg(fmt::format("--qk-pos-emb-head-dim {}", a.qk_rope_head_dim));
      arg(fmt::format("--v-head-dim {}", a.v_head_dim));
      if (mla_yarn(m)) {
        // YaRN's terms the arguments carry (mla_yarn above); yarn is MLA's
        // default rope type, named where the release reads --rope-type.
        if (takes(parser, "--rope-type")) arg("--rope-type yarn");
        if (m.rope_scaling_factor > 0) arg(fmt::format("--rotary-scaling-factor {}", m.rope_scaling_factor));
        if (takes(parser, "--mscale")) {
          if (m.rope_mscale) arg(fmt::format("--mscale {}", *m.rope_mscale));
          if (m.rope_mscale_all_dim) arg(fmt::format("--mscale-all-dim {}", *m.rope_mscale_all_dim));
        }
      }
    }
  }
  return a;
}

Reason megatron_arguments_unknown(const std::string& arguments, const FrameworkProfile& runner) {
  // Megatron-LM's own releases and MindSpeed-LLM's (Megatron core_r0.8.0's
  // parser with MindSpeed-LLM's flags, data/exports/mindspeed-llm-arguments.json).
  const LaunchReader* parser = runner.id == "mindspeed-llm" ? launch_reader("exports/mindspeed-llm-arguments.json", "flags", runner.version)
                                                            : parser_of(&runner);
  if (!parser) return {};
  std::vector<std::string> flags;
  size_t start = 0;
  while (start < arguments.size()) {
    size_t end = arguments.find('\n', start);
    if (end == std::string::npos) end = arguments.size();
    const std::string line = arguments.substr(start, end - start);
    const std::string flag = line.substr(0, line.find(' '));
    if (flag.rfind("--", 0) == 0) flags.push_back(flag);
    start = end + 1;
  }
  const std::string list = unknown_names(*parser, flags);
  if (list.empty()) return {};
  return {fmt::format("{}'s parser ({} at {}) has no {}, which the planned model or layout needs", runner.label(), parser->file,
                      parser->commit.substr(0, 8), list),
          fmt::format("{} 的参数解析器（{}，提交 {}）没有 {}，而规划的模型或布局需要它们", runner.label(), parser->file,
                      parser->commit.substr(0, 8), list)};
}

namespace {

// "0.16.4" -> {0, 16, 4}; a version that is not numeric (Megatron-DeepSpeed's "2022") is {}.
std::vector<int> version_numbers(const std::string& v) {
  std::vector<int> out;
  int n = 0;
  bool digit = false;
  for (char c : v) {
    if (c >= '0' && c <= '9') {
      n = n * 10 + (c - '0');
      digit = true;
    } else if (c == '.' && digit) {
      out.push_back(n);
      n = 0;
      digit = false;
    } else {
      return {};
    }
  }
  if (digit) out.push_back(n);
  return out;
}

// Whether f's release is v or later. A year-named snapshot ("2021") is a date,
// not release 2021: it answers no (the releases compared here came later).
bool at_least(const FrameworkProfile& f, std::vector<int> v) {
  const std::vector<int> have = version_numbers(f.version);
  if (have.size() == 1 && have[0] >= 1000) return false;
  return !have.empty() && have >= v;
}

}  // namespace

DeepSpeedConfigKeys deepspeed_config_keys(const FrameworkProfile& runner) {
  DeepSpeedConfigKeys k;
  if (runner.id != "deepspeed") {
    // Megatron-DeepSpeed sets its degrees with its own arguments; the Hugging Face
    // Trainer and the stacks on it build no AutoTP or Ulysses mesh from the file.
    // The bf16 section is read as the DeepSpeed they admit reads it.
    const LaunchReader* reader = ds_reader_of(&runner);
    k.bf16 = !reader || reader->names.count("bf16.enabled") > 0;
    return k;
  }
  // microsoft/DeepSpeed@v0.16.4 deepspeed/runtime/tensor_parallel/config.py TPTrainingConfig.autotp_size, read from
  // ds_config["tensor_parallel"] (get_tensor_parallel_config) and used by engine.py _configure_tensor_parallel_states.
  // deepspeed/__init__.py initialize(): "sequence_parallel_size" and "data_parallel_size" in the config build the
  // data × sequence-parallel mesh (first in v0.15.0, #5774 "Long sequence parallelism (Ulysses) integration with HuggingFace").
  // A "bf16" section from v0.6.0 (runtime/config.py get_bfloat16_enabled, constants.py BFLOAT16).
  // Where the version's keys are known (data/exports/deepspeed-config-keys.json) they decide; else the release number.
  if (const LaunchReader* reader = ds_reader_of(&runner)) {
    k.autotp = reader->names.count("tensor_parallel.autotp_size") > 0;
    k.sequence_parallel = reader->names.count("sequence_parallel_size") > 0;
    k.bf16 = reader->names.count("bf16.enabled") > 0;
    return k;
  }
  k.autotp = at_least(runner, {0, 16, 4});
  k.sequence_parallel = at_least(runner, {0, 15, 0});
  k.bf16 = at_least(runner, {0, 6, 0});
  return k;
}

const FrameworkProfile* deepspeed_reading(const FrameworkProfile& runner) {
  if (runner.id == "deepspeed") return &runner;
  // Stacks whose launch carries a DeepSpeed config: in its own file, beside Megatron-DeepSpeed's arguments, inline in GPT-NeoX's YAML.
  if (runner.export_format != ExportFormat::kDeepSpeed && runner.export_format != ExportFormat::kMegatronDeepSpeed &&
      runner.export_format != ExportFormat::kGptNeox) {
    return nullptr;
  }
  const std::vector<int> pin = version_numbers(runner.deepspeed_release);
  const std::string date = runner.date;
  const FrameworkProfile* best = nullptr;
  for (const auto& f : framework_catalog()) {
    if (f.id != "deepspeed") continue;
    for (const FrameworkProfile& v : f.versions) {
      // A year-named snapshot ("2021") precedes every numbered release.
      std::vector<int> have = version_numbers(v.version);
      if (have.size() == 1 && have[0] >= 1000) have = {0};
      const bool admitted = pin.empty() ? (date.empty() || v.date <= date) : have <= pin;
      if (admitted && (!best || v.date > best->date)) best = &v;
    }
  }
  return best;
}

Reason deepspeed_config_gap(const Layout& l, const FrameworkProfile& runner) {
  const DeepSpeedConfigKeys k = deepspeed_config_keys(runner);
  std::vector<std::string> missing, missing_zh;
  if (l.tp > 1 && !k.autotp) {
    missing.push_back(fmt::format("tensor parallelism (TP {})", l.tp));
    missing_zh.push_back(fmt::format("张量并行（TP {}）", l.tp));
  }
  // DeepSpeed's pipeline stages are PipelineModule(num_stages=...) in the model code (deepspeed/runtime/pipe/module.py),
  // never a config key.
  if (l.pp > 1) {
    missing.push_back(fmt::format("pipeline parallelism (PP {})", l.pp));
    missing_zh.push_back(fmt::format("流水线并行（PP {}）", l.pp));
  }
  if (l.cp > 1 && !k.sequence_parallel) {
    missing.push_back(fmt::format("context parallelism (CP {})", l.cp));
    missing_zh.push_back(fmt::format("上下文并行（CP {}）", l.cp));
  }
  if (missing.empty()) return {};
  const std::string what = join(missing, ", ", " and "), what_zh = join(missing_zh, "、");
  // microsoft/Megatron-DeepSpeed@f4157be megatron/arguments.py: --tensor-model-parallel-size, --pipeline-model-parallel-size,
  // --ds-sequence-parallel-size (Ulysses), beside DeepSpeed's --deepspeed --deepspeed_config.
  std::string args = fmt::format("--tensor-model-parallel-size {} --pipeline-model-parallel-size {}", l.tp, l.pp);
  if (l.cp > 1) args += fmt::format(" --ds-sequence-parallel-size {}", l.cp);
  return {fmt::format("a DeepSpeed config ({}) cannot express {}; Megatron-DeepSpeed takes them as its arguments ({}, "
                      "with --deepspeed --deepspeed_config FILE; --export megatron-deepspeed writes them beside the config in one script)",
                      runner.label(), what, args),
          fmt::format("DeepSpeed 配置（{}）无法表达{}；Megatron-DeepSpeed 以命令行参数接收它们（{}，"
                      "并加 --deepspeed --deepspeed_config FILE；--export megatron-deepspeed 会把它们与配置一起写成一个脚本）",
                      runner.label(), what_zh, args)};
}

nlohmann::json deepspeed_config(const Layout& l, DeepSpeedConfigKeys keys) {
  nlohmann::json j;
  // DeepSpeed's batch identity: train_batch_size = micro × accumulation × data-parallel ranks.
  j["train_batch_size"] = l.effective_global_batch();
  j["train_micro_batch_size_per_gpu"] = l.micro_batch;
  j["gradient_accumulation_steps"] = l.micro_batches();
  j["gradient_clipping"] = 1.0;
  // An fp16 plan leaves out the bf16 section a version does not read; a bf16
  // one keeps it, for deepspeed_config_unknown to refuse.
  if (keys.bf16 || l.precision != Precision::kFp16) j["bf16"] = {{"enabled", l.precision != Precision::kFp16}};
  j["fp16"] = {{"enabled", l.precision == Precision::kFp16}};
  nlohmann::json zero = {{"stage", l.zero_stage}, {"overlap_comm", true}, {"contiguous_gradients", true}};
  if (l.offload_optimizer) zero["offload_optimizer"] = {{"device", "cpu"}, {"pin_memory", true}};
  if (l.offload_params) zero["offload_param"] = {{"device", "cpu"}, {"pin_memory", true}};
  j["zero_optimization"] = zero;
  if (l.recompute != Recompute::kNone || l.offload_activations) {
    j["activation_checkpointing"] = {{"partition_activations", l.tp > 1},
                                     {"cpu_checkpointing", l.offload_activations},
                                     {"contiguous_memory_optimization", false}};
  }
  if (keys.autotp && l.tp > 1) j["tensor_parallel"] = {{"autotp_size", l.tp}};
  if (keys.sequence_parallel && l.cp > 1) {
    // Ulysses' mesh: data × sequence parallel ranks. The model's attention must still be DeepSpeed's DistributedAttention.
    j["sequence_parallel_size"] = l.cp;
    j["data_parallel_size"] = l.dp;
  }
  j["steps_per_print"] = 10;
  j["wall_clock_breakdown"] = false;
  return j;
}

Reason deepspeed_config_unknown(const nlohmann::json& config, const FrameworkProfile& runner) {
  const LaunchReader* reader = ds_reader_of(&runner);
  if (!reader || !config.is_object()) return {};
  // A key is known as itself; an object-valued key whose section the reader
  // lists (zero_optimization, its offload configs, bf16, ...) is walked key by key.
  std::vector<std::string> missing;
  auto has_section = [&](const std::string& path) {
    const auto it = reader->names.lower_bound(path + ".");
    return it != reader->names.end() && it->compare(0, path.size() + 1, path + ".") == 0;
  };
  std::function<void(const nlohmann::json&, const std::string&)> walk = [&](const nlohmann::json& j, const std::string& prefix) {
    for (const auto& [key, value] : j.items()) {
      const std::string path = prefix.empty() ? key : prefix + "." + key;
      if (value.is_object() && has_section(path)) {
        walk(value, path);
      } else if (!reader->names.count(path)) {
        missing.push_back(path);
      }
    }
  };
  walk(config, "");
  if (missing.empty()) return {};
  std::string list;
  for (const std::string& k : missing) list += (list.empty() ? "" : ", ") + k;
  // A stack that hands the file to DeepSpeed is named beside the release that reads it.
  const FrameworkProfile& ds = *deepspeed_reading(runner);
  const std::string who = &ds == &runner ? runner.label() : fmt::format("{} (the DeepSpeed {} admits)", ds.label(), runner.label());
  const std::string who_zh = &ds == &runner ? runner.label() : fmt::format("{}（{} 所用的 DeepSpeed）", ds.label(), runner.label());
  return {fmt::format("{}'s config reader ({} at {}) does not read {}: the run would keep that version's defaults there", who,
                      reader->file, reader->commit.substr(0, 8), list),
          fmt::format("{} 的配置读取器（{}，提交 {}）不读取 {}：运行时这些项会保持该版本的默认值", who_zh, reader->file,
                      reader->commit.substr(0, 8), list)};
}

const FrameworkProfile& torchtitan_toml_reader() {
  const FrameworkProfile* newest = nullptr;
  for (const auto& f : framework_catalog()) {
    if (f.id != "torchtitan") continue;
    for (const FrameworkProfile& p : f.versions) {
      const LaunchReader* t = loader_of(&p);
      if (t && t->format == "toml") newest = &p;
    }
  }
  return newest ? *newest : find_framework("torchtitan");
}

Reason torchtitan_toml_unknown(const std::string& toml, const FrameworkProfile& runner) {
  const LaunchReader* loader = loader_of(&runner);
  if (!loader) return {};
  if (loader->format != "toml") {
    return {fmt::format("{} reads Python job configs (--module/--config, {} at {}), not a TOML file", runner.label(), loader->file,
                        loader->commit.substr(0, 8)),
            fmt::format("{} 读取 Python 任务配置（--module/--config，{}，提交 {}），不读 TOML 文件", runner.label(), loader->file,
                        loader->commit.substr(0, 8))};
  }
  // "[a.b]" opens a section; "key = value" sets a.b.key; comments and blanks skip.
  std::vector<std::string> missing;
  std::string section;
  size_t start = 0;
  while (start < toml.size()) {
    size_t end = toml.find('\n', start);
    if (end == std::string::npos) end = toml.size();
    const std::string line = toml.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      section = line.substr(1, line.find(']') - 1);
      continue;
    }
    const size_t eq = line.find(" =");
    if (eq == std::string::npos) continue;
    const std::string key = section + "." + line.substr(0, eq);
    if (!loader->names.count(key) && std::find(missing.begin(), missing.end(), key) == missing.end()) missing.push_back(key);
  }
  if (missing.empty()) return {};
  std::string list;
  for (const std::string& k : missing) list += (list.empty() ? "" : ", ") + k;
  return {fmt::format("{}'s job config ({} at {}) has no {}: its loader would leave their defaults in place", runner.label(), loader->file,
                      loader->commit.substr(0, 8), list),
          fmt::format("{} 的任务配置（{}，提交 {}）没有 {}：其加载器会保留这些项的默认值", runner.label(), loader->file,
                      loader->commit.substr(0, 8), list)};
}


}  // namespace gpuplan
