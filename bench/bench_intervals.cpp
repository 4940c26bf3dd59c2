// Leave-one-source-out interval tables (validate's ranges): a file where every
// case names its own source, as vTrain's 1,549 rows do, needs one held-out
// table per source. derive_held_out_tables builds them from one grouping;
// rebuilding each from scratch (the second benchmark) is what validate did
// before, 21.7 s for vtrain.jsonl against 2.8 s now (measured 2026-12-06, 2 cores).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "gpuplan/intervals.hpp"

namespace {

std::vector<gpuplan::Residual> residuals(int sources) {
  std::vector<gpuplan::Residual> out;
  const char* classes[] = {"ampere", "hopper", "blackwell"};
  for (int i = 0; i < sources; ++i) {
    gpuplan::PredictionContext c{"train_throughput", i % 5 == 0, i % 3 != 0, classes[i % 3], i % 2 == 0};
    out.push_back(gpuplan::Residual{c, "source " + std::to_string(i), 0.001 * ((i * 37) % 200 - 100)});
  }
  return out;
}

void BM_HeldOutTables(benchmark::State& state) {
  const std::vector<gpuplan::Residual> rs = residuals(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(gpuplan::derive_held_out_tables(rs, 4, {}));
}
BENCHMARK(BM_HeldOutTables)->Arg(347)->Arg(1549)->Unit(benchmark::kMillisecond);

void BM_HeldOutTablesOneByOne(benchmark::State& state) {
  const std::vector<gpuplan::Residual> rs = residuals(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    for (const gpuplan::Residual& left_out : rs) {
      std::vector<gpuplan::Residual> others;
      for (const gpuplan::Residual& r : rs) {
        if (r.source != left_out.source) others.push_back(r);
      }
      benchmark::DoNotOptimize(gpuplan::derive_interval_table(others, 4, {}));
    }
  }
}
BENCHMARK(BM_HeldOutTablesOneByOne)->Arg(347)->Unit(benchmark::kMillisecond);

}  // namespace
