// Extreme but valid inputs (issue 8): 1 to 1,000,000 GPUs, a 1M-token context,
// 10-trillion-parameter models, 1e15 tokens. Every answer is finite and of the
// right magnitude, or an InputError names the flag and the limit passed.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "gpuplan/error.hpp"
#include "gpuplan/flops.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/memory.hpp"
#include "report/memory_report.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/reliability.hpp"
#include "report/report.hpp"
#include "report/train_report.hpp"
#include "gpuplan/units.hpp"
#include "inputs/report_chains.hpp"

namespace gpuplan {
namespace {

using nlohmann::json;

void expect_all_finite(const json& j, const std::string& path = "$") {
  if (j.is_number_float()) {
    EXPECT_TRUE(std::isfinite(j.get<double>())) << path;
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) expect_all_finite(it.value(), path + "." + it.key());
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) expect_all_finite(j[i], path + "[" + std::to_string(i) + "]");
  }
}

TrainRequest params_request(double params, double tokens, double gpus, double mfu = 0.4) {
  TrainRequest r;
  r.params = params;
  r.workload.tokens = tokens;
  r.gpu = "h100";
  r.gpus = gpus;
  r.mfu = mfu;
  return r;
}

double h100_bf16() { return find_gpu("h100").peak(Precision::kBf16); }

// The pure compute time of 6·N·D at a given MFU: the magnitude every answer must have.
double six_nd_seconds(double n, double d, double gpus, double mfu) { return 6 * n * d / (gpus * mfu * h100_bf16()); }

TEST(Extremes, OneGpuTrainsSeventyBillionForCenturies) {
  const json j = to_json(train_report_for(params_request(70e9, 15e12, 1)));
  expect_all_finite(j);
  EXPECT_DOUBLE_EQ(j["compute"]["total_flop"].get<double>(), 6 * 70e9 * 15e12);
  EXPECT_NEAR(j["time"]["compute_s"].get<double>(), six_nd_seconds(70e9, 15e12, 1, 0.4), 1.0);
  EXPECT_GT(j["time"]["compute_s"].get<double>(), 400 * 365.25 * 86400.0);  // ~505 years
  EXPECT_GE(j["time"]["wall_clock_s"].get<double>(), j["time"]["compute_s"].get<double>());
}

TEST(Extremes, TenTrillionParametersOnAQuadrillionTokens) {
  const json j = to_json(train_report_for(params_request(10e12, 1e15, 100000)));
  expect_all_finite(j);
  EXPECT_DOUBLE_EQ(j["compute"]["total_flop"].get<double>(), 6e28);
  EXPECT_NEAR(j["time"]["compute_s"].get<double>() / six_nd_seconds(10e12, 1e15, 100000, 0.4), 1.0, 1e-9);
  // GPU-hours: compute GPU-hours are exactly FLOPs / (MFU · peak) / 3600, whatever the count.
  EXPECT_NEAR(j["gpu_hours"]["compute_gpu_hours"].get<double>() / (6e28 / (0.4 * h100_bf16()) / 3600), 1.0, 1e-9);
  EXPECT_GT(j["cost"]["total"].get<double>(), 1e10);
}

TEST(Extremes, AMillionGpusWithAFixedFaultBudgetOrAClearRefusal) {
  // At Llama 3's per-GPU MTBF a million-GPU job fails every ~3 minutes, faster
  // than it restarts: gpuplan refuses and says why.
  try {
    (void)train_report_for(params_request(70e9, 15e12, 1e6));
    ADD_FAILURE() << "a million GPUs at Llama 3's MTBF should be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gpus");
    EXPECT_NE(std::string(e.what()).find("fails every"), std::string::npos) << e.what();
  }
  // With a 100x better MTBF it runs, and time scales as 1/GPUs.
  TrainRequest r = params_request(70e9, 15e12, 1e6);
  r.ops.gpu_mtbf_hours = 100 * kLlama3GpuMtbfHours;
  const json j = to_json(train_report_for(r));
  expect_all_finite(j);
  EXPECT_NEAR(j["time"]["compute_s"].get<double>() / six_nd_seconds(70e9, 15e12, 1e6, 0.4), 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(j["time"]["gpus"].get<double>(), 1e6);
  EXPECT_DOUBLE_EQ(j["time"]["nodes"].get<double>(), 125000);
}

TEST(Extremes, GpuCountsFromOneToAMillionStayFiniteAndScale) {
  double previous_compute = INFINITY;
  for (double gpus : {1.0, 8.0, 1024.0, 65536.0, 1e6}) {
    TrainRequest r = params_request(7e9, 1e12, gpus);
    r.fault_budget = 0.2;
    r.ops.gpu_mtbf_hours = 1e8;  // the reliability model is not what this test is about
    const json j = to_json(train_report_for(r));
    expect_all_finite(j);
    const double compute = j["time"]["compute_s"].get<double>();
    EXPECT_NEAR(compute / six_nd_seconds(7e9, 1e12, gpus, 0.4), 1.0, 1e-9) << gpus;
    EXPECT_LT(compute, previous_compute);
    previous_compute = compute;
  }
}

