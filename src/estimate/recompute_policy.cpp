// Selective-recompute policies: which matmul outputs are saved and which are
// re-run (include/gpuplan/recompute_policy.hpp has the sources).
#include "gpuplan/recompute_policy.hpp"

#include <vector>

namespace gpuplan {

OpPolicySplit op_policy_split(const ModelSpec& m, bool moe_layer) {
  struct Mm {
    double n, k;    // output width and reduction width per token
    bool tp_split;  // output split by TP (column-parallel)
  };
  const double h = static_cast<double>(m.hidden);
  std::vector<Mm> mms;
  if (m.mla) {
    // MLA's projections in DeepSeek's order: q down/up (or q), kv down, kv up, output.
    const MlaSpec& a = *m.mla;
    const double heads = static_cast<double>(m.heads);
    const double qk = static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim);
    if (a.q_lora_rank > 0) {
      mms.push_back({static_cast<double>(a.q_lora_rank), h, false});
      mms.push_back({heads * qk, static_cast<double>(a.q_lora_rank), true});
    } else {
      mms.push_back({heads * qk, h, true});
    }
    mms.push_back({static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim), h, false});
    mms.push_back({heads * static_cast<double>(a.qk_nope_head_dim + a.v_head_dim), static_cast<double>(a.kv_lora_rank), true});
    mms.push_back({h, heads * static_cast<double>(a.v_head_dim), false});
  } else {
    const double q = static_cast<double>(m.q_width()), kv = static_cast<double>(m.kv_width());
    mms.push_back({q, h, true});   // wq
    mms.push_back({kv, h, true});  // wk
    mms.push_back({kv, h, true});  // wv
    mms.push_back({h, q, false});  // wo
  }
  auto mlp = [&](double f, double copies) {
    for (double c = 0; c < copies; ++c) {
      mms.push_back({f, h, true});                                 // w1
      if (m.mlp == MlpKind::kGated) mms.push_back({f, h, true});  // w3
      mms.push_back({h, f, false});                                // w2
    }
  };
  OpPolicySplit out;
  if (moe_layer && m.moe) {
    // Routed experts run as grouped GEMMs, not aten.mm: outside _save_list,
    // so recomputed; the router is an mm; a shared expert is a plain MLP.
    const MoeSpec& e = *m.moe;
    mms.push_back({static_cast<double>(e.routed_experts), h, false});
    const double k = static_cast<double>(e.experts_per_token), w = static_cast<double>(e.expert_intermediate);
    const double expert_flop = 2.0 * k * h * w * (m.mlp == MlpKind::kGated ? 3.0 : 2.0);
    out.recomputed_gemm_flop += expert_flop;
    out.gemm_flop += expert_flop;
    if (e.shared_intermediate > 0) mlp(static_cast<double>(e.shared_intermediate), 1);
  } else {
    mlp(static_cast<double>(m.intermediate), 1);
  }
  for (size_t i = 0; i < mms.size(); ++i) {
    const double flop = 2.0 * mms[i].n * mms[i].k;
    out.gemm_flop += flop;
    if (i % 2 == 1) {
      out.recomputed_gemm_flop += flop;  // the 2nd, 4th, ... mm
    } else if (mms[i].tp_split) {
      out.saved_tp_elems += mms[i].n;
    } else {
      out.saved_rep_elems += mms[i].n;
    }
  }
  return out;
}

double layer_policy_share(int64_t layers, int every) {
  if (layers <= 0) return 0;
  const int64_t n = every > 0 ? every : 1;
  const int64_t checkpointed = (layers + n - 1) / n;  // indices 0, n, 2n, ...
  return static_cast<double>(checkpointed) / static_cast<double>(layers);
}

}  // namespace gpuplan
