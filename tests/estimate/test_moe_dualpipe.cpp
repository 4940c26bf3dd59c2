// MoE communication, expert GEMMs and DeepSeek's DualPipe (issue 28), each
// number derived by hand beside its assertion.
#include <gtest/gtest.h>

#include <cmath>

#include "estimate/step_time/step_time_internal.hpp"
#include "frameworks/launch_config.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "inputs/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/step_time.hpp"

using namespace gpuplan;

namespace {

// DeepSeek-V3's routed rows of one micro-batch of 4,096 tokens: hidden 7,168,
// top-8, bf16: one copy of the rank's tokens is 4,096 × 7,168 × 2 B.
constexpr double kTokenBytes = 4096.0 * 7168 * 2;  // 58,720,256 B
constexpr double kRoutedBytes = 8 * kTokenBytes;    // 469,762,048 B
// H800: 215 GB/s measured intra-node bus bandwidth (data/gpus.json), a
// 400 Gb/s NIC per GPU at 90% (45 GB/s); α 6 µs inside, 12 µs across nodes
// (StepTimeOptions defaults).
const Link kNvlink{215e9, 6e-6};
const Link kIb{45e9, 12e-6};

}  // namespace

// EP 8 inside one node: every peer over NVLink, (n−1)/n of the buffer and n−1
// latencies: 7/8 × 469,762,048 / 215e9 + 7 × 6 µs = 1.911823 + 0.042 ms.
TEST(MoeAllToAll, ExpertParallel8WithinANode) {
  EXPECT_NEAR(hierarchical_all_to_all_s(kRoutedBytes, 8, 8, kNvlink, kIb), 1.953823e-3, 1e-9);
}

// EP 64 over 8 nodes of 8. One copy per routed expert (Megatron's alltoall
// dispatcher): 56/64 of the k copies cross the network, 7/64 go over NVLink,
// at once; the NIC's 0.875 × 469,762,048 / 45e9 + 56 × 12 µs = 9.134262 +
// 0.672 ms is the longer. DeepSeek-V3's dispatch (one network copy per node,
// forwarded over NVLink; node-limited to topk_group = 4 of 8 nodes): 4 nodes
// touched, 7/8 of them remote: 3.5 copies × 58,720,256 / 45e9 + 7 × 12 µs =
// 4.567131 + 0.084 ms over the NIC against NVLink's 8 × 7/8 × 58,720,256 /
// 215e9 + 7 × 6 µs = 1.953823 ms: less than half the time.
TEST(MoeAllToAll, ExpertParallel64AcrossEightNodes) {
  EXPECT_NEAR(hierarchical_all_to_all_s(kRoutedBytes, 64, 8, kNvlink, kIb), 9.806262e-3, 1e-9);
  EXPECT_DOUBLE_EQ(remote_nodes_per_token(8, 8, 4), 3.5);
  // Without the node limit: 8 × (1 − (7/8)^8) = 5.251129 distinct nodes, 7/8 remote.
  EXPECT_NEAR(remote_nodes_per_token(8, 8, 0), 4.594738, 1e-6);
  EXPECT_NEAR(per_node_all_to_all_s(kTokenBytes, 3.5, 8, 64, 8, kNvlink, kIb), 4.651131e-3, 1e-9);
  EXPECT_EQ(remote_nodes_per_token(1, 8, 4), 0);
}