TEST(Extremes, ASolvedGpuCountAboveTheLimitIsRefusedByName) {
  TrainRequest r = params_request(10e12, 1e15, 1);
  r.gpus.reset();
  r.deadline_s = 90 * 86400.0;
  try {
    (void)train_report_for(r);
    ADD_FAILURE() << "23 million GPUs should be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gpus");
    EXPECT_NE(std::string(e.what()).find("10,000,000"), std::string::npos) << e.what();
  }
}

TEST(Extremes, AMillionTokenContext) {
  const ModelSpec m = find_model("llama-3.1-8b");
  FlopOptions o;
  o.seq_len = 1 << 20;
  const FlopsPerToken f = flops_per_token(m, o);
  // Attention dominates: forward 4·s·(heads·head_dim)·layers per token = 4 · 2^20 · 4096 · 32.
  EXPECT_DOUBLE_EQ(f.forward_attention_flop, 4.0 * (1 << 20) * 4096 * 32);
  EXPECT_GT(f.model_flop, 20 * f.six_n_flop);
  EXPECT_TRUE(std::isfinite(f.model_flop));

  TrainRequest r;
  r.model = "llama-3.1-8b";
  r.workload.tokens = 1e15;
  r.workload.seq_len = 1 << 20;
  r.force_context = true;  // 8× Llama 3.1 8B's 131,072 positions, on purpose (--force)
  r.workload.global_batch_seqs = 16;
  r.gpu = "h100";
  r.gpus = 100000;
  r.mfu = 0.3;
  const json j = to_json(train_report_for(r));
  expect_all_finite(j);
  EXPECT_NEAR(j["compute"]["total_flop"].get<double>() / (f.model_flop * 1e15), 1.0, 1e-12);

  // Memory: 1M tokens on one GPU does not fit; split 64 ways (tp 8 × cp 8) it is finite and its size is right.
  Layout l;
  l.seq_len = 1 << 20;
  MemoryOptions mo;
  mo.suggest = true;
  const MemoryBreakdown one = estimate_memory(m, l, find_gpu("h100"), mo);
  EXPECT_FALSE(one.fits);
  EXPECT_TRUE(std::isfinite(one.peak_bytes));
  // At least the 2-byte layer inputs of 32 layers: 32 · 2 · 2^20 · 4096 bytes = 256 GiB.
  EXPECT_GT(one.activations_bytes, 256 * kGiB);
  l.tp = 8;
  l.cp = 8;
  l.sequence_parallel = true;
  validate_layout(m, l, 64);
  const MemoryBreakdown split = estimate_memory(m, l, find_gpu("h100"), mo);
  EXPECT_TRUE(std::isfinite(split.peak_bytes));
  EXPECT_LT(split.activations_bytes, one.activations_bytes / 32);
  expect_all_finite(to_json(memory_report_for(m, l, find_gpu("h100"), mo)));
}

TEST(Extremes, TenTrillionParameterMemoryOnAMillionGpus) {
  const ModelSpec m = model_from_param_count(10e12);
  Layout l;
  l.dp = 1000000;
  l.zero_stage = 3;
  const MemoryBreakdown b = estimate_memory(m, l, find_gpu("h100"));
  EXPECT_TRUE(std::isfinite(b.peak_bytes));
  // 16 bytes per parameter sharded a million ways: 160 MB of model states per GPU.
  EXPECT_NEAR((b.weights_bytes + b.gradients_bytes + b.optimizer_bytes) / 16e13 * 1e6, 1.0, 1e-9);
  Layout one;
  const MemoryBreakdown b1 = estimate_memory(m, one, find_gpu("h100"));
  EXPECT_FALSE(b1.fits);
  EXPECT_NEAR((b1.weights_bytes + b1.gradients_bytes + b1.optimizer_bytes) / 16e13, 1.0, 1e-9);
  expect_all_finite(to_json(memory_report_for(m, one, find_gpu("h100"), {})));
}

// Regression (issue 8): a checkpoint too large to write in 1e6 s was refused as
// "--checkpoint-write must be a non-negative checkpoint write time (got 1.12e+08)",
// naming a flag that does not exist about a value that is not negative.
TEST(Extremes, ACheckpointTooSlowToWriteNamesTheStorageFlag) {
  TrainRequest r = params_request(1e15, 1e18, 1, 0.0001);
  try {
    (void)train_report_for(r);
    ADD_FAILURE() << "should be refused";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("--checkpoint-write"), std::string::npos) << what;
    EXPECT_TRUE(e.field() == "storage_gbytes_per_s" || e.field() == "gpus") << e.field() << ": " << what;
    EXPECT_EQ(what.find("non-negative"), std::string::npos) << what;
  }
  ReliabilityInput in;
  in.checkpoint_write_s = 1.12e8;
  in.useful_compute_s = 1e6;
  try {
    (void)estimate_reliability(in);
    ADD_FAILURE() << "should be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "storage_gbytes_per_s");
    EXPECT_NE(std::string(e.what()).find("--storage-gbytes-per-s"), std::string::npos) << e.what();
  }
  in.checkpoint_write_s = 60;
  in.useful_compute_s = 1e13;
  try {
    (void)estimate_reliability(in);
    ADD_FAILURE() << "should be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gpus");
    EXPECT_NE(std::string(e.what()).find("31,700 years"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuplan
