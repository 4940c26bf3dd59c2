// MoE layouts as Megatron runs them (issue 28): the custom stage layout
// (--pipeline-model-parallel-layout), the framework recipe's layout for a
// model, MoE parallel folding (expert TP apart from attention's TP), the
// hierarchical all-to-all and the GB200 NVL72 NVLink domain. Each expected
// value is derived by hand in the comment beside it.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "test_support.hpp"
#include "inputs/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/step_time.hpp"
#include "frameworks/launch_config.hpp"

using namespace gpuplan;

namespace {

std::string error_field(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.field();
  }
  return "";
}

Layout pipeline_with_layout(int pp, int vp, const std::string& layout) {
  Layout l;
  l.pp = pp;
  l.vp = vp;
  l.pipeline_layout = layout;
  return l;
}

using gpuplan_test::has_line;

}  // namespace

TEST(PipelineLayout, ParsesMegatronsSyntax) {
  // megatron/core/transformer/pipeline_parallel_layer_layout.py parse_str_to_list:
  // "(tt|)*30" unrolls to 30 stages of two layers; "Et|" before and "mL" after
  // make 32 stages.
  const auto s = parse_pipeline_layout("Et|(tt|)*30mL");
  ASSERT_EQ(s.size(), 32u);
  EXPECT_EQ(s[0], "Et");
  EXPECT_EQ(s[1], "tt");
  EXPECT_EQ(s[30], "tt");
  EXPECT_EQ(s[31], "mL");
  // "x*n" repeats one letter; commas are cosmetic.
  const auto r = parse_pipeline_layout("Et*16,|t*16|t*16|t*13mL");
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], "E" + std::string(16, 't'));
  EXPECT_EQ(r[3], std::string(13, 't') + "mL");
  // Megatron's own example: "Ettt|(tt|)*29,m|L" is 1 + 29 + 2 = 32 stages.
  EXPECT_EQ(parse_pipeline_layout("Ettt|(tt|)*29,m|L").size(), 32u);
  for (const char* bad : {"Ex|L", "E(tt|L", "Et|tt)*2L", "Et|(tt|)L", "E*|L", "", "Et|(tt|)*999999L"}) {
    EXPECT_EQ(error_field([&] { parse_pipeline_layout(bad); }), "pipeline_layout") << bad;
  }
  // The unrolled whole is bounded, not each repeat alone: 300 repeats of
  // 40,000 layers each (4 KB of text) would unroll to 12 million.
  std::string many;
  for (int i = 0; i < 300; ++i) many += "(tttt)*9999|";
  EXPECT_EQ(error_field([&] { parse_pipeline_layout("E" + many + "L"); }), "pipeline_layout");
}

TEST(PipelineLayout, DeepSeekV3OnEightByFourAsMegatronBridgesH100Config) {
  // 61 layers, "Et|(tt|)*30mL" on pp 8: stage i is chunk i / 8 of rank i % 8.
  // Stage 0 holds 1 layer, stages 1–30 two each, stage 31 none (MTP and loss).
  // Rank 0: stages 0, 8, 16, 24 = 1 + 2 + 2 + 2 = 7; rank 7: stages 7, 15, 23,
  // 31 = 2 + 2 + 2 + 0 = 6; ranks 1–6: 8. 7 + 6·8 + 6 = 61.
  const ModelSpec ds = find_model("deepseek-v3");
  const StageSplit s = stage_split(ds, pipeline_with_layout(8, 4, "Et|(tt|)*30mL"));
  EXPECT_EQ(s.rule, StageSplitRule::kCustom);
  EXPECT_EQ(s.mtp_layers, 1);
  EXPECT_EQ(s.layers(0), 7);
  EXPECT_EQ(s.layers(3), 8);
  EXPECT_EQ(s.layers(7), 6);
  EXPECT_EQ(s.max_layers(), 8);
  // Chunk-major numbering: chunk 0 of ranks 0–7 is layers 0 (rank 0) and
  // 1–14 (ranks 1–7, two each), so rank 0's chunk 1 (stage 8) starts at 15.
  EXPECT_EQ(s.chunks[0][1].first, 15);
  EXPECT_EQ(s.chunks[7][3].count, 0);
  // The stage count must be pp × vp, and the message says which vp it implies.
  try {
    stage_split(ds, pipeline_with_layout(8, 2, "Et|(tt|)*30mL"));
    ADD_FAILURE() << "32 stages on pp 8 × vp 2 was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "pipeline_layout");
    EXPECT_NE(std::string(e.what()).find("--vp 4"), std::string::npos) << e.what();
  }
  // Megatron's checks: every transformer layer placed, E first, L last, MTP after the layers.
  EXPECT_EQ(error_field([&] { stage_split(ds, pipeline_with_layout(2, 1, "Et*30|t*30L")); }), "pipeline_layout");
  EXPECT_EQ(error_field([&] { stage_split(ds, pipeline_with_layout(2, 1, "t*30E|t*31L")); }), "pipeline_layout");
  EXPECT_EQ(error_field([&] { stage_split(ds, pipeline_with_layout(2, 1, "Et*30m|t*31L")); }), "pipeline_layout");
  EXPECT_EQ(error_field([&] { stage_split(ds, Layout{.pp = 2, .first_stage_layers = 30, .pipeline_layout = "Et*30|t*31L"}); }),
            "pipeline_layout");
  // And it is exported as written, with no virtual-stage flag beside it.
  Layout l = pipeline_with_layout(8, 4, "Et|(tt|)*30mL");
  const std::string a = megatron_arguments(ds, l);
  EXPECT_TRUE(has_line(a, "--pipeline-model-parallel-layout Et|(tt|)*30mL")) << a;
  EXPECT_EQ(a.find("--num-virtual-stages-per-pipeline-rank"), std::string::npos) << a;
}