// The per-node dispatch's remote copies at the kernels' own published rates
// (collectives.cpp). Both tables count a rank's bytes over every destination
// node, its own included, so the remote copies move at (nodes − 1)/nodes of
// the figure:
//   HybridEP, H100, EP 16 over 2 nodes (Torch API, BF16, 16 SMs): 54.47 × 1/2 =
//   27.235 GB/s dispatch, 53.35 × 1/2 = 26.675 combine;
//   DeepEP, H800, EP 64 over 8 nodes: 51 × 7/8 = 44.625 dispatch, 50 × 7/8 =
//   43.75 combine; EP 24 takes the EP 16 row (the nearest measured below):
//   43 × 2/3 = 28.667 over 3 nodes; a 200 Gb/s NIC halves them all.
// Megatron-Bridge 26.04's Qwen3-30B-A3B H100 preset (EP 16, HybridEP): a
// micro-batch's 4,096 tokens of hidden 2,048 in bf16 (16,777,216 B), each
// reaching 2 × (1 − 2⁻⁸) = 1.9921875 of the 2 nodes, half of them remote
// (0.99609375 copies): 16,711,680 B / 27.235e9 + 12 µs = 0.625610 ms
// to dispatch, longer than the NVLink forwarding (7 × 16,777,216 / 215e9 +
// 7 × 6 µs = 0.588235 ms), which bound it at the NIC's 45 GB/s (0.383373 ms).
TEST(MoeAllToAll, PerNodeDispatchAtTheKernelsMeasuredRates) {
  const DispatchNetworkRates h = per_node_dispatch_rates(true, 16, 2, 50e9);
  EXPECT_NEAR(h.dispatch_bytes_per_s, 27.235e9, 1e3);
  EXPECT_NEAR(h.combine_bytes_per_s, 26.675e9, 1e3);
  const DispatchNetworkRates d = per_node_dispatch_rates(false, 64, 8, 50e9);
  EXPECT_NEAR(d.dispatch_bytes_per_s, 44.625e9, 1e3);
  EXPECT_NEAR(d.combine_bytes_per_s, 43.75e9, 1e3);
  EXPECT_NEAR(per_node_dispatch_rates(false, 24, 3, 50e9).dispatch_bytes_per_s, 43e9 * 2 / 3, 1e3);
  EXPECT_NEAR(per_node_dispatch_rates(false, 64, 8, 25e9).dispatch_bytes_per_s, 44.625e9 / 2, 1e3);
  EXPECT_EQ(per_node_dispatch_rates(true, 8, 1, 50e9).dispatch_bytes_per_s, 0);  // one node: no network copy
  const double remote = remote_nodes_per_token(2, 8, 0);
  EXPECT_DOUBLE_EQ(remote, 0.99609375);
  const double bytes = 4096.0 * 2048 * 2;
  const Link measured{h.dispatch_bytes_per_s, 12e-6};
  EXPECT_NEAR(per_node_all_to_all_s(bytes, remote, 8, 16, 8, kNvlink, measured), 0.625610e-3, 1e-9);
  EXPECT_NEAR(per_node_all_to_all_s(bytes, remote, 8, 16, 8, kNvlink, kIb), 0.588235e-3, 1e-9);
}

