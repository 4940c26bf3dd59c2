// Uneven pipeline stages: the split Megatron-LM builds (stage_split, derived by
// hand in each comment), the memory of each stage and the slowest stage's time.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "estimate/memory/memory_internal.hpp"
#include "test_support.hpp"
#include "inputs/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "frameworks/launch_config.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/step_time.hpp"

using namespace gpuplan;

namespace {

Layout pipeline(int pp, int vp, std::optional<int> first = std::nullopt, std::optional<int> last = std::nullopt) {
  Layout l;
  l.pp = pp;
  l.vp = vp;
  l.first_stage_layers = first;
  l.last_stage_layers = last;
  return l;
}

std::string field_of_error(const ModelSpec& m, const Layout& l) {
  try {
    stage_split(m, l);
  } catch (const InputError& e) {
    return e.field();
  }
  return "";
}

using gpuplan_test::has_line;

}  // namespace

TEST(LayoutStageSplit, EvenSplitNumbersChunksRankByRank) {
  // Llama 3.1 70B: 80 layers, pp 4, vp 5 = 20 chunks of 4. Megatron numbers
  // chunk 0 of ranks 0..3 first (layers 0-15), then chunk 1 (16-31), ...
  const StageSplit s = stage_split(find_model("llama-3.1-70b"), pipeline(4, 5));
  EXPECT_EQ(s.rule, StageSplitRule::kEven);
  ASSERT_EQ(s.chunks.size(), 4u);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(s.layers(r), 20);
  EXPECT_EQ(s.chunks[1][0].first, 4);
  EXPECT_EQ(s.chunks[0][1].first, 16);
  EXPECT_EQ(s.chunks[3][4].first, 76);
  EXPECT_EQ(s.chunks[3][4].count, 4);
}

TEST(LayoutStageSplit, Llama405BOnEightByEightCountsEmbeddingAndLossAsLayers) {
  // 126 layers, pp 8, vp 8: 126 % 64 ≠ 0, and --decoder-first/last cannot do
  // it either (every stage would hold a multiple of vp = 8 layers, 126 is not
  // one). Megatron's --account-for-embedding/loss-in-pipeline-split: 128 slots,
  // 2 per chunk; the embedding takes one slot of rank 0's chunk 0, the loss one
  // of rank 7's chunk 7:
  //   rank 0: [1,2,2,2,2,2,2,2] = 15   ranks 1-6: [2,2,2,2,2,2,2,2] = 16   rank 7: [2,2,2,2,2,2,2,1] = 15
  // Numbering (transformer_layer.py: offset = chunk·16 + rank·2 − 1 except rank 0 chunk 0):
  //   rank 0 chunk 0 = layer 0; rank 1 chunk 0 = 1-2; rank 0 chunk 1 = 15-16; rank 7 chunk 7 = 125.
  const StageSplit s = stage_split(find_model("llama-3.1-405b"), pipeline(8, 8));
  EXPECT_EQ(s.rule, StageSplitRule::kEmbeddingLoss);
  EXPECT_EQ(s.layers(0), 15);
  for (int r = 1; r < 7; ++r) EXPECT_EQ(s.layers(r), 16);
  EXPECT_EQ(s.layers(7), 15);
  EXPECT_EQ(s.chunks[0][0].first, 0);
  EXPECT_EQ(s.chunks[0][0].count, 1);
  EXPECT_EQ(s.chunks[1][0].first, 1);
  EXPECT_EQ(s.chunks[7][0].first, 13);
  EXPECT_EQ(s.chunks[0][1].first, 15);
  EXPECT_EQ(s.chunks[0][7].first, 111);
  EXPECT_EQ(s.chunks[7][7].first, 125);
  EXPECT_EQ(s.chunks[7][7].count, 1);
  EXPECT_EQ(s.describe(), "15 | 16 ×6 | 15 (chunks: first [1,2,2,2,2,2,2,2], middle [2,2,2,2,2,2,2,2], last [2,2,2,2,2,2,2,1])");
  // Without interleaving the same 128 slots give 16 per stage: 15 | 16 ×6 | 15 (Llama 3's own split on 16 stages is 7 | 8 ×14 | 7).
  EXPECT_EQ(stage_split(find_model("llama-3.1-405b"), pipeline(16, 1)).describe(), "7 | 8 ×14 | 7");
}

