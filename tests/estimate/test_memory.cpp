// The memory model, each component derived by hand (derivation in the comment).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/memory.hpp"
#include "estimate/memory/memory_internal.hpp"  // logits_bytes of the last stage (the worst stage may be another)
#include "report/memory_report.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/units.hpp"
#include "run_binary.hpp"
#include "inputs/report_chains.hpp"
#include "frameworks/framework_words.hpp"

using namespace gpuplan;

namespace {

double states(const MemoryBreakdown& b) { return b.weights_bytes + b.gradients_bytes + b.optimizer_bytes; }

// GPT-3 175B under Korthikanti et al. 2022's assumptions: 2-matrix 4h MLP,
// multi-head attention, no FlashAttention, dropout on.
Layout gpt3_layout(int tp, bool sp, Recompute rc) {
  Layout l;
  l.tp = tp;
  l.seq_len = 2048;
  l.micro_batch = 1;
  l.sequence_parallel = sp;
  l.recompute = rc;
  l.attention = AttentionKernel::kMaterialised;
  return l;
}

MemoryOptions paper_options() {
  MemoryOptions o;
  o.dropout = true;
  return o;
}

void expect_rel(double got, double want, double tol = 1e-12) {
  EXPECT_NEAR(got / want, 1.0, tol) << "got " << got << ", want " << want;
}

}  // namespace

TEST(Memory, SevenBillionMixedPrecisionAdamWNeeds112GB) {
  // Seed 004's example: 7e9 params × (2 bf16 weights + 2 bf16 grads + 4 fp32
  // master + 4 m + 4 v) = 7e9 × 16 = 112e9 bytes, more than an 80 GB A100.
  // (The seed's own 14 bytes/param omits the fp32 master copy.)
  const ModelSpec m = model_from_param_count(7e9);
  Layout l;
  const MemoryBreakdown b = estimate_memory(m, l, find_gpu("a100-sxm4-80gb"));
  expect_rel(states(b), 112e9);
  expect_rel(b.weights_bytes, 14e9);
  expect_rel(b.gradients_bytes, 14e9);
  expect_rel(b.optimizer_bytes, 84e9);
  EXPECT_FALSE(b.fits);
  EXPECT_LT(b.headroom_bytes, 0);
  EXPECT_FALSE(b.suggestions.empty());
}

TEST(Memory, ZeroThreeOverEightGpusGives14GBOfStates) {
  // ZeRO-3 shards weights, gradients and optimizer states: 112e9 / 8 = 14e9.
  const ModelSpec m = model_from_param_count(7e9);
  Layout l;
  l.dp = 8;
  l.zero_stage = 3;
  const MemoryBreakdown b = estimate_memory(m, l, find_gpu("a100-sxm4-80gb"));
  expect_rel(states(b), 14e9);
  EXPECT_TRUE(b.fits);
}

TEST(Memory, ZeroStagesShardWhatRajbhandariSays) {
  // 7e9 params, dp 8: stage 1 = 2Ψ + 2Ψ + 12Ψ/8 = 28e9 + 10.5e9 = 38.5e9;
  // stage 2 = 2Ψ + (2 + 12)Ψ/8 = 14e9 + 12.25e9 = 26.25e9.
  const ModelSpec m = model_from_param_count(7e9);
  Layout l;
  l.dp = 8;
  l.zero_stage = 1;
  expect_rel(states(estimate_memory(m, l, find_gpu("h100"))), 38.5e9);
  l.zero_stage = 2;
  expect_rel(states(estimate_memory(m, l, find_gpu("h100"))), 26.25e9);
}

TEST(Memory, RecipesBytesPerParameter) {
  // Per parameter: pure bf16 AdamW 2+2+4 = 8; 8-bit AdamW with fp32 master
  // 2+2+(4+2×(1+4/2048)); SGD momentum mixed 2+2+8 = 12; fp32 AdamW 4+4+8 = 16.
  const ModelSpec m = model_from_param_count(1e9);
  const GpuSpec& g = find_gpu("h100");
  Layout l;
  l.pure_bf16 = true;
  expect_rel(states(estimate_memory(m, l, g)), 8e9);
  l.pure_bf16 = false;
  l.optimizer = Optimizer::kAdamW8bit;
  expect_rel(states(estimate_memory(m, l, g)), (4 + 4 + 2 * (1 + 4.0 / 2048)) * 1e9);
  l.optimizer = Optimizer::kSgdMomentum;
  expect_rel(states(estimate_memory(m, l, g)), 12e9);
  l.optimizer = Optimizer::kAdamW;
  l.precision = Precision::kFp32;
  expect_rel(states(estimate_memory(m, l, g)), 16e9);
  // Megatron's fp32 main-grad buffer: 2 + 4 + 12 = 18 (distrib_optimizer.md).
  l.precision = Precision::kBf16;
  l.fp32_grad_accum = true;
  expect_rel(states(estimate_memory(m, l, g)), 18e9);
}