// A rank's 4 local experts as one grouped GEMM, [m × 7,168]·[7,168 × 4,096]
// (DeepSeek-V3's gate and up projections), bf16 on 132 SMs at a 0.80 ceiling.
//   m = 4,096 tokens per expert: 256×128 tiles, 16 × 32 × 4 = 2,048 tiles in
//   16 waves: 4,096·4,096·4 / (16·132·256·128) = 0.969697; k/(k+64) =
//   7,168/7,232 = 0.991150; 0.8 × 0.969697 × 0.991150 = 0.768892.
//   m = 64: a 256-row tile is a quarter full; 64×64 tiles (relative 0.65),
//   1 × 64 × 4 = 256 tiles in 2 waves: 64·4,096·4 / (2·132·64·64) = 0.969697,
//   × 0.65 = 0.630303, the best tile: 0.8 × 0.630303 × 0.991150 = 0.499780.
// Time: the larger of FLOPs at that rate and bytes over 80% of HBM. At 64
// tokens the experts' weights dominate: 4 × 4,096 × 7,168 × 2 B plus
// activations 4 × 64 × (7,168 + 4,096) × 2 B = 240,648,192 B over 2.68 TB/s =
// 89.79 µs, against 15.03 GFLOP / (989 TFLOP/s × 0.49978) = 30.41 µs: bandwidth-bound.
// At 4,096 tokens: 962.07 GFLOP / (989e12 × 0.768892) = 1.265 ms, compute-bound.
TEST(MoeExpertGemms, GroupedGemmAt64And4096TokensPerExpert) {
  const GpuSpec& h800 = find_gpu("h800");
  ASSERT_EQ(h800.compute_units, 132);
  EXPECT_NEAR(gemm_efficiency(h800, Precision::kBf16, 4096, 4096, 7168, 0.8, 4), 0.768892, 1e-6);
  EXPECT_NEAR(gemm_efficiency(h800, Precision::kBf16, 64, 4096, 7168, 0.8, 4), 0.499780, 1e-6);
  StepTimeOptions o;
  o.gemm_ceiling = 0.8;
  o.hbm_efficiency = 0.8;
  o.kernel_overhead_s = 0;
  const double hbm = h800.hbm_bytes_per_s * 0.8;
  const double small = gemm_time_s(h800, Precision::kBf16, 64, 4096, 7168, o, 4);
  EXPECT_NEAR(small, 240648192.0 / hbm, 1e-12);
  EXPECT_NEAR(small, 89.79e-6, 0.01e-6);  // 3.35 TB/s × 0.8 (data/gpus.json)
  const double large = gemm_time_s(h800, Precision::kBf16, 4096, 4096, 7168, o, 4);
  EXPECT_NEAR(large, 4 * 2.0 * 4096 * 4096 * 7168 / (h800.peak(Precision::kBf16) * 0.768892), 1e-8);
  // Per token, the 64-token GEMM costs 4.5× the 4,096-token one's (1.403 µs against 0.309 µs).
  EXPECT_GT(small / 64, 4.5 * large / 4096);
  EXPECT_LT(small / 64, 4.6 * large / 4096);
}

// DualPipe's steady phase on one rank: a forward chunk and a backward chunk
// of 4 layers each (per layer: GEMMs 10 + 20 ms, attention 2 + 4, element-wise
// 1 + 2, all-to-all 6 + 6; recompute 2 ms: a tenth of the GEMMs forward and
// the element-wise forward), a 1 ms pipeline send each way, 20 of 132 SMs
// held by communication.
//   chunk pair, serial: 4 × (19 + 32 + 2) = 212 ms; of it all-to-all 4 × 12 = 48.
//   SM-bound work 4 × (10 + 20 + 2 + 4 + 1) = 148 ms runs 132/112 as long:
//   +148 × 20/112 = 26.428571 ms; computation 212 − 48 + 26.428571 = 190.428571.
//   communication 48 + 2 × 1 = 50 ms: hidden, nothing exposed; pace 190.428571.
//   bubble (pp/2 − 1)(F&B + B − 3W), pp 16: B = 4 × (32 − 6 + 2) = 112,
//   W = half the backward GEMMs, 4 × 10 = 40: 7 × (190.428571 + 112 − 120) = 1,277.0 ms.
// With 30 ms of all-to-all each way per layer the communication (242 ms)
// outlasts the computation (404 − 240 + 26.428571 = 190.428571): 51.571429 ms exposed.
TEST(DualPipe, OverlappedChunkPairAndBubble) {
  const ModelSpec m = find_model("deepseek-v3");
  const GpuSpec& h800 = find_gpu("h800");
  Layout l;
  l.pp = 16;
  l.dualpipe = true;
  l.comm_sms = 20;
  const StepTimeOptions o;
  const step_detail::Ctx c{m, l, h800, o, Precision::kBf16, Precision::kBf16};
  step_detail::LayerCost avg;
  avg.gemm_f = 10e-3, avg.gemm_b = 20e-3, avg.attn_f = 2e-3, avg.attn_b = 4e-3, avg.elem_f = 1e-3, avg.elem_b = 2e-3;
  avg.ep_f = avg.ep_b = 6e-3;
  const double rc = 0.1 * avg.gemm_f + avg.elem_f;
  step_detail::PipelineCost pipe;
  pipe.layers_slow = 4;
  pipe.t_max = 4 * (avg.fwd() + avg.bwd() + rc);
  pipe.p2p_one_s = 1e-3;
  const step_detail::OverlapPace hidden = step_detail::dualpipe_pace(c, pipe, avg, step_detail::LayerCost{}, rc, 0.1, 0, 0);
  EXPECT_NEAR(hidden.pace_s, 190.428571e-3, 1e-9);
  EXPECT_DOUBLE_EQ(hidden.exposed_s, 0);
  EXPECT_NEAR(hidden.bubble_s, 1277.0e-3, 1e-8);
  avg.ep_f = avg.ep_b = 30e-3;
  pipe.t_max = 4 * (avg.fwd() + avg.bwd() + rc);
  const step_detail::OverlapPace slow = step_detail::dualpipe_pace(c, pipe, avg, step_detail::LayerCost{}, rc, 0.1, 0, 0);
  EXPECT_NEAR(slow.pace_s, 242e-3, 1e-9);
  EXPECT_NEAR(slow.exposed_s, 51.571429e-3, 1e-9);
}

