// The one list of a layer's matmuls (layer_ops.hpp): shapes written out by hand
// from the configs, and the estimators that fold over it agree with it.
#include <gtest/gtest.h>

#include "gpuplan/flops.hpp"
#include "model/layer_ops.hpp"
#include "gpuplan/model.hpp"
#include "execution/recompute_policy.hpp"

namespace gpuplan {
namespace {

TEST(LayerOps, Llama31_8bShapes) {
  // config.json: hidden 4096, 32 heads of 128, 8 KV heads, intermediate 14336, SwiGLU.
  const auto ops = layer_matmuls(find_model("llama-3.1-8b"), false);
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_STREQ(ops[0].name, "qkv");
  EXPECT_EQ(ops[0].n, 4096 + 2 * 1024);  // q 32·128 + k, v 8·128 each
  EXPECT_EQ(ops[0].k, 4096);
  EXPECT_TRUE(ops[0].tp_column);
  EXPECT_EQ(ops[0].parts, 3);
  EXPECT_EQ(ops[0].part, (std::array<double, 3>{4096, 1024, 1024}));
  EXPECT_STREQ(ops[1].name, "attn_out");
  EXPECT_EQ(ops[1].n, 4096);
  EXPECT_EQ(ops[1].k, 4096);
  EXPECT_TRUE(ops[1].tp_row);
  EXPECT_STREQ(ops[2].name, "mlp_in");
  EXPECT_EQ(ops[2].n, 2 * 14336);  // gate and up fused
  EXPECT_EQ(ops[2].parts, 2);
  EXPECT_EQ(ops[2].part[0], 14336);
  EXPECT_EQ(ops[2].part[1], 14336);
  EXPECT_STREQ(ops[3].name, "mlp_out");
  EXPECT_EQ(ops[3].k, 14336);
  // Weights per layer: 4096·6144 + 4096² + 2·4096·14336 + 14336·4096 = 218,103,808,
  // exactly the attention and MLP parameters count_params gives per layer.
  double w = 0;
  for (const auto& x : ops) w += x.weights();
  EXPECT_EQ(w, 218103808.0);
  const ModelSpec m = find_model("llama-3.1-8b");
  EXPECT_EQ(attention_params_per_layer(m) + dense_mlp_params(m, m.intermediate), 218103808.0);
}

TEST(LayerOps, MoeLayerHasRouterSharedAndRoutedExperts) {
  // Qwen3-30B-A3B: 128 routed experts of width 768, top-8, no shared expert, hidden 2048.
  const ModelSpec m = find_model("qwen3-30b-a3b");
  const auto ops = layer_matmuls(m, true);
  ASSERT_EQ(ops.size(), 5u);
  EXPECT_STREQ(ops[2].name, "router");
  EXPECT_EQ(ops[2].n, 128);
  EXPECT_STREQ(ops[3].name, "experts_in");
  EXPECT_EQ(ops[3].experts, 128);
  EXPECT_EQ(ops[3].n, 2 * 768);
  EXPECT_EQ(ops[3].weights(), 128.0 * 2 * 768 * 2048);
  // FLOPs fold over the same list: per token, 2 per weight met, experts top-8 of 128.
  FlopOptions o;
  o.seq_len = 1;
  const FlopsPerToken f = flops_per_token(m, o);
  double linear = 0, router = 0;
  for (int64_t layer = 0; layer < m.layers; ++layer) {
    for (const auto& x : layer_matmuls(m, m.is_moe_layer(layer))) {
      if (std::string(x.name) == "router") router += 2 * x.n * x.k;
      else linear += 2 * x.n * x.k * (x.experts > 0 ? 8 : 1);
    }
  }
  EXPECT_DOUBLE_EQ(f.forward_linear_flop, linear);
  EXPECT_DOUBLE_EQ(f.forward_router_flop, router);
}

TEST(LayerOps, TorchtitanOpPolicyRecomputesEverySecondMm) {
  // Llama 3.1 8B block as torchtitan runs it: wq, wk, wv, wo, w1, w3, w2 —
  // the 2nd, 4th and 6th (wk, wo, w3) are recomputed:
  // 4096·1024 + 4096·4096 + 4096·14336 = 79,691,776 of 218,103,808 weights.
  const OpPolicySplit s = op_policy_split(find_model("llama-3.1-8b"), false);
  EXPECT_DOUBLE_EQ(s.recomputed_gemm_flop, 2.0 * 79691776);
  EXPECT_DOUBLE_EQ(s.gemm_flop, 2.0 * 218103808);
  // Saved outputs: q (4096), v (1024), w1 (14336) split by TP; w2's (4096) is not.
  EXPECT_DOUBLE_EQ(s.saved_tp_elems, 4096 + 1024 + 14336);
  EXPECT_DOUBLE_EQ(s.saved_rep_elems, 4096);
}

TEST(LayerOps, MaxTextNamedPoliciesSaveWhatTheyName) {
  // Llama 3.1 8B: qkv 4096 x (4096 + 1024 + 1024), out 4096 x 4096, gated
  // MLP in 4096 x 2·14336, MLP out 14336 x 4096: 25,165,824 + 16,777,216 +
  // 117,440,512 + 58,720,256 = 218,103,808 weights.
  const ModelSpec& m = find_model("llama-3.1-8b");
  // minimal: every projection saved, nothing re-run but attention and element-wise.
  const OpPolicySplit all = named_policy_split(m, false, SelectiveRecompute::kSaveDots);
  EXPECT_DOUBLE_EQ(all.gemm_flop, 2.0 * 218103808);
  EXPECT_DOUBLE_EQ(all.recomputed_gemm_flop, 0);
  EXPECT_DOUBLE_EQ(all.saved_tp_elems, 6144 + 28672);  // qkv and MLP-in outputs, TP column-split
  EXPECT_DOUBLE_EQ(all.saved_rep_elems, 4096 + 4096);  // attention-out and MLP-out outputs
  EXPECT_DOUBLE_EQ(all.recomputed_row_share, 0);
  // save_dot_except_mlp: the MLP's two matmuls re-run (117,440,512 + 58,720,256), MLP-out's collective with them.
  const OpPolicySplit no_mlp = named_policy_split(m, false, SelectiveRecompute::kSaveDotExceptMlp);
  EXPECT_DOUBLE_EQ(no_mlp.recomputed_gemm_flop, 2.0 * 176160768);
  EXPECT_DOUBLE_EQ(no_mlp.saved_tp_elems, 6144);
  EXPECT_DOUBLE_EQ(no_mlp.saved_rep_elems, 4096);
  EXPECT_DOUBLE_EQ(no_mlp.recomputed_row_share, 0.5);
  // save_qkv_proj: all but qkv re-run (218,103,808 − 25,165,824), both row-parallel collectives.
  const OpPolicySplit qkv = named_policy_split(m, false, SelectiveRecompute::kSaveQkvProj);
  EXPECT_DOUBLE_EQ(qkv.recomputed_gemm_flop, 2.0 * 192937984);
  EXPECT_DOUBLE_EQ(qkv.saved_tp_elems, 6144);
  EXPECT_DOUBLE_EQ(qkv.saved_rep_elems, 0);
  EXPECT_DOUBLE_EQ(qkv.recomputed_row_share, 1);
}

}  // namespace
}  // namespace gpuplan