TEST(Memory, KorthikantiTable2ReproducedForGpt3) {
  // Korthikanti et al. 2022 (arXiv:2205.05198) Table 2, per layer, s = 2048,
  // b = 1, h = 12288, a = 96, t = 8:
  //   no parallelism  sbh(34 + 5as/h)            = 25,769,803,776·... (computed below)
  //   TP, no SP       sbh(10 + 24/t + 5as/(ht))
  //   TP + SP         sbh(34/t + 5as/(ht))
  //   TP + SP + selective  sbh·34/t
  const ModelSpec m = find_model("gpt3-175b");
  ASSERT_EQ(m.hidden, 12288);
  ASSERT_EQ(m.heads, 96);
  ASSERT_EQ(m.intermediate, 4 * 12288);
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8;
  const double sbh = s * b * h;
  const MemoryOptions o = paper_options();
  expect_rel(activation_bytes_per_layer(m, gpt3_layout(1, false, Recompute::kNone), false, o), sbh * (34 + 5 * a * s / h));
  expect_rel(activation_bytes_per_layer(m, gpt3_layout(8, false, Recompute::kNone), false, o),
             sbh * (10 + 24 / t + 5 * a * s / (h * t)));
  expect_rel(activation_bytes_per_layer(m, gpt3_layout(8, true, Recompute::kNone), false, o), sbh * (34 / t + 5 * a * s / (h * t)));
  expect_rel(activation_bytes_per_layer(m, gpt3_layout(8, true, Recompute::kSelective), false, o), sbh * 34 / t);
  // In bytes: 34·sbh = 855,638,016 and 5as²b = 2,013,265,920 without parallelism.
  expect_rel(activation_bytes_per_layer(m, gpt3_layout(1, false, Recompute::kNone), false, o), 855638016.0 + 2013265920.0);
}

TEST(Memory, FullRecomputeKeepsTheLayerInput) {
  // Full recompute keeps 2sbh per layer (2sbh/t with SP) plus one layer's full
  // activations while it is recomputed, less that layer's input, which is its
  // checkpoint. GPT-3, t = 8 with SP, one stage of all 96 layers:
  // 96 · 2sbh/8 + sbh(34/8 + 5as/(8h)) − 2sbh/8.
  const ModelSpec m = find_model("gpt3-175b");
  Layout l = gpt3_layout(8, true, Recompute::kFull);
  const MemoryOptions o = paper_options();
  const double sbh = 2048.0 * 12288;
  const double layer_full = sbh * (34.0 / 8 + 5 * 96.0 * 2048 / (8 * 12288));
  const double head = 2 * (2 * sbh / 8);         // final norm + LM-head inputs
  const double emb_mask = sbh / 8;               // embedding dropout mask
  l.dp = 1;
  MemoryOptions no_suggest = o;
  no_suggest.suggest = false;
  const MemoryBreakdown br = estimate_memory(m, l, find_gpu("a100-sxm4-80gb"), no_suggest);
  expect_rel(br.activations_bytes, 96 * 2 * sbh / 8 + layer_full - 2 * sbh / 8 + head + emb_mask);
}

TEST(Memory, GqaAndGatedMlpAreCountedByTheirRealWidths) {
  // Llama 3.1 8B, s = 4096, b = 1, t = 1, FlashAttention, no dropout, T = 4096:
  //   norms 2·2Th, QKV input 2Th, Q+K 2T(4096 + 1024), V 2T·1024, log-sum-exp
  //   4T·32, projection input 2Th, MLP input 2Th, SwiGLU 6T·14336.
  const ModelSpec m = find_model("llama-3.1-8b");
  Layout l;
  l.seq_len = 4096;
  const double T = 4096, h = 4096;
  const double want = 4 * T * h + 2 * T * h + 2 * T * (4096 + 1024) + 2 * T * 1024 + 4 * T * 32 + 2 * T * h + 2 * T * h +
                      6 * T * 14336;
  expect_rel(activation_bytes_per_layer(m, l, false), want);
}