TEST(LayoutStageSplit, FirstAndLastGivenWithInterleaving) {
  // 126 layers, pp 8, vp 2, first 16, last 14: (126 − 30) / 6 = 16 on each middle
  // stage; chunks of 16/2 = 8 on rank 0 and the middles, 14/2 = 7 on rank 7.
  // Chunk 0: rank 0 layers 0-7, rank 1 8-15, ..., rank 6 48-55, rank 7 56-62;
  // chunk 1 starts at 63 (Megatron: total_virtual_chunks = 8 + 48 + 7 = 63), and
  // rank 7's is at 63 + 8 + 6·8 = 119 (119-125).
  const StageSplit s = stage_split(find_model("llama-3.1-405b"), pipeline(8, 2, 16, 14));
  EXPECT_EQ(s.rule, StageSplitRule::kFirstLast);
  EXPECT_EQ(s.layers(0), 16);
  EXPECT_EQ(s.layers(3), 16);
  EXPECT_EQ(s.layers(7), 14);
  EXPECT_EQ(s.chunks[7][0].first, 56);
  EXPECT_EQ(s.chunks[7][0].count, 7);
  EXPECT_EQ(s.chunks[0][1].first, 63);
  EXPECT_EQ(s.chunks[7][1].first, 119);
  EXPECT_EQ(s.first_stage_layers, 16);
  EXPECT_EQ(s.last_stage_layers, 14);
}

TEST(LayoutStageSplit, DeepSeekV3On16StagesTakesTheMostEvenFirstLastSplit) {
  // 61 layers on 16 stages: 63 and 62 slots do not divide by 16 either, so the
  // first/last rule: middle stages of ⌈61/16⌉ = 4, leaving 61 − 14·4 = 5 for the
  // first and last: 3 and 2 (the LM head and loss make the last the heavier to lighten).
  const ModelSpec m = find_model("deepseek-v3");
  ASSERT_EQ(m.layers, 61);
  const StageSplit s = stage_split(m, pipeline(16, 1));
  EXPECT_EQ(s.rule, StageSplitRule::kFirstLast);
  EXPECT_EQ(s.describe(), "3 | 4 ×14 | 2");
  EXPECT_EQ(s.first_stage_layers, 3);
  EXPECT_EQ(s.last_stage_layers, 2);
  // The planner's candidates: both set (3,2), (2,3); then one stage lighter alone: last 1, first 1.
  using P = std::pair<std::optional<int>, std::optional<int>>;
  const std::vector<P> want{{3, 2}, {2, 3}, {std::nullopt, 1}, {1, std::nullopt}};
  EXPECT_EQ(uneven_split_candidates(61, 16, 1), want);
  EXPECT_TRUE(uneven_split_candidates(64, 16, 1).empty());  // even: nothing to search
  Layout l = pipeline(16, 1);
  l.dp = 128;
  l.ep = 64;
  l.global_batch = 15360;
  l.seq_len = 4096;
  EXPECT_NO_THROW(validate_layout(m, l, 2048));
}

