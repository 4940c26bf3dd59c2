#include <gtest/gtest.h>

#include "gpuplan/flops.hpp"
#include "gpuplan/model.hpp"

using namespace gpuplan;

TEST(Flops, MatchesNarayananFormulaForGpt3WithFullRecompute) {
  // Narayanan et al. 2021, eq. (3): F = 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) per iteration,
  // which counts the full-recompute forward. Per token: 96·l·h²·(1 + s/6h + V/16lh).
  // Our count adds biases nowhere and uses the exact matmul shapes, which for a
  // 4h MLP and MHA equal the paper's 24·h² per layer forward.
  const ModelSpec m = find_model("gpt3-175b");
  FlopOptions o;
  o.seq_len = 2048;
  o.recompute = Recompute::kFull;
  const FlopsPerToken f = flops_per_token(m, o);
  const double l = 96, h = 12288, s = 2048, V = 50257;
  const double narayanan = 96 * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  EXPECT_NEAR(f.hardware_flop / narayanan, 1.0, 1e-9);
  // Korthikanti 2022 (model FLOPs, no recompute): 72·l·h²·(1 + s/6h + V/12lh).
  const double korthikanti = 72 * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  EXPECT_NEAR(f.model_flop / korthikanti, 1.0, 1e-9);
}

TEST(Flops, SixNIsCloseToExactForShortSequences) {
  // With s ≪ 6h the attention term is small: exact/6N = 1 + s/6h + small terms.
  const ModelSpec m = find_model("llama-2-7b");
  FlopOptions o;
  o.seq_len = 4096;
  const FlopsPerToken f = flops_per_token(m, o);
  // 6N counts the input embedding lookup and the norm weights (no matmul FLOPs)
  // and omits attention scores and context (12·l·h·s per token, fwd+bwd, full s×s).
  const double attention = 12.0 * 32 * 4096 * 4096;
  const double embedding = 6.0 * 32000 * 4096;
  const double norms = 6.0 * count_params(m).norms;  // (2·32 + 1)·4096 weights
  EXPECT_NEAR(f.model_flop, f.six_n_flop - embedding - norms + attention, 1.0);
}

TEST(Flops, CausalHalvesAttentionOnly) {
  const ModelSpec m = find_model("llama-3.1-8b");
  FlopOptions full, causal;
  full.seq_len = causal.seq_len = 8192;
  causal.causal_half = true;
  const auto a = flops_per_token(m, full), b = flops_per_token(m, causal);
  EXPECT_NEAR(b.forward_attention_flop / a.forward_attention_flop, (8192.0 + 1) / 2 / 8192, 1e-12);
  EXPECT_DOUBLE_EQ(a.forward_linear_flop, b.forward_linear_flop);
}

TEST(Flops, MoeCountsActiveExpertsOnly) {
  // Mixtral: 2 of 8 experts. Dense-equivalent FLOPs would be ~3.6× higher.
  const ModelSpec m = find_model("mixtral-8x7b");
  FlopOptions o;
  o.seq_len = 4096;
  const FlopsPerToken f = flops_per_token(m, o);
  const ParamCounts p = count_params(m);
  // Every active weight except the input embedding lookup and the norms is in a matmul:
  // forward = 2 FLOP per such weight, plus attention scores and context.
  const double input_embedding = 32000.0 * 4096;
  EXPECT_NEAR(f.forward_linear_flop + f.forward_router_flop + f.forward_lm_head_flop,
              2.0 * (p.active - input_embedding - p.norms), 1.0);
  // 6N uses active parameters.
  EXPECT_DOUBLE_EQ(f.six_n_flop, 6.0 * p.active);
}

TEST(Flops, RecomputeOrdering) {
  const ModelSpec m = find_model("llama-3.1-70b");
  FlopOptions o;
  o.seq_len = 8192;
  o.recompute = Recompute::kNone;
  const double none = flops_per_token(m, o).hardware_flop;
  o.recompute = Recompute::kSelective;
  const double selective = flops_per_token(m, o).hardware_flop;
  o.recompute = Recompute::kFull;
  const auto full = flops_per_token(m, o);
  EXPECT_LT(none, selective);
  EXPECT_LT(selective, full.hardware_flop);
  // Full recompute costs about one extra forward: HFU/MFU ≈ 4/3 (seed 004's "+33%").
  EXPECT_NEAR(full.hardware_flop / full.model_flop, 4.0 / 3.0, 0.01);
}

TEST(Flops, ParamsOnlyUsesSixN) {
  const FlopsPerToken f = flops_per_token(model_from_param_count(7e9), FlopOptions{});
  EXPECT_FALSE(f.exact);
  EXPECT_DOUBLE_EQ(f.model_flop, 42e9);
}
