// One layer's matrix multiplications (include/model/layer_ops.hpp). The
// shapes follow the reference implementations (Hugging Face transformers'
// modeling_<family>.py; Megatron-LM's fused QKV and gate/up projections).
#include "model/layer_ops.hpp"

namespace gpuplan {

std::array<LayerMatmul, 2> mlp_matmuls(const ModelSpec& m, int64_t width, const char* in_name, const char* out_name, double experts) {
  const double h = static_cast<double>(m.hidden);
  const double w = static_cast<double>(width);
  LayerMatmul in{in_name, 0, h, true, false, experts, {}, 1};
  // Gated linear unit (Shazeer 2020): gate and up h×w, fused; plain MLP
  // (Vaswani 2017; GPT-2/3): up h×w.
  if (m.mlp == MlpKind::kGated) {
    in.n = 2 * w;
    in.part = {w, w, 0};
    in.parts = 2;
  } else {
    in.n = w;
    in.part = {w, 0, 0};
  }
  return {in, LayerMatmul{out_name, h, w, false, true, experts, {h, 0, 0}, 1}};
}

LayerMatmuls layer_matmuls(const ModelSpec& m, bool moe_layer) {
  LayerMatmuls out;
  const double h = static_cast<double>(m.hidden);
  if (m.mla) {
    // DeepSeek-V2 (arXiv:2405.04434) eqs. 9-13, modeling_deepseek.py:
    // q_a_proj h×r_q and q_b_proj r_q×a(d_nope+d_rope) (or q_proj h×a(d_nope+d_rope)),
    // kv_a_proj_with_mqa h×(r_kv+d_rope), kv_b_proj r_kv×a(d_nope+d_v), o_proj a·d_v×h.
    const MlaSpec& a = *m.mla;
    const double heads = static_cast<double>(m.heads);
    const double qk = static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim);
    if (a.q_lora_rank > 0) {
      out.push_back(LayerMatmul{"q_down", static_cast<double>(a.q_lora_rank), h, false, false, 0, {static_cast<double>(a.q_lora_rank), 0, 0}, 1});
      out.push_back(LayerMatmul{"q_up", heads * qk, static_cast<double>(a.q_lora_rank), true, false, 0, {heads * qk, 0, 0}, 1});
    } else {
      out.push_back(LayerMatmul{"q", heads * qk, h, true, false, 0, {heads * qk, 0, 0}, 1});
    }
    const double kv_down = static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim);
    out.push_back(LayerMatmul{"kv_down", kv_down, h, false, false, 0, {kv_down, 0, 0}, 1});
    const double kv_up = heads * static_cast<double>(a.qk_nope_head_dim + a.v_head_dim);
    out.push_back(LayerMatmul{"kv_up", kv_up, static_cast<double>(a.kv_lora_rank), true, false, 0, {kv_up, 0, 0}, 1});
    out.push_back(LayerMatmul{"attn_out", h, heads * static_cast<double>(a.v_head_dim), false, true, 0, {h, 0, 0}, 1});
  } else {
    // Grouped-query attention (Ainslie et al. 2023): W_q h×(a·d), W_k and W_v
    // h×(g·d), fused as one QKV matrix; W_o (a·d)×h.
    const double q = static_cast<double>(m.q_width()), kv = static_cast<double>(m.kv_width());
    out.push_back(LayerMatmul{"qkv", q + 2 * kv, h, true, false, 0, {q, kv, kv}, 3});
    out.push_back(LayerMatmul{"attn_out", h, q, false, true, 0, {h, 0, 0}, 1});
  }
  if (moe_layer && m.moe) {
    const MoeSpec& e = *m.moe;
    // Router: a linear h×E (Fedus et al. 2021), replicated across TP.
    const double experts = static_cast<double>(e.routed_experts);
    out.push_back(LayerMatmul{"router", experts, h, false, false, 0, {experts, 0, 0}, 1});
    if (e.shared_intermediate > 0) {
      for (const auto& x : mlp_matmuls(m, e.shared_intermediate, "shared_in", "shared_out")) out.push_back(x);
    }
    for (const auto& x : mlp_matmuls(m, e.expert_intermediate, "experts_in", "experts_out", experts)) out.push_back(x);
  } else {
    for (const auto& x : mlp_matmuls(m, m.intermediate, "mlp_in", "mlp_out")) out.push_back(x);
  }
  return out;
}

}  // namespace gpuplan