TEST(LayoutStageSplit, RefusesSplitsMegatronRefusesNamingTheField) {
  const ModelSpec m = find_model("llama-3.1-405b");
  EXPECT_EQ(field_of_error(m, pipeline(8, 8, 15, 15)), "first_stage_layers");  // not a multiple of vp 8
  EXPECT_EQ(field_of_error(m, pipeline(8, 1, 0, 15)), "first_stage_layers");   // Megatron: must be > 0
  EXPECT_EQ(field_of_error(m, pipeline(8, 1, 20, 20)), "first_stage_layers");  // 86 left over 6 stages
  EXPECT_EQ(field_of_error(m, pipeline(8, 1, 15, 200)), "last_stage_layers");  // more than the model
  EXPECT_EQ(field_of_error(m, pipeline(1, 1, 15)), "first_stage_layers");      // no pipeline
  EXPECT_EQ(field_of_error(m, pipeline(2, 1, 100)), "");                         // the other stage takes the 26 left
  EXPECT_EQ(field_of_error(m, pipeline(2, 1, 63, 63)), "");
  // 96 layers on 64 stages: no slots rule and no first/last split with lighter ends.
  EXPECT_EQ(field_of_error(find_model("gpt3-175b"), pipeline(64, 1)), "pp");
  EXPECT_EQ(field_of_error(find_model("gpt3-175b"), pipeline(8, 5)), "vp");
  EXPECT_EQ(field_of_error(find_model("gpt3-175b"), pipeline(16, 2, 6, 6)), "");  // (96 − 12)/14 = 6, 6 % 2 = 0
}

TEST(MemoryStages, FirstLastAndMiddleStagesDifferByTheEmbeddingAndHead) {
  // Llama 3.1 8B (32 layers, untied, V = 128256, h = 4096), pp 4, first 7,
  // last 7: the middle stages hold (32 − 14)/2 = 9 layers. Per stage (tp 1):
  //   first  = 7·layer + V·h          (token embedding)
  //   middle = 9·layer
  //   last   = 7·layer + V·h + h      (LM head, final RMSNorm)
  // so last − first = h, first − middle = V·h − 2·layer, and in bytes (16 per
  // parameter: bf16 weight + grad, fp32 master and two moments) 16× those.
  const ModelSpec m = find_model("llama-3.1-8b");
  Layout l = pipeline(4, 1, 7, 7);
  const StageSplit split = stage_split(m, l);
  const double layer = attention_params_per_layer(m) + dense_mlp_params(m, m.intermediate) + 2.0 * m.hidden;
  const double vh = static_cast<double>(m.vocab) * m.hidden;
  const auto first = memory_detail::stage_params(m, l, split, 0);
  const auto middle = memory_detail::stage_params(m, l, split, 1);
  const auto last = memory_detail::stage_params(m, l, split, 3);
  EXPECT_EQ(first.layers, 7);
  EXPECT_EQ(middle.layers, 9);
  EXPECT_EQ(last.layers, 7);
  EXPECT_DOUBLE_EQ(first.embedding, vh);
  EXPECT_DOUBLE_EQ(last.embedding, vh + m.hidden);
  EXPECT_DOUBLE_EQ(middle.embedding, 0);
  EXPECT_NEAR(last.total() - first.total(), m.hidden, 1e-6 * layer);
  EXPECT_NEAR(first.total() - middle.total(), vh - 2 * layer, 1e-6 * layer);
  const memory_detail::StateBytes b = memory_detail::state_bytes(l, {});
  EXPECT_DOUBLE_EQ(b.weight + b.grad + b.optimizer, 16);
  EXPECT_TRUE(last.has_lm_head);
  EXPECT_FALSE(first.has_lm_head);
}

