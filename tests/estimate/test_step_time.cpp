// Step-time model: hand-derived formulas, direction of every effect, and
// published measurements with stated tolerances.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "inputs/choice_words.hpp"
#include "estimate/kernels/attention_kernels.hpp"
#include "gpuplan/finetune.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/step_time.hpp"

namespace gpuplan {
namespace {

Layout base(int tp, int pp, int dp, int64_t micro, int64_t global, int64_t seq) {
  Layout l;
  l.tp = tp;
  l.pp = pp;
  l.dp = dp;
  l.micro_batch = micro;
  l.global_batch = global;
  l.seq_len = seq;
  l.sequence_parallel = tp > 1;
  return l;
}

TEST(Collectives, RingAllReduceIsTwoNMinusOneOverNBytesOverBusBwPlusLatency) {
  const Link link{200e9, 5e-6};
  const double bytes = 1e9;
  // 2(n−1)/n · bytes / busbw + 2(n−1)·α with n = 8: 1.75 · 5 ms + 14 · 5 µs.
  EXPECT_NEAR(ring_allreduce_s(bytes, 8, link), 1.75 * 1e9 / 200e9 + 14 * 5e-6, 1e-12);
  EXPECT_NEAR(ring_reduce_scatter_s(bytes, 8, link), 0.875 * 1e9 / 200e9 + 7 * 5e-6, 1e-12);
  EXPECT_EQ(ring_allreduce_s(bytes, 1, link), 0.0);
}

TEST(Collectives, HierarchicalCarriesOneLocalthOverTheNetwork) {
  const Link intra{230e9, 6e-6}, inter{22.5e9, 12e-6};
  const double b = 8e9;
  const double t = hierarchical_allreduce_s(b, 8, 16, intra, inter);
  const double expect = 2 * ring_reduce_scatter_s(b, 8, intra) + ring_allreduce_s(b / 8, 16, inter);
  EXPECT_NEAR(t, expect, 1e-12);
  // Much cheaper than a flat ring over the NIC alone.
  EXPECT_LT(t, ring_allreduce_s(b, 128, inter) / 3);
}

TEST(Collectives, RingGatherLatencyCountsIntraAndInterNodeSteps) {
  const Link intra{230e9, 6e-6}, inter{22.5e9, 12e-6};
  // 1,536 ranks on 192 nodes: 1,344 NVLink steps · 6 µs + 191 network steps · 12 µs = 10.356 ms.
  EXPECT_NEAR(ring_gather_latency_s(1536, 192, intra, inter), 1344 * 6e-6 + 191 * 12e-6, 1e-12);
  EXPECT_NEAR(ring_gather_latency_s(8, 1, intra, inter), 7 * 6e-6, 1e-12);  // one node: 7 NVLink steps
  EXPECT_EQ(ring_gather_latency_s(1, 1, intra, inter), 0.0);
}

// A training run is a long saturated kernel stream: it gets the sustained
// (power-limited) GEMM rate, not the boost-clock burst (MSMF vs MAMF).
TEST(GemmEfficiency, TrainingUsesTheSustainedCeiling) {
  // Measured: 8×H200 all busy, MSMF 698.6 TFLOP/s of 989 = 0.706 (data/gpus.json).
  EXPECT_NEAR(training_gemm_ceiling(find_gpu("h200")), 0.706, 1e-12);
  // Burst only (A100 MAMF 0.869): × the H200 sustained/burst ratio 698.6/823.9 = 0.8479 → 0.7369.
  EXPECT_NEAR(training_gemm_ceiling(find_gpu("a100-sxm4-80gb")), 0.869 * 698.6 / 823.9, 1e-12);
  EXPECT_NEAR(training_gemm_ceiling(find_gpu("h100")), 0.803 * 698.6 / 823.9, 1e-12);  // 0.681
  // No measurement at all: the assumed 0.80 burst, scaled the same way (0.678).
  EXPECT_NEAR(training_gemm_ceiling(find_gpu("l40s")), 0.80 * 698.6 / 823.9, 1e-12);
  // MI300X reaches its power cap within one kernel: its MAMF already is the sustained rate.
  EXPECT_NEAR(training_gemm_ceiling(find_gpu("mi300x")), 0.514, 1e-12);
  // The ceiling reaches a large training GEMM: 16384³ on an H100 runs at 0.681 × tile
  // utilisation (128×256 tiles: 8,192 tiles in 63 waves of 132 SMs = 0.985) × 16384/16448.
  StepTimeOptions o;
  const GpuSpec& h100 = find_gpu("h100");
  const double eff = 0.803 * 698.6 / 823.9 * (8192.0 / (63 * 132)) * (16384.0 / 16448);
  EXPECT_NEAR(gemm_time_s(h100, Precision::kBf16, 16384, 16384, 16384, o),
              2.0 * 16384 * 16384 * 16384 / (989e12 * eff) + o.kernel_overhead_s, 1e-9);
}

TEST(GemmEfficiency, LargeGemmsReachTheMeasuredCeilingSmallOnesFall) {
  const GpuSpec& a100 = find_gpu("a100-sxm4-80gb");
  const double big = gemm_efficiency(a100, Precision::kBf16, 16384, 16384, 16384, 0.869);
  EXPECT_GT(big, 0.80);
  EXPECT_LE(big, 0.869);
  EXPECT_LT(gemm_efficiency(a100, Precision::kBf16, 512, 512, 512, 0.869), 0.7 * big);
  EXPECT_LT(gemm_efficiency(a100, Precision::kBf16, 16384, 16384, 64, 0.869), 0.6 * big);  // thin k
}

// A strided-batched GEMM is one kernel: its waves count every batch entry's tiles.
TEST(GemmEfficiency, BatchedGemmFillsTheGpuAsOneKernel) {
  const GpuSpec& a100 = find_gpu("a100-sxm4-80gb");  // 108 SMs
  // One attention-score product 1024×1024×64 alone. Tiles: 256×128 → 4·8 = 32 on 108 SMs (0.296);
  // 128×128 → 64 tiles, one wave, 64/108 · 0.93 = 0.551; 128×64 → 128 tiles, 2 waves, 128/216 · 0.82 = 0.486;
  // 64×64 → 256 tiles, 3 waves, 256/324 · 0.65 = 0.514. Best 0.551; k/(k+64) = 0.5:
  // 0.869 · 0.551 · 0.5 = 0.2395.
  EXPECT_NEAR(gemm_efficiency(a100, Precision::kBf16, 1024, 1024, 64, 0.869), 0.869 * (64.0 / 108 * 0.93) * 0.5, 1e-9);
  // 128 of them (8 sequences × 16 heads) in one kernel: 256×128 tiles → 4,096 in ceil(4096/108) = 38 waves,
  // utilisation 4096/(38·108) = 0.998: 0.869 · 0.998 · 0.5 = 0.4337.
  EXPECT_NEAR(gemm_efficiency(a100, Precision::kBf16, 1024, 1024, 64, 0.869, 128), 0.869 * (4096.0 / (38 * 108)) * 0.5, 1e-9);
  // Time: the roofline of all 128 at once plus one launch, not 128 launches. Compute:
  // 128 · 2·1024·1024·64 FLOP / (312 TFLOP/s · 0.4337) = 127 µs; memory: 128 · 2 B · (1024·64 + 64·1024 +
  // 1024·1024) = 302 MB over 2.039 TB/s · 0.8 = 185 µs, so the score write bounds it.
  StepTimeOptions o;
  const double one = gemm_time_s(a100, Precision::kBf16, 1024, 1024, 64, o);
  const double batched = gemm_time_s(a100, Precision::kBf16, 1024, 1024, 64, o, 128);
  const double compute = 128 * 2.0 * 1024 * 1024 * 64 / (312e12 * 0.869 * (4096.0 / (38 * 108)) * 0.5);
  const double memory = 128 * 2.0 * (1024.0 * 64 + 64.0 * 1024 + 1024.0 * 1024) / (2.039e12 * o.hbm_efficiency);
  EXPECT_NEAR(batched, std::max(compute, memory) + o.kernel_overhead_s, 1e-12);
  EXPECT_NEAR(batched, 185.1e-6 + 4e-6, 0.2e-6);  // + one 4 µs launch
  EXPECT_LT(batched, 128 * one);
}

// ZeRO-3 calls are per layer, each a ring through every rank of the shard group.
// Eager PyTorch streams every element-wise operator through HBM on its own.
TEST(StepTime, EagerElementwiseCostsItsOperatorsBytes) {
  const ModelSpec m = find_model("llama-3.1-8b");  // h 4096, f 14336, q 4096, kv 1024, V 128256, 32 layers, RMSNorm, SwiGLU
  const GpuSpec& a100 = find_gpu("a100-sxm4-80gb");  // 2.039 TB/s, streamed at 80%
  Layout l;
  l.seq_len = 4096;
  l.micro_batch = 1;
  l.loss = LossKernel::kFull;  // F.cross_entropy(logits.float()): fused by torch.compile, op by op in eager mode
  const StepTime fused = estimate_step_time(m, l, a100);
  l.eager = true;
  const StepTime eager = estimate_step_time(m, l, a100);
  // Forward bytes per token and layer. Eager: two RMSNorms 2·36·4096 = 294,912; two residual adds 2·6·4096
  // = 49,152; SwiGLU 10·14336 = 143,360; rotary 20·(4096+1024) = 102,400; output transpose 4·4096 = 16,384;
  // K and V repeated to 32 heads 2·2·(1024+4096) = 20,480: 626,688 B. Fused: 2 B × (11·4096 + 3·14336 +
  // 2·5120) = 196,608 B. Backward twice the forward: 3 · 430,080 = 1,290,240 B more per token and layer.
  // Kernels: 33 forward instead of 10, backward twice: 69 more per layer at 4 µs each.
  // Loss: eager cross-entropy streams 22 + 22 B per logit instead of 14 + 8: 22 B more, 4096 · 128256 logits.
  const double hbm = 2.039e12 * 0.8;
  const double per_layer = 4096.0 * 1290240 / hbm + 69 * 4e-6;
  const double loss = 22.0 * 4096 * 128256 / hbm;
  EXPECT_NEAR(eager.elementwise_s - fused.elementwise_s, 32 * per_layer + loss, 1e-9);
  EXPECT_NEAR(eager.gemm_s, fused.gemm_s, 1e-12);  // the GEMMs do not change
  // One GPU, nothing overlaps: the step grows by exactly that.
  EXPECT_NEAR(eager.step_s - fused.step_s, 32 * per_layer + loss, 1e-9);
  // Memory: an eager RMSNorm keeps its fp32 input (4 B over h, two per layer) and SwiGLU keeps silu's
  // output (2 B over f): (8·4096 + 2·14336) · 4096 tokens · 32 layers = 8,053,063,680 B more.
  MemoryOptions mo;
  const MemoryBreakdown me = estimate_memory(m, l, a100, mo);
  l.eager = false;
  const MemoryBreakdown mf = estimate_memory(m, l, a100, mo);
  EXPECT_NEAR(me.activations_bytes - mf.activations_bytes, (8.0 * 4096 + 2.0 * 14336) * 4096 * 32, 1.0);
}

TEST(StepTime, ZeroThreePaysRingLatencyPerLayerCall) {
  const ModelSpec m = find_model("gpt3-175b");  // 96 layers
  const GpuSpec& g = find_gpu("a100-sxm4-80gb");
  Layout l = base(1, 1, 1536, 1, 1536, 2048);  // one micro-batch per rank
  l.zero_stage = 3;
  l.recompute = Recompute::kFull;  // gathers for forward, recompute forward and backward, then one reduce-scatter
  StepTimeOptions with, without;
  without.intra_latency_s = 0;
  without.inter_latency_s = 0;
  const double diff = estimate_step_time(m, l, g, with).comm_total_s - estimate_step_time(m, l, g, without).comm_total_s;
  // 1,536 ranks on 192 nodes: ring latency (1536 − 192)·6 µs + 191·12 µs = 10.356 ms per call;
  // 97 calls (96 layers + embedding/head) per pass, 4 passes: 4 · 97 · 10.356 ms = 4.018 s.
  EXPECT_NEAR(diff, 4 * 97 * ((1536 - 192) * 6e-6 + 191 * 12e-6), 1e-6);
}

// DeepSpeed gathers each parameterised submodule on its own: GPT-3's block has two
// LayerNorms and four linears (fused QKV, output, two MLP), so 6 calls per layer, not 1.
TEST(StepTime, DeepSpeedZeroThreeGathersModuleByModule) {
  const ModelSpec m = find_model("gpt3-175b");  // 96 layers, 2 norms per layer
  const GpuSpec& g = find_gpu("a100-sxm4-80gb");
  Layout l = base(1, 1, 1536, 1, 1536, 2048);
  l.zero_stage = 3;
  l.recompute = Recompute::kFull;
  const StepTime block = estimate_step_time(m, l, g);
  l.zero3_per_module = true;
  const StepTime module = estimate_step_time(m, l, g);
  // 96 · 5 more calls per pass, 4 passes, 10.356 ms each: 19.88 s more communication.
  const double more = 4 * 96 * 5 * ((1536 - 192) * 6e-6 + 191 * 12e-6);
  EXPECT_NEAR(module.comm_total_s - block.comm_total_s, more, 1e-6);
  // Without prefetching (DeepSpeed before mid-2021) none of it hides behind compute: every second of
  // communication lands on the step.
  l.zero3_prefetch = false;
  const StepTime waiting = estimate_step_time(m, l, g);
  EXPECT_NEAR(waiting.zero3_comm_s, waiting.comm_total_s, 1e-9);
  EXPECT_NEAR(waiting.step_s - module.step_s, waiting.zero3_comm_s - module.zero3_comm_s, 1e-9);
  EXPECT_GT(waiting.zero3_comm_s, module.zero3_comm_s);
}

TEST(StepTime, BubbleIsPMinusOneOverMForOneFOneBAndShrinksWithInterleaving) {
  const ModelSpec m = find_model("gpt3-175b");
  const GpuSpec& g = find_gpu("a100-sxm4-80gb");
  Layout l = base(8, 8, 1, 1, 64, 2048);
  const StepTime a = estimate_step_time(m, l, g);
  // (p−1)/m of the steady-state time: 7/64 of m·t_stage, ~ (p−1)/(m+p−1) of the pipeline.
  EXPECT_NEAR(a.bubble_fraction, 7.0 / (64 + 7), 0.02);
  l.vp = 2;
  const StepTime b = estimate_step_time(m, l, g);
  EXPECT_NEAR(b.bubble_s, a.bubble_s / 2, 0.05 * a.bubble_s);
  Layout more = base(8, 8, 1, 1, 256, 2048);
  EXPECT_LT(estimate_step_time(m, more, g).bubble_fraction, a.bubble_fraction);
}

TEST(StepTime, ModelRespondsTheRightWay) {
  const ModelSpec m = find_model("llama-3-70b");
  const GpuSpec& g = find_gpu("h100-sxm5-80gb");
  // More TP within a node raises communication time.
  const StepTime tp2 = estimate_step_time(m, base(2, 4, 8, 1, 256, 4096), g);
  const StepTime tp8 = estimate_step_time(m, base(8, 4, 2, 1, 256, 4096), g);
  EXPECT_GT(tp8.tp_comm_s, tp2.tp_comm_s);
  // Full recompute costs about one extra forward: ~+1/3 of compute.
  Layout l = base(8, 4, 2, 1, 256, 4096);
  const StepTime none = estimate_step_time(m, l, g);
  l.recompute = Recompute::kFull;
  const StepTime full = estimate_step_time(m, l, g);
  EXPECT_NEAR(full.compute_s / none.compute_s, 4.0 / 3.0, 0.06);
  EXPECT_NEAR(full.hfu / full.mfu, 4.0 / 3.0, 0.05);
  // ZeRO-3 adds parameter all-gathers.
  Layout z = base(1, 1, 64, 1, 256, 4096);
  z.zero_stage = 1;
  const StepTime z1 = estimate_step_time(m, z, g);
  z.zero_stage = 3;
  const StepTime z3 = estimate_step_time(m, z, g);
  EXPECT_EQ(z1.zero3_comm_s, 0.0);
  EXPECT_GT(z3.comm_total_s, z1.comm_total_s);
  // Components add up to the step.
  const StepTime& s = none;
  EXPECT_NEAR(s.compute_s + s.tp_comm_s + s.cp_comm_s + s.ep_comm_s + s.pp_comm_s + s.bubble_s + s.dp_comm_s + s.zero3_comm_s + s.optimizer_s,
              s.step_s, 1e-9 * s.step_s);
}

Layout megatron_2021(int tp, int pp, int dp, int64_t global) {
  Layout l = base(tp, pp, dp, 1, global, 2048);
  l.sequence_parallel = false;
  l.recompute = Recompute::kFull;
  l.attention = AttentionKernel::kMaterialised;  // 2021: fused softmax, no FlashAttention
  l.precision = Precision::kFp16;
  return l;
}

TEST(StepTime, Gpt3On1024A100sIsInNarayananBand) {
  // Narayanan et al. 2021, Table 1: GPT models of 39B–145B on 512–1536 A100s
  // reach 138–148 TFLOP/s per GPU counting the recompute forward. GPT-3 175B
  // on 1024 GPUs (tp 8, pp 16, batch 1536) should land within ±20% of 140.
  const ModelSpec m = find_model("gpt3-175b");
  const GpuSpec& g = find_gpu("a100-sxm4-80gb");
  const StepTime s = estimate_step_time(m, megatron_2021(8, 16, 8, 1536), g);
  const double per_gpu_tflops = s.hardware_flop_per_step / s.step_s / 1024 / 1e12;
  EXPECT_GT(per_gpu_tflops, 140 * 0.8);
  EXPECT_LT(per_gpu_tflops, 140 * 1.2);
  EXPECT_GT(s.mfu, 0.28);
  EXPECT_LT(s.mfu, 0.45);
}

TEST(StepTime, OneTrillionOn3072A100sNear502PetaflopsAggregate) {
  // Narayanan 2021, abstract: 502 PFLOP/s on 3072 GPUs for the 1T model
  // (tp 8, pp 64, dp 6, batch 3072; Table 1). Tolerance ±20%.
  ModelSpec m = find_model("gpt3-175b");
  m.layers = 128;
  m.hidden = 25600;
  m.heads = 160;
  m.kv_heads = 160;
  m.head_dim = 160;
  m.intermediate = 4 * 25600;
  const GpuSpec& g = find_gpu("a100-sxm4-80gb");
  const StepTime s = estimate_step_time(m, megatron_2021(8, 64, 6, 3072), g);
  const double aggregate_pflops = s.hardware_flop_per_step / s.step_s / 1e15;
  EXPECT_GT(aggregate_pflops, 502 * 0.8);
  EXPECT_LT(aggregate_pflops, 502 * 1.2);
}

TEST(StepTime, MoreGpusAtFixedLayoutShapeNeverSlowerPerStep) {
  const ModelSpec m = find_model("llama-3-70b");
  const GpuSpec& g = find_gpu("h100-sxm5-80gb");
  double last = 1e30;
  for (int dp : {4, 8, 16, 32}) {
    Layout l = base(8, 4, dp, 1, 512, 4096);
    const double t = estimate_step_time(m, l, g).step_s;
    EXPECT_LE(t, last);
    last = t;
  }
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// The per-thread caches are keyed by value: mutating a field of the same
// ModelSpec object, or a layout switch layer_cost reads, gives the fresh
// answer (issue 12 found learned_positions returning a stale 1.6276 s).
TEST(StepTime, CachesAreKeyedByValue) {
  ModelSpec m = find_model("gpt3-1.3b");
  Layout l;
  l.tp = 2;
  l.dp = 4;
  l.micro_batch = 4;
  l.global_batch = 64;
  l.seq_len = 2048;
  const GpuSpec& g = find_gpu("a100-sxm4-80gb");
  StepTimeOptions quiet;
  quiet.explain = false;   // the planner's path, which uses the caches
  StepTimeOptions fresh;   // explain = true recomputes everything
  const double before = estimate_step_time(m, l, g, quiet).step_s;
  m.learned_positions = 0;  // same object, one field changed
  const double after = estimate_step_time(m, l, g, quiet).step_s;
  EXPECT_DOUBLE_EQ(after, estimate_step_time(m, l, g, fresh).step_s);
  EXPECT_NE(after, before);
  l.tp_comm_overlap = true;
  EXPECT_DOUBLE_EQ(estimate_step_time(m, l, g, quiet).step_s, estimate_step_time(m, l, g, fresh).step_s);
  EXPECT_LT(estimate_step_time(m, l, g, quiet).step_s, after);
}

// Megatron's asynchronous backward TP collectives (LinearWithGradAccumulation-
// AndAsyncCommunication): two GPT-3 175B layers, TP 8 on A100 (all-reduce bus
// bandwidth 230 GB/s, α 6 µs per ring step), one 2,048-token micro-batch. The
// activation is 2,048 · 12,288 · 2 B = 50,331,648 B; one ring all-reduce over 8
// takes 2·7/8 · 50,331,648 / 230e9 + 14 · 6 µs = 0.46695 ms, one reduce-scatter
// (or all-gather) 7/8 · 50,331,648 / 230e9 + 7 · 6 µs = 0.23348 ms. The column
// linears' GEMMs under them (QKV 2,048 × 4,608 × 12,288 and MLP-in 2,048 ×
// 6,144 × 12,288, each > 1 ms) are longer than the transfers, so 81.1%
// (overlap_efficiency, 1 − 0.189) of each hides.
//  No SP: the two input-gradient all-reduces hide: 2 layers × 0.811 × 2 × 0.46695 ms = 1.51486 ms less.
//  SP: the two reduce-scatters hide 0.811 of theirs, the two new input re-gathers
//  expose 0.189 of theirs, the row-side all-gathers stay: 2 × 2 × (0.811 − 0.189) × 0.23348 ms = 0.58090 ms less.
TEST(StepTime, AsyncBackwardTensorParallelCollectivesHideUnderTheirGemms) {
  ModelSpec m = find_model("gpt3-175b");
  m.layers = 2;
  const GpuSpec& a100 = find_gpu("a100-sxm4-80gb");
  Layout l;
  l.tp = 8;
  l.seq_len = 2048;
  l.micro_batch = 1;
  l.global_batch = 1;
  const double ar = 2.0 * 7 / 8 * 50331648.0 / 230e9 + 14 * 6e-6;
  const double rs = 7.0 / 8 * 50331648.0 / 230e9 + 7 * 6e-6;
  const double sync = estimate_step_time(m, l, a100).tp_comm_s;
  l.tp_grad_comm_async = true;
  EXPECT_NEAR(sync - estimate_step_time(m, l, a100).tp_comm_s, 2 * 0.811 * 2 * ar, 1e-9);
  l.sequence_parallel = true;
  const double sp_async = estimate_step_time(m, l, a100).tp_comm_s;
  l.tp_grad_comm_async = false;
  EXPECT_NEAR(estimate_step_time(m, l, a100).tp_comm_s - sp_async, 2 * 2 * (0.811 - 0.189) * rs, 1e-9);
}

// Megatron's unfused vocab-parallel cross-entropy (tensor_parallel/cross_entropy.py):
// .float() 2+4, max 4, -= max 4+4, exp 4+4, sum 4, div_ 4+4 = 38 B per logit
// forward; backward mul_ 4+4 and the upcast's backward 4+2 = 14 B; a fused
// kernel 14 + 8 B: 30 B more per logit, 4096 · 128256 logits, one GPU.
TEST(StepTime, VocabParallelCrossEntropyStreamsItsOps) {
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& a100 = find_gpu("a100-sxm4-80gb");
  Layout l;
  l.seq_len = 4096;
  l.micro_batch = 1;
  l.loss = LossKernel::kFused;
  const StepTime fused = estimate_step_time(m, l, a100);
  l.loss = LossKernel::kVocabParallel;
  const StepTime vp = estimate_step_time(m, l, a100);
  EXPECT_NEAR(vp.step_s - fused.step_s, 30.0 * 4096 * 128256 / (2.039e12 * 0.8), 1e-9);
}

// Host floor from a framework's host calls: a two-layer model this small is
// host-bound, so each layer's forward takes calls × 15 µs and its backward twice
// that. 2,000 calls instead of 1,000: 2 layers × 3 × 1,000 × 15 µs = 90 ms more.
TEST(StepTime, HostCallsPerLayerSetTheHostFloor) {
  ModelSpec m = find_model("llama-3.1-8b");
  m.layers = 2;
  const GpuSpec& a100 = find_gpu("a100-sxm4-80gb");
  Layout l;
  l.seq_len = 128;
  l.micro_batch = 1;
  l.host_calls_per_layer = 1000;
  const StepTime a = estimate_step_time(m, l, a100);
  l.host_calls_per_layer = 2000;
  const StepTime b = estimate_step_time(m, l, a100);
  EXPECT_NEAR(b.step_s - a.step_s, 2 * 3 * 1000 * 15e-6, 1e-9);
  // 0: the kernel count alone.
  l.host_calls_per_layer = 0;
  EXPECT_LT(estimate_step_time(m, l, a100).step_s, a.step_s);
}

// The MoE tests' run: one 4,096-token micro-batch per rank, 8 data-parallel
// ranks that are also the 8 expert-parallel ones, on one 8-GPU node.
Layout ep8_micro_batch() {
  Layout l;
  l.seq_len = 4096;
  l.micro_batch = 1;
  l.dp = 8;
  l.ep = 8;
  return l;
}
StepTimeOptions one_node_of_eight() {
  StepTimeOptions o;
  o.gpus_per_node = 8;
  return o;
}

// How the local experts' GEMMs are launched (profile expert_gemms). Qwen3-30B-A3B
// (128 experts, top 8, hidden 2048, expert width 768, gated: fc1 2048→1536,
// fc2 768→2048) at EP 8, TP 1, one 4,096-token micro-batch: 16 local experts,
// each with 4096·8·8/128 = 2,048 tokens. Per matrix and pass (forward x·W,
// dgrad, wgrad), against one grouped kernel over all 16 experts:
//   multi_stream (TE GroupedLinear, 4 compute streams): 16/4 rounds of 4 GEMMs
//     sharing the GPU, 4 · gemm_time_s(batch 4);
//   sequential (SequentialMLP): 16 · gemm_time_s(batch 1).
// Two layers, no recompute: the step's GEMM time differs by 2 × those sums.
TEST(StepTime, ExpertGemmsAsTheFrameworkLaunchesThem) {
  ModelSpec m = find_model("qwen3-30b-a3b");
  ASSERT_TRUE(m.moe.has_value());
  ASSERT_EQ(m.moe->routed_experts, 128);
  ASSERT_EQ(m.moe->expert_intermediate, 768);
  m.layers = 2;
  const GpuSpec& h100 = find_gpu("h100-sxm5-80gb");
  Layout l = ep8_micro_batch();
  const StepTimeOptions o = one_node_of_eight();
  const double rows = 2048;
  struct Shape { double n, k; };
  const Shape mats[] = {{1536, 2048}, {2048, 768}};
  auto passes = [&](double batch, double copies) {
    double t = 0;
    for (const Shape& x : mats) {
      t += copies * (gemm_time_s(h100, Precision::kBf16, rows, x.n, x.k, o, batch) + gemm_time_s(h100, Precision::kBf16, rows, x.k, x.n, o, batch) +
                     gemm_time_s(h100, Precision::kBf16, x.k, x.n, rows, o, batch));
    }
    return t;
  };
  l.expert_gemms = ExpertGemms::kGrouped;
  const StepTime grouped = estimate_step_time(m, l, h100, o);
  l.expert_gemms = ExpertGemms::kMultiStream;
  const StepTime multi = estimate_step_time(m, l, h100, o);
  l.expert_gemms = ExpertGemms::kSequential;
  const StepTime seq = estimate_step_time(m, l, h100, o);
  EXPECT_NEAR(multi.gemm_s - grouped.gemm_s, 2 * (passes(4, 4) - passes(16, 1)), 1e-9);
  EXPECT_NEAR(seq.gemm_s - grouped.gemm_s, 2 * (passes(1, 16) - passes(16, 1)), 1e-9);
  EXPECT_GT(seq.step_s, multi.step_s);
  EXPECT_GT(multi.step_s, grouped.step_s);
  // The profiles that name theirs.
  EXPECT_EQ(find_framework("megatron-bridge").expert_gemms, ExpertGemms::kMultiStream);
  EXPECT_EQ(find_framework("megatron-lm@core_v0.6.0").expert_gemms, ExpertGemms::kSequential);
  EXPECT_EQ(find_framework("torchtitan").expert_gemms, ExpertGemms::kGrouped);
}

// gpt-oss's clamped SwiGLU as Megatron-Core runs it (profile activation_clamp
// separate_ops: fused_bias_geglu.py weighted_bias_quick_geglu_impl, core
// 0.16): chunk, clamp each half, torch.cat, then the fused kernel. gpt-oss-20b
// (32 experts, top 4, expert width 2880), two layers, EP 8, TP 1, one
// 4,096-token micro-batch: a rank's routed rows are 4096·4 = 16,384
// (4 local experts × 4,096 tokens each). Forward 8·f elements per row
// (two clamps read and write f, the cat reads and writes 2f), backward 10·f
// (each clamp's masked gradient reads 2f and writes f, the chunk's gradient
// concatenates 2f): (8 + 10) · 16,384 · 2,880 · 2 B = 1,698,693,120 B per layer
// at 3.35 TB/s × 0.80, plus 3 kernels each way at 4 µs; no recompute.
TEST(StepTime, ClampedSwigluOutsideTheFusedKernel) {
  ModelSpec m = find_model("gpt-oss-20b");
  ASSERT_TRUE(m.moe.has_value());
  ASSERT_EQ(m.moe->experts_per_token, 4);
  ASSERT_EQ(m.moe->expert_intermediate, 2880);
  ASSERT_DOUBLE_EQ(m.swiglu_limit, 7.0);
  m.layers = 2;
  const GpuSpec& h100 = find_gpu("h100-sxm5-80gb");
  Layout l = ep8_micro_batch();
  const StepTimeOptions o = one_node_of_eight();
  const StepTime fused = estimate_step_time(m, l, h100, o);
  l.clamp_outside_activation = true;
  const StepTime split = estimate_step_time(m, l, h100, o);
  const double bytes = (8.0 + 10.0) * 16384 * 2880 * 2;
  EXPECT_DOUBLE_EQ(bytes, 1698693120.0);
  EXPECT_NEAR(split.elementwise_s - fused.elementwise_s, 2 * (bytes / (h100.hbm_bytes_per_s * 0.80) + 6 * 4e-6), 1e-9);
  EXPECT_NEAR(split.gemm_s, fused.gemm_s, 1e-12);
  // Megatron-Core from 0.16 and Megatron-Bridge clamp that way; before gpt-oss (0.14) there is no clamp.
  EXPECT_TRUE(find_framework("megatron-bridge").clamp_outside_activation);
  EXPECT_TRUE(find_framework("megatron-lm@0.16.0").clamp_outside_activation);
  EXPECT_FALSE(find_framework("megatron-lm@0.14.0").clamp_outside_activation);
  EXPECT_FALSE(find_framework("torchtitan").clamp_outside_activation);
}

// Megatron-Core's TEGroupedMLP adds the second expert linear's bias in Python
// (experts.py _apply_bias: `t + b * p` per local expert, then torch.cat), which
// a grouped kernel with its bias in the epilogue does not. gpt-oss-20b (expert
// biases), two layers, EP 8, one 4,096-token micro-batch: 16,384 routed rows of
// h = 2,880 over 4 local experts; forward 6 hidden vectors per row (b·p written,
// the add reads 2 and writes 1, the cat reads and writes 1), backward 8 (the
// multiply's two gradients, a product and a sum each, and the split's cat):
// 14 · 16,384 · 2,880 · 2 B = 1,321,205,760 B per layer at 3.35 TB/s × 0.80,
// plus 2·4 + 1 kernels forward and 4·4 + 1 backward at 4 µs.
TEST(StepTime, TeGroupedMlpAddsTheExpertBiasPerExpert) {
  ModelSpec m = find_model("gpt-oss-20b");
  ASSERT_TRUE(m.mlp_bias);
  ASSERT_EQ(m.hidden, 2880);
  ASSERT_EQ(m.moe->routed_experts, 32);
  m.layers = 2;
  const GpuSpec& h100 = find_gpu("h100-sxm5-80gb");
  Layout l = ep8_micro_batch();
  const StepTimeOptions o = one_node_of_eight();
  l.expert_gemms = ExpertGemms::kGrouped;
  const StepTime grouped = estimate_step_time(m, l, h100, o);
  l.expert_gemms = ExpertGemms::kMultiStream;
  const StepTime te = estimate_step_time(m, l, h100, o);
  const double bytes = 14.0 * 16384 * 2880 * 2;
  EXPECT_DOUBLE_EQ(bytes, 1321205760.0);
  EXPECT_NEAR(te.elementwise_s - grouped.elementwise_s, 2 * (bytes / (h100.hbm_bytes_per_s * 0.80) + (9 + 17) * 4e-6), 1e-9);
  // Megatron-Core 0.5–0.6's allgather dispatcher permutes with torch.gather and
  // out-of-place zero-filled scatters (profile moe_permute_traffic 15.5 each way,
  // against the default 4): (15.5 − 4) · 2 · 16,384 · 2,880 · 2 B more per layer.
  l.expert_gemms = ExpertGemms::kGrouped;
  l.moe_permute_units_f = l.moe_permute_units_b = 15.5;
  const StepTime gathered = estimate_step_time(m, l, h100, o);
  EXPECT_NEAR(gathered.elementwise_s - grouped.elementwise_s, 2 * (11.5 * 2 * 16384 * 2880 * 2) / (h100.hbm_bytes_per_s * 0.80), 1e-9);
  EXPECT_DOUBLE_EQ(find_framework("megatron-lm@0.6.0").moe_permute_units_f, 15.5);
  EXPECT_DOUBLE_EQ(find_framework("megatron-lm@0.8.0").moe_permute_units_f, 13.5);
  EXPECT_DOUBLE_EQ(find_framework("megatron-lm@0.10.0").moe_permute_units_b, 9.5);
  EXPECT_DOUBLE_EQ(find_framework("torchtitan").moe_permute_units_f, 4.0);
}

// PEFT's LoRA wrapper adds 7 host calls per adapted matrix to a layer whose
// profile counts its calls (peft v0.7.1 lora/layer.py Linear.forward). Llama
// 3.1 8B, 2 layers, 128 tokens, 1,000 calls per layer: host-bound, so each
// phase takes its calls × 15 µs whatever the GPU does under it. LoRA on q,k,v,o
// against q alone: 3 × 7 = 21 more calls per layer forward and 42 backward,
// 2 layers × 3 × 21 × 15 µs = 1.89 ms (the optimizer, which steps more
// adapters, is set aside).
TEST(StepTime, LoraAdaptersAddPeftHostCalls) {
  ModelSpec m = find_model("llama-3.1-8b");
  m.layers = 2;
  const GpuSpec& a100 = find_gpu("a100-sxm4-80gb");
  Layout l;
  l.seq_len = 128;
  l.micro_batch = 1;
  l.host_calls_per_layer = 1000;
  l.finetune = FineTune::kLora;
  l.lora_modules = parse_lora_modules("q", "--modules");
  const StepTime one = estimate_step_time(m, l, a100);
  l.lora_modules = parse_lora_modules("q,k,v,o", "--modules");
  const StepTime four = estimate_step_time(m, l, a100);
  EXPECT_NEAR((four.step_s - four.optimizer_s) - (one.step_s - one.optimizer_s), 2 * 3 * 21 * 15e-6, 1e-9);
  // Without a counted profile (0: the kernel count) the adapters' own kernels set the floor.
  l.host_calls_per_layer = 0;
  EXPECT_LT(estimate_step_time(m, l, a100).step_s, four.step_s);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// PyTorch's context_parallel (torchtitan 2024-12) against a p2p ring, Llama 3.1
// 8B at 256k on 8 H100s, cp 8, SDPA, no recompute. Per rank and layer: E =
// 32,768 tokens · 32 heads · 128 = 134,217,728 output elements, KV (K and V
// repeated to 32 heads) = 268,435,456 elements, 536,870,912 B in bf16.
// Element-wise merges: forward 7·(38E + 4KV) + 12E = 44,828,721,152 B, backward
// 90E + 203KV = 66,571,993,088 B, at 80% of 3.35 TB/s, plus 89 more kernels
// at 4 µs. Communication: the all-gather (7/8 · 8 · 536,870,912 B / 365 GB/s =
// 10.3 ms) hides behind the diagonal step (1/8 of 7.0e13 FLOP at 284 TFLOP/s =
// 31 ms), every dK/dV pass-on behind the next step, all but the last:
// 2 · 536,870,912 B / 365 GB/s + 6 µs = 2.948 ms per layer exposed.
TEST(StepTime, PytorchContextParallelMergesAndLastGradientPassOn) {
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& h100 = find_gpu("h100-sxm5-80gb");
  Layout l;
  l.seq_len = 262144;
  l.micro_batch = 1;
  l.cp = 8;
  l.attention = AttentionKernel::kSdpa;
  const StepTime ring = estimate_step_time(m, l, h100);
  l.cp_exchange = CpExchange::kPytorchAllGather;
  const StepTime pt = estimate_step_time(m, l, h100);
  const double per_layer_merge = (44828721152.0 + 66571993088.0) / (3.35e12 * 0.8) + 89 * 4e-6;
  EXPECT_NEAR(pt.attention_s - ring.attention_s, 32 * per_layer_merge, 1e-6);
  EXPECT_NEAR(ring.cp_comm_s, 0.0, 1e-12);
  EXPECT_NEAR(pt.cp_comm_s, 32 * (2 * 536870912.0 / 365e9 + 6e-6), 1e-6);
}

// Load-balanced ring steps at the shapes the frameworks run (PyTorch
// _attention.py, TransformerEngine AttnFuncWithCPAndKVP2P): Llama 3.1 8B at 8k,
// cp 2, SDPA on an H100, no recompute. Per layer a rank holds 4,096 queries; f =
// 2 · 4,096 · 8,193/2 · 32 heads · 256 = 1.374e11 forward FLOP, half on the
// causal diagonal (4,096 × 4,096) and half on one unmasked step, which runs as
// 4,096 queries × 2,048 keys on one rank and 2,048 × 4,096 on the other. Every
// grid here fills its last wave to 1,024/1,056 or 512/528 = 0.9697, so the
// slower shape is the one with the shorter loop: the forward's 2,048 keys (FA2
// full mask 362 TFLOP/s at 2k against 368 at 4k, FA3 paper Fig. 5) and the
// backward's 2,048 queries (291 against 310, Fig. 6), not the 4,096-long calls
// a square s/cp step would read.
TEST(StepTime, LoadBalancedRingStepsRunAtTheirHalfChunkShapes) {
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& h100 = find_gpu("h100-sxm5-80gb");
  Layout l;
  l.seq_len = 8192;
  l.micro_batch = 1;
  l.cp = 2;
  l.attention = AttentionKernel::kSdpa;
  const StepTime t = estimate_step_time(m, l, h100);
  auto rate = [&](AttentionPass p, bool causal, double len) {
    return attention_training_rate_flop_per_s(h100, AttentionKernel::kSdpa, p, causal, 128, len);
  };
  const double f = 2.0 * 4096 * (8193.0 / 2) * 32 * 256;
  // Each call's grid: 32 heads × 4096/128 = 1,024 blocks, 8 waves of 132 SMs,
  // 1024/1056 full. The tables' own grid (FA3 §4.1: 2,048 blocks) was
  // 2048/2112 full when measured, a loss their rates already hold.
  const double u = 1024.0 / 1056.0, table_fill = 2048.0 / 2112.0;
  const auto fwd = AttentionPass::kForward, bwd = AttentionPass::kBackward;
  const double per_layer = (f / 2 / rate(fwd, true, 4096) + f / 2 / rate(fwd, false, 2048) +
                            2.5 * f / 2 / rate(bwd, true, 4096) + 2.5 * f / 2 / rate(bwd, false, 2048)) / u * table_fill +
                           3 * 2 * 4e-6;
  EXPECT_NEAR(t.attention_s, 32 * per_layer, 1e-9 * t.attention_s);
  // The square-step reading (unmasked steps at 4,096) is 2.4% faster here.
  const double square = (f / 2 / rate(fwd, true, 4096) + f / 2 / rate(fwd, false, 4096) +
                         2.5 * f / 2 / rate(bwd, true, 4096) + 2.5 * f / 2 / rate(bwd, false, 4096)) / u * table_fill +
                        3 * 2 * 4e-6;
  EXPECT_GT(t.attention_s / (32 * square), 1.02);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// Composer's DecoupledAdamW (profile optimizer_loop per_tensor) against the
// multi-tensor AdamW, two GPT-3 175B layers on one A100-80GB (HBM 2.039 TB/s at
// 80%, 4 µs per kernel, 15 µs host dispatch). The GPU updates the layers and
// the embedding, P = attention + MLP + norms + embedding parameters, held in
// (2 layers + 1) × 12 tensors = 36 (per layer: QKV, output and the two MLP
// weights with their biases, two LayerNorms' weight and bias).
//   foreach:    36 B·P / 1.6312e12 + 8 kernels × 4 µs;
//   per tensor: 92 B·P / 1.6312e12 + 10 kernels × 36 × 4 µs + 36 × 15 µs.
TEST(StepTime, PerTensorOptimizerLoopStreamsEachOpAsItsOwnKernel) {
  ModelSpec m = find_model("gpt3-175b");
  m.layers = 2;
  const GpuSpec& a100 = find_gpu("a100-sxm4-80gb");
  Layout l;
  l.seq_len = 2048;
  l.micro_batch = 1;
  l.global_batch = 1;
  const ParamCounts pc = count_params(m);
  const double P = pc.attention + pc.mlp_dense + pc.norms + pc.embedding;
  const double hbm = 0.8 * 2.039e12;
  EXPECT_NEAR(estimate_step_time(m, l, a100).optimizer_s, 36.0 * P / hbm + 8 * 4e-6, 1e-9);
  l.optimizer_loop = OptimizerLoop::kPerTensor;
  EXPECT_NEAR(estimate_step_time(m, l, a100).optimizer_s, 92.0 * P / hbm + 10 * 36 * 4e-6 + 36 * 15e-6, 1e-9);
}

// FSDP SHARD_GRAD_OP (profile zero2_mode fsdp_unit): two GPT-3 175B layers,
// ZeRO-2 over 16 A100s on two nodes, two micro-batches per step, overlap off so
// the whole traffic is on the critical path. Each micro-batch all-gathers the
// bf16 parameters and reduce-scatters the fp32 gradients (hierarchical: 8 GPUs
// per node on NVLink at 230 GB/s, α 6 µs; 2 nodes on 25 GB/s × 0.9, α 12 µs),
// one ring per unit for each: 3 units (2 layers + embedding) × the 16-rank
// ring's latency (14 intra + 1 inter steps), less the one intra- and one
// inter-node ring the bandwidth terms already hold.
TEST(StepTime, FsdpShardGradOpGathersAndScattersEveryUnitEveryMicroBatch) {
  ModelSpec m = find_model("gpt3-175b");
  m.layers = 2;
  const GpuSpec& a100 = find_gpu("a100-sxm4-80gb");
  Layout l;
  l.dp = 16;
  l.zero_stage = 2;
  l.seq_len = 2048;
  l.micro_batch = 1;
  l.global_batch = 32;
  l.dp_comm_overlap = false;
  l.zero2_per_unit = true;
  const ParamCounts pc = count_params(m);
  const double P = pc.attention + pc.mlp_dense + pc.norms + pc.embedding;
  const Link intra{230e9, 6e-6}, inter{0.9 * 25e9, 12e-6};
  const double ag = hierarchical_reduce_scatter_s(2.0 * P, 8, 2, intra, inter);
  const double rs = hierarchical_reduce_scatter_s(4.0 * P, 8, 2, intra, inter);
  const double latency = 3 * (14 * 6e-6 + 1 * 12e-6) - (7 * 6e-6 + 1 * 12e-6);
  EXPECT_NEAR(estimate_step_time(m, l, a100).dp_comm_s, 2 * (ag + rs + 2 * latency), 1e-9);
}

}  // namespace
}  // namespace gpuplan