TEST(Memory, LogitsOfALargeVocabulary) {
  // Llama 3.1 8B, one GPU, micro-batch 2 × 4096 tokens: 8192 × 128256 × 10 B.
  const ModelSpec m = find_model("llama-3.1-8b");
  Layout l;
  l.seq_len = 4096;
  l.micro_batch = 2;
  l.global_batch = 2;
  const MemoryBreakdown b = estimate_memory(m, l, find_gpu("h100"));
  expect_rel(b.logits_bytes, 8192.0 * 128256 * 10);
}

TEST(Memory, TorchtitanLossPeakPerLogitFromItsCode) {
  // torchtitan@2024-12, Llama 3.1 70B, tp 8, micro-batch 16 × 8192 tokens.
  // Per GPU: 131072 tokens × 128256/8 = 16032 local vocab entries.
  // TP on: DTensor loss_parallel's backward (torch/distributed/tensor/parallel/
  // loss.py _nll_loss_and_log_softmax_backward) holds the saved fp32
  // log-softmax 4 + grad_input = zeros_like 4 + exp(x) 4 + their sum 4 = 16 B.
  const ModelSpec m = find_model("llama-3.1-70b");
  Layout l;
  l.tp = 8;
  l.dp = 32;
  l.seq_len = 8192;
  l.micro_batch = 16;
  l.zero_stage = 3;
  l.recompute = Recompute::kFull;
  apply_framework(find_framework("torchtitan@2024-12"), RunSettings{}, l);
  EXPECT_EQ(l.loss_bytes_per_logit, 16);
  const MemoryBreakdown tp = estimate_memory(m, l, find_gpu("h100"));
  expect_rel(tp.logits_bytes, 131072.0 * 16032 * 16);  // 33.6 GB
  // TP off (plain aten cross_entropy): saved log-softmax 4 + nll_loss_backward's
  // gradient 4 + _log_softmax_backward_data's output 4 = 12 B per logit, over
  // the whole vocabulary: 131072 × 128256 × 12.
  Layout one = l;
  one.tp = 1;
  apply_framework(find_framework("torchtitan@2024-12"), RunSettings{}, one);
  EXPECT_EQ(one.loss_bytes_per_logit, 12);
  expect_rel(estimate_memory(m, one, find_gpu("h100")).logits_bytes, 131072.0 * 128256 * 12);
  // A run that names another loss keeps the generic 10; an explicit option wins.
  RunSettings fused;
  fused.loss = LossKernel::kFused;
  Layout f = l;
  apply_framework(find_framework("torchtitan@2024-12"), fused, f);
  EXPECT_EQ(f.loss_bytes_per_logit, 10);
  MemoryOptions o;
  o.logits_bytes_per_entry = 6;
  expect_rel(estimate_memory(m, l, find_gpu("h100"), o).logits_bytes, 131072.0 * 16032 * 6);
}

TEST(Memory, TorchtitanCompiledLossHoldsTheBf16LogitsAndTheirGradient) {
  // torchtitan@2025-06 (the 2025-04 entry: components/loss.py torch.compiles
  // the loss when training.compile is on), Llama 3.1 8B, one GPU's shard of
  // FSDP, micro-batch 2 × 8192 tokens = 16384 tokens × 128256 vocabulary.
  // Compiled: bf16 pred 2 + its bf16 gradient 2 = 4 B per logit (8.41 GB).
  const ModelSpec m = find_model("llama-3.1-8b");
  Layout l;
  l.dp = 32;
  l.seq_len = 8192;
  l.micro_batch = 2;
  l.global_batch = 64;
  l.zero_stage = 3;
  RunSettings compiled;
  compiled.compile = true;
  apply_framework(find_framework("torchtitan@2025-06"), compiled, l);
  EXPECT_EQ(l.loss_bytes_per_logit, 4);
  expect_rel(estimate_memory(m, l, find_gpu("h200")).logits_bytes, 16384.0 * 128256 * 4);
  // Eager (compile off, the default): the 2024-12 aten figure, 12 B per logit.
  Layout eager = l;
  apply_framework(find_framework("torchtitan@2025-06"), RunSettings{}, eager);
  EXPECT_EQ(eager.loss_bytes_per_logit, 12);
  // With TP the loss runs under DTensor loss_parallel, not re-derived compiled: 16.
  Layout tp = l;
  tp.tp = 8;
  tp.dp = 4;
  apply_framework(find_framework("torchtitan@2025-06"), compiled, tp);
  EXPECT_EQ(tp.loss_bytes_per_logit, 16);
}