TEST(MemoryStages, Llama405BWorstStageHoldsSixteenLayers) {
  // tp 8 pp 8 vp 8 on 1,024 H100s (the split above): the first stage has 15
  // layers + the embedding (V·h/8 = 0.263B parameters, less than one layer's
  // 3.19B/8 = 0.398B) and the most micro-batches in flight; stage 1 has 16
  // layers. With ZeRO-1 the sixteen layers' states outweigh: stage 1 is the
  // worst, holding exactly 16 layers' parameters / tp.
  const ModelSpec m = find_model("llama-3.1-405b");
  LayoutInputs in;
  in.model = "llama-3.1-405b";
  in.gpu = "h100";
  in.gpus = "1024";
  in.tp = 8;
  in.pp = 8;
  in.vp = 8;
  in.seq_len = 8192;
  in.global_batch = 2048;
  in.zero = 1;
  in.recompute = "full";
  in.sequence_parallel = true;
  const ResolvedLayout r = resolve_layout(in);
  const MemoryBreakdown b = estimate_memory(r.model, r.layout, r.gpu);
  const double layer = attention_params_per_layer(m) + dense_mlp_params(m, m.intermediate) + 2.0 * m.hidden;
  EXPECT_EQ(b.worst_stage, 1);
  EXPECT_DOUBLE_EQ(b.layers_on_stage, 16);
  EXPECT_NEAR(b.params_on_gpu, 16 * layer / 8, 1e-9 * layer);
  ASSERT_TRUE(b.stage_split.has_value());
  EXPECT_EQ(b.stage_split->layers(1), 16);
  EXPECT_EQ(b.stage_split->describe().rfind("15 | 16 ×6 | 15 (chunks: ", 0), 0u) << b.stage_split->describe();
  EXPECT_TRUE(b.fits);
}

TEST(StepTimeStages, SlowestStageIsTheRealOne) {
  // Llama 3.1 8B on 4 stages, three splits of its 32 layers (fb = one layer's
  // forward + backward, H = LM head + loss, E = embedding lookup):
  //   A even  8 | 8 | 8 | 8:  slowest the last, 8 fb + H
  //   C first 9, last 5 (middles 9):  stages 9 fb + E, 9 fb, 9 fb, 5 fb + H (H ≈ 2.4 fb:
  //            2·V·h = 1.05 GFLOP per token against ~0.44 for a layer) → the first
  //   D first 5, last 9:  5 fb + E, 9 fb, 9 fb, 9 fb + H → the last
  // so the slowest stage's forward is 8f + h_f (A), 9f (C), 9f + h_f (D):
  // D − C = the head's forward, D − A = one layer's, C = 9 (D − A). The bubble
  // is (p − 1) × the mean stage, the same for C and D (same layers, one E and one H).
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& g = find_gpu("h100");
  auto time = [&](std::optional<int> first, std::optional<int> last) {
    Layout l = pipeline(4, 1, first, last);
    l.dp = 2;
    l.global_batch = 16;
    l.seq_len = 4096;
    validate_layout(m, l, 8);
    return estimate_step_time(m, l, g);
  };
  const StepTime a = time(std::nullopt, std::nullopt), c = time(9, 5), d = time(5, 9);
  const double layer_f = d.stage_fwd_s - a.stage_fwd_s;
  const double head_f = d.stage_fwd_s - c.stage_fwd_s;
  EXPECT_GT(head_f, 0);
  EXPECT_NEAR(c.stage_fwd_s, 9 * layer_f, 1e-9 * c.stage_fwd_s);
  EXPECT_NEAR(a.stage_fwd_s, 8 * layer_f + head_f, 1e-9 * a.stage_fwd_s);
  EXPECT_NEAR(c.bubble_s, d.bubble_s, 1e-12 * d.bubble_s);
  EXPECT_LT(c.step_s, d.step_s);  // the head is off the slowest stage
}