// DualPipe holds stages i and pp−1−i on rank i: a 32-layer dense model over
// 4 stages of 8 puts 16 layers' parameters on each rank, and pp + 1 = 5
// chunks of activations in flight (deepseek-ai/DualPipe README).
TEST(DualPipe, MemoryHoldsTwoStagesAndPpPlusOneChunks) {
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& h800 = find_gpu("h800");
  Layout l;
  l.pp = 4;
  l.dp = 8;
  l.seq_len = 4096;
  l.global_batch = 8 * 8;  // 8 micro-batches per rank: even and ≥ 2·pp
  l.dualpipe = true;
  EXPECT_TRUE(dualpipe_can_run(l));
  MemoryOptions o;
  const MemoryBreakdown two = estimate_memory(m, l, h800, o);
  EXPECT_EQ(two.layers_on_stage, 16);
  EXPECT_EQ(two.inflight_micro_batches, 5);
  Layout one = l;
  one.dualpipe = false;
  const MemoryBreakdown single = estimate_memory(m, one, h800, o);
  // 1F1B's stage 0 holds 8 layers and the embedding; DualPipe's rank 0 the
  // same plus stage 3's 8 layers and the LM head: more than twice the weights.
  EXPECT_GT(two.weights_bytes, 2 * single.weights_bytes - 1);
  // DualPipe refuses an odd pipeline and too few micro-batches (dualpipe.py DualPipe.step).
  l.global_batch = 8 * 6;
  EXPECT_FALSE(dualpipe_can_run(l));
}

// DeepSeek's stack as its V3 report states it: DualPipe, 20 SMs for
// communication, per-node FP8 dispatch, bf16 AdamW moments.
TEST(HaiLlmProfile, StatesTheV3ReportsFacts) {
  const FrameworkProfile& f = find_framework("hai-llm");
  EXPECT_EQ(f.pipeline_schedules.front(), "dualpipe");
  EXPECT_EQ(f.comm_sms, 20);
  EXPECT_TRUE(f.moe_dispatch_per_node);
  EXPECT_TRUE(f.bf16_moments);
  EXPECT_FALSE(f.tp);
  Layout l;
  l.pp = 16;
  l.precision = Precision::kFp8;
  apply_framework(f, RunSettings{}, l);
  EXPECT_TRUE(l.dualpipe);
  EXPECT_DOUBLE_EQ(l.moe_dispatch_bytes, 1 + 4.0 / 128);  // FP8 with one fp32 scale per 1×128 tile
  EXPECT_DOUBLE_EQ(l.attention_output_bytes, 1.5);       // E5M6
  // Optimizer states: fp32 master 4 + bf16 moments 2 + 2 = 8 B per parameter.
  l.zero_stage = 0;
  const MemoryBreakdown br = estimate_memory(find_model("llama-3.1-8b"), l, find_gpu("h800"), MemoryOptions{});
  EXPECT_DOUBLE_EQ(br.optimizer_bytes_per_param, 8);
}

// Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm, core
// 0.14.0): without pipelining, the step's micro-batches pair up so each one's
// dispatch and combine run under the other's computation. With the step
// without it, S = m·t + D (t a micro-batch's time, E = m·e of it all-to-all,
// D the data-parallel tail and optimizer), the step with it is
// max(m·t − E, E) + D and the exposed all-to-all max(0, E − (m·t − E)).
// Qwen3-30B-A3B on 16 H100, EP 16 over two nodes, 32 micro-batches of 1.
TEST(MoeA2aOverlap, CombinedOneFOneBHidesTheAllToAll) {
  const ModelSpec m = find_model("qwen3-30b-a3b");
  const GpuSpec& h100 = find_gpu("h100");
  Layout l;
  l.dp = 16;
  l.ep = 16;
  l.seq_len = 4096;
  l.global_batch = 512;
  l.zero_stage = 1;
  apply_framework(find_framework("megatron-lm@0.14.0"), RunSettings{}, l);
  EXPECT_FALSE(l.moe_a2a_overlap);  // core's default: off
  const StepTimeOptions o;
  const StepTime off = estimate_step_time(m, l, h100, o);
  RunSettings on;
  on.moe_a2a_overlap = true;
  apply_framework(find_framework("megatron-lm@0.14.0"), on, l);
  ASSERT_TRUE(l.moe_a2a_overlap);
  const StepTime with = estimate_step_time(m, l, h100, o);
  const double tail = off.dp_comm_s + off.zero3_comm_s + off.optimizer_s;
  const double all = off.step_s - tail, a2a = off.ep_comm_s;
  ASSERT_GT(a2a, 0);
  EXPECT_NEAR(with.step_s, std::max(all - a2a, a2a) + tail, 1e-9 * off.step_s);
  EXPECT_NEAR(with.ep_comm_s, std::max(0.0, a2a - (all - a2a)), 1e-9 * off.step_s);
  EXPECT_LT(with.step_s, off.step_s);
  // Two micro-batches in flight instead of one (the next one's forward beside this one's backward).
  const MemoryBreakdown mem = estimate_memory(m, l, h100, MemoryOptions{});
  EXPECT_EQ(mem.inflight_micro_batches, 2);
  // Megatron refuses it with pp > 1 and no virtual pipeline, and with full recompute
  // (transformer_config.py @core_v0.14.0); stacks without it refuse it by name.
  l.pp = 2;
  l.dp = 8;
  EXPECT_FALSE(moe_a2a_overlap_can_run(l));
  EXPECT_NE(framework_cannot_run(find_framework("megatron-lm@0.14.0"), l).find("interleaved"), std::string::npos);
  l.vp = 2;
  EXPECT_TRUE(moe_a2a_overlap_can_run(l));
  l.recompute = Recompute::kFull;
  EXPECT_FALSE(moe_a2a_overlap_can_run(l));
  l.recompute = Recompute::kNone;
  EXPECT_NE(framework_cannot_run(find_framework("megatron-lm@0.12.0"), l).find("no MoE all-to-all overlap"), std::string::npos);
  // The switch stated for such a stack is refused where the inputs are read (every command).
  FrameworkInputs in;
  in.framework = "megatron-lm@0.12.0";
  in.moe_a2a_overlap = "on";
  try {
    make_run_settings(in);
    ADD_FAILURE() << "megatron-lm@0.12.0 took the all-to-all overlap";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "moe_a2a_overlap");
  }
  in.framework = "megatron-lm@0.14.0";
  EXPECT_TRUE(make_run_settings(in).moe_a2a_overlap.value_or(false));
}