TEST(Memory, PipelineLastStageKeepsEveryMicroBatchsLogits) {
  // torchtitan@2024-12 with pp 8 (torch.distributed.pipelining keeps the last
  // stage's outputs in output_chunks): Llama 3.1 405B, tp 8, pp 8, dp 8,
  // micro-batch 4 × 8192, 8 micro-batches. Per micro-batch 32768 × 16032
  // entries; the last micro-batch's loss peak 16 B plus 8 × 2 B of bf16 logits.
  const ModelSpec m = find_model("llama-3.1-405b");
  Layout l;
  l.tp = 8;
  l.pp = 8;
  l.dp = 8;
  l.seq_len = 8192;
  l.micro_batch = 4;
  l.global_batch = 256;
  l.zero_stage = 3;
  l.recompute = Recompute::kFull;
  apply_framework(find_framework("torchtitan@2024-12"), RunSettings{}, l);
  ASSERT_TRUE(l.pipeline_keeps_outputs);
  ASSERT_EQ(l.micro_batches(), 8);
  const MemoryOptions o;
  const double want = 32768.0 * 16032 * (16 + 8 * 2);
  EXPECT_NEAR(memory_detail::logits_bytes(m, l, o), want, want * 1e-12);
}

// PyTorch DTensor TP (torchtitan: PrepareModuleInput gathers the block's
// sequence-sharded norm output to Replicate before wq/wk/wv and w1/w3) saves
// the gathered input; Megatron saves the shard and gathers it again in the
// backward. Llama 3.1 70B, tp 8 with SP, 8,192 tokens, no recompute: the
// attention and the MLP inputs each grow from 2·T·h/8 to 2·T·h bytes,
// 2 × 2 × 8192 × 8192 × (1 − 1/8) = 234,881,024 B per layer, and the LM-head
// input on the last stage by 2 × 8192 × 8192 × 7/8 = 117,440,512 B.
TEST(Memory, DtensorTpSavesTheGatheredInput) {
  const ModelSpec m = find_model("llama-3.1-70b");
  Layout l;
  l.tp = 8;
  l.dp = 1;
  l.seq_len = 8192;
  l.micro_batch = 1;
  l.global_batch = 1;
  l.zero_stage = 3;
  l.recompute = Recompute::kNone;
  apply_framework(find_framework("torchtitan@2024-12"), RunSettings{}, l);
  ASSERT_TRUE(l.sequence_parallel);
  ASSERT_TRUE(l.tp_saves_gathered_input);
  Layout megatron = l;
  megatron.tp_saves_gathered_input = false;
  const MemoryOptions o;
  EXPECT_NEAR(activation_bytes_per_layer(m, l, false, o) - activation_bytes_per_layer(m, megatron, false, o), 234881024.0, 1.0);
  EXPECT_NEAR(memory_detail::head_activation_bytes(m, l) - memory_detail::head_activation_bytes(m, megatron), 117440512.0, 1.0);
  // Without SP nothing is sharded: the flag changes nothing.
  l.sequence_parallel = megatron.sequence_parallel = false;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, l, false, o), activation_bytes_per_layer(m, megatron, false, o));
  // Megatron's profile keeps the default.
  Layout mc = megatron;
  apply_framework(find_framework("megatron-lm@0.8.0"), RunSettings{}, mc);
  EXPECT_FALSE(mc.tp_saves_gathered_input);
}

TEST(Memory, RecomputeNeverRaisesActivations) {
  const GpuSpec& g = find_gpu("h100");
  for (const char* id : {"llama-3.1-8b", "llama-3.1-70b", "gpt3-175b", "mixtral-8x7b"}) {
    const ModelSpec m = find_model(id);
    for (bool flash : {true, false}) {
      for (int tp : {1, 8}) {
        Layout l;
        l.tp = tp;
        l.seq_len = 4096;
        l.attention = flash ? AttentionKernel::kFlash2 : AttentionKernel::kMaterialised;
        MemoryOptions o;
        o.suggest = false;
        l.recompute = Recompute::kNone;
        const double none = estimate_memory(m, l, g, o).activations_bytes;
        l.recompute = Recompute::kSelective;
        const double sel = estimate_memory(m, l, g, o).activations_bytes;
        l.recompute = Recompute::kFull;
        const double full = estimate_memory(m, l, g, o).activations_bytes;
        EXPECT_LE(sel, none) << id;
        EXPECT_LE(full, sel) << id;
      }
    }
  }
}

TEST(Memory, HigherZeroNeverRaisesMemory) {
  const GpuSpec& g = find_gpu("a100-sxm4-80gb");
  for (const char* id : {"llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b"}) {
    const ModelSpec m = find_model(id);
    for (int dp : {1, 2, 8, 64}) {
      Layout l;
      l.dp = dp;
      l.seq_len = 2048;
      MemoryOptions o;
      o.suggest = false;
      double previous = INFINITY;
      for (int z = 0; z <= 3; ++z) {
        l.zero_stage = z;
        const double peak = estimate_memory(m, l, g, o).peak_bytes;
        EXPECT_LE(peak, previous) << id << " dp " << dp << " zero " << z;
        previous = peak;
      }
    }
  }
}

