// Exact parameter counts from the architecture.
//
// Each term is the shape of one weight tensor as the reference implementation
// (Hugging Face transformers' modeling_<family>.py) allocates it; the sums are
// checked against the authors' published counts in tests/model/test_param_count.cpp.
#include <string_view>

#include "model/layer_ops.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

bool ModelSpec::is_moe_layer(int64_t layer) const {
  if (!moe) return false;
  if (layer < moe->first_dense_layers) return false;
  return moe->layer_frequency <= 1 || (layer % moe->layer_frequency) == 0;
}

bool ModelSpec::is_sliding_layer(int64_t layer) const {
  return sliding_window > 0 && layer >= 0 && layer < static_cast<int64_t>(sliding_layers.size()) &&
         sliding_layers[static_cast<size_t>(layer)];
}

int64_t ModelSpec::sliding_layer_count() const {
  int64_t n = 0;
  for (int64_t layer = 0; layer < layers; ++layer) n += is_sliding_layer(layer) ? 1 : 0;
  return n;
}

double norm_params(const ModelSpec& m, int64_t width) {
  return m.norm == NormKind::kLayer ? 2.0 * width : 1.0 * width;
}

namespace {

// The matmul weights of one layer's attention block: every matrix of
// layer_matmuls before the MLP (the list is the one place their shapes live).
double attention_matmul_weights(const ModelSpec& m) {
  double w = 0;
  for (const LayerMatmul& x : layer_matmuls(m, false)) {
    const std::string_view name = x.name;
    if (name == "mlp_in" || name == "mlp_out") continue;
    w += x.weights();
  }
  return w;
}

}  // namespace

double attention_params_per_layer(const ModelSpec& m) {
  const double h = static_cast<double>(m.hidden);
  double p = attention_matmul_weights(m);
  if (m.mla) {
    // DeepSeek-V2 (arXiv:2405.04434) eqs. 9-13 and modeling_deepseek.py: the
    // projections (layer_ops.cpp) plus q_a_layernorm r_q and kv_a_layernorm r_kv.
    const MlaSpec& a = *m.mla;
    if (a.q_lora_rank > 0) p += static_cast<double>(a.q_lora_rank);
    p += static_cast<double>(a.kv_lora_rank);
    if (m.out_bias) p += h;
    return p;
  }
  // Grouped-query attention (Ainslie et al. 2023): W_q, W_k, W_v, W_o
  // (layer_ops.cpp), their biases where the family has them.
  const double q = static_cast<double>(m.q_width());
  const double kv = static_cast<double>(m.kv_width());
  if (m.qkv_bias) p += q + 2 * kv;
  if (m.out_bias) p += h;
  if (m.qk_norm) p += 2.0 * m.head_dim;  // Qwen3, Gemma 3: RMSNorm over each head's q and k
  if (m.attention_sinks) p += static_cast<double>(m.heads);  // gpt-oss: one sink logit per head
  return p;
}

double dense_mlp_params(const ModelSpec& m, int64_t width) {
  const double h = static_cast<double>(m.hidden);
  const double w = static_cast<double>(width);
  double p = 0;
  for (const LayerMatmul& x : mlp_matmuls(m, width, "mlp_in", "mlp_out")) p += x.weights();
  // Biases of the gated unit's gate and up (2w) or the plain MLP's up (w), and of the down projection (h).
  if (m.mlp_bias) p += (m.mlp == MlpKind::kGated ? 2 * w : w) + h;
  return p;
}

ParamCounts count_params(const ModelSpec& m) {
  ParamCounts c;
  if (m.count_only) {
    c.total = c.active = c.non_embedding = m.count_only_params;
    return c;
  }
  const double h = static_cast<double>(m.hidden);
  const double token_embedding = static_cast<double>(m.vocab) * h;
  const double positions = static_cast<double>(m.learned_positions) * h;
  c.lm_head = m.tied_embeddings ? 0.0 : token_embedding;
  c.embedding = token_embedding + positions + c.lm_head;

  const double attention = attention_params_per_layer(m);
  const double layer_norms = m.norms_per_layer * norm_params(m, m.hidden);
  double active_mlp = 0;
  for (int64_t layer = 0; layer < m.layers; ++layer) {
    c.attention += attention;
    c.norms += layer_norms;
    if (m.is_moe_layer(layer)) {
      const MoeSpec& e = *m.moe;
      const double one_expert = dense_mlp_params(m, e.expert_intermediate);
      const double shared = e.shared_intermediate > 0 ? dense_mlp_params(m, e.shared_intermediate) : 0;
      // Router: a linear h×E (Fedus et al. 2021), plus a per-expert bias
      // (DeepSeek-V3's correction bias, gpt-oss's router bias) and Qwen2-MoE's
      // h×1 shared-expert gate.
      const double router = h * e.routed_experts + (e.router_bias ? e.routed_experts : 0) +
                            (e.shared_expert_gate ? h : 0);
      c.mlp_experts += e.routed_experts * one_expert + shared + router;
      active_mlp += e.experts_per_token * one_expert + shared + router;
    } else {
      const double dense = dense_mlp_params(m, m.intermediate);
      c.mlp_dense += dense;
      active_mlp += dense;
    }
  }
  c.norms += norm_params(m, m.hidden);  // final norm before the LM head
  c.total = c.embedding + c.attention + c.mlp_dense + c.mlp_experts + c.norms;
  c.non_embedding = c.total - c.embedding;
  c.active = c.embedding + c.attention + c.norms + active_mlp;
  return c;
}

}  // namespace gpuplan
