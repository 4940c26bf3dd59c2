// Failures, checkpoints and the data pipeline (issue 6), hand-derived.
#include <gtest/gtest.h>

#include <cmath>

#include "gpuplan/checkpoint.hpp"
#include "estimate/run/data_pipeline.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/reliability.hpp"

using namespace gpuplan;

TEST(Reliability, YoungIntervalForLlama3ScaleMtbf) {
  // M = 3.1 h = 11,160 s, δ = 60 s: τ = sqrt(2 · 60 · 11,160) = 1,157 s ≈ 19.3 min.
  EXPECT_NEAR(young_interval_s(60, 3.1 * 3600) / 60, 19.3, 0.05);
  // Daly's higher-order interval is slightly shorter: τ·(1 + ⅓·sqrt(x) + x/9) − δ, x = δ/2M.
  const double x = 60.0 / (2 * 11160);
  EXPECT_NEAR(daly_interval_s(60, 11160), std::sqrt(2 * 60 * 11160.0) * (1 + std::sqrt(x) / 3 + x / 9) - 60, 1e-9);
  EXPECT_DOUBLE_EQ(daly_interval_s(1000, 400), 400);  // δ ≥ 2M: checkpoint every MTBF
}

TEST(Reliability, Llama3JobMtbfFromPerGpuRate) {
  // Per-GPU MTBF = 16,384 · 54 · 24 / 419 = 50,676 GPU-hours; on 16,384 GPUs the
  // job MTBF is 54 · 24 / 419 = 3.093 h.
  ReliabilityInput in;
  in.gpus = 16384;
  in.useful_compute_s = 54 * 86400;
  const auto r = estimate_reliability(in);
  EXPECT_NEAR(r.job_mtbf_s / 3600, 3.093, 0.001);
  // Over a 54-day useful run about 419·(wall/useful) interruptions happen.
  EXPECT_NEAR(r.interruptions, 419 * r.wall_s / (54 * 86400.0), 1e-6);
  // Llama 3 reports > 90% effective training time with its automation; with a
  // 15-minute restart and 1-minute checkpoints the first-order model gives ~85–95%.
  EXPECT_GT(r.effective_time_ratio, 0.80);
  EXPECT_LT(r.effective_time_ratio, 0.97);
}

TEST(Reliability, WallClockBalancesUsefulWorkAndLosses) {
  // wall = useful·(1 + δ/τ) / (1 − (τ/2 + R)/M): M = 10 h, δ = 100 s, τ = 3,600 s, R = 600 s.
  ReliabilityInput in;
  in.gpus = 1;
  in.gpu_mtbf_hours = 10;
  in.checkpoint_write_s = 100;
  in.restart_s = 600;
  in.checkpoint_interval_s = 3600;
  in.useful_compute_s = 100 * 3600;
  const auto r = estimate_reliability(in);
  const double expected = 100 * 3600 * (1 + 100.0 / 3600) / (1 - (1800.0 + 600) / 36000);
  EXPECT_NEAR(r.wall_s, expected, 1e-6);
}

TEST(Reliability, NoProgressWhenLossesExceedMtbf) {
  ReliabilityInput in;
  in.gpus = 1e6;
  in.gpu_mtbf_hours = 1000;  // job MTBF 3.6 s
  in.useful_compute_s = 3600;
  const auto r = estimate_reliability(in);
  EXPECT_FALSE(r.progresses);
}

TEST(Checkpoint, Llama405BMixedPrecisionAdamW) {
  // 405.85B parameters × (2 bf16 weights + 12 fp32 master/m/v) = 5.68 TB; the
  // 16-bytes-per-parameter rule of thumb (which also counts bf16 gradients,
  // not saved) gives 6.49 TB, the figure Llama 3 summaries quote.
  Layout l;
  l.tp = 8;
  l.pp = 16;
  l.dp = 128;
  l.zero_stage = 1;
  const auto c = estimate_checkpoint(find_model("llama-3.1-405b"), l, 2e12, 50e9);
  EXPECT_NEAR(c.total_bytes / 1e12, 405.853 * 14 / 1000, 0.01);
  EXPECT_NEAR(count_params(find_model("llama-3.1-405b")).total * 16 / 1e12, 6.49, 0.01);
  // 2 TB/s sustained (Llama 3's Tectonic figure): 5.68 TB / 2e12 = 2.84 s.
  EXPECT_NEAR(c.write_s, c.total_bytes / 2e12, 1e-9);
}

