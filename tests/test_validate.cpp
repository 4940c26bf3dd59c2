// gpuplan validate: case reading, defaults flagged, scoring, and a run over
// the shared validation file when it is present.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "gpuplan/error.hpp"
#include "gpuplan/validate.hpp"

using namespace gpuplan;

namespace {

const char* kCase =
    R"({"id": "t1__mem", "source": "test", "verification": "primary", "kind": "train_memory", )"
    R"("model": {"name": "tiny", "num_hidden_layers": 4, "hidden_size": 1024, "num_attention_heads": 16, "num_key_value_heads": 16, )"
    R"("intermediate_size": 4096, "hidden_act": "gelu"}, "hardware": {"gpu": "a100-sxm4-80gb", "count": 8}, )"
    R"("train": {"seq_len": 2048, "tp": 2, "pp": 1, "dp": 4, "zero_stage": 1, "precision": "bf16"}, )"
    R"("measured": {"peak_memory_gib": 10}, "notes": "nvidia-smi"})";

}  // namespace

TEST(Validate, MissingInputsAreFlaggedNotSkipped) {
  const auto cases = parse_cases(std::string(kCase) + "\n" +
                                     R"({"id": "t2", "kind": "inference", "model": {}, "hardware": {}, "measured": {"output_tokens_per_s": 5}})",
                                 "inline");
  ASSERT_EQ(cases.size(), 2u);
  const ValidationResult r = run_validation(cases);
  ASSERT_EQ(r.cases.size(), 1u);
  const CaseResult& c = r.cases[0];
  EXPECT_EQ(c.metric, "peak_memory_gib");
  EXPECT_GT(c.predicted, 0);
  EXPECT_DOUBLE_EQ(c.error, c.predicted / 10 - 1);
  auto has = [&](const std::string& s) {
    for (const auto& f : c.flags) if (f.find(s) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("vocab_size not stated"));
  EXPECT_TRUE(has("micro_batch not stated"));
  EXPECT_TRUE(has("recompute not stated"));
  // The inference case has an empty model: it cannot be built, and is counted
  // as failed (with its reason), not dropped.
  ASSERT_EQ(r.summary.size(), 2u);
  EXPECT_EQ(r.summary[1].kind, "inference");
  EXPECT_EQ(r.summary[1].failed, 1);
  EXPECT_EQ(r.failures.size(), 1u);
  const auto j = validation_json(r, "inline");
  EXPECT_TRUE(j["cases"][0]["flags"].is_array());
}

// Megatron-LM refuses --tp-comm-overlap without --sequence-parallel, so a source
// that names the first has the second: the predictor turns it on (and says so).
TEST(Validate, TpCommOverlapImpliesSequenceParallel) {
  auto run = [](const std::string& notes) {
    const std::string line =
        R"({"id": "sp", "source": "test 2024", "verification": "primary", "kind": "train_throughput", )"
        R"("model": {"name": "tiny", "num_hidden_layers": 8, "hidden_size": 4096, "num_attention_heads": 32, )"
        R"("num_key_value_heads": 32, "intermediate_size": 16384, "vocab_size": 32000, "hidden_act": "gelu"}, )"
        R"("hardware": {"gpu": "h100-sxm5-80gb", "count": 16}, "train": {"seq_len": 4096, "global_batch_seqs": 16, )"
        R"("micro_batch": 1, "tp": 8, "pp": 1, "dp": 2, "recompute": "none", "precision": "bf16"}, )"
        R"("measured": {"tokens_per_s_per_gpu": 1000}, "notes": ")" + notes + R"("})";
    return run_validation(parse_cases(line, "inline")).cases.at(0);
  };
  const CaseResult with = run("launched with --tp-comm-overlap");
  const CaseResult without = run("no launch flags");
  auto has = [](const CaseResult& c, const std::string& s) {
    for (const auto& f : c.flags) if (f.find(s) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has(with, "requires --sequence-parallel"));
  EXPECT_TRUE(has(without, "sequence_parallel not stated: off assumed"));
  EXPECT_FALSE(has(without, "requires --sequence-parallel"));
  // Overlapped TP collectives and split element-wise work: faster than the plain run.
  EXPECT_GT(with.predicted, without.predicted);
}

// DeepSpeed ZeRO-3 gathers module by module; runs published by 2021 predate its prefetch fixes.
TEST(Validate, DeepSpeedZeroThreeGranularityAndPrefetch) {
  auto inputs = [](const std::string& source, const std::string& notes, int zero) {
    const std::string line =
        R"({"id": "z", "source": ")" + source + R"(", "verification": "primary", "kind": "train_throughput", )"
        R"("model": {"name": "tiny", "num_hidden_layers": 8, "hidden_size": 4096, "num_attention_heads": 32, )"
        R"("num_key_value_heads": 32, "intermediate_size": 16384, "vocab_size": 32000, "hidden_act": "gelu"}, )"
        R"("hardware": {"gpu": "a100-sxm4-80gb", "count": 64}, "train": {"seq_len": 2048, "global_batch_seqs": 64, )"
        R"("micro_batch": 1, "tp": 1, "pp": 1, "dp": 64, "zero_stage": )" + std::to_string(zero) +
        R"(, "recompute": "full", "precision": "bf16"}, "measured": {"tokens_per_s_per_gpu": 1000}, "notes": ")" + notes + R"("})";
    return case_inputs(parse_cases(line, "inline").at(0)).layout;
  };
  const Layout old_ds = inputs("Some paper 2021, Table 2", "ZeRO-3 with DeepSpeed", 3);
  EXPECT_TRUE(old_ds.zero3_per_module);
  EXPECT_FALSE(old_ds.zero3_prefetch);
  const Layout new_ds = inputs("A 2024 benchmark", "DeepSpeed ZeRO-3", 3);
  EXPECT_TRUE(new_ds.zero3_per_module);
  EXPECT_TRUE(new_ds.zero3_prefetch);
  const Layout fsdp = inputs("A 2021 benchmark", "PyTorch FSDP", 3);
  EXPECT_FALSE(fsdp.zero3_per_module);
  EXPECT_TRUE(fsdp.zero3_prefetch);
  EXPECT_FALSE(inputs("Some paper 2021", "DeepSpeed ZeRO-1", 1).zero3_per_module);
}

// A year from 2019 to `last` standing alone in the source, the only trace of a run's framework version.
TEST(Validate, SourcePublishedBy) {
  auto by = [](const std::string& source, int last) {
    ValidationCase c;
    c.source = source;
    return source_published_by(c, last);
  };
  EXPECT_TRUE(by("Narayanan et al. 2021 (arXiv:2104.04473)", 2021));
  EXPECT_TRUE(by("chronicles, table dated 2022-02-17", 2022));
  EXPECT_FALSE(by("chronicles, table dated 2022-02-17", 2021));
  EXPECT_TRUE(by("tables of 2023 and 2020", 2021));   // any year named counts
  EXPECT_FALSE(by("README (2024-07, commit 937571cfd4)", 2022));
  EXPECT_FALSE(by("commit a12021b, build 20210", 2022));  // digits inside a longer run are not a year
  EXPECT_FALSE(by("Kaplan 2018", 2022));                 // before 2019: not one of these stacks
}

TEST(Validate, BadLinesNameTheLine) {
  try {
    parse_cases(std::string(kCase) + "\n{not json\n", "f.jsonl");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

TEST(Validate, SummaryStatistics) {
  // The same case three times under different ids: three records, all with one error.
  std::string text;
  for (double m : {1.0, 2.0, 3.0}) {
    std::string line = kCase;
    line.replace(line.find("\"t1__mem\""), 9, "\"t" + std::to_string(static_cast<int>(m)) + "\"");
    text += line + "\n";
  }
  const auto cases = parse_cases(text, "inline");
  const ValidationResult r = run_validation(cases);
  ASSERT_EQ(r.summary.size(), 1u);
  EXPECT_EQ(r.summary[0].count, 3);
  // Same case three times: every error equal, so median = MAPE = |error|.
  EXPECT_NEAR(r.summary[0].median_abs_pct_error, std::fabs(r.cases[0].error) * 100, 1e-9);
  EXPECT_NEAR(r.summary[0].mape, std::fabs(r.cases[0].error) * 100, 1e-9);
}

TEST(Validate, SharedCasesEveryTrainMemoryCasePredicted) {
  const std::filesystem::path file = std::filesystem::path(GPUPLAN_SHARED_DIR) / "validation" / "cases.jsonl";
  if (!std::filesystem::exists(file)) {
    GTEST_SKIP() << "shared validation cases not found at " << file << " (../shared is absent): skipped";
  }
  const auto cases = read_cases(file.string());
  int memory_cases = 0;
  for (const auto& c : cases) memory_cases += c.kind == "train_memory";
  ASSERT_GT(memory_cases, 0);
  const ValidationResult r = run_validation(cases, "train_memory");
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  ASSERT_EQ(static_cast<int>(r.cases.size()), memory_cases);
  for (const auto& c : r.cases) {
    EXPECT_TRUE(std::isfinite(c.predicted) && c.predicted > 0) << c.id;
    EXPECT_TRUE(std::isfinite(c.error)) << c.id;
  }
  // The whole file: kinds without a predictor are counted as not predicted.
  const ValidationResult all = run_validation(cases);
  int counted = 0;
  for (const auto& s : all.summary) counted += s.count + s.not_predicted + s.failed;
  EXPECT_GE(counted, static_cast<int>(cases.size()));
}
