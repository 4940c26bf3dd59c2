// Reads a Hugging Face config.json into a ModelSpec.
//
// Families spell the same quantity differently (hidden_size / n_embd /
// d_model, num_key_value_heads / num_kv_heads / multi_query_group_num, ...);
// the tables below list every spelling we accept. Family conventions that the
// file does not state (biases, norm type, MLP shape) follow each family's
// modeling_<family>.py in Hugging Face transformers.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/error.hpp"
#include "model/size_limits.hpp"
#include "units/text_match.hpp"
#include "gpuplan/model.hpp"
#include "model/hf_config.hpp"

namespace gpuplan {
namespace {

using nlohmann::json;

bool is_one_of(const std::string& s, std::initializer_list<const char*> set) {
  return std::any_of(set.begin(), set.end(), [&](const char* x) { return s == x; });
}

class ConfigReader {
 public:
  ConfigReader(const json& config, std::string origin) : c_(config), origin_(std::move(origin)) {}

  // The first key present among `names`, as a positive integer.
  std::optional<int64_t> get_int(std::initializer_list<const char*> names) {
    for (const char* name : names) {
      auto it = c_.find(name);
      if (it == c_.end() || it->is_null()) continue;
      if (!it->is_number()) {
        fail(fmt::format("{} must be a number", name), fmt::format("{} 须为数字", name));
        return std::nullopt;
      }
      const double v = it->get<double>();
      if (!std::isfinite(v) || v < 0 || v > 1e12 || v != std::floor(v)) {
        fail(fmt::format("{} must be a non-negative whole number (got {})", name, it->dump()),
             fmt::format("{} 须为非负整数（输入为 {}）", name, it->dump()));
        return std::nullopt;
      }
      return static_cast<int64_t>(v);
    }
    return std::nullopt;
  }

  int64_t require_int(std::initializer_list<const char*> names) {
    const size_t bad_before = bad_.size();
    auto v = get_int(names);
    if (!v) {
      if (bad_.size() == bad_before) missing_.push_back(*names.begin());  // absent, not present and invalid
      return 0;
    }
    if (*v == 0) fail(fmt::format("{} must be positive", *names.begin()), fmt::format("{} 须为正数", *names.begin()));
    return *v;
  }

  std::optional<bool> get_bool(const char* name) {
    auto it = c_.find(name);
    if (it == c_.end() || it->is_null()) return std::nullopt;
    if (!it->is_boolean()) {
      fail(fmt::format("{} must be true or false", name), fmt::format("{} 须为 true 或 false", name));
      return std::nullopt;
    }
    return it->get<bool>();
  }

  // A positive finite number (rope_theta 500000.0); nullopt when absent or null.
  std::optional<double> get_positive(const json& from, const char* name) {
    auto it = from.find(name);
    if (it == from.end() || it->is_null()) return std::nullopt;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0 || it->get<double>() > 1e12) {
      fail(fmt::format("{} must be a positive number (got {})", name, it->dump()), fmt::format("{} 须为正数（输入为 {}）", name, it->dump()));
      return std::nullopt;
    }
    return it->get<double>();
  }
  std::optional<double> get_positive(const char* name) { return get_positive(c_, name); }
  // A finite number from 0 (YaRN's mscale_all_dim may be 0); nullopt when absent or null.
  std::optional<double> get_non_negative(const json& from, const char* name) {
    auto it = from.find(name);
    if (it == from.end() || it->is_null()) return std::nullopt;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0 || it->get<double>() > 1e12) {
      fail(fmt::format("{} must be a number from 0 (got {})", name, it->dump()), fmt::format("{} 须为不小于 0 的数（输入为 {}）", name, it->dump()));
      return std::nullopt;
    }
    return it->get<double>();
  }

  // An object-valued key (rope_scaling); nullptr when absent, null or not an object.
  const json* get_object(const char* name) const {
    auto it = c_.find(name);
    return it != c_.end() && it->is_object() ? &*it : nullptr;
  }

  std::string get_string(std::initializer_list<const char*> names) {
    for (const char* name : names) {
      auto it = c_.find(name);
      if (it != c_.end() && it->is_string()) return it->get<std::string>();
    }
    return "";
  }