// A release's benchmark recipe (profile perf_recipes, Megatron-Bridge's
// scripts/performance presets) sets the MoE switches a run does not state:
// 25.09's DeepSeek-V3 on H100 runs DeepEP with the all-to-all overlap
// (run_script.py @3b9c7c7 l.55-101), its B200 run neither; 26.04's Qwen3-30B-A3B
// on H100 HybridEP without the overlap (@36e92d1d9 qwen3_workload_base_configs.py).
TEST(PerfRecipes, ReleaseModelAndGpuSetTheMoeSwitches) {
  const FrameworkProfile& f = find_framework("megatron-bridge@25.09");
  const ModelSpec dsv3 = find_model("deepseek-v3");
  FrameworkInputs in;
  in.framework = "megatron-bridge@25.09";
  RunSettings s = make_run_settings(in);
  EXPECT_EQ(s.release, "25.09");
  apply_perf_recipe(f, dsv3, "h100-sxm5-80gb", s);
  ASSERT_TRUE(s.recipe.has_value());
  EXPECT_EQ(s.recipe->release, "25.09");
  Layout l;
  l.tp = 2;
  l.pp = 8;
  l.vp = 4;
  l.dp = 64;
  l.ep = 64;
  l.seq_len = 4096;
  l.global_batch = 8192;
  apply_framework(f, s, l);
  apply_recipe_layout(f, dsv3, l);  // the recipe's Et|(tt|)*30mL at 32 stages
  EXPECT_TRUE(l.moe_a2a_overlap);
  EXPECT_TRUE(l.moe_dispatch_per_node);
  EXPECT_EQ(l.comm_sms, 20);  // DeepEP's moe_deepep_num_sms (transformer_config.py @core_v0.14.0)
  const std::string args = megatron_arguments(dsv3, l, MegatronDialect::kMegatronLm, &f);
  EXPECT_NE(args.find("--moe-token-dispatcher-type flex"), std::string::npos) << args;
  EXPECT_NE(args.find("--overlap-moe-expert-parallel-comm"), std::string::npos) << args;
  // A recipe's overlap the layout cannot run (pp > 1 without vp) stays off; a stated switch wins.
  l.vp = 1;
  apply_framework(f, s, l);
  EXPECT_FALSE(l.moe_a2a_overlap);
  l.vp = 4;
  s.moe_a2a_overlap = false;
  apply_framework(f, s, l);
  EXPECT_FALSE(l.moe_a2a_overlap);
  s.moe_a2a_overlap.reset();
  // The same release on B200: all-to-all, no overlap.
  apply_perf_recipe(f, dsv3, "b200-180gb", s);
  ASSERT_TRUE(s.recipe.has_value());
  apply_framework(f, s, l);
  EXPECT_FALSE(l.moe_a2a_overlap);
  EXPECT_FALSE(l.moe_dispatch_per_node);
  // 25.10 takes the latest release at or before it; one before every release, or none named, takes none.
  s.release = "25.10";
  apply_perf_recipe(f, dsv3, "h100-sxm5-80gb", s);
  ASSERT_TRUE(s.recipe.has_value());
  EXPECT_EQ(s.recipe->release, "25.09");
  s.release = "25.08";
  apply_perf_recipe(f, dsv3, "h100-sxm5-80gb", s);
  EXPECT_FALSE(s.recipe.has_value());
  s.release.clear();
  apply_perf_recipe(f, dsv3, "h100-sxm5-80gb", s);
  EXPECT_FALSE(s.recipe.has_value());
  s.release = "26.04";
  apply_perf_recipe(f, find_model("qwen3-30b-a3b"), "h100-sxm5-80gb", s);
  ASSERT_TRUE(s.recipe.has_value());
  EXPECT_FALSE(s.recipe->moe_a2a_overlap.value_or(true));
  EXPECT_TRUE(s.recipe->moe_dispatch_per_node.value_or(false));
}
