// Bad combinations of inputs (issue 16 part 5): each is refused with one
// sentence naming the field (exit status 2), or warned about first where it is
// legal but unusual. Driven through the real binary, as a user meets them.
#include <cmath>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "run_binary.hpp"

namespace {

using gpuplan_test::Result;
using gpuplan_test::run_binary;

// One line on stderr naming the field, exit status 2, no internal error.
void expect_refused(const std::string& args, const std::string& field, const std::string& says = "") {
  const Result r = run_binary(args, "2>&1 >/dev/null");
  EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
  EXPECT_EQ(r.out.rfind("error: " + field, 0), 0u) << args << "\n" << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "one sentence expected:\n" << r.out;
  EXPECT_NE(r.out.find(says), std::string::npos) << args << "\n" << r.out;
}

// Exit 0 and a warning in the JSON report containing `says`.
void expect_warned(const std::string& args, const std::string& says) {
  const Result r = run_binary(args + " --format json", "2>/dev/null");
  ASSERT_EQ(r.status, 0) << args << "\n" << r.out;
  const auto j = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& w : j["warnings"]) found = found || w.get<std::string>().find(says) != std::string::npos;
  EXPECT_TRUE(found) << args << "\n" << j["warnings"].dump(1);
}

// Llama 3.1 8B's max_position_embeddings is 131,072; 1,048,576 is 8× that.
TEST(BadCombinations, ContextBeyondTheModelNeedsForceEverywhere) {
  const std::string m = "--model llama-3.1-8b --seq-len 1048576 --gpu h100 ";
  expect_refused("train " + m + "--tokens 1T --gpus 64 --mfu 0.4", "--seq-len", "131,072");
  expect_refused("memory " + m + "--gpus 8", "--seq-len", "--force");
  expect_refused("plan " + m + "--gpus 8", "--seq-len", "--force");
  expect_refused("finetune --model llama-3.1-8b --seq-len 1048576 --gpu h100 --no-ranking", "--seq-len", "--force");
  // With --force it is planned.
  EXPECT_EQ(run_binary("train " + m + "--tokens 1T --gpus 64 --mfu 0.4 --force", "2>&1").status, 0);
  EXPECT_EQ(run_binary("memory " + m + "--gpus 8 --cp 8 --force", "2>&1").status, 0);
  // At the limit it needs nothing.
  EXPECT_EQ(run_binary("train --model llama-3.1-8b --seq-len 131072 --gpu h100 --tokens 1T --gpus 64 --mfu 0.4", "2>&1").status, 0);
}

TEST(BadCombinations, CrossNodeTensorParallelismWarns) {
  // H100 nodes hold 8 GPUs: TP 16 spans 2.
  expect_warned("memory --model llama-3.1-8b --gpu h100 --gpus 16 --tp 16", "--tp 16 spans 2 nodes");
  expect_warned("plan --model llama-3.1-8b --gpu h100 --gpus 64 --tp 16", "--tp 16 spans 2 nodes");
  // TP 8 in one node is the norm: no such warning.
  const Result r = run_binary("memory --model llama-3.1-8b --gpu h100 --gpus 16 --tp 8 --format json", "2>/dev/null");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out.find("spans"), std::string::npos);
}

TEST(BadCombinations, APrecisionTheGpuLacksIsRefused) {
  // A100 has no FP8 units; V100 has no BF16 (MLE-ACC, Lightning's _CUDA_FLOPS).
  expect_refused("memory --model llama-3.1-8b --gpu a100-80g --gpus 8 --precision fp8", "--precision", "no fp8");
  expect_refused("plan --model llama-3.1-8b --gpu a100-80g --gpus 8 --precision fp8", "--precision", "no fp8");
  expect_refused("train --model llama-3.1-8b --tokens 1T --gpu a100-80g --gpus 8 --mfu 0.4 --precision fp8", "--precision", "no fp8");
  expect_refused("infer --model llama-3.1-8b --gpu v100 --precision bf16", "--precision", "no bf16");
  expect_refused("finetune --model llama-3.1-8b --gpu v100 --precision bf16 --no-ranking", "--precision", "no bf16");
  // Not typing a precision on V100 plans its fp16, as V100 training runs.
  EXPECT_EQ(run_binary("memory --model llama-3.1-8b --gpu v100 --gpus 8", "2>&1").status, 0);
  EXPECT_EQ(run_binary("finetune --model llama-3.1-8b --gpu v100 --no-ranking", "2>&1").status, 0);
}

TEST(BadCombinations, AnImpossiblePlanNamesTheRealConstraint) {
  // TP 16 cannot be laid out on 8 GPUs at all: say so, not "0 searched" and ZeRO-3 advice.
  expect_refused("plan --model llama-3.1-8b --gpu h100 --gpus 8 --tp 16", "--tp", "multiple of 16");
  expect_refused("plan --model llama-3.1-8b --gpu h100 --gpus 24 --tp 8 --pp 2", "--tp", "multiple of 16");
  // One of several counts impossible: the others are planned, the impossible one is
  // warned about with the constraints, not with memory advice.
  const Result r = run_binary("plan --model llama-3.1-8b --gpu h100 --gpus 8,16 --tp 16 --format json", "2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("ZeRO-3/recompute"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no layout matches the pinned degrees"), std::string::npos) << r.out;
}

TEST(BadCombinations, AnInfeasibleFinetuneExits2) {
  // Full fine-tuning of 405B needs ~16 bytes per parameter of states alone,
  // 405e9 × 16 B ≈ 6.5 TB, i.e. > 270 cards of 24 GB before activations; no
  // power-of-two count up to 1,024 fits with the per-card overheads.
  expect_refused("finetune --model llama-3.1-405b --gpu 4090 --method full", "--gpu", "--method lora");
}