  bool has(const char* name) const { return c_.contains(name) && !c_.at(name).is_null(); }

  void finish() const {
    if (!missing_.empty()) {
      std::string list;
      for (size_t i = 0; i < missing_.size(); ++i) list += (i ? ", " : "") + missing_[i];
      throw InputError("config.json", fmt::format("{} is missing {} (a model config needs each of them).",
                                                  origin_, list),
                       fmt::format("{} 缺少 {}（模型配置必须包含这些键）。", origin_, list));
    }
    if (!bad_.empty()) {
      std::string list, list_zh;
      for (size_t i = 0; i < bad_.size(); ++i) {
        list += (i ? "; " : "") + bad_[i].en;
        list_zh += (i ? "；" : "") + bad_[i].zh;
      }
      throw InputError("config.json", fmt::format("{}: {}.", origin_, list), fmt::format("{}：{}。", origin_, list_zh));
    }
  }

  void fail(const std::string& en, const std::string& zh) { bad_.push_back({en, zh}); }

 private:
  const json& c_;
  std::string origin_;
  std::vector<std::string> missing_;
  std::vector<Reason> bad_;
};

}  // namespace

namespace {

// Attention layer types: which layers attend within a sliding window.
void read_layer_types(ConfigReader& r, const json& config, const std::string& type, ModelSpec& m) {
  // Attention layer types. `layer_types` (transformers ≥ 4.53; gpt-oss, Gemma 3)
  // names each layer; Gemma 3 files older than that give `sliding_window_pattern`
  // instead: layer i is global when (i+1) % pattern == 0, default 6
  // (Gemma3TextConfig in configuration_gemma3.py). Files with only a
  // `sliding_window` (Mistral 7B v0.1, Gemma 2, Qwen2) keep every layer global
  // here, as before, so their estimates do not move.
  std::vector<bool> local;
  if (auto lt = config.find("layer_types"); lt != config.end() && !lt->is_null()) {
    if (!lt->is_array()) {
      r.fail("layer_types must be a list of attention types, one per layer", "layer_types 须为注意力类型的列表，每层一项");
    } else {
      for (const auto& t : *lt) {
        const std::string kind = t.is_string() ? t.get<std::string>() : "";
        if (kind == "sliding_attention") {
          local.push_back(true);
        } else if (kind == "full_attention" || kind == "chunked_attention") {
          // Llama 4's chunked local attention (attention_chunk_size) is counted as
          // global: an upper bound on its KV cache and attention FLOPs.
          local.push_back(false);
        } else {
          r.fail(fmt::format("layer_types has {} (gpuplan models full_attention and sliding_attention layers only; "
                             "linear-attention hybrids such as Qwen3-Next are not supported)", t.dump()),
                 fmt::format("layer_types 含有 {}（只支持 full_attention 和 sliding_attention 层；"
                             "Qwen3-Next 这类线性注意力混合结构暂不支持）", t.dump()));
          local.clear();
          break;
        }
      }
      if (!local.empty() && m.layers > 0 && static_cast<int64_t>(local.size()) != m.layers) {
        r.fail(fmt::format("layer_types lists {} layers but num_hidden_layers is {}", local.size(), m.layers),
               fmt::format("layer_types 列了 {} 层，而 num_hidden_layers 为 {}", local.size(), m.layers));
        local.clear();
      }
    }
  } else if (type == "gemma3_text") {
    const int64_t pattern = r.get_int({"sliding_window_pattern", "_sliding_window_pattern"}).value_or(6);
    if (pattern < 1) r.fail("sliding_window_pattern must be positive", "sliding_window_pattern 须为正数");
    // (A layer count beyond kMaxLayers is refused below; never build its table.)
    else for (int64_t i = 0; i < std::min(m.layers, kMaxLayers); ++i) local.push_back((i + 1) % pattern != 0);
  }
  if (std::find(local.begin(), local.end(), true) != local.end()) {
    if (auto w = r.get_int({"sliding_window"}); w && *w > 0) {
      m.sliding_window = *w;
      m.sliding_layers = local;
    } else {
      r.fail("sliding_window must be a positive number of tokens when layer_types has sliding_attention layers",
             "layer_types 含 sliding_attention 层时，sliding_window 须为正的 token 数");
    }
  }
}

// Mixture of experts: routed and shared experts, their widths and which layers they are.
void read_moe(ConfigReader& r, const std::string& type, ModelSpec& m) {
  if (auto routed = r.get_int({"n_routed_experts", "num_local_experts", "num_experts"}); routed && *routed > 1) {
    MoeSpec e;
    e.routed_experts = *routed;
    if (auto k = r.get_int({"num_experts_per_tok", "num_experts_per_token", "moe_topk"})) e.experts_per_token = *k;
    else r.fail("num_experts_per_tok is required for a mixture-of-experts model", "MoE 模型必须给出 num_experts_per_tok");
    if (auto w = r.get_int({"moe_intermediate_size"})) e.expert_intermediate = *w;
    else e.expert_intermediate = m.intermediate;  // Mixtral: intermediate_size is the expert width
    e.shared_experts = r.get_int({"n_shared_experts"}).value_or(0);
    if (auto sw = r.get_int({"shared_expert_intermediate_size"}); sw && *sw > 0) {
      e.shared_intermediate = *sw;  // Qwen2-MoE
      e.shared_experts = std::max<int64_t>(e.shared_experts, 1);
      e.shared_expert_gate = true;
    } else {
      e.shared_intermediate = e.shared_experts * e.expert_intermediate;  // DeepSeek
    }
    e.first_dense_layers = r.get_int({"first_k_dense_replace"}).value_or(0);
    e.layer_frequency = r.get_int({"moe_layer_freq", "decoder_sparse_step"}).value_or(1);
    e.router_bias = r.get_string({"topk_method"}) == "noaux_tc" || type == "gpt_oss";
    e.router_sigmoid = r.get_string({"scoring_func"}) == "sigmoid";  // DeepSeek-V3 (modeling_deepseek.py MoEGate)
    e.routed_scaling_factor = r.get_positive("routed_scaling_factor").value_or(1.0);
    e.router_groups = r.get_int({"n_group"}).value_or(0);
    e.router_group_topk = r.get_int({"topk_group"}).value_or(0);
    if (type == "llama4_text") {
      // modeling_llama4.py: Llama4TextMoe = routed experts of width
      // intermediate_size, a router Linear(h, E, bias=False) and one always-on
      // shared_expert Llama4TextMLP of the same width (no gate). MoE layers are
      // every interleave_moe_layer_step-th (config.moe_layers = range(step-1, L,
      // step), Llama4TextConfig); the others are dense MLPs of width
      // intermediate_size_mlp. Counts do not depend on which layers they are.
      e.shared_experts = 1;
      e.shared_intermediate = e.expert_intermediate;
      e.layer_frequency = r.get_int({"interleave_moe_layer_step"}).value_or(1);
      if (e.layer_frequency < 1) r.fail("interleave_moe_layer_step must be positive", "interleave_moe_layer_step 须为正数");
      if (auto mlp = r.get_int({"intermediate_size_mlp"})) m.intermediate = *mlp;
      else if (e.layer_frequency > 1) r.require_int({"intermediate_size_mlp"});
    }
    if (e.experts_per_token > e.routed_experts) {
      r.fail(fmt::format("num_experts_per_tok ({}) cannot exceed the number of experts ({})", e.experts_per_token, e.routed_experts),
             fmt::format("num_experts_per_tok（{}）不能超过专家数（{}）", e.experts_per_token, e.routed_experts));
    }
    if (e.expert_intermediate <= 0) r.fail("moe_intermediate_size must be positive", "moe_intermediate_size 须为正数");
    m.moe = e;
  }
}

// The shape's consistency, and sizes beyond any real model (size_limits.hpp):
// each a reason the reader reports at finish().
void check_shape(ConfigReader& r, const ModelSpec& m) {
  if (m.intermediate <= 0 && !(m.moe && m.moe->first_dense_layers == 0)) {
    r.require_int({"intermediate_size"});
  }
  if (m.heads > 0 && m.kv_heads > 0 && m.heads % m.kv_heads != 0) {
    r.fail(fmt::format("num_attention_heads ({}) must be a multiple of num_key_value_heads ({})", m.heads, m.kv_heads),
           fmt::format("num_attention_heads（{}）须为 num_key_value_heads（{}）的整数倍", m.heads, m.kv_heads));
  }
  if (m.hidden > 0 && m.heads > m.hidden) r.fail("num_attention_heads cannot exceed hidden_size", "num_attention_heads 不能超过 hidden_size");
  // Sizes beyond any real model (size_limits.hpp): refused with the limit named,
  // so that no pasted config can make a request's work unbounded.
  auto at_most = [&](const char* key, int64_t v, int64_t limit, const char* why, const char* why_zh) {
    if (v > limit) {
      r.fail(fmt::format("{} {} exceeds gpuplan's limit of {} ({})", key, v, limit, why),
             fmt::format("{} {} 超过了上限 {}（{}）", key, v, limit, why_zh));
    }
  };
  at_most("num_hidden_layers", m.layers, kMaxLayers, "the deepest real models have 126 layers, the deepest published Transformer 1,000",
          "现有最深的模型是 126 层，已发表的最深 Transformer 是 1,000 层");
  at_most("hidden_size", m.hidden, kMaxHidden, "the widest real model has 20,480", "现有最宽的模型是 20,480");
  at_most("intermediate_size", m.intermediate, kMaxIntermediate, "the widest real FFN has 73,728", "现有最宽的前馈层是 73,728");
  at_most("num_attention_heads", m.heads, kMaxHeads, "real models have at most 128", "现有模型最多 128 个头");
  at_most("vocab_size", m.vocab, kMaxVocab, "the largest real vocabulary has 262,208 tokens", "现有最大的词表是 262,208 个 token");
  if (m.moe) {
    at_most("n_routed_experts", m.moe->routed_experts, kMaxExperts, "real models have at most 384", "现有模型最多 384 个专家");
    at_most("moe_intermediate_size", m.moe->expert_intermediate, kMaxIntermediate, "the widest real FFN has 73,728", "现有最宽的前馈层是 73,728");
  }
  if (m.head_dim <= 0 && m.heads > 0 && m.hidden > 0) r.fail("head_dim must be positive", "head_dim 须为正数");  // (hidden 0: already reported)
}

// One flat (text-model) config: the keys model_from_hf_config reads.
ModelSpec model_from_flat_config(const json& config, const std::string& origin) {
  ConfigReader r(config, origin);
  ModelSpec m;
  m.source = origin;
  const std::string type = r.get_string({"model_type"});
  const std::string act = r.get_string({"hidden_act", "hidden_activation", "activation_function"});
  m.name = r.get_string({"name", "_name_or_path"});

  m.hidden = r.require_int({"hidden_size", "n_embd", "d_model", "dim"});
  m.layers = r.require_int({"num_hidden_layers", "n_layer", "num_layers", "n_layers"});
  m.heads = r.require_int({"num_attention_heads", "n_head", "num_heads", "n_heads"});
  // ChatGLM stores the padded vocabulary the embedding really has beside vocab_size.
  if (auto padded = r.get_int({"padded_vocab_size"})) m.vocab = *padded;
  else m.vocab = r.require_int({"vocab_size", "n_vocab"});

  // GPT-2-shaped families ship no "intermediate" key and use 4h.
  const bool gpt_style_type = is_one_of(type, {"gpt2", "gpt_neox", "gptj", "opt", "bloom", "falcon", "mpt", "phi"});
  const bool gpt_style = gpt_style_type || (type.empty() && (act == "gelu" || act == "gelu_new" || act == "relu"));

  // K/V heads: MQA (Shazeer 2019) and GQA (Ainslie et al. 2023) spellings.
  if (auto kv = r.get_int({"num_key_value_heads", "num_kv_heads", "n_head_kv"})) {
    m.kv_heads = *kv;
  } else if (r.get_bool("multi_query_attention").value_or(false)) {
    m.kv_heads = r.get_int({"multi_query_group_num"}).value_or(1);  // ChatGLM
  } else if (r.get_bool("multi_query").value_or(false)) {
    m.kv_heads = 1;  // Falcon-7B
  } else {
    m.kv_heads = m.heads;
  }
  if (m.kv_heads == 0) m.kv_heads = m.heads;

  if (auto hd = r.get_int({"head_dim", "kv_channels"})) m.head_dim = *hd;
  else if (m.heads > 0) m.head_dim = m.hidden / m.heads;

  if (auto ffn = r.get_int({"intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim", "ff_intermediate_size"})) {
    m.intermediate = *ffn;
  } else if (gpt_style) {
    m.intermediate = 4 * m.hidden;
  }

  // MLP shape: by family, else by activation (silu/swiglu = gated).
  std::string mlp_override;
  if (config.contains("gpuplan") && config["gpuplan"].is_object()) {
    mlp_override = config["gpuplan"].value("mlp", "");
  }
  if (mlp_override == "gated") m.mlp = MlpKind::kGated;
  else if (mlp_override == "plain") m.mlp = MlpKind::kPlain;
  else if (gpt_style_type) m.mlp = MlpKind::kPlain;
  else if (!type.empty()) m.mlp = MlpKind::kGated;  // Llama-era families
  else m.mlp = (act == "silu" || act == "swiglu" || act == "swish") ? MlpKind::kGated : MlpKind::kPlain;

  // Norm type and biases.
  const bool layernorm_family = is_one_of(type, {"gpt2", "gpt_neox", "gptj", "opt", "bloom", "falcon", "phi", "phi3small"}) ||
                                (type.empty() && m.mlp == MlpKind::kPlain);
  m.norm = layernorm_family ? NormKind::kLayer : NormKind::kRms;
  if (is_one_of(type, {"gpt2", "gpt_neox", "gptj", "opt", "bloom", "phi"}) || (type.empty() && m.mlp == MlpKind::kPlain)) {
    m.qkv_bias = m.out_bias = m.mlp_bias = true;  // GPT-2/3 linear layers carry biases
  }
  if (type == "falcon" || type == "internlm2") {
    const bool b = r.get_bool("bias").value_or(false);
    m.qkv_bias = m.out_bias = m.mlp_bias = b;
  }
  if (is_one_of(type, {"qwen2", "qwen2_moe"})) m.qkv_bias = true;  // Qwen2 q/k/v carry biases, o does not
  if (r.get_bool("add_qkv_bias").value_or(false)) m.qkv_bias = true;  // ChatGLM
  if (auto b = r.get_bool("add_bias_linear")) m.out_bias = m.mlp_bias = *b;
  if (auto b = r.get_bool("attention_bias")) m.qkv_bias = m.out_bias = *b;
  if (auto b = r.get_bool("mlp_bias")) m.mlp_bias = *b;
  if (type == "phi3small") {
    // Phi-3-small's fused query_key_value and dense layers, and its MLP, carry biases
    // (modeling_phi3_small.py).
    m.qkv_bias = m.out_bias = m.mlp_bias = true;
  }
  // Qwen3 and Gemma 3 normalise each head's q and k with a weighted RMSNorm of
  // head_dim (q_norm/k_norm in modeling_qwen3.py, modeling_gemma3.py). Llama 4's
  // use_qk_norm is an L2 norm without weights (Llama4TextL2Norm): no parameters.
  m.qk_norm = is_one_of(type, {"qwen3", "qwen3_moe", "olmo2", "gemma3_text"});
  if (type == "gpt_oss") {
    // modeling_gpt_oss.py: GptOssExperts carries gate_up_proj_bias (E, 2I) and
    // down_proj_bias (E, h), i.e. the gated MLP's biases per expert; the
    // attention has a learned sink logit per head (GptOssAttention.sinks).
    m.mlp_bias = true;
    m.attention_sinks = true;
    m.swiglu_limit = r.get_positive("swiglu_limit").value_or(0);
  }

  // Norms per layer.
  m.parallel_block = r.get_bool("parallel_attn").value_or(false) || type == "gptj" || type == "phi";
  if (type == "gemma2" || type == "gemma3_text") m.norms_per_layer = 4;
  else if (m.parallel_block && !r.get_bool("new_decoder_architecture").value_or(false)) m.norms_per_layer = 1;
  else m.norms_per_layer = 2;

  // RoPE base and scaling (transformers' rope_theta and rope_scaling: rope_type,
  // or the older key type, and factor), for the launch configs.
  m.rope_theta = r.get_positive("rope_theta").value_or(0);
  if (const json* scaling = r.get_object("rope_scaling")) {
    for (const char* key : {"rope_type", "type"}) {
      auto it = scaling->find(key);
      if (it != scaling->end() && it->is_string() && it->get<std::string>() != "default") {
        m.rope_scaling = it->get<std::string>().substr(0, 32);
        break;
      }
    }
    if (!m.rope_scaling.empty()) m.rope_scaling_factor = r.get_positive(*scaling, "factor").value_or(0);
    if (m.rope_scaling == "yarn") {
      if (auto v = r.get_positive(*scaling, "original_max_position_embeddings")) m.rope_original_context = static_cast<int64_t>(std::llround(*v));
      m.rope_beta_fast = r.get_positive(*scaling, "beta_fast");
      m.rope_beta_slow = r.get_positive(*scaling, "beta_slow");
      m.rope_mscale = r.get_non_negative(*scaling, "mscale");
      m.rope_mscale_all_dim = r.get_non_negative(*scaling, "mscale_all_dim");
    }
  }
  // The published checkpoint's weight format: transformers' quantization_config
  // (quant_method "gptq"/"awq" with bits, "mxfp4", "fp8", ...), or, for a
  // file that does not carry it, the checkpoint's name (checkpoint_quant_from_name).
  if (const json* q = r.get_object("quantization_config")) {
    auto method = q->find("quant_method");
    if (method != q->end() && method->is_string()) {
      std::string name = method->get<std::string>().substr(0, 16);
      auto bits = q->find("bits");
      if (bits != q->end() && bits->is_number_integer() && (name == "gptq" || name == "awq")) {
        const int64_t b = bits->get<int64_t>();
        if (b == 2 || b == 3 || b == 4 || b == 8) name += fmt::format("-int{}", b);
      }
      m.checkpoint_quant = name;
    }
  }
  if (m.checkpoint_quant.empty()) m.checkpoint_quant = checkpoint_quant_from_name(m.name);

  // Learned absolute position table: GPT-2/3 (n_positions rows), OPT (+2 offset rows).
  if (type == "gpt2") m.learned_positions = r.get_int({"n_positions", "max_position_embeddings"}).value_or(0);
  if (type == "opt") m.learned_positions = r.get_int({"max_position_embeddings"}).value_or(0) + 2;

  // Tied embeddings: HF's PretrainedConfig default is true, but most modern
  // families override it to false; when the file is silent use the family's default.
  if (auto tied = r.get_bool("tie_word_embeddings")) m.tied_embeddings = *tied;
  else m.tied_embeddings = is_one_of(type, {"gpt2", "opt", "bloom", "falcon", "gemma", "gemma2", "gemma3_text", "gptj"});

  read_layer_types(r, config, type, m);

  read_moe(r, type, m);

  // Multi-head latent attention.
  if (r.has("kv_lora_rank")) {
    MlaSpec a;
    a.q_lora_rank = r.get_int({"q_lora_rank"}).value_or(0);
    a.kv_lora_rank = r.require_int({"kv_lora_rank"});
    a.qk_rope_head_dim = r.require_int({"qk_rope_head_dim"});
    a.qk_nope_head_dim = r.require_int({"qk_nope_head_dim"});
    a.v_head_dim = r.require_int({"v_head_dim"});
    m.mla = a;
    m.kv_heads = m.heads;
    m.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
  }

  check_shape(r, m);
  r.finish();

  if (m.name.empty()) m.name = origin;
  m.id = m.name;
  return m;
}

// Gemma3TextConfig's defaults (configuration_gemma3.py) for the keys Gemma 3
// files leave out: google/gemma-3-4b-it's text_config states only hidden_size,
// intermediate_size, num_hidden_layers, rope_scaling and sliding_window.
json with_gemma3_defaults(const json& config) {
  json c = config;
  const std::pair<const char*, json> defaults[] = {
      {"vocab_size", 262208}, {"num_attention_heads", 8}, {"num_key_value_heads", 4},
      {"head_dim", 256},      {"sliding_window", 4096},   {"tie_word_embeddings", true}};
  for (const auto& [key, value] : defaults) {
    if (!c.contains(key) || c[key].is_null()) c[key] = value;
  }
  return c;
}

}  // namespace

