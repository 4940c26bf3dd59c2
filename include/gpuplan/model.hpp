// Model descriptions: what a transformer is, independent of how it is trained.
//
// A ModelSpec is built once (from a Hugging Face config.json, the built-in
// catalog, a validation case or a bare parameter count), validated there, and
// then trusted by every estimator.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>


namespace gpuplan {

enum class MlpKind { kGated, kPlain };   // gated: SwiGLU/GeGLU, 3 matrices; plain: 2 matrices
enum class NormKind { kRms, kLayer };    // RMSNorm: weight only; LayerNorm: weight and bias

// Mixture-of-experts feed-forward (Mixtral-, Qwen- and DeepSeek-style).
struct MoeSpec {
  int64_t routed_experts = 0;
  int64_t experts_per_token = 0;
  int64_t shared_experts = 0;           // always active
  int64_t expert_intermediate = 0;      // width of one routed expert
  int64_t shared_intermediate = 0;      // total width of the shared experts
  int64_t first_dense_layers = 0;       // DeepSeek's first_k_dense_replace
  int64_t layer_frequency = 1;          // every k-th layer (after the dense ones) is MoE
  // A per-expert router bias: DeepSeek-V3's e_score_correction_bias, or the bias
  // of gpt-oss's router Linear (GptOssTopKRouter.bias, modeling_gpt_oss.py).
  bool router_bias = false;
  bool shared_expert_gate = false;      // Qwen2-MoE's sigmoid gate on the shared expert
  // How the router scores experts (config.json scoring_func): softmax, or
  // DeepSeek-V3's sigmoid; its routed_scaling_factor on the chosen weights;
  // group-limited routing (n_group, topk_group: the top groups first). None
  // changes a FLOP or a byte; a launch config must carry them.
  bool router_sigmoid = false;
  double routed_scaling_factor = 1.0;
  int64_t router_groups = 0;
  int64_t router_group_topk = 0;

  bool operator==(const MoeSpec&) const = default;
};

// DeepSeek multi-head latent attention (DeepSeek-V2 paper, section 2.1).
struct MlaSpec {
  int64_t q_lora_rank = 0;  // 0: queries are projected directly (V2-Lite)
  int64_t kv_lora_rank = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t v_head_dim = 0;

  bool operator==(const MlaSpec&) const = default;
};

struct ModelSpec {
  std::string id;       // catalog id or a name derived from the file
  std::string name;     // for display
  std::string source;   // where the description came from

  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;       // == heads for MHA, 1 for MQA
  int64_t head_dim = 0;       // usually hidden / heads; Gemma and Qwen3 set it
  int64_t intermediate = 0;   // dense MLP width
  int64_t vocab = 0;
  int64_t learned_positions = 0;  // rows of a learned position table (GPT-2/3); 0 for RoPE/ALiBi
  bool tied_embeddings = false;
  // Rotary position embedding (config.json rope_theta, rope_scaling): the base,
  // and a frequency scaling by name ("llama3", "yarn", ...) with its factor.
  // They change no FLOP or byte, but the model a launch config builds.
  double rope_theta = 0;       // 0: not stated (or no RoPE)
  std::string rope_scaling;    // "" when none
  double rope_scaling_factor = 0;
  // YaRN's other terms (rope_scaling of type "yarn"; Peng et al. 2023, "YaRN:
  // Efficient Context Window Extension", arXiv:2309.00071): the context the
  // base model was trained at, the ramp's β_fast and β_slow, and DeepSeek's
  // attention-scale terms mscale and mscale_all_dim. Unset where the config
  // leaves one out.
  std::optional<int64_t> rope_original_context;
  std::optional<double> rope_beta_fast, rope_beta_slow, rope_mscale, rope_mscale_all_dim;

  MlpKind mlp = MlpKind::kGated;
  NormKind norm = NormKind::kRms;
  int64_t norms_per_layer = 2;  // Gemma 2 has 4; Falcon-7B's parallel block has 1
  bool qk_norm = false;         // Qwen3 normalises q and k per head
  bool qkv_bias = false;
  bool out_bias = false;        // attention output projection
  bool mlp_bias = false;
  bool parallel_block = false;  // attention and MLP read the same input (Falcon, GPT-J)

  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;

  // gpt-oss's attention sinks: one learned logit per query head (`sinks`, shape
  // num_attention_heads, in GptOssAttention of modeling_gpt_oss.py) joins the
  // softmax; `heads` parameters per layer and no KV cache.
  bool attention_sinks = false;
  // gpt-oss's clamped SwiGLU: the gate clamped to at most swiglu_limit and the
  // linear half to ±swiglu_limit before the activation (config.json
  // swiglu_limit; GptOssExperts in modeling_gpt_oss.py); 0 when unclamped.
  double swiglu_limit = 0;