TEST(Memory, OneFOneBFirstStageHoldsPMicroBatches) {
  // 1F1B: stage 0 holds min(p, m) micro-batches; interleaving multiplies by
  // 1 + (p-1)/(p·v) (Korthikanti et al. 2022, section 4.2.3).
  const ModelSpec m = find_model("llama-3.1-70b");
  Layout l;
  l.tp = 8;
  l.pp = 4;
  l.dp = 1;
  l.global_batch = 32;
  l.seq_len = 4096;
  l.recompute = Recompute::kFull;
  MemoryOptions o;
  o.suggest = false;
  const MemoryBreakdown b = estimate_memory(m, l, find_gpu("h100"), o);
  EXPECT_EQ(b.worst_stage, 0);
  EXPECT_DOUBLE_EQ(b.inflight_micro_batches, 4);
  l.vp = 5;  // 80 layers = 4 stages × 5 chunks × 4 layers
  EXPECT_DOUBLE_EQ(estimate_memory(m, l, find_gpu("h100"), o).inflight_micro_batches, 4 * (1 + 3.0 / 20));
  l.vp = 1;
  l.global_batch = 2;  // only two micro-batches: the pipeline never fills
  EXPECT_DOUBLE_EQ(estimate_memory(m, l, find_gpu("h100"), o).inflight_micro_batches, 2);
}

TEST(Memory, PipelineWorstStageHoldsTheEmbeddingOrHead) {
  // Model states only (count the weights): the first stage has the embedding,
  // the last the LM head; with an untied 128K vocabulary both exceed a middle stage.
  const ModelSpec m = find_model("llama-3.1-8b");
  Layout l;
  l.pp = 4;
  l.global_batch = 1;  // one micro-batch: activations equal on all stages but the last
  MemoryOptions o;
  o.suggest = false;
  const MemoryBreakdown b = estimate_memory(m, l, find_gpu("h100"), o);
  EXPECT_TRUE(b.worst_stage == 0 || b.worst_stage == 3);
  // 32 layers / 4 = 8 layers + 128256 × 4096 embedding rows.
  const double layer = attention_params_per_layer(m) + dense_mlp_params(m, m.intermediate) + 2.0 * m.hidden;
  EXPECT_GT(b.params_on_gpu, 8 * layer);
}

TEST(Memory, LargestMicroBatchIsTheLastThatFits) {
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& g = find_gpu("h100");
  Layout l;
  l.dp = 8;
  l.zero_stage = 3;
  l.seq_len = 4096;
  const MemoryBreakdown b = estimate_memory(m, l, g);
  ASSERT_GT(b.largest_micro_batch, 0);
  MemoryOptions o;
  o.suggest = false;
  Layout x = l;
  x.micro_batch = b.largest_micro_batch;
  EXPECT_TRUE(estimate_memory(m, x, g, o).fits);
  x.micro_batch = b.largest_micro_batch + 1;
  EXPECT_FALSE(estimate_memory(m, x, g, o).fits);
  // Activations grow linearly in the micro-batch, not exponentially.
  Layout one = l, two = l;
  two.micro_batch = 2;
  expect_rel(estimate_memory(m, two, g, o).activations_bytes, 2 * estimate_memory(m, one, g, o).activations_bytes);
}

