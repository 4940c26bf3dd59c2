// Issue 13: deployments beyond one node (TP, PP, EP with DP attention), the
// layout search, infeasible requests, prefill/decode disaggregation.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "gpuplan/inference.hpp"
#include "report/inference_notes.hpp"
#include "run_binary.hpp"

namespace gpuplan {
namespace {

using gpuplan_test::Result;
using gpuplan_test::run_binary;

ServingTarget rate_target(double rps) {
  ServingTarget t;
  t.input_len = 2048;
  t.output_len = 512;
  t.requests_per_s = rps;
  t.tpot_target_s = kDefaultTpotTargetS;
  return t;
}

TEST(ServingDeployment, DeepSeekV3At50RequestsPerSecondNeedsMoreThanOneNode) {
  // DeepSeek-V3 in FP8 is 671 B × 1 byte ≈ 625 GiB of weights: more than one
  // 8 × 80 GiB H800 node holds with any KV cache (8 × 72 GiB usable at 0.90), so
  // a replica spans ≥ 2 nodes there; on 8 × 141 GiB H200 it fits one node.
  InferenceOptions o;
  o.weights = WeightFormat::kFp8;
  const ModelSpec m = find_model("deepseek-v3");
  for (const char* gpu : {"h800", "h20", "h200"}) {
    const GpuSpec& g = find_gpu(gpu);
    const ServingPlan p = plan_serving(m, g, o, rate_target(50));
    ASSERT_TRUE(p.feasible) << gpu << ": " << serving_why_not(p).en;
    EXPECT_EQ(p.gpus_per_replica, static_cast<int64_t>(p.tp) * p.pp * p.dp_attention) << gpu;
    EXPECT_EQ(p.gpus, p.replicas * p.gpus_per_replica) << gpu;
    EXPECT_LE(p.tpot_s, kDefaultTpotTargetS) << gpu;
    // The replicas together sustain the rate.
    EXPECT_GE(p.replica_requests_per_s * static_cast<double>(p.replicas), 50.0 * 0.999) << gpu;
    EXPECT_GT(p.layouts.size(), 10u) << gpu;
    if (std::string(gpu) == "h800") EXPECT_GE(p.nodes_per_replica, 2) << gpu;
    // Memory per GPU of the chosen layout fits.
    EXPECT_TRUE(p.memory.weights_fit) << gpu;
  }
}

TEST(ServingDeployment, ExpertParallelWeightsSplitExpertsOverEpRanks) {
  // Per GPU at TP 1 × DP-attention 16, EP 16 (fp8, 1 byte per layer weight):
  // every GPU holds all non-expert layer weights and 256/16 = 16 experts per MoE
  // layer; embedding and LM head in 16 bits.
  const ModelSpec m = find_model("deepseek-v3");
  InferenceOptions o;
  o.weights = WeightFormat::kFp8;
  o.tp = 1;
  o.ep = 16;
  o.dp_attention = 16;
  const InferenceMemory ep = inference_memory(m, find_gpu("h800"), o);
  InferenceOptions all = o;
  all.ep = 1;
  all.dp_attention = 1;
  const InferenceMemory one = inference_memory(m, find_gpu("h800"), all);
  // one GPU holding everything minus 15/16 of the routed experts.
  EXPECT_LT(ep.weights_bytes, one.weights_bytes / 8);
  EXPECT_GT(ep.weights_bytes, one.weights_bytes / 16);
}

TEST(ServingDeployment, DisaggregationAddsAPrefillPoolAndKvTransfer) {
  InferenceOptions o;
  o.weights = WeightFormat::kFp8;
  ServingTarget t = rate_target(20);
  t.disaggregate = true;
  const ServingPlan p = plan_serving(find_model("llama-3.1-70b"), find_gpu("h100"), o, t);
  ASSERT_TRUE(p.feasible) << serving_why_not(p).en;
  EXPECT_TRUE(p.disaggregated);
  EXPECT_GE(p.prefill_replicas, 1);
  EXPECT_EQ(p.gpus, p.replicas * p.gpus_per_replica + p.prefill_gpus);
  // Decode steps carry no prefills.
  EXPECT_DOUBLE_EQ(p.tpot_s, p.decode_step_s);
  // One prompt's KV: 2048 tokens × 0.3125 MiB (Llama-3.1-70B, fp16 KV) = 640 MiB over the replica's NICs.
  EXPECT_GT(p.kv_transfer_s, 0);
  // The prefill pool keeps up with the prompt tokens.
  EXPECT_GE(p.prefill_replica_tokens_per_s * static_cast<double>(p.prefill_replicas), 20.0 * 2048 * 0.999);
}

TEST(ServingDeployment, CliGivesLayoutLatencyAndGpuCountAsTypedJson) {
  const Result r = run_binary("infer --model deepseek-v3 --gpu h800 --precision fp8 --rps 50 --format json", "2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["deployment"]["feasible"].is_boolean());
  EXPECT_TRUE(j["deployment"]["feasible"].get<bool>());
  for (const char* k : {"gpus", "tp", "pp", "ep", "dp_attention", "replicas", "gpus_per_replica", "nodes_per_replica"}) {
    ASSERT_TRUE(j["deployment"][k].is_number()) << k;
  }
  EXPECT_GE(j["deployment"]["nodes_per_replica"].get<double>(), 2);
  EXPECT_TRUE(j["latency"]["tpot_s"].is_number());
  EXPECT_DOUBLE_EQ(j["latency"]["tpot_target_s"].get<double>(), 0.050);
  ASSERT_TRUE(j["layouts"].is_array());
  EXPECT_GT(j["layouts"].size(), 10u);
  EXPECT_TRUE(j["layouts"][0]["feasible"].is_boolean());
  // The text report states the default target.
  const Result t = run_binary("infer --model deepseek-v3 --gpu h800 --precision fp8 --rps 50");
  ASSERT_EQ(t.status, 0) << t.out;
  EXPECT_NE(t.out.find("Time-per-output-token target 50 ms (default"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("Layouts tried"), std::string::npos) << t.out;
  const Result zh = run_binary("infer --model deepseek-v3 --gpu h800 --precision fp8 --rps 50 --lang zh");
  EXPECT_NE(zh.out.find("每输出 token 时间目标 50 毫秒"), std::string::npos) << zh.out;
}

TEST(ServingDeployment, InfeasibleRequestIsOneSentenceAndExitTwo) {
  // 1 ms per output token cannot be met by any layout: one sentence naming the
  // target, exit status 2, no table of zeros.
  const Result r = run_binary("infer --model deepseek-v3 --gpu h800 --precision fp8 --rps 50 --latency-target-ms 1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--latency-target-ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No deployment found"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Deployment\n"), std::string::npos) << r.out;
  // Layout flags that cannot hold are refused by name before any search.
  for (const auto& [args, field] : std::vector<std::pair<std::string, std::string>>{
           {"--ep 7", "--ep 7 does not divide the 256 routed experts"}, {"--pp 1000", "--pp must be 1 to the model's 61 layers"},
           {"--ep 4 --tp 8", "--ep 4 must be a multiple of --tp 8"}}) {
    const Result e = run_binary("infer --model deepseek-v3 --gpu h800 --precision fp8 " + args);
    EXPECT_EQ(e.status, 2) << args << ": " << e.out;
    EXPECT_NE(e.out.find(field), std::string::npos) << args << ": " << e.out;
    EXPECT_EQ(e.out.find(".."), std::string::npos) << e.out;
  }
  // --ep on a dense model is refused by name.
  const Result d = run_binary("infer --model llama-3.1-8b --gpu h100 --ep 8");
  EXPECT_EQ(d.status, 2) << d.out;
  EXPECT_NE(d.out.find("--ep"), std::string::npos) << d.out;
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

TEST(ServingDeployment, ExpertAllToAllReproducesDeepEpLowLatencyAtEp16) {
  // DeepEP's README (H800, CX7 400 Gb/s = 50 GB/s per GPU, h 7168, top-8, FP8
  // dispatch, BF16 combine, 128 tokens per rank) measures 118 µs dispatch and
  // 195 µs combine at EP 16. A decode step of 16 × 128 sequences over
  // TP 1 × 16 attention ranks sends, per MoE layer and GPU,
  //   dispatch 128 · 8 · 7168 · 1 B = 7.34 MB at 63 GB/s = 116.5 µs,
  //   combine  128 · 8 · 7168 · 2 B = 14.68 MB at 74 GB/s = 198.4 µs,
  // plus 2 × 2 × 12 µs of latency floor, over DeepSeek-V3's 58 MoE layers.
  const ModelSpec m = find_model("deepseek-v3");
  const GpuSpec& g = find_gpu("h800");
  ASSERT_NEAR(g.scaleout_bytes_per_s, 50e9, 1e6);
  InferenceOptions o;
  o.weights = WeightFormat::kFp8;
  o.tp = 1;
  o.ep = 16;
  o.dp_attention = 16;
  const PassTime d = decode_step_time(m, g, o, 16 * 128, 2048);
  const double elems = 128.0 * 8 * 7168;
  const double per_layer = elems / 63e9 + 2 * elems / 74e9 + 4 * 12e-6;
  EXPECT_NEAR(elems / 63e9, 118e-6, 3e-6);      // DeepEP: 118 µs
  EXPECT_NEAR(2 * elems / 74e9, 195e-6, 5e-6);  // DeepEP: 195 µs
  EXPECT_NEAR(d.ep_comm_s, 58 * per_layer, 1e-9);
  // 256 experts over 16 GPUs; 2048 tokens touch all of them: 16 per GPU.
  EXPECT_NEAR(d.experts_touched, 16.0, 1e-6);
}

TEST(ServingDeployment, PipelineRoundIsOneMicroBatchThroughAllStagesPlusHops) {
  // PP 2 over two 8-GPU nodes (TP 8 fills a node): 64 sequences in 2
  // micro-batches of 32; a round = the all-layer pass of 32 sequences + 2 hops of
  // 32 · 8192 · 2 B / 8 TP ranks = 64 KiB over 0.9 × 50 GB/s with α 12 µs.
  const ModelSpec m = find_model("llama-3.1-70b");
  const GpuSpec& g = find_gpu("h100");
  InferenceOptions o;
  o.weights = WeightFormat::kFp8;
  o.tp = 8;
  InferenceOptions two = o;
  two.pp = 2;
  const PassTime round = decode_step_time(m, g, two, 64, 2048);
  const PassTime micro = decode_step_time(m, g, o, 32, 2048);
  const double hop = 12e-6 + 32.0 * 8192 * 2 / 8 / (0.9 * g.scaleout_bytes_per_s);
  EXPECT_NEAR(round.pp_comm_s, 2 * hop, 1e-12);
  EXPECT_NEAR(round.total_s, micro.total_s + 2 * hop, 1e-12);
  // Memory: each stage holds half the layers' weights and KV cache.
  const InferenceMemory m1 = inference_memory(m, g, o), m2 = inference_memory(m, g, two);
  EXPECT_NEAR(m2.kv_bytes_per_token_per_gpu, m1.kv_bytes_per_token_per_gpu / 2, 1e-9);
  EXPECT_LT(m2.weights_bytes, 0.6 * m1.weights_bytes);
}

}  // namespace
}  // namespace gpuplan
