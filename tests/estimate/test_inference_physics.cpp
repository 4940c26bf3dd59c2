// Issue 13: decode physics from batch 1 to thousands, derived by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "estimate/kernels/inference_gemm.hpp"
#include "gpuplan/inference.hpp"
#include "model/layer_ops.hpp"
#include "gpuplan/step_time.hpp"

namespace gpuplan {
namespace {

// Achieved streaming bandwidth of the model (StepTimeOptions::hbm_efficiency).
double achieved_hbm(const GpuSpec& g) { return g.hbm_bytes_per_s * StepTimeOptions{}.hbm_efficiency; }

// Weights of the routed experts of one MoE layer (all experts) and of one expert.
struct ExpertBytes {
  double all_layers_all_experts = 0;
  double one_expert_one_layer = 0;
  double moe_layers = 0;
};
ExpertBytes expert_params(const ModelSpec& m) {
  ExpertBytes e;
  for (const LayerMatmul& x : layer_matmuls(m, true)) {
    if (x.experts > 0) e.one_expert_one_layer += x.n * x.k;
  }
  for (int64_t l = 0; l < m.layers; ++l) e.moe_layers += m.is_moe_layer(l) ? 1 : 0;
  e.all_layers_all_experts = e.one_expert_one_layer * static_cast<double>(m.moe->routed_experts) * e.moe_layers;
  return e;
}

TEST(InferencePhysics, MoeDecodeReadsBetweenActiveExpertsAndAllWeights) {
  // A decode step's GEMMs read each touched expert once. Hand bounds, per GPU
  // at TP t with b bytes per weight and achieved bandwidth β:
  //   lower: the layer weights a step must read even at batch 1 — everything
  //          but the routed experts, plus top-k experts per MoE layer —
  //          (N_layers − N_routed + k·N_expert·L_moe)·b / (t·β);
  //   upper: every layer weight once, N_layers·b/(t·β), plus the activations
  //          each GEMM moves (M·(n + k)·2 bytes: under 5% of the weights at
  //          M ≤ 64 for these widths, 2·64·(1/n + 1/k) with n, k ≥ 768) and ≤ 12
  //          kernel launches of 4 µs per layer.
  for (const char* id : {"qwen3-30b-a3b", "deepseek-v3"}) {
    const ModelSpec m = find_model(id);
    const GpuSpec& g = find_gpu("h200");
    InferenceOptions o;
    o.weights = WeightFormat::kFp8;
    o.tp = 8;
    const ParamCounts p = count_params(m);
    const ExpertBytes e = expert_params(m);
    const double layer_params = p.total - p.embedding - p.norms;
    const double k = static_cast<double>(m.moe->experts_per_token);
    const double beta = achieved_hbm(g);
    const double lower = (layer_params - e.all_layers_all_experts + k * e.one_expert_one_layer * e.moe_layers) / (o.tp * beta);
    const double upper = layer_params / (o.tp * beta) * 1.05 + static_cast<double>(m.layers) * 12 * 4e-6;
    for (int64_t batch : {1, 2, 8, 32, 64}) {
      const PassTime d = decode_step_time(m, g, o, batch, 1024);
      EXPECT_GE(d.gemm_s, lower * 0.999) << id << " batch " << batch;
      EXPECT_LE(d.gemm_s, upper) << id << " batch " << batch;
    }
    // Batch 1 touches exactly top-k experts per layer: E·(1 − (1 − k/E)^1) = k.
    EXPECT_NEAR(decode_step_time(m, g, o, 1, 1024).experts_touched, k, 1e-9) << id;
  }
}

TEST(InferencePhysics, MoeWithThreeBillionActiveDecodesFasterThanDenseThirtyTwoBillion) {
  // Issue 13: at batch 64 on one H200, qwen3-30b-a3b (30.5 B total, all experts
  // touched: 128·(1 − (120/128)^64) = 126 of 128) reads fewer bytes than the
  // dense qwen3-32b (32.8 B) and caches 4× less KV per token (4 vs 8 KV heads, 48 vs 64 layers).
  InferenceOptions o;
  const GpuSpec& g = find_gpu("h200");
  const double moe = decode_step_time(find_model("qwen3-30b-a3b"), g, o, 64, 2304).total_s;
  const double dense = decode_step_time(find_model("qwen3-32b"), g, o, 64, 2304).total_s;
  EXPECT_LT(moe, dense);
}

TEST(InferencePhysics, BatchOneDecodeScalesWithHbmBandwidth) {
  // Two GPUs that differ only in HBM bandwidth. At batch 1 every kernel of a
  // decode step is bound by the bytes it moves, so t(β) = a + B/β with a the
  // fixed launch overheads: t(β) − t(2β) = B/(2β) and t(2β) − t(4β) = B/(4β),
  // a ratio of exactly 2, and the bandwidth part 2·(t(β) − t(2β)) = B/β is
  // most of the step.
  const ModelSpec m = find_model("llama-3.1-8b");
  GpuSpec g1 = find_gpu("h100");
  GpuSpec g2 = g1, g4 = g1;
  g2.hbm_bytes_per_s *= 2;
  g4.hbm_bytes_per_s *= 4;
  InferenceOptions o;
  const double t1 = decode_step_time(m, g1, o, 1, 1024).total_s;
  const double t2 = decode_step_time(m, g2, o, 1, 1024).total_s;
  const double t4 = decode_step_time(m, g4, o, 1, 1024).total_s;
  EXPECT_NEAR((t1 - t2) / (t2 - t4), 2.0, 1e-6);
  EXPECT_GT(2 * (t1 - t2), 0.8 * t1);
  // Issue 13's contradiction: qwen2.5-72b at TP 4, batch 1, on the H20 (4.0 TB/s)
  // against the H100 (3.35 TB/s). The step time's bandwidth part scales with
  // 3.35/4.0; both have NVLink 4 for the TP all-reduces.
  const ModelSpec q = find_model("qwen2.5-72b");
  InferenceOptions t4o;
  t4o.tp = 4;
  const PassTime h20 = decode_step_time(q, find_gpu("h20"), t4o, 1, 2304);
  const PassTime h100 = decode_step_time(q, find_gpu("h100"), t4o, 1, 2304);
  EXPECT_LT(h20.total_s, h100.total_s);
  EXPECT_NEAR(h20.gemm_memory_s / h100.gemm_memory_s, 3.35 / 4.0, 0.01);
  EXPECT_FALSE(h20.compute_bound);
}

TEST(InferencePhysics, SkinnyGemmPadsTokensToSixteenRows) {
  // Below 64 token rows the swap-AB kernels pad the tokens to 16 (vLLM's
  // sm90 FP8 dispatch, TileShape 64×16): 1 and 16 tokens cost the same compute;
  // 17 tokens pay for 32. The weight side n = 8192 is 128 tiles of 64 on 132 SMs
  // (one wave, 128/132 used); k = 8192 gives 8192/(8192 + 64).
  const GpuSpec& g = find_gpu("h100");
  const double c = 0.80;
  const double e1 = inference_gemm_efficiency(g, Precision::kBf16, 1, 8192, 8192, c);
  const double e16 = inference_gemm_efficiency(g, Precision::kBf16, 16, 8192, 8192, c);
  const double e17 = inference_gemm_efficiency(g, Precision::kBf16, 17, 8192, 8192, c);
  EXPECT_NEAR(e16, c * 0.65 * (128.0 / 132.0) * 8192.0 / (8192.0 + 64.0), 1e-12);
  EXPECT_NEAR(e1, e16 / 16, 1e-12);
  EXPECT_NEAR(e17, e16 * 17.0 / 32.0, 1e-12);
  // From 64 rows on: the training tile model, unchanged.
  EXPECT_DOUBLE_EQ(inference_gemm_efficiency(g, Precision::kBf16, 256, 8192, 8192, c),
                   gemm_efficiency(g, Precision::kBf16, 256, 8192, 8192, c));
}

TEST(InferencePhysics, MlaDecodeReadsTheCompressedCacheAtFlashMlaBandwidth) {
  // DeepSeek-V3 at TP 8 on H800, batch 32 at 4096 cached tokens, bf16 cache:
  // each rank reads the whole latent, 32 · 4096 · 61 · 576 · 2 bytes = 9.21 GB,
  // at FlashMLA's 3000 of 3350 GB/s → 3.07 ms (+ 61 kernels of 4 µs). The
  // absorbed FLOPs, 32 · 4096 · 61 · (128/8 heads) · (2·576 + 2·512) = 0.28 TFLOP,
  // at 0.586 of 989 TFLOP/s take 0.48 ms: 16 heads per rank give 16·2176/1152 =
  // 30 FLOP/byte against a ridge of 580/3.0 = 193, so the kernel is memory-bound.
  const ModelSpec m = find_model("deepseek-v3");
  const GpuSpec& g = find_gpu("h800");
  InferenceOptions o;
  o.weights = WeightFormat::kFp8;
  o.kv = Precision::kBf16;
  o.tp = 8;
  const PassTime d = decode_step_time(m, g, o, 32, 4096);
  const double bytes = 32.0 * 4096 * 61 * 576 * 2;
  EXPECT_DOUBLE_EQ(d.kv_bytes, bytes);
  const double read_s = bytes / (g.hbm_bytes_per_s * 3000.0 / 3350.0);
  EXPECT_NEAR(d.attention_s, read_s + 61 * 4e-6, 1e-9);
}

}  // namespace
}  // namespace gpuplan