TEST(Memory, SuggestionsMakeA70BLayoutFit) {
  // 70B, tp 8 × pp 2 × dp 4 on 80 GB H100s at 8K tokens does not fit without
  // recompute or SP; the suggestions must include a change that fits.
  const ModelSpec m = find_model("llama-3.1-70b");
  Layout l;
  l.tp = 8;
  l.pp = 2;
  l.dp = 4;
  l.zero_stage = 1;
  l.seq_len = 8192;
  l.global_batch = 64;
  const MemoryBreakdown b = estimate_memory(m, l, find_gpu("h100"));
  ASSERT_FALSE(b.fits);
  bool any = false;
  for (const auto& s : b.suggestions) {
    EXPECT_LT(s.peak_bytes, b.peak_bytes) << memory_change_text(s, Lang::kEn);
    any = any || s.fits;
  }
  EXPECT_TRUE(any);
  // Each suggestion is typed (the change and the layout it makes); its flags
  // are the report's: dp 4 sharded, so ZeRO 2 comes first, "--zero 2"; pp 2 → 4
  // halves dp to 2, "--pp 4 --dp 2".
  ASSERT_FALSE(b.suggestions.empty());
  EXPECT_EQ(b.suggestions.front().change, MemoryChange::kZeroStage);
  EXPECT_EQ(b.suggestions.front().layout.zero_stage, 2);
  EXPECT_EQ(memory_change_flags(b.suggestions.front()), "--zero 2");
  EXPECT_EQ(memory_change_text(b.suggestions.front(), Lang::kZh), "ZeRO 第 2 阶段");
  for (const auto& s : b.suggestions) {
    if (s.change != MemoryChange::kPipelineParallel) continue;
    EXPECT_EQ(s.layout.pp * s.layout.dp, 8);
    EXPECT_EQ(memory_change_flags(s), s.layout.pp == 4 ? "--pp 4 --dp 2" : "--pp 8 --dp 1");
  }
  // The report carries the breakdown with JSON keys in bytes.
  const auto j = to_json(memory_report_for(m, l, find_gpu("h100"), {}));
  EXPECT_FALSE(j["memory"]["fits"].get<bool>());
  EXPECT_GT(j["memory"]["peak_bytes"].get<double>(), 80 * kGiB);
  EXPECT_TRUE(j["memory_suggestions"].is_array());
}

// The same 70B layout run by the bigscience Megatron-DeepSpeed fork: its
// DeepSpeed PipelineEngine refuses ZeRO-2/3 (profile zero_stages [0, 1]), so
// neither ZeRO 2/3 nor parameter offload (a ZeRO-3 feature) is suggested;
// Megatron-LM 2022 offloads nothing (profile cpu_offload []).
TEST(Memory, SuggestionsAreOnlyWhatTheFrameworkCanRun) {
  const ModelSpec m = find_model("llama-3.1-70b");
  Layout l;
  l.tp = 8;
  l.pp = 2;
  l.dp = 4;
  l.zero_stage = 1;
  l.seq_len = 8192;
  l.global_batch = 64;
  const auto suggested = [&](const char* framework) {
    MemoryOptions o;
    if (framework) o.framework = &find_framework(framework);
    std::vector<MemoryChange> out;
    for (const MemorySuggestion& s : estimate_memory(m, l, find_gpu("h100"), o).suggestions) {
      if (o.framework) EXPECT_EQ(framework_cannot_run(*o.framework, s.layout), "") << framework << " " << memory_change_flags(s);
      out.push_back(s.change);
    }
    return out;
  };
  const auto has = [](const std::vector<MemoryChange>& v, MemoryChange c) { return std::find(v.begin(), v.end(), c) != v.end(); };
  const auto any = suggested(nullptr), mds = suggested("megatron-deepspeed@2022"), mlm = suggested("megatron-lm@2022");
  EXPECT_TRUE(has(any, MemoryChange::kZeroStage));
  EXPECT_TRUE(has(any, MemoryChange::kOffloadParams));
  EXPECT_FALSE(has(mds, MemoryChange::kZeroStage));
  EXPECT_FALSE(has(mds, MemoryChange::kOffloadParams));
  EXPECT_TRUE(has(mds, MemoryChange::kPipelineParallel));
  EXPECT_FALSE(has(mlm, MemoryChange::kOffloadOptimizer));
  EXPECT_FALSE(has(mlm, MemoryChange::kOffloadParams));
}

TEST(Memory, MeasurementScopes) {
  // Allocated ⊂ reserved ⊂ device: the context is outside PyTorch's counters,
  // fragmentation is reserved minus allocated.
  const ModelSpec m = find_model("llama-3.1-8b");
  Layout l;
  l.dp = 8;
  l.zero_stage = 3;
  MemoryOptions o;
  o.suggest = false;
  const GpuSpec& g = find_gpu("h100");
  o.scope = MemoryScope::kAllocated;
  const MemoryBreakdown a = estimate_memory(m, l, g, o);
  o.scope = MemoryScope::kReserved;
  const MemoryBreakdown r = estimate_memory(m, l, g, o);
  o.scope = MemoryScope::kDevice;
  const MemoryBreakdown d = estimate_memory(m, l, g, o);
  EXPECT_LT(a.peak_bytes, r.peak_bytes);
  EXPECT_LT(r.peak_bytes, d.peak_bytes);
  EXPECT_DOUBLE_EQ(a.cuda_context_bytes, 0);
  expect_rel(d.cuda_context_bytes, 1.0 * kGiB);  // 0.75 GiB + 0.25 GiB NCCL with 8 GPUs
}