TEST(PipelineLayout, MegatronBridgeRecipeLayoutForDeepSeekV3) {
  // Megatron-Bridge deepseek_v3.py layout_map (4, 4): [E+4t, 4t ×14, t+m+L],
  // 16 stages. On pp 4 × vp 4, rank 3 holds stages 3, 7, 11, 15 = 4+4+4+1 = 13,
  // the others 16: 3·16 + 13 = 61.
  const FrameworkProfile& bridge = find_framework("megatron-bridge");
  const ModelSpec ds = find_model("deepseek-v3");
  Layout l;
  l.pp = 4;
  l.vp = 4;
  EXPECT_EQ(recipe_pipeline_layout(bridge, ds, l), "Et*4|(t*4|)*14tmL");
  std::vector<Bilingual> notes;
  apply_recipe_layout(bridge, ds, l, &notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].en.find("recipe"), std::string::npos);
  const StageSplit s = stage_split(ds, l);
  EXPECT_EQ(s.layers(0), 16);
  EXPECT_EQ(s.layers(3), 13);
  // A split the run states itself is kept; other models and stage counts get none.
  Layout first = l;
  first.pipeline_layout.clear();
  first.first_stage_layers = 16;
  apply_recipe_layout(bridge, ds, first);
  EXPECT_TRUE(first.pipeline_layout.empty());
  Layout odd;
  odd.pp = 3;
  EXPECT_EQ(recipe_pipeline_layout(bridge, ds, odd), "");
  EXPECT_EQ(recipe_pipeline_layout(bridge, find_model("llama-3.1-70b"), l), "");
  EXPECT_EQ(recipe_pipeline_layout(find_framework("megatron-lm"), ds, l), "");
  // The planner searches the recipe's layout where Megatron's own rules cannot
  // split 61 layers over 16 chunks.
  PlanRequest r;
  r.model = ds;
  r.gpus = {find_gpu("b200")};
  r.gpu_counts = {256};
  r.seq_len = 4096;
  r.global_batch = 2048;
  r.tp = 1;
  r.pp = 4;
  r.vp = 4;
  r.ep = 64;
  r.micro_batch = 1;
  r.framework = &bridge;
  bool recipe_searched = false;
  for (const Layout& x : enumerate_layouts(r, r.gpus[0], 256)) recipe_searched = recipe_searched || x.pipeline_layout == "Et*4|(t*4|)*14tmL";
  EXPECT_TRUE(recipe_searched);
}

TEST(PipelineLayout, UnprofiledStackCutsAsTorchPipeliningDoes) {
  // NeMo AutoModel (torch.distributed.pipelining): 61 layers over 32 stages,
  // 61 // 32 = 1 each and the first 61 % 32 = 29 stages one more.
  const ModelSpec ds = find_model("deepseek-v3");
  Layout l;
  l.pp = 4;
  l.vp = 8;
  const std::string layout = unprofiled_stack_layout(ds, l);
  EXPECT_EQ(layout, "Et*2|(t*2|)*28(t|)*2tL");
  const auto stages = parse_pipeline_layout(layout);
  ASSERT_EQ(stages.size(), 32u);
  EXPECT_EQ(stages[28], "tt");
  EXPECT_EQ(stages[29], "t");
  // Rank 0: stages 0, 4, …, 28 = 8 × 2 = 16; rank 1: stages 1, …, 25 (7 × 2)
  // and 29 (1) = 15. 16 + 15 + 15 + 15 = 61.
  l.pipeline_layout = layout;
  const StageSplit s = stage_split(ds, l);
  EXPECT_EQ(s.layers(0), 16);
  EXPECT_EQ(s.layers(1), 15);
  // Where Megatron's rules split the layers, nothing is needed.
  Layout even;
  even.pp = 4;
  EXPECT_EQ(unprofiled_stack_layout(find_model("llama-3.1-70b"), even), "");
}

