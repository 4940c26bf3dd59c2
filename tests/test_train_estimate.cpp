// estimate_train (issue 17): the training estimate as typed numbers, without a
// report; train_report renders exactly these.
#include <gtest/gtest.h>

#include "gpuplan/error.hpp"
#include "gpuplan/train_estimate.hpp"
#include "gpuplan/train_report.hpp"

using namespace gpuplan;

TEST(TrainEstimate, SeedOneNumbersWithoutAReport) {
  // Seed 001 (test_seed_examples.cpp): 6 × 7e9 × 1e12 = 4.2e22 FLOP on A100s
  // (312 TFLOP/s dense BF16) at 40%: 4.2e22 / (312e12 × 0.4 × 3600) =
  // 93,482.9 GPU-hours; at 15–30 CNY: 1,402,244 – 2,804,487 CNY.
  TrainRequest r;
  r.gpu = "a100-sxm4-80gb";
  r.fault_budget = 0;
  r.comm_margin = 0;
  r.params = 7e9;
  r.workload.tokens = 1e12;
  r.mfu = 0.4;
  r.gpus = 1000;
  r.price.text = "15-30cny";
  const TrainEstimate e = estimate_train(r);
  EXPECT_FALSE(e.flops->exact);  // a bare count: 6·N
  EXPECT_DOUBLE_EQ(e.total_model_flop, 4.2e22);
  EXPECT_DOUBLE_EQ(e.peak_flop_per_s, 312e12);
  EXPECT_NEAR(e.run.gpu_hours_compute, 93482.9, 0.1);
  EXPECT_FALSE(e.mfu_predicted);
  EXPECT_FALSE(e.layout.has_value());  // no architecture: no layout search
  ASSERT_TRUE(e.cost.has_value());
  EXPECT_EQ(e.cost->currency, Currency::kCny);
  EXPECT_DOUBLE_EQ(e.cost->per_gpu_hour, 15.0);
  EXPECT_DOUBLE_EQ(*e.cost->per_gpu_hour_high, 30.0);
  EXPECT_NEAR(e.cost->total, 1402244, 1);
  EXPECT_NEAR(*e.cost->total_at_price_high, 2804487, 1);
  EXPECT_FALSE(e.cost->spot_overhead.has_value());
  // The report shows the estimate's numbers.
  const auto j = to_json(train_report(r));
  EXPECT_DOUBLE_EQ(j["cost"]["total"].get<double>(), e.cost->total);
  EXPECT_DOUBLE_EQ(j["gpu_hours"]["total_gpu_hours"].get<double>(), e.run_gpu_hours);
}

TEST(TrainEstimate, BadInputThrowsBeforeAnyReport) {
  TrainRequest r;
  r.gpu = "h100";
  r.params = 7e9;
  r.workload.tokens = 1e12;
  r.mfu = 1.5;
  r.gpus = 8;
  EXPECT_THROW(estimate_train(r), InputError);
}
