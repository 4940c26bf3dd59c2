// The GPUs Chinese teams rent (issue 16 part 3): each is in the catalog under
// the validation id convention (../shared/validation/README.md: vendor part +
// memory), reachable by the aliases people type, with a source for every
// number the planner uses, and listed by `gpuplan gpus`.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpuplan/hardware.hpp"
#include "gpuplan/units.hpp"
#include "run_binary.hpp"

namespace gpuplan {
namespace {

struct Typed {
  const char* alias;
  const char* id;
};

// As typed on rental platforms and in chat: the bare model number.
const Typed kTyped[] = {
    {"3090", "rtx3090-24gb"},       {"4090d", "rtx4090d-24gb"},      {"5090", "rtx5090-32gb"},
    {"l40", "l40-48gb"},            {"a6000", "rtxa6000-48gb"},      {"910b2", "ascend910b2-64gb"},
    {"910b3", "ascend910b3-64gb"},  {"910b4", "ascend910b4-32gb"},   {"910c", "ascend910c-128gb"},
    {"RTX 4090D", "rtx4090d-24gb"}, {"Ascend910B2", "ascend910b2-64gb"},
};

TEST(RentedGpus, AliasesResolveToTheirIds) {
  for (const auto& t : kTyped) EXPECT_EQ(find_gpu(t.alias).id, t.id) << t.alias;
  // The new parts do not steal the aliases of the old ones.
  EXPECT_EQ(find_gpu("4090").id, "rtx4090-24gb");
  EXPECT_EQ(find_gpu("l40s").id, "l40s-48gb");
  EXPECT_EQ(find_gpu("910b").id, "ascend910b-64gb");
}

TEST(RentedGpus, EveryNumberTheModelUsesHasASource) {
  for (const auto& t : kTyped) {
    const GpuSpec& g = find_gpu(t.alias);
    for (const char* key : {"memory_gib", "hbm_tbps", "peak_tflops.bf16", "peak_tflops.fp16", "peak_tflops.fp8",
                            "intra_node.uni_gbytes_per_s", "node.gpus_per_node", "node.scaleout_gbit_per_s_per_gpu"}) {
      ASSERT_TRUE(g.sources.count(key)) << g.id << " has no source for " << key;
      EXPECT_GT(g.sources.at(key).size(), 20u) << g.id << " " << key;
    }
  }
}

// Issue 31 bug 2: the SM count sets wave quantization in every GEMM, and it
// once came from a C++ id-prefix table whose fallback gave five parts the
// A100's 108. Now every catalog GPU states its architecture and compute units
// in data/gpus.json with a source for each, and a missing value fails at load.
TEST(RentedGpus, EveryGpuStatesItsArchitectureAndComputeUnitsWithSources) {
  const std::vector<std::string> known = {"volta", "ampere", "ada", "hopper", "blackwell", "cdna2", "cdna3", "davinci", "tpu"};
  ASSERT_EQ(gpu_catalog().size(), 31u);
  for (const GpuSpec& g : gpu_catalog()) {
    EXPECT_GT(g.compute_units, 0) << g.id;
    EXPECT_NE(std::find(known.begin(), known.end(), g.architecture), known.end()) << g.id << ": " << g.architecture;
    for (const char* key : {"architecture", "compute_units"}) {
      ASSERT_TRUE(g.sources.count(key)) << g.id << " has no source for " << key;
      EXPECT_GT(g.sources.at(key).size(), 20u) << g.id << " " << key;
    }
  }
  // The five that took 108, and two the prefix table had wrong, at their
  // datasheet counts: L40 142 SMs (AD102, 18,176 CUDA cores / 128); RTX 3090
  // 82; RTX A6000 84; RTX 5090 170 (GB202); RTX 4090 D 114 (the 4090's 128
  // cut for export); Ascend 910C 48 AI cores (two 24-core dies); 910B3 20.
  const std::pair<const char*, int> fixed[] = {{"l40", 142}, {"3090", 82}, {"a6000", 84}, {"5090", 170},
                                               {"4090d", 114}, {"910c", 48}, {"910b3", 20}};
  for (const auto& [alias, units] : fixed) EXPECT_EQ(find_gpu(alias).compute_units, units) << alias;
  // Unchanged by the move: H100 SXM 132, A100 108, 4090 128, MI300X 304.
  EXPECT_EQ(find_gpu("h100").compute_units, 132);
  EXPECT_EQ(find_gpu("a100-80g").compute_units, 108);
  EXPECT_EQ(find_gpu("4090").compute_units, 128);
  EXPECT_EQ(find_gpu("mi300x").compute_units, 304);
  EXPECT_EQ(find_gpu("l40").architecture, "ada");
  EXPECT_EQ(find_gpu("910c").architecture, "davinci");
}

TEST(RentedGpus, DatasheetNumbers) {
  // L40 datasheet: 48 GB, 864 GB/s, BF16 181.05 dense (362.1 sparse), FP8 362 dense.
  const GpuSpec& l40 = find_gpu("l40");
  EXPECT_DOUBLE_EQ(l40.memory_bytes, 48 * kGiB);
  EXPECT_DOUBLE_EQ(l40.hbm_bytes_per_s, 0.864e12);
  EXPECT_DOUBLE_EQ(l40.peak(Precision::kBf16), 181.05e12);
  EXPECT_DOUBLE_EQ(l40.peak(Precision::kFp8), 362e12);
  // RTX 4090 D: 114 of the 4090's 128 SMs at the same boost clock, so
  // 165.2 × 114/128 = 147.1 TFLOP/s BF16 (FP32 accumulate), as its sheet says.
  EXPECT_NEAR(find_gpu("4090d").peak(Precision::kBf16) / 1e12, 165.2 * 114 / 128, 0.05);
  // RTX 3090 and A6000 are Ampere: no FP8. The 3090 (GeForce) runs FP32
  // accumulate at half rate (71), the A6000 at full rate (154.8).
  EXPECT_FALSE(find_gpu("3090").has(Precision::kFp8));
  EXPECT_FALSE(find_gpu("a6000").has(Precision::kFp8));
  EXPECT_DOUBLE_EQ(find_gpu("3090").peak(Precision::kBf16), 71e12);
  EXPECT_DOUBLE_EQ(find_gpu("a6000").peak(Precision::kBf16), 154.8e12);
  // RTX 5090: 32 GB GDDR7 at 1,792 GB/s, PCIe 5.
  EXPECT_DOUBLE_EQ(find_gpu("5090").hbm_bytes_per_s, 1.792e12);
  EXPECT_EQ(find_gpu("5090").pcie_gen, 5);
}

TEST(RentedGpus, AscendVariantsFollowTheirCoreCounts) {
  // HAMi lists 24 AI cores for 910B2 and 20 for 910B3/910B4; at 8,192 FLOP per
  // core per cycle and the 910B2's 1.8 GHz: 24·8192·1.8e9 = 353.9 and
  // 20·8192·1.8e9 = 294.9 TFLOP/s.
  EXPECT_NEAR(find_gpu("910b2").peak(Precision::kBf16) / 1e12, 24 * 8192 * 1.8e9 / 1e12, 0.2);
  EXPECT_NEAR(find_gpu("910b3").peak(Precision::kBf16) / 1e12, 20 * 8192 * 1.8e9 / 1e12, 0.2);
  EXPECT_DOUBLE_EQ(find_gpu("910b4").memory_bytes, 32 * kGiB);  // HAMi: 32768 MiB
  EXPECT_DOUBLE_EQ(find_gpu("910b3").memory_bytes, 64 * kGiB);
  // 910C: two dies of ~376 TFLOPS and 64 GB at 1.6 TB/s each (CloudMatrix384 paper).
  const GpuSpec& c = find_gpu("910c");
  EXPECT_DOUBLE_EQ(c.peak(Precision::kBf16), 752e12);
  EXPECT_DOUBLE_EQ(c.memory_bytes, 128 * kGiB);
  EXPECT_DOUBLE_EQ(c.hbm_bytes_per_s, 3.2e12);
  EXPECT_EQ(c.nvlink_domain_gpus, 384);
  EXPECT_FALSE(c.has(Precision::kFp8));
}

TEST(RentedGpus, ListedByTheCliWithSources) {
  const auto list = gpuplan_test::run_binary("gpus");
  ASSERT_EQ(list.status, 0);
  for (const auto& t : kTyped) EXPECT_NE(list.out.find(t.id), std::string::npos) << t.id;
  const auto one = gpuplan_test::run_binary("gpus 910b4");
  ASSERT_EQ(one.status, 0);
  EXPECT_NE(one.out.find("Project-HAMi/HAMi"), std::string::npos) << one.out;
  // An unknown TDP reads "unknown", not 0.
  const auto c = gpuplan_test::run_binary("gpus 910c --format json");
  EXPECT_NE(c.out.find("\"tdp_w\": \"unknown\""), std::string::npos) << c.out;
}

}  // namespace
}  // namespace gpuplan