TEST(DataPipeline, Seed004ReadRate) {
  // A global batch of 1,024 sequences × 4,096 tokens every 10 s = 419,430.4 tokens/s;
  // stored as uint32 ids (4 bytes) storage must deliver 1.678 MB/s.
  DataPipelineInput in;
  in.tokens_per_s = 1024.0 * 4096 / 10;
  in.unique_tokens = 1e12;
  const auto e = estimate_data_pipeline(in);
  EXPECT_NEAR(e.read_bytes_per_s, 1677721.6, 1e-6);
  EXPECT_DOUBLE_EQ(e.dataset_bytes, 4e12);
  // Tokenising raw text on the fly at 1M tokens/s per core needs 0.42 cores.
  in.tokenize_on_the_fly = true;
  EXPECT_NEAR(estimate_data_pipeline(in).cpu_cores, 0.4194304, 1e-9);
  // Moving 4 TB over a 10 Gb/s link at 80% efficiency: 4e12 / (1.25e9 · 0.8) = 4,000 s.
  in.tokenize_on_the_fly = false;
  in.wan_bytes_per_s = 10e9 / 8;
  EXPECT_NEAR(estimate_data_pipeline(in).transfer_s, 4000, 1e-6);
}

#include "report/train_report.hpp"
#include "inputs/report_chains.hpp"

TEST(TrainOperations, ComputedFaultBudgetFollowsTheReliabilityModel) {
  // Without --fault-budget, the failure time is wall/useful − 1 of the reliability model.
  TrainRequest r;
  r.model = "llama-3.1-405b";
  r.workload.tokens = 15e12;
  r.gpu = "h100-sxm5-80gb";
  r.gpus = 16384;
  r.mfu = 0.40;
  const auto j = to_json(train_report_for(r));
  const double ettr = j["operations"]["effective_time_ratio"].get<double>();
  const double fault_fraction = j["time"]["fault_budget_s"].get<double>() / j["time"]["compute_s"].get<double>();
  EXPECT_NEAR(fault_fraction, 1.0 / ettr - 1.0, 1e-9);
  // Job MTBF on 16,384 GPUs: 3.09 h (Llama 3's 419 interruptions in 54 days).
  EXPECT_NEAR(j["operations"]["job_mtbf_s"].get<double>() / 3600, 3.093, 0.001);
  // 405.85B × 14 bytes = 5.68 TB per checkpoint.
  EXPECT_NEAR(j["operations"]["checkpoint_bytes"].get<double>() / 1e12, 5.682, 0.001);
  EXPECT_GT(ettr, 0.8);
  EXPECT_LT(ettr, 1.0);
}

TEST(TrainOperations, SolvedGpuCountIncludesComputedFailures) {
  TrainRequest r;
  r.model = "llama-3.1-70b";
  r.workload.tokens = 15e12;
  r.gpu = "h100-sxm5-80gb";
  r.mfu = 0.40;
  r.deadline_s = 90 * 86400.0;
  const auto j = to_json(train_report_for(r));
  // The solved count is a fixed point: its wall-clock, failures included, meets the deadline.
  EXPECT_TRUE(j["time"]["deadline_met"].get<bool>());
  EXPECT_LE(j["time"]["wall_clock_s"].get<double>(), 90 * 86400.0);
  EXPECT_EQ(static_cast<int64_t>(j["time"]["gpus"].get<double>()) % 8, 0);
}

TEST(TrainOperations, SpotCostsTimeAndIsComparedWithOnDemand) {
  TrainRequest r;
  r.model = "llama-3.1-8b";
  r.workload.tokens = 1e12;
  r.gpu = "h100-sxm5-80gb";
  r.gpus = 256;
  r.mfu = 0.40;
  r.price.spot = true;
  const auto j = to_json(train_report_for(r));
  EXPECT_GT(j["operations"]["spot_interruptions"].get<double>(), j["operations"]["interruptions"].get<double>());
  EXPECT_LT(j["operations"]["spot_effective_time_ratio"].get<double>(), j["operations"]["effective_time_ratio"].get<double>());
  // The spot overhead line is the ratio of the two effective time ratios.
  const double overhead = j["gpu_hours"]["spot_overhead_gpu_hours"].get<double>() / j["gpu_hours"]["total_gpu_hours"].get<double>();
  const double expected = j["operations"]["effective_time_ratio"].get<double>() / j["operations"]["spot_effective_time_ratio"].get<double>() - 1;
  EXPECT_NEAR(overhead * (1 + expected), expected, 1e-9);
}