TEST(BadCombinations, RoughEdges) {
  // A mistyped command gets the nearest one.
  expect_refused("trian --model llama-3.1-8b", "unknown command 'trian'", "did you mean train");
  // No deadline given: the message does not talk about the deadline.
  const Result r = run_binary("train --model llama-3.1-8b --tokens 1T --gpu h100", "2>&1 >/dev/null");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out.find("deadline needs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--gpus"), std::string::npos) << r.out;
  // A solved MFU (a bare parameter count: nothing to predict it from) meets
  // the deadline exactly: the slack is 0, not "0.000466 µs".
  const Result t = run_binary("train --params 8B --tokens 1T --gpu h100 --gpus 64 --deadline 30d --format json", "2>/dev/null");
  ASSERT_EQ(t.status, 0) << t.out;
  const auto j = nlohmann::json::parse(t.out);
  EXPECT_EQ(j["time"]["deadline_slack_s"].get<double>(), 0.0);
  // With an architecture the MFU is predicted and the deadline judged on it
  // at the asked confidence (issue 25), never solved to meet it: the slack is
  // the deadline less the wall-clock at 80% confidence.
  const Result p = run_binary("train --model llama-3.1-8b --tokens 1T --gpu h100 --gpus 64 --deadline 30d --format json", "2>/dev/null");
  ASSERT_EQ(p.status, 0) << p.out;
  const auto jp = nlohmann::json::parse(p.out);
  EXPECT_TRUE(jp["time"].contains("mfu_physics")) << p.out.substr(0, 400);
  const double at_confidence = jp["time"]["wall_clock_at_confidence_s"].get<double>();
  EXPECT_GT(at_confidence, jp["time"]["wall_clock_s"].get<double>());  // the 80% point is slower than the median
  EXPECT_LE(at_confidence, jp["time"]["wall_clock_s_high"].get<double>());
  const double deadline = 30 * 86400.0;
  EXPECT_EQ(jp["time"]["deadline_met"].get<bool>(), at_confidence <= deadline);
  EXPECT_NEAR(std::fabs(jp["time"]["deadline_slack_s"].get<double>()), std::fabs(deadline - at_confidence), 1.0);
}

}  // namespace

// Issue 30: a deadline no GPU count can meet blames the deadline and says the
// shortest one that could be met, not "no layout fits ... (0 to 0 GPUs)".
TEST(BadCombinations, ADeadlineTooShortForAnyGpuCountSaysTheShortestPossible) {
  const Result r = run_binary("train --model llama-3.1-8b --tokens 1T --gpu h100 --deadline 1s", "2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.out.find("--deadline: 1.00 s is too short"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("0 to 0"), std::string::npos) << r.out;
  // The shortest deadline is the run's FLOPs × (1 + comm margin) over 10,000,000 GPUs at the best
  // published hopper MFU (48%) of 989 TFLOP/s; the message states both the count needed and it, and
  // the count it needs is the same work over the 1-s deadline: count = shortest / 1 s × 10,000,000.
  const size_t at = r.out.find("needs ");
  const size_t least = r.out.find("allow at least ");
  ASSERT_NE(at, std::string::npos);
  ASSERT_NE(least, std::string::npos);
  std::string count = r.out.substr(at + 6, r.out.find(' ', at + 6) - at - 6);
  count.erase(std::remove(count.begin(), count.end(), ','), count.end());
  const double shortest_s = std::stod(r.out.substr(least + 15));
  EXPECT_NEAR(std::stod(count), shortest_s * 1e7, 0.01 * std::stod(count));
  // In Chinese too, one sentence naming --deadline.
  const Result z = run_binary("train --model llama-3.1-8b --tokens 1T --gpu h100 --deadline 1s --lang zh", "2>&1");
  EXPECT_EQ(z.status, 2);
  EXPECT_NE(z.out.find("--deadline：1.00 秒"), std::string::npos) << z.out;
}

// Issue 30: memory with pipeline stages and no --global-batch takes the ~4M-token
// batch plan takes, so the first stage holds pp micro-batches as a real 1F1B run does.
TEST(BadCombinations, MemoryWithPipelineStagesFillsThePipelineByDefault) {
  const Result r = run_binary("memory --model llama-3.1-70b --gpu h100 --tp 8 --pp 2 --format json", "2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  // 2^22 tokens / 4,096 = 1,024 sequences (dp 1 × micro-batch 1 divides it): 1,024 micro-batches, min(pp 2, 1,024) = 2 in flight.
  EXPECT_EQ(j["inputs"]["global_batch"].get<int64_t>(), 1024);
  EXPECT_EQ(j["memory"]["inflight_micro_batches"].get<int64_t>(), 2);
  const double two = j["memory"]["activations_bytes"].get<double>();
  // One micro-batch stated: one in flight, about half the activations (the stage's per-micro-batch
  // layers twice, less what is held once), and the report no longer says it assumed a batch.
  const Result one = run_binary("memory --model llama-3.1-70b --gpu h100 --tp 8 --pp 2 --global-batch 1 --format json", "2>/dev/null");
  ASSERT_EQ(one.status, 0) << one.out;
  const auto k = nlohmann::json::parse(one.out);
  EXPECT_EQ(k["memory"]["inflight_micro_batches"].get<int64_t>(), 1);
  const double ratio = two / k["memory"]["activations_bytes"].get<double>();
  EXPECT_GT(ratio, 1.95);
  EXPECT_LE(ratio, 2.0);
  EXPECT_NE(r.out.find("--global-batch not given: 1024 sequences"), std::string::npos);
  EXPECT_EQ(one.out.find("--global-batch not given"), std::string::npos);
}
