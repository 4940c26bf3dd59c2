// Regression tests for bugs found by the fuzzers and the invariant tests (issue 8,
// docs/fuzzing.md). Each names what broke.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "inputs/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "validate/validate.hpp"
#include "model/hf_config.hpp"

namespace gpuplan {
namespace {

double activations(const ModelSpec& m, Layout l, Recompute rc) {
  l.recompute = rc;
  MemoryOptions o;
  o.suggest = false;
  return estimate_memory(m, l, find_gpu("a100-80g"), o).activations_bytes;
}

// Found by Invariants.RecomputeNeverRaisesActivationMemory: with activation
// offload and no FlashAttention, full recompute (1.12e10 B) came out above
// selective (4.58e9 B) for Mistral 7B, because selective left out the s×s
// scores it rebuilds for one layer in the backward pass.
TEST(Regressions, FullRecomputeNotAboveSelectiveWithOffloadAndNoFlash) {
  const ModelSpec m = find_model("mistral-7b");
  Layout l;
  l.seq_len = 8192;
  l.micro_batch = 2;
  l.global_batch = 16;
  l.attention = AttentionKernel::kMaterialised;
  l.offload_activations = true;
  const double sel = activations(m, l, Recompute::kSelective);
  const double full = activations(m, l, Recompute::kFull);
  EXPECT_LE(full, sel);
  EXPECT_LE(sel, activations(m, l, Recompute::kNone));
}

// Found by the same invariant: with one layer per pipeline stage and one
// micro-batch in flight, full recompute counted that layer's input twice (its
// checkpoint, and again inside the recomputed layer's activations).
TEST(Regressions, FullRecomputeNotAboveSelectiveWithOneLayerPerStage) {
  const ModelSpec m = model_from_hf_config(
      {{"num_hidden_layers", 2}, {"hidden_size", 1024}, {"num_attention_heads", 16}, {"intermediate_size", 4096},
       {"vocab_size", 32000}},
      "regression");
  for (bool flash : {true, false}) {
    Layout l;
    l.pp = 2;
    l.seq_len = 2048;
    l.global_batch = 1;
    l.attention = flash ? AttentionKernel::kFlash2 : AttentionKernel::kMaterialised;
    validate_layout(m, l, 2);
    EXPECT_LE(activations(m, l, Recompute::kFull), activations(m, l, Recompute::kSelective)) << flash;
  }
}

// Found by fuzz_validate_case: a case with "micro_batch": 0 divided by zero
// (dp × micro_batch) in case_inputs, UB caught by UBSan. Zero, negative,
// fractional or huge layout numbers are now refused naming their key.
TEST(Regressions, ValidationCaseWithZeroMicroBatchIsRefusedNotDividedBy) {
  const std::string base =
      R"({"id": "x", "kind": "train_memory", "model": {"num_hidden_layers": 24, "hidden_size": 1024, )"
      R"("num_attention_heads": 16, "intermediate_size": 4096, "vocab_size": 50257}, )"
      R"("hardware": {"gpu": "a100-sxm4-80gb", "count": 8, "gpus_per_node": 8}, "measured": {"peak_memory_gib": 10}, )";
  auto field_of = [&](const std::string& train) -> std::string {
    const auto cases = parse_cases(base + R"("train": )" + train + "}", "regression.jsonl");
    try {
      (void)case_inputs(cases.at(0));
    } catch (const InputError& e) {
      return e.field();
    }
    return "";
  };
  EXPECT_EQ(field_of(R"({"seq_len": 1024, "global_batch_seqs": 4, "micro_batch": 0, "tp": 1, "pp": 4, "dp": 2})"), "train.micro_batch");
  EXPECT_EQ(field_of(R"({"seq_len": 1024, "global_batch_seqs": 4, "micro_batch": 1, "tp": 0, "pp": 4, "dp": 2})"), "train.tp");
  EXPECT_EQ(field_of(R"({"seq_len": 1024, "global_batch_seqs": 4, "micro_batch": 1, "tp": 1, "pp": 1, "dp": 0})"), "train.dp");
  EXPECT_EQ(field_of(R"({"seq_len": 1e300, "micro_batch": 1})"), "train.seq_len");
  EXPECT_EQ(field_of(R"({"seq_len": 1024, "micro_batch": 1, "tp": 1, "pp": 1, "dp": 2, "zero_stage": 1.5})"), "train.zero_stage");
  // The published numbers still read.
  EXPECT_EQ(field_of(R"({"seq_len": 1024, "global_batch_seqs": 16, "micro_batch": 2, "tp": 1, "pp": 4, "dp": 2})"), "");
}

// Found by fuzz_web_api: a --compare-layout number beyond int64 ("mb=1777…7", 1.8e47) was converted to an
// integer before its range was checked, undefined behaviour caught by UBSan. It is now refused naming
// --compare-layout.
TEST(Regressions, CompareLayoutHugeNumberIsRefusedBeforeConversion) {
  PlanInputs in;
  in.model = "llama-3.1-8b";
  in.gpu = "h100";
  in.gpus = "4";
  in.global_batch = 64;
  for (const char* layout : {"tp=2,pp=1,dp=2,mb=177777777777777777777777777777777777777777777777", "tp=1e300,pp=1,dp=4",
                             "tp=2,pp=1,dp=2,mb=-1e30", "tp=2,pp=1,dp=2,zero=1.5"}) {
    in.compare_layout = {layout};
    try {
      (void)make_plan_request(in);
      ADD_FAILURE() << layout << " was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "compare_layout") << layout;
    }
  }
  in.compare_layout = {"tp=2,pp=1,dp=2,mb=4"};
  EXPECT_NO_THROW((void)make_plan_request(in));
  // The same pattern guarded --gpus: a count beyond int64 is refused naming --gpus.
  in.compare_layout.clear();
  in.gpus = "1e30";
  try {
    (void)make_plan_request(in);
    ADD_FAILURE() << "--gpus 1e30 was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gpus");
  }
}

}  // namespace
}  // namespace gpuplan
