// Selective-recompute policies: which matmul outputs are saved and which are
// re-run (src/execution/recompute_policy.hpp has the sources).
#include "execution/recompute_policy.hpp"

#include <string_view>

#include "model/layer_ops.hpp"

namespace gpuplan {

OpPolicySplit op_policy_split(const ModelSpec& m, bool moe_layer) {
  // torchtitan's modules run the fused matrices of layer_matmuls as separate
  // nn.Linear (wq, wk, wv; w1, w3): one aten.mm per part, in module order.
  // Routed experts run as grouped GEMMs, not aten.mm: outside _save_list, so
  // recomputed; the router is an mm; a shared expert is a plain MLP.
  OpPolicySplit out;
  int64_t mm = 0;  // aten.mm calls so far in the block
  for (const LayerMatmul& x : layer_matmuls(m, moe_layer)) {
    if (x.experts > 0) {
      const double flop = 2.0 * x.n * x.k * static_cast<double>(m.moe->experts_per_token);
      out.recomputed_gemm_flop += flop;
      out.gemm_flop += flop;
      continue;
    }
    for (const double* it = x.parts_begin(); it != x.parts_end(); ++it) {
      const double part = *it;
      const double flop = 2.0 * part * x.k;
      out.gemm_flop += flop;
      if (++mm % 2 == 0) {
        out.recomputed_gemm_flop += flop;  // the 2nd, 4th, ... mm
      } else if (x.tp_column) {
        out.saved_tp_elems += part;
      } else {
        out.saved_rep_elems += part;
      }
    }
  }
  return out;
}

bool is_named_save_policy(SelectiveRecompute policy) {
  return policy == SelectiveRecompute::kSaveDots || policy == SelectiveRecompute::kSaveDotExceptMlp ||
         policy == SelectiveRecompute::kSaveQkvProj;
}

OpPolicySplit named_policy_split(const ModelSpec& m, bool moe_layer, SelectiveRecompute policy) {
  const bool named = is_named_save_policy(policy);
  const bool save_attn_out = policy == SelectiveRecompute::kSaveDots || policy == SelectiveRecompute::kSaveDotExceptMlp;
  const bool save_mlp = policy == SelectiveRecompute::kSaveDots;
  OpPolicySplit out;
  double rows = 0, rows_rerun = 0;
  for (const LayerMatmul& x : layer_matmuls(m, moe_layer)) {
    const std::string_view name = x.name;
    // Routed experts: top-k copies of the matrix per token.
    const double copies = x.experts > 0 ? static_cast<double>(m.moe->experts_per_token) : 1.0;
    const double flop = 2.0 * x.n * x.k * copies;
    const bool qkv_group = name == "qkv" || name == "q" || name == "q_up" || name == "kv_up";
    const bool mlp_group = name == "mlp_in" || name == "mlp_out" || name == "shared_in" || name == "shared_out" ||
                           name == "experts_in" || name == "experts_out";
    const bool saved = !named || qkv_group || (name == "attn_out" && save_attn_out) || (mlp_group && save_mlp);
    out.gemm_flop += flop;
    if (x.tp_row) {
      rows += 1;
      if (!saved) rows_rerun += 1;
    }
    if (!saved) {
      out.recomputed_gemm_flop += flop;
    } else if (x.tp_column) {
      out.saved_tp_elems += x.n * copies;
    } else {
      out.saved_rep_elems += x.n * copies;
    }
  }
  out.recomputed_row_share = rows > 0 ? rows_rerun / rows : 0;
  return out;
}

double norm_mla_up_gemm_share(const ModelSpec& m, bool moe_layer) {
  double all = 0, rerun = 0;
  for (const LayerMatmul& x : layer_matmuls(m, moe_layer)) {
    const std::string_view name = x.name;
    const double copies = x.experts > 0 ? static_cast<double>(m.moe->experts_per_token) : 1.0;
    const double flop = 2.0 * x.n * x.k * copies;
    all += flop;
    if (m.mla && (name == "q_up" || name == "kv_up")) rerun += flop;
  }
  return all > 0 ? rerun / all : 0;
}

double layer_policy_share(int64_t layers, int every) {
  if (layers <= 0) return 0;
  const int64_t n = every > 0 ? every : 1;
  const int64_t checkpointed = (layers + n - 1) / n;  // indices 0, n, 2n, ...
  return static_cast<double>(checkpointed) / static_cast<double>(layers);
}

}  // namespace gpuplan