TEST(LaunchConfigStages, MegatronCarriesTheSplit) {
  const ModelSpec ds = find_model("deepseek-v3");
  Layout l = pipeline(16, 1);
  const std::string a = megatron_arguments(ds, l);
  EXPECT_TRUE(has_line(a, "--decoder-first-pipeline-num-layers 3")) << a;
  EXPECT_TRUE(has_line(a, "--decoder-last-pipeline-num-layers 2")) << a;
  EXPECT_EQ(a.find("--account-for"), std::string::npos);

  const ModelSpec llama = find_model("llama-3.1-405b");
  const std::string b = megatron_arguments(llama, pipeline(8, 8));
  EXPECT_TRUE(has_line(b, "--num-virtual-stages-per-pipeline-rank 8")) << b;
  EXPECT_TRUE(has_line(b, "--account-for-embedding-in-pipeline-split")) << b;
  EXPECT_TRUE(has_line(b, "--account-for-loss-in-pipeline-split")) << b;
  EXPECT_EQ(b.find("--decoder-first"), std::string::npos);

  // Given first/last with vp: Megatron wants the chunk count, not the chunk size.
  const std::string c = megatron_arguments(find_model("gpt3-175b"), pipeline(16, 2, 6, 6));
  EXPECT_TRUE(has_line(c, "--num-virtual-stages-per-pipeline-rank 2")) << c;
  EXPECT_TRUE(has_line(c, "--decoder-first-pipeline-num-layers 6")) << c;
  EXPECT_EQ(c.find("--num-layers-per-virtual-pipeline-stage"), std::string::npos);
  // Even: no split flags.
  EXPECT_EQ(megatron_arguments(find_model("gpt3-175b"), pipeline(8, 1)).find("pipeline-num-layers"), std::string::npos);
}

TEST(PlanStages, CompareLayoutTakesFirstLastAndPlacesLlama405BInterleaved) {
  PlanInputs in;
  in.model = "llama-3.1-405b";
  in.gpu = "h100";
  in.gpus = "1024";
  in.seq_len = 8192;
  in.global_batch = 2048;
  in.tp = 8;
  in.pp = 8;
  in.compare_layout = {"tp=8,pp=8,vp=8", "tp=8,pp=8,vp=2,first=16,last=14,zero=1,recompute=full"};
  const PlanRequest r = make_plan_request(in);
  ASSERT_EQ(r.references.size(), 2u);
  EXPECT_EQ(r.references[0].dp, 16);  // dp left out: 1024 / (8·8)
  EXPECT_FALSE(r.references[0].first_stage_layers);
  EXPECT_EQ(r.references[1].first_stage_layers, 16);
  EXPECT_EQ(r.references[1].last_stage_layers, 14);
  const PlanResult res = plan(r);
  ASSERT_EQ(res.groups.size(), 1u);
  ASSERT_EQ(res.groups[0].references.size(), 2u);
  EXPECT_TRUE(res.groups[0].references[1].fits);
  // The search itself now has pp 8 with interleaving (only the slots split allows it).
  bool vp8 = false;
  for (const Layout& l : enumerate_layouts(r, r.gpus[0], 1024)) vp8 = vp8 || l.vp == 8;
  EXPECT_TRUE(vp8);
}

TEST(PlanStages, SearchesAFewMegatronSplitsWhenPpDoesNotDivide) {
  PlanRequest r;
  r.model = find_model("deepseek-v3");
  r.gpus = {find_gpu("h800")};
  r.gpu_counts = {2048};
  r.seq_len = 4096;
  r.global_batch = 15360;
  r.pp = 16;
  r.tp = 1;
  r.micro_batch = 1;
  std::vector<std::pair<std::optional<int>, std::optional<int>>> seen;
  for (const Layout& l : enumerate_layouts(r, r.gpus[0], 2048)) {
    EXPECT_NO_THROW(stage_split(r.model, l));
    const std::pair p{l.first_stage_layers, l.last_stage_layers};
    if (std::find(seen.begin(), seen.end(), p) == seen.end()) seen.push_back(p);
  }
  // vp 1: the chosen split (fields unset: 3 | 4 ×14 | 2), then (2,3) and (–,1);
  // (3,2) itself is the chosen one. At most three per (pp, vp).
  EXPECT_GE(seen.size(), 2u);
  EXPECT_LE(seen.size(), 6u);
  // A pin is searched only where it is valid.
  r.last_stage_layers = 1;
  for (const Layout& l : enumerate_layouts(r, r.gpus[0], 2048)) {
    EXPECT_EQ(l.last_stage_layers, 1);
    EXPECT_FALSE(l.first_stage_layers);
  }
}