TEST(MoeParallelFolding, ExpertGroupsTileTheAttentionRanks) {
  // Qwen3-235B-A22B as Megatron-Bridge ran it on 256 H100s: tp 2, pp 8, dp 16,
  // ep 32. With expert TP = TP, EP must divide dp×cp = 16: refused. Folded
  // (etp 1): etp × ep = 32 divides tp×cp×dp = 32, expert-dp = 32 / 32 = 1.
  const ModelSpec q = find_model("qwen3-235b-a22b");
  Layout l;
  l.tp = 2;
  l.pp = 8;
  l.vp = 4;
  l.dp = 16;
  l.ep = 32;
  l.seq_len = 4096;
  l.global_batch = 1024;
  EXPECT_EQ(error_field([&] { validate_layout(q, l, 256); }), "ep");
  l.etp = 1;
  EXPECT_NO_THROW(validate_layout(q, l, 256));
  EXPECT_EQ(l.expert_dp(), 1);
  l.etp = 4;  // 4 × 32 = 128 does not divide 32
  EXPECT_EQ(error_field([&] { validate_layout(q, l, 256); }), "etp");
  // tp 4, cp 2, dp 8, etp 1, ep 8: 64 / 8 = 8 expert-data-parallel replicas.
  Layout m;
  m.tp = 4;
  m.cp = 2;
  m.dp = 8;
  m.ep = 8;
  m.etp = 1;
  EXPECT_EQ(m.expert_dp(), 8);
  // Only a stack with folding runs it (Megatron-Core 0.10.0 on; Megatron-Bridge's
  // MoE recipes default to expert TP 1).
  l.etp = 1;
  EXPECT_EQ(why_framework_cannot_run(find_framework("megatron-lm@0.10.0"), l).en.find("folding"), std::string::npos);
  EXPECT_NE(why_framework_cannot_run(find_framework("megatron-lm@0.9.0"), l).en.find("folding"), std::string::npos);
  Layout d = l;
  d.etp = 0;
  apply_framework(find_framework("megatron-bridge"), RunSettings{}, d);
  EXPECT_EQ(d.etp, 1);
  // The planner offers a folded layout only where the stack folds: pinned
  // --etp 1 on a Megatron-LM 0.9.0 plan at tp 2 is refused, and without tp
  // pinned it plans tp = etp = 1 only.
  PlanRequest r;
  r.model = find_model("qwen3-30b-a3b");
  r.gpus = {find_gpu("h100")};
  r.gpu_counts = {16};
  r.seq_len = 4096;
  r.etp = 1;
  r.framework = &find_framework("megatron-lm@0.9.0");
  r.tp = 2;
  EXPECT_EQ(error_field([&] { plan(r); }), "etp");
  r.tp = 0;
  for (const Layout& x : enumerate_layouts(r, r.gpus[0], 16)) {
    if (x.ep > 1) EXPECT_EQ(x.expert_tp(), x.tp) << x.tp;
  }
  r.framework = &find_framework("megatron-lm@0.10.0");
  bool folded = false;
  for (const Layout& x : enumerate_layouts(r, r.gpus[0], 16)) folded = folded || (x.ep > 1 && x.tp == 2 && x.expert_tp() == 1);
  EXPECT_TRUE(folded);
}

TEST(MoeParallelFolding, ExpertShardsAreOneOverEtpTimesEp) {
  // etp 1 × ep 32 and etp 2 × ep 16 both give each GPU 1/32 of the routed
  // experts, and both leave one expert-data-parallel replica (2·16/32): the
  // weights, gradients and optimizer states on a GPU are the same bytes.
  const ModelSpec q = find_model("qwen3-235b-a22b");
  const GpuSpec& g = find_gpu("h100");
  Layout a;
  a.tp = 2;
  a.pp = 8;
  a.dp = 16;
  a.ep = 32;
  a.etp = 1;
  a.seq_len = 4096;
  a.zero_stage = 1;
  a.recompute = Recompute::kFull;
  a.global_batch = 1024;
  Layout b = a;
  b.ep = 16;
  b.etp = 0;  // = tp 2
  const MemoryBreakdown ma = estimate_memory(q, a, g), mb = estimate_memory(q, b, g);
  EXPECT_DOUBLE_EQ(ma.params_on_gpu, mb.params_on_gpu);
  EXPECT_DOUBLE_EQ(ma.optimizer_bytes, mb.optimizer_bytes);
  // And the folded one's experts are half those of etp 1 × ep 16.
  Layout c = a;
  c.ep = 16;
  const MemoryBreakdown mc = estimate_memory(q, c, g);
  EXPECT_GT(mc.params_on_gpu, ma.params_on_gpu);
}