ModelSpec model_from_hf_config(const json& config, const std::string& origin) {
  if (!config.is_object()) {
    throw InputError("config.json", fmt::format("{} must hold a JSON object with the model's Hugging Face config keys.", origin),
                     fmt::format("{} 须为 JSON 对象，包含模型的 Hugging Face 配置键。", origin));
  }
  // Multimodal configs (Llama 4, Gemma 3 4B+, Llava-style) nest the language
  // model under text_config and the vision tower under vision_config; the LM is
  // what we plan, so its keys come from text_config (the vision tower's weights,
  // activations and FLOPs are not modelled). Keys the wrapper states for the
  // whole model and the text config leaves out (Llama4Config's
  // tie_word_embeddings, our "gpuplan" block) are carried down.
  if (auto it = config.find("text_config"); it != config.end() && !it->is_null()) {
    if (!it->is_object()) {
      throw InputError("config.json", fmt::format("{}: text_config must be an object holding the language model's keys.", origin),
                       fmt::format("{}：text_config 须为对象，包含语言模型的配置键。", origin));
    }
    json text = *it;
    for (const char* key : {"tie_word_embeddings", "gpuplan", "name", "_name_or_path"}) {
      if ((!text.contains(key) || text[key].is_null()) && config.contains(key)) text[key] = config[key];
    }
    ModelSpec m = model_from_hf_config(text, origin);
    m.vision_tower_ignored = config.contains("vision_config") && !config["vision_config"].is_null();
    if (m.vision_tower_ignored && config["vision_config"].is_object()) {
      // A ViT block: Q, K, V and output projections (4h²) and a 2-matrix MLP
      // (2hf) per layer (CLIP, SigLIP, Qwen2-VL's `depth` / `embed_dim` keys).
      const json& v = config["vision_config"];
      auto num = [&](std::initializer_list<const char*> keys) -> double {
        for (const char* k : keys) {
          if (auto it = v.find(k); it != v.end() && it->is_number() && it->get<double>() > 0 && it->get<double>() < 1e6) return it->get<double>();
        }
        return 0;
      };
      const double layers = num({"num_hidden_layers", "depth"}), h = num({"hidden_size", "embed_dim"});
      const double f = num({"intermediate_size"}) > 0 ? num({"intermediate_size"}) : h * num({"mlp_ratio"});
      if (layers > 0 && h > 0 && f > 0) {
        m.vision_tower_layers = static_cast<int>(layers);
        m.vision_tower_hidden = static_cast<int>(h);
        m.vision_tower_params = layers * (4 * h * h + 2 * h * f);
      }
    }
    return m;
  }
  auto type = config.find("model_type");
  if (type != config.end() && type->is_string() && type->get<std::string>() == "gemma3_text") {
    return model_from_flat_config(with_gemma3_defaults(config), origin);
  }
  return model_from_flat_config(config, origin);
}