  // The format a published checkpoint stores its layer weights in: "gptq-int4",
  // "gptq-int8", "awq-int4", "mxfp4", ... from config.json's
  // quantization_config (quant_method, bits), or from the checkpoint's name
  // (checkpoint_quant_from_name); "" for 16-bit weights. QLoRA over a GPTQ
  // checkpoint runs AutoGPTQ's dequantisation (finetune.cpp, step_time_layer.cpp).
  std::string checkpoint_quant;

  // Sliding-window (local) attention layers, from config.json's `layer_types`
  // ("sliding_attention" / "full_attention", gpt-oss and newer Gemma 3 files)
  // or Gemma 3's `sliding_window_pattern` (every p-th layer global,
  // configuration_gemma3.py). A local layer attends to the last
  // `sliding_window` tokens only, so it caches at most that many and its
  // attention core is bounded by it (modeling_gpt_oss.py / modeling_gemma3.py
  // build the mask from `sliding_window`). Parameters do not change.
  // Honoured by flops_per_token's attention core and by kv_bytes_per_token when
  // it is given a context length; the inference memory estimate still counts
  // every layer's KV over the whole context (an upper bound), see inference_memory.cpp.
  int64_t sliding_window = 0;          // tokens; 0 when no layer is local
  std::vector<bool> sliding_layers;    // per layer; empty when no layer is local

  // Llama 4 (iRoPE) and Gemma 3 4B+ ship a vision tower beside the language
  // model in the same config.json (`vision_config`); a ModelSpec describes the
  // language model only, whose keys come from `text_config`.
  bool vision_tower_ignored = false;
  // Its size as read from vision_config (a ViT: layers × (4h² + 2hf), biases
  // and norms left out); 0 where the keys are not there to read.
  double vision_tower_params = 0;
  int vision_tower_layers = 0, vision_tower_hidden = 0;

  // As the authors state it (0 if unknown); tests compare our exact count to it.
  double params_official = 0;
  double active_params_official = 0;

  // A bare parameter count ("--params 70B"): no architecture, only the 6·N rule works.
  bool count_only = false;
  double count_only_params = 0;

  // Value equality over every field (the step-time caches key on it).
  bool operator==(const ModelSpec&) const = default;
  bool is_moe() const { return moe.has_value(); }
  bool is_moe_layer(int64_t layer) const;
  bool is_sliding_layer(int64_t layer) const;
  int64_t sliding_layer_count() const;
  int64_t q_width() const { return heads * head_dim; }    // width of all query heads
  int64_t kv_width() const { return kv_heads * head_dim; }
};

// Parameter counts. "Embedding" means the token embedding, any learned
// position table and an untied LM head (the convention of Kaplan et al. 2020,
// section 2.1, and of the Qwen2.5 model cards' "non-embedding" counts).
struct ParamCounts {
  double total = 0;
  double active = 0;          // per token: routed experts counted top-k only
  double embedding = 0;
  double non_embedding = 0;   // total - embedding
  double attention = 0;       // all layers
  double mlp_dense = 0;       // all dense MLP layers
  double mlp_experts = 0;     // routed + shared experts + routers, all layers
  double norms = 0;
  double lm_head = 0;         // 0 when tied
};

ParamCounts count_params(const ModelSpec& m);

// Parameters of one layer's attention block (projections, biases, q/k norms).
double attention_params_per_layer(const ModelSpec& m);
// One norm over a vector of `width` (LayerNorm: weight and bias; RMSNorm: weight).
double norm_params(const ModelSpec& m, int64_t width);
// One dense MLP of width `width`.
double dense_mlp_params(const ModelSpec& m, int64_t width);

// The weight format a checkpoint's name announces ("Qwen-7B-Chat-Int4" →
// "gptq-int4", "...-AWQ" → "awq-int4"); "" when the name says nothing.
std::string checkpoint_quant_from_name(const std::string& name);

// A bare parameter count, for the 6·N rule.
ModelSpec model_from_param_count(double params);

// Catalog: built-in models plus aliases. `find_model` accepts an id, an alias
// or a path to a config.json (or a folder holding one); throws InputError with
// close candidates when nothing matches.
struct CatalogModel {
  ModelSpec spec;
  std::vector<std::string> aliases;
  std::string hf_repo;
  std::string notes;
};
const std::vector<CatalogModel>& model_catalog();
ModelSpec find_model(const std::string& name_or_path);
// A catalog model by id or alias only, never a file or folder (the web API,
// validation cases); nullopt when the catalog has none of that name.
std::optional<ModelSpec> find_catalog_model(const std::string& name);

// The model a command describes: exactly one of a catalog id or config.json
// path (find_model), a bare parameter count (1e3 to 1e15) and a ModelSpec the
// front end already built (the web API's pasted config.json). Throws
// InputError naming --model or --params.
ModelSpec choose_model(const std::string& name_or_path, std::optional<double> params, const std::optional<ModelSpec>& built);

}  // namespace gpuplan
