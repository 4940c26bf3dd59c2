// Issue 5, inference: hand-derived memory values and the published serving cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "gpuplan/inference.hpp"
#include "gpuplan/units.hpp"
#include "gpuplan/validate.hpp"

namespace gpuplan {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

TEST(Inference, Llama2_7bFp16WeightsAbout13_5GB) {
  // 6.74B parameters × 2 bytes (the seed's "14 GB").
  const ModelSpec m = find_model("llama-2-7b");
  InferenceOptions o;
  const InferenceMemory r = inference_memory(m, find_gpu("a100-80g"), o);
  EXPECT_NEAR(r.weights_bytes / kGB, 13.48, 0.05);
  EXPECT_NEAR(count_params(m).total * 2 / kGB, r.weights_bytes / kGB, 1e-9);
}

TEST(Inference, KvCachePerTokenMhaGqaMla) {
  // Llama-2-7B (MHA): 2 × 32 layers × 4096 × 2 bytes = 0.5 MiB.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(find_model("llama-2-7b"), 2), 0.5 * kMiB);
  // Llama-3.1-70B (GQA, 8 KV heads of 128): 2 × 80 × 8 × 128 × 2 = 0.3125 MiB.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(find_model("llama-3.1-70b"), 2), 0.3125 * kMiB);
  // DeepSeek-V3 (MLA): 61 layers × (kv_lora_rank 512 + qk_rope_head_dim 64) × 2 bytes.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(find_model("deepseek-v3"), 2), 70272.0);
  // fp8 halves it.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(find_model("llama-2-7b"), 1), 0.25 * kMiB);
}

TEST(Inference, KvSplitsOverTpByHeadsAndReplicatesBeyondThem) {
  const ModelSpec m = find_model("llama-3.1-70b");  // 8 KV heads
  InferenceOptions o;
  o.tp = 8;
  const double per8 = inference_memory(m, find_gpu("h100"), o).kv_bytes_per_token_per_gpu;
  EXPECT_DOUBLE_EQ(per8, 0.3125 * kMiB / 8);
  // MLA's latent is shared by all heads: every TP rank keeps the whole cache.
  const ModelSpec ds = find_model("deepseek-v3");
  EXPECT_DOUBLE_EQ(inference_memory(ds, find_gpu("h200"), o).kv_bytes_per_token_per_gpu, 70272.0);
}

TEST(Inference, Int4GroupOverheadIsQuarterBitPerWeight) {
  // AWQ/GPTQ: fp16 scale + fp16 zero per 128 weights = 32/128 = 0.25 bits.
  EXPECT_DOUBLE_EQ(bytes_per_weight(WeightFormat::kInt4, 128) * 8, 4.25);
  EXPECT_DOUBLE_EQ(bytes_per_weight(WeightFormat::kFp8, 128), 1.0);
}

TEST(Inference, DecodeIsBandwidthBoundAtBatchOne) {
  // Batch 1: the step reads every weight once; time ≥ weights / HBM bandwidth.
  const ModelSpec m = find_model("llama-2-7b");
  const GpuSpec& g = find_gpu("a100-80g");
  InferenceOptions o;
  const PassTime d = decode_step_time(m, g, o, 1, 512);
  EXPECT_FALSE(d.compute_bound);
  const double floor_s = count_params(m).total * 2 / g.hbm_bytes_per_s;
  EXPECT_GT(d.total_s, floor_s);
  EXPECT_LT(d.total_s, 1.6 * floor_s);
}

TEST(Inference, ServingPlanForSeventyBOnH100Fp8) {
  ServingTarget t;
  t.input_len = 2048;
  t.output_len = 512;
  t.requests_per_s = 20;
  InferenceOptions o;
  o.weights = WeightFormat::kFp8;
  const ServingPlan p = plan_serving(find_model("llama-3.1-70b"), find_gpu("h100"), o, t);
  ASSERT_TRUE(p.feasible) << p.why_not;
  EXPECT_GE(p.tp, 1);
  EXPECT_EQ(p.gpus, p.replicas * p.tp);
  EXPECT_GE(p.replica_requests_per_s * static_cast<double>(p.replicas), 20.0);
  EXPECT_GT(p.ttft_s, 0);
  EXPECT_GT(p.tpot_s, p.decode_step_s * 0.999);
  // A latency target caps the batch and so needs more GPUs.
  t.tpot_target_s = 0.030;
  const ServingPlan q = plan_serving(find_model("llama-3.1-70b"), find_gpu("h100"), o, t);
  ASSERT_TRUE(q.feasible) << q.why_not;
  EXPECT_LE(q.tpot_s, 0.030);
  EXPECT_GE(q.gpus, p.gpus);
}

TEST(Inference, SeventyBNeedsMoreThanOneA100AtFp16) {
  // The seed: "a 70B service needs 4–8 A100s". Weights alone are 141 GB.
  ServingTarget t;
  t.input_len = 1024;
  t.output_len = 256;
  t.tp = 1;
  InferenceOptions o;
  const ServingPlan one = plan_serving(find_model("llama-2-70b"), find_gpu("a100-80g"), o, t);
  EXPECT_FALSE(one.feasible);
  t.tp = 0;
  const ServingPlan p = plan_serving(find_model("llama-2-70b"), find_gpu("a100-80g"), o, t);
  ASSERT_TRUE(p.feasible);
  EXPECT_GE(p.tp, 2);
}

TEST(Inference, PublishedCasesMedianErrorWithin15Percent) {
  const std::string path = std::string(GPUPLAN_SHARED_DIR) + "/validation/cases.jsonl";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "validation cases not found at " << path << " (../shared absent); skipped";
  const ValidationResult r = run_validation(read_cases(path), "inference");
  std::vector<double> errors;
  for (const CaseResult& c : r.cases) {
    errors.push_back(std::fabs(c.error) * 100);
    std::printf("  %-50s %-24s predicted %10.1f measured %10.1f  %+6.1f%%\n", c.id.c_str(), c.metric.c_str(), c.predicted, c.measured, 100 * c.error);
  }
  ASSERT_GE(errors.size(), 10u) << "failures: " << r.failures.size();
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  const double median = n % 2 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
  std::printf("  inference: %zu predictions, median absolute percentage error %.1f%%\n", n, median);
  EXPECT_LE(median, 15.0);
}

}  // namespace
}  // namespace gpuplan