ModelSpec model_from_param_count(double params) {
  ModelSpec m;
  m.count_only = true;
  m.count_only_params = params;
  m.id = "params";
  m.name = params >= 1e9 ? fmt::format("{:.4g}B-parameter model", params / 1e9) : fmt::format("{:.4g}-parameter model", params);
  m.source = "--params";
  return m;
}


// Checkpoints named by their publishers' conventions: Qwen publishes its
// AutoGPTQ checkpoints as <model>-Int4 / -Int8 ("We provide a solution based on
// AutoGPTQ, and release the Int4 and Int8 quantized models", QwenLM/Qwen README
// at 2df8e8a, l.418) and, from Qwen1.5 on, as -GPTQ-Int4 / -GPTQ-Int8; community
// uploads name theirs -GPTQ and -AWQ (4-bit unless the name says otherwise).
std::string checkpoint_quant_from_name(const std::string& name) {
  const std::string n = normalize_name(name);
  auto ends = [&](const char* tail) {
    const std::string t(tail);
    return n.size() >= t.size() && n.compare(n.size() - t.size(), t.size(), t) == 0;
  };
  const bool awq = n.find("-awq") != std::string::npos;
  const bool int8 = ends("-int8");
  if (awq) return "awq-int4";
  if (n.find("-gptq") != std::string::npos || ends("-int4") || int8) return int8 ? "gptq-int8" : "gptq-int4";
  return "";
}

}  // namespace gpuplan
