// FLOPs per training token from the architecture.
//
// A matmul of an (m×k) by (k×n) matrix costs 2·m·k·n FLOP (one multiply and
// one add per term); per token each weight matrix therefore costs 2 FLOP per
// weight (Kaplan et al. 2020, section 2.1). The backward pass costs twice the
// forward (gradients with respect to inputs and to weights; Kaplan 2020,
// Narayanan et al. 2021 section 5.1). Full activation recomputation adds one
// forward of the transformer layers but not of the LM head, which gives
// Narayanan's 96·B·s·l·h²·(1 + s/6h + V/16lh) per iteration; selective
// recomputation (Korthikanti et al. 2022, section 4.2) re-runs only the
// attention core.
#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "gpuplan/error.hpp"
#include "gpuplan/flops.hpp"
#include "model/layer_ops.hpp"
#include "units/text_match.hpp"

namespace gpuplan {

const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "?";
}

namespace {

// Per-token forward FLOPs of one layer's matmuls (layer_ops.hpp): 2 per weight
// a token meets; a routed expert's weights are met by top-k of the tokens.
struct LayerLinear {
  double linear = 0;   // projections, MLPs, shared and routed experts
  double router = 0;
};
LayerLinear layer_linear_flop(const ModelSpec& m, bool moe_layer) {
  LayerLinear f;
  for (const LayerMatmul& x : layer_matmuls(m, moe_layer)) {
    const double flop = 2.0 * x.n * x.k;
    if (x.name == std::string_view("router")) f.router += flop;
    else if (x.experts > 0) f.linear += flop * static_cast<double>(m.moe->experts_per_token);
    else f.linear += flop;
  }
  return f;
}

}  // namespace

FlopsPerToken flops_per_token(const ModelSpec& m, const FlopOptions& o) {
  FlopsPerToken f;
  const ParamCounts params = count_params(m);
  f.six_n_flop = 6.0 * params.active;
  if (m.count_only) {
    // No architecture: the 6·N rule is all we can say (Kaplan 2020, eq. 2.1).
    f.exact = false;
    f.forward_flop = 2.0 * params.active;
    f.forward_linear_flop = f.forward_flop;
    f.backward_flop = 2.0 * f.forward_flop;
    f.model_flop = f.six_n_flop;
    f.recompute_flop = o.recompute == Recompute::kFull ? f.forward_flop : 0.0;
    f.hardware_flop = f.model_flop + f.recompute_flop;
    return f;
  }

  const double s = static_cast<double>(o.seq_len);
  // Keys each query attends to, on average: s in the full-matrix convention,
  // (s+1)/2 when only the causal lower triangle is counted.
  const double keys = o.causal_half ? (s + 1) / 2 : s;
  double qk_dim = static_cast<double>(m.head_dim);
  double v_dim = static_cast<double>(m.head_dim);
  if (m.mla) {
    qk_dim = static_cast<double>(m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim);
    v_dim = static_cast<double>(m.mla->v_head_dim);
  }
  // Per layer: Q·Kᵀ is 2·keys·a·d_qk per token, softmax·V is 2·keys·a·d_v.
  const double attention_core = 2.0 * keys * m.heads * (qk_dim + v_dim);
  // A sliding-window layer (ModelSpec::sliding_window, W) attends to at most W
  // keys: min(s, W) per query in the full-matrix convention; with the causal
  // triangle, queries 1..W see 1..W keys and the remaining s−W see W each.
  double local_keys = keys;
  if (m.sliding_window > 0) {
    const double w = static_cast<double>(m.sliding_window);
    if (!o.causal_half) local_keys = std::min(s, w);
    else if (s > w) local_keys = (w * (w + 1) / 2 + (s - w) * w) / s;
  }
  const double local_attention_core = 2.0 * local_keys * m.heads * (qk_dim + v_dim);
  const LayerLinear dense = layer_linear_flop(m, false);
  const LayerLinear moe = m.moe ? layer_linear_flop(m, true) : dense;

  for (int64_t layer = 0; layer < m.layers; ++layer) {
    f.forward_attention_flop += m.is_sliding_layer(layer) ? local_attention_core : attention_core;
    const LayerLinear& x = m.is_moe_layer(layer) ? moe : dense;
    f.forward_linear_flop += x.linear;
    f.forward_router_flop += x.router;
  }
  f.forward_lm_head_flop = 2.0 * static_cast<double>(m.hidden) * static_cast<double>(m.vocab);
  f.forward_flop = f.forward_linear_flop + f.forward_attention_flop + f.forward_lm_head_flop + f.forward_router_flop;
  f.backward_flop = 2.0 * f.forward_flop;
  f.model_flop = f.forward_flop + f.backward_flop;
  switch (o.recompute) {
    case Recompute::kNone: f.recompute_flop = 0; break;
    case Recompute::kSelective: f.recompute_flop = f.forward_attention_flop; break;
    case Recompute::kFull: f.recompute_flop = f.forward_flop - f.forward_lm_head_flop; break;
  }
  f.hardware_flop = f.model_flop + f.recompute_flop;
  return f;
}

}  // namespace gpuplan