// ---- gpuplan memory, the real binary ----

namespace {

using gpuplan_test::Result;

Result run_memory_cli(const std::string& args) { return gpuplan_test::run_binary(args, "2>&1"); }

}  // namespace

TEST(MemoryCli, BadLayoutsExitTwoNamingTheField) {
  const std::string base = "memory --model llama-3.1-8b --gpu h100 ";
  struct Case {
    const char* args;
    const char* field;
  } cases[] = {
      {"--gpus 3 --tp 3", "--tp"},            // 32 heads are not divisible by 3
      {"--pp 40 --gpus 40", "--pp"},          // 32 layers
      {"--zero 4", "--zero"},                 // ZeRO stages are 0-3
      {"--micro-batch 0", "--micro-batch"},
      {"--gpus 12 --tp 8", "--gpus"},         // 12 is not a multiple of 8
      {"--ep 2 --gpus 2", "--ep"},            // dense model
  };
  for (const auto& c : cases) {
    const Result r = run_memory_cli(base + c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.field), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
  }
}

TEST(MemoryCli, JsonVerdict) {
  const Result r = run_memory_cli("memory --params 7B --gpu a100-sxm4-80gb --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["memory"]["weights_bytes"].get<double>() + j["memory"]["gradients_bytes"].get<double>() +
                  j["memory"]["optimizer_bytes"].get<double>(),
              112e9, 1);
  EXPECT_FALSE(j["memory"]["fits"].get<bool>());
  const Result z = run_memory_cli("memory --model llama-3.1-8b --gpu h100 --gpus 8 --zero 3 --seq-len 4096 --format json --lang zh");
  ASSERT_EQ(z.status, 0) << z.out;
  EXPECT_TRUE(nlohmann::json::parse(z.out)["memory"]["fits"].get<bool>());
}

// MoE parallel folding: Megatron's token dispatchers all-gather the routed
// tokens over the expert-TP group, not TP (token_dispatcher.py
// @core_v0.12.0: MoETokenDispatcher.tp_size = expert_tensor_parallel_size).
// Qwen3-30B-A3B (hidden 2,048, 128 experts, top 8, expert width 768, gated),
// 4,096 tokens, TP 2 with sequence parallelism, flash attention, no dropout:
//   expert TP 2: a rank holds the TP group's T·k = 32,768 routed rows,
//     permuted input 2·32,768·2,048 = 134,217,728 B; internals 6·32,768·768/2 = 75,497,472 B;
//     the second expert GEMM's partial sums, at full width until the combine's
//     reduce-scatter, saved by the multiply by the router probabilities
//     (token_dispatcher.py @core_v0.6.0 token_unpermutation) 2·32,768·2,048 = 134,217,728 B
//   expert TP 1: its own sequence slice, T·k/2 = 16,384 rows,
//     permuted input 2·16,384·2,048 = 67,108,864 B; internals 6·16,384·768/1 = 75,497,472 B;
//     expert outputs 2·16,384·2,048 = 67,108,864 B
// so folding saves exactly 2 · 67,108,864 = 134,217,728 B per MoE layer per
// micro-batch and nothing on a dense layer; with TP 1 there is nothing to fold.
TEST(Memory, MoeFoldingKeepsOnlyTheExpertTpShareOfRoutedTokens) {
  const ModelSpec m = find_model("qwen3-30b-a3b");
  ASSERT_TRUE(m.moe.has_value());
  ASSERT_EQ(m.hidden, 2048);
  ASSERT_EQ(m.moe->experts_per_token, 8);
  ASSERT_EQ(m.moe->expert_intermediate, 768);
  Layout l;
  l.tp = 2;
  l.sequence_parallel = true;
  l.seq_len = 4096;
  l.micro_batch = 1;
  l.ep = 8;
  Layout folded = l;
  folded.etp = 1;
  const MemoryOptions o;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, l, true, o) - activation_bytes_per_layer(m, folded, true, o), 134217728.0);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, l, false, o), activation_bytes_per_layer(m, folded, false, o));
  Layout one = l, one_folded = folded;
  one.tp = one_folded.tp = 1;
  one.sequence_parallel = one_folded.sequence_parallel = false;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, one, true, o), activation_bytes_per_layer(m, one_folded, true, o));
}