TEST(ExpertAllToAll, WithinANodeAndAcrossNodes) {
  // 64 MB per rank, NVLink 400 GB/s, network 50 GB/s, no latency.
  const Link nvlink{400e9, 0}, network{50e9, 0};
  const double B = 64e6;
  // EP 8 in one node: 7/8 of the buffer over NVLink = 56e6 / 400e9 = 140 µs.
  EXPECT_NEAR(hierarchical_all_to_all_s(B, 8, 8, nvlink, network), 140e-6, 1e-12);
  // EP 64 over 8 nodes of 8: 56/64 of it over the network = 56e6 / 50e9 =
  // 1.12 ms, while 7/64 goes over NVLink (17.5 µs) at the same time.
  EXPECT_NEAR(hierarchical_all_to_all_s(B, 64, 8, nvlink, network), 1.12e-3, 1e-12);
  // EP 16 over 2 nodes: half the buffer leaves the node, 32e6 / 50e9 = 640 µs
  // (a flat all-to-all at the network rate would say 15/16 of it, 1.2 ms).
  EXPECT_NEAR(hierarchical_all_to_all_s(B, 16, 8, nvlink, network), 640e-6, 1e-12);
}

TEST(NvlinkDomain, Gb200Nvl72KeepsEightGpuExpertGroupsOnNvlink) {
  // The GB200 card's NVLink domain is 72 GPUs (NVL72) while a tray holds 4:
  // an 8-GPU expert group stays on NVLink, so its all-to-all costs what it
  // costs on the same GPU in an 8-GPU NVLink node.
  const GpuSpec& gb = find_gpu("gb200");
  EXPECT_EQ(gb.gpus_per_node, 4);
  EXPECT_EQ(gb.nvlink_domain_gpus, 72);
  GpuSpec eight = gb;
  eight.gpus_per_node = 8;
  eight.nvlink_domain_gpus = 0;
  const ModelSpec q = find_model("qwen3-30b-a3b");
  Layout l;
  l.dp = 8;
  l.ep = 8;
  l.seq_len = 4096;
  l.global_batch = 512;
  const StepTime rack = estimate_step_time(q, l, gb, StepTimeOptions{});
  const StepTime node = estimate_step_time(q, l, eight, StepTimeOptions{});
  EXPECT_GT(rack.ep_comm_s, 0);
  EXPECT_DOUBLE_EQ(rack.ep_comm_s, node.ep_comm_s);
  // Without the domain the trays' 400 Gb/s NICs would carry half of it.
  GpuSpec trays = gb;
  trays.nvlink_domain_gpus = 0;
  EXPECT_GT(estimate_step_time(q, l, trays, StepTimeOptions{}).ep_comm_s, 2 * rack.ep_comm_s);
}

TEST(MoeLayoutInputs, MemoryTakesTheLayoutAndReadsVpOffIt) {
  // --pp 8 --pipeline-layout "Et|(tt|)*30mL": 32 stages / 8 = vp 4, as Megatron reads it.
  LayoutInputs in;
  in.model = "deepseek-v3";
  in.gpu = "h100";
  in.tp = 2;
  in.pp = 8;
  in.ep = 64;
  in.gpus = "1024";
  in.pipeline_layout = "Et|(tt|)*30mL";
  in.global_batch = 8192;
  in.seq_len = 4096;
  in.software.framework = "megatron-bridge";
  const ResolvedLayout r = resolve_layout(in);
  EXPECT_EQ(r.layout.vp, 4);
  EXPECT_EQ(r.layout.dp, 64);
  EXPECT_EQ(r.layout.expert_tp(), 1);  // Megatron-Bridge's MoE recipes
  EXPECT_EQ(stage_split(r.model, r.layout).rule, StageSplitRule::kCustom);
  in.pipeline_layout = "Et|(tt|)*30mX";
  EXPECT_EQ(error_field([&] { resolve_layout(in); }), "pipeline_layout");
}