// TransformerEngine's FP8 linears save the quantised input (1 B) for the
// weight gradient instead of the bf16 one (module/linear.py and
// layernorm_linear.py @v1.5; profile fp8_saved_input). Llama 3 8B (h 4096,
// q width 4096, f 14336), TP 2 with SP, 8,192 tokens: each rank holds
// T/t = 4,096 tokens of the sequence-sharded inputs Megatron saves.
//   QKV input (norm output)  2 → 1 B over h
//   fc1 input                2 → 1 B over h
//   fc2 input (SwiGLU out)   2 → 1 B over f/t·t (split t ways: T/t·f)
//   attention-out projection: the fused kernel still saves its bf16 output,
//                             and the FP8 copy adds 1 B over q width
// saved = T/t·(h + h + f − q) = 4096 · (4096 + 4096 + 14336 − 4096) = 75,497,472 B.
// With materialised attention nothing else keeps the projection input, so it
// too drops 2 → 1 B: T/t·(2h + f + q) = 4096 · 26,624 = 109,051,904 B.
// torchao (fp8_saved_input bf16) keeps the bf16 inputs: no change from bf16.
TEST(Memory, TransformerEngineFp8KeepsOneByteLinearInputs) {
  const ModelSpec m = find_model("llama-3-8b");
  ASSERT_EQ(m.hidden, 4096);
  ASSERT_EQ(m.intermediate, 14336);
  ASSERT_EQ(m.q_width(), 4096);
  Layout bf16;
  bf16.tp = 2;
  bf16.sequence_parallel = true;
  bf16.seq_len = 8192;
  bf16.micro_batch = 1;
  bf16.attention = AttentionKernel::kFlash2;
  bf16.precision = Precision::kBf16;
  bf16.fp8_saves_fp8_inputs = true;
  Layout te = bf16;
  te.precision = Precision::kFp8;
  Layout torchao = te;
  torchao.fp8_saves_fp8_inputs = false;
  const MemoryOptions o;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, bf16, false, o) - activation_bytes_per_layer(m, te, false, o), 75497472.0);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, bf16, false, o), activation_bytes_per_layer(m, torchao, false, o));
  Layout bf16_mat = bf16, te_mat = te;
  bf16_mat.attention = te_mat.attention = AttentionKernel::kMaterialised;
  bf16_mat.recompute = te_mat.recompute = Recompute::kSelective;  // the scores are recomputed, not kept
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, bf16_mat, false, o) - activation_bytes_per_layer(m, te_mat, false, o), 109051904.0);
  // The profiles that run TransformerEngine say so.
  EXPECT_TRUE(find_framework("megatron-lm@core_v0.6.0").fp8_saves_fp8_inputs);
  EXPECT_TRUE(find_framework("megatron-bridge").fp8_saves_fp8_inputs);
  EXPECT_FALSE(find_framework("torchtitan").fp8_saves_fp8_inputs);
}

// Megatron-Core's mla_up_proj module (recompute_modules ["mla_up_proj"]) against
// DeepSeek-V3's norm_mla_up and Megatron's attention-core default, on one
// DeepSeek-V3 MoE layer, TP 1, one 4,096-token sequence, bf16, flash attention
// (no scores kept under any of them). T·h = 4,096 × 7,168 = 29,360,128.
//   mla_up_proj keeps the two norm outputs norm_mla_up re-runs: the QKV input
//   (2 B) and the router/expert input (2 B): 4 × 29,360,128 = 117,440,512 B more.
//   attention_core keeps the up-projected q, k (128 heads × 192) and v (128 × 128)
//   that mla_up_proj re-runs: 2 × 4,096 × (24,576 + 24,576 + 16,384) = 536,870,912 B more.
TEST(Memory, MegatronMlaUpProjKeepsNormOutputsDropsUpProjections) {
  const ModelSpec m = find_model("deepseek-v3");
  ASSERT_EQ(m.hidden, 7168);
  ASSERT_TRUE(m.mla.has_value());
  Layout l;
  l.tp = 1;
  l.seq_len = 4096;
  l.micro_batch = 1;
  l.attention = AttentionKernel::kFlash2;
  l.precision = Precision::kBf16;
  l.recompute = Recompute::kSelective;
  Layout up = l, norm = l, core = l;
  up.selective = SelectiveRecompute::kMlaUpProj;
  norm.selective = SelectiveRecompute::kNormMlaUp;
  core.selective = SelectiveRecompute::kAttentionCore;
  const MemoryOptions o;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, up, true, o) - activation_bytes_per_layer(m, norm, true, o), 117440512.0);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, core, true, o) - activation_bytes_per_layer(m, up, true, o), 536870912.0);
  EXPECT_EQ(parse_selective_recompute("mla_up_proj", "--recompute-policy"), SelectiveRecompute::kMlaUpProj);
  EXPECT_STREQ(selective_recompute_name(SelectiveRecompute::kMlaUpProj), "mla_up_proj");
}
