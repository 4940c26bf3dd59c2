// Issue 27: the same fine-tune under the stacks people run it with differs by
// the mechanisms their profiles cite (data/frameworks/*.json). Each expected
// difference below is derived by hand from the model's shapes and the cited
// behaviour, not read back from the code.
#include <gtest/gtest.h>

#include <cmath>

#include "gpuplan/error.hpp"
#include "gpuplan/finetune.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/units.hpp"
#include "inputs/finetune_inputs.hpp"
#include "report/report.hpp"

namespace gpuplan {
namespace {

// Qwen2.5-7B (catalog: hidden 3584, 28 layers, 28 heads / 4 KV heads of 128,
// FFN 18944, vocabulary 152064, untied). Per layer, r·(d_in + d_out) over
// every linear layer: q 3584+3584, k 3584+512, v 3584+512, o 3584+3584,
// gate and up 3584+18944 each, down 18944+3584 = 90,112 per unit of rank.
constexpr double kAllLinearPerRankPerLayer = 7168 + 4096 + 4096 + 7168 + 3 * 22528.0;
constexpr double kQwen7bLayers = 28, kQwen7bHidden = 3584, kQwen7bVocab = 152064;

FinetuneEstimate run_stack(const char* stack, FineTune method, int64_t seq, int64_t micro, const char* gpu = "rtx4090-24gb") {
  FinetuneJob j;
  j.method = method;
  j.seq_len = seq;
  j.micro_batch = micro;
  j.samples = 1000;
  j.framework = &find_framework(stack);
  return estimate_finetune(find_model("qwen2.5-7b"), find_gpu(gpu), j, 1);
}

TEST(FinetuneStacks, LoraDefaultsAreEachStacksOwn) {
  // LLaMA-Factory: lora_rank 8 on every linear layer (finetuning_args.py, lora_target "all");
  // Unsloth: get_peft_model(r = 16) on the seven projections.
  const FinetuneEstimate lf = run_stack("llama-factory@0.9.0", FineTune::kLora, 2048, 1);
  const FinetuneEstimate un = run_stack("unsloth@2024.8", FineTune::kLora, 2048, 1);
  EXPECT_EQ(lf.job.lora_rank, 8);
  EXPECT_EQ(un.job.lora_rank, 16);
  EXPECT_DOUBLE_EQ(lf.flops.adapter_params, 8 * kAllLinearPerRankPerLayer * kQwen7bLayers);   // 20,185,088
  EXPECT_DOUBLE_EQ(un.flops.adapter_params, 16 * kAllLinearPerRankPerLayer * kQwen7bLayers);  // 40,370,176
  // Adapter states: fp32 weight and gradient (4 + 4) under both; AdamW's two
  // fp32 moments (8 B) under LLaMA-Factory (the Trainer's adamw_torch), the
  // two 1-byte blockwise states of adamw_8bit (every Unsloth example): 2·(1 + 4/2048) B.
  EXPECT_NEAR(lf.memory.optimizer_bytes, 8 * lf.flops.adapter_params, 1.0);
  EXPECT_NEAR(un.memory.optimizer_bytes, 2 * (1 + 4.0 / 2048) * un.flops.adapter_params, 1.0);
  EXPECT_NEAR(un.memory.gradients_bytes, 4 * un.flops.adapter_params, 1.0);
}

TEST(FinetuneStacks, LogitsFollowEachStacksLoss) {
  // 2 sequences of 2,048 tokens: 4,096 × 152,064 logits.
  const double entries = 4096 * kQwen7bVocab;
  // LLaMA-Factory: the model's own cross-entropy on the whole logits: bf16
  // logits 2 + fp32 upcast 4 + fp32 log-softmax 4 = 10 B each.
  EXPECT_NEAR(run_stack("llama-factory@0.9.0", FineTune::kQlora, 2048, 2).memory.logits_bytes, 10 * entries, 1.0);
  // Unsloth 2024.8: bf16 logits only; its Triton kernel upcasts in registers
  // and writes the gradient into the same buffer: 2 B each.
  EXPECT_NEAR(run_stack("unsloth@2024.8", FineTune::kQlora, 2048, 2).memory.logits_bytes, 2 * entries, 1.0);
  // Unsloth 2024.11: Cut Cross-Entropy never materialises the logits.
  EXPECT_EQ(run_stack("unsloth@2024.11", FineTune::kQlora, 2048, 2).memory.logits_bytes, 0);
  // Unsloth 2026.7: chunks whose fp32 logits stay under 4 GiB. 4,096 tokens
  // hold 2.32 GiB of fp32 logits: one chunk, bf16 + fp32 + fp32 gradient = 10 B.
  EXPECT_NEAR(run_stack("unsloth@2026.7", FineTune::kQlora, 2048, 2).memory.logits_bytes, 10 * entries, 1.0);
  // 16,384 tokens hold 9.28 GiB: ceil(9.28 / 4 / 4) × 4 = 4 chunks of 4,096 tokens.
  EXPECT_NEAR(run_stack("unsloth@2026.7", FineTune::kQlora, 8192, 2, "a800-sxm4-80gb").memory.logits_bytes, 10 * entries, 1.0);
}

TEST(FinetuneStacks, UnslothKeepsCheckpointsInHostMemory) {
  // Both checkpoint every layer (LLaMA-Factory: disable_gradient_checkpointing
  // False; Unsloth: use_gradient_checkpointing = "unsloth"). LLaMA-Factory keeps
  // each layer's bf16 input on the GPU: 28 × 4,096 tokens × 3,584 × 2 B.
  // Unsloth moves them to host memory and keeps two (the layer recomputed and
  // the copy in flight): 26 layers' inputs fewer.
  const FinetuneEstimate lf = run_stack("llama-factory@0.9.0", FineTune::kQlora, 2048, 2);
  const FinetuneEstimate un = run_stack("unsloth@2024.8", FineTune::kQlora, 2048, 2);
  EXPECT_TRUE(lf.layout.recompute == Recompute::kFull && un.layout.recompute == Recompute::kFull);
  EXPECT_FALSE(lf.layout.offload_activations);
  EXPECT_TRUE(un.layout.offload_activations);
  const double checkpoint = 4096 * kQwen7bHidden * 2;
  EXPECT_GT(lf.memory.activations_bytes - un.memory.activations_bytes, (kQwen7bLayers - 2) * checkpoint);
  // The rest of the gap is the recomputed layer itself: Unsloth's Triton
  // RMSNorm, RoPE and SwiGLU (elementwise fused) save less than eager PyTorch.
  EXPECT_FALSE(un.layout.eager);
  EXPECT_TRUE(lf.layout.eager);
}

TEST(FinetuneStacks, QloraFrozenWeightsAsEachStackPreparesThem) {
  // PEFT's prepare_model_for_kbit_training (the HF Trainer + PEFT recipe)
  // casts every non-4-bit weight to fp32: the embedding and the untied LM head
  // (2 × 152,064 × 3,584) go from 2 to 4 bytes. LLaMA-Factory never calls it.
  const FinetuneEstimate hf = run_stack("hf-trainer@2023-12", FineTune::kQlora, 2048, 1);
  const FinetuneEstimate lf = run_stack("llama-factory@0.9.0", FineTune::kQlora, 2048, 1);
  EXPECT_TRUE(hf.layout.frozen_fp32_embeddings);
  EXPECT_FALSE(lf.layout.frozen_fp32_embeddings);
  const double embeddings = 2 * kQwen7bVocab * kQwen7bHidden;
  // Same rank? hf-trainer: PEFT r = 8, LLaMA-Factory: 8; adapters fp32 under both.
  EXPECT_EQ(hf.job.lora_rank, lf.job.lora_rank);
  // The two differ in their adapted modules (gpuplan's q,k,v,o for hf-trainer,
  // all linear for LLaMA-Factory): compare the frozen weights alone.
  const double hf_frozen = hf.memory.weights_bytes - 4 * hf.flops.adapter_params;
  const double lf_frozen = lf.memory.weights_bytes - 4 * lf.flops.adapter_params;
  // + the final RMSNorm's 3,584 weights, 2 bytes more each.
  EXPECT_NEAR(hf_frozen - lf_frozen, 2 * embeddings + 2 * kQwen7bHidden, 1.0);
  // Under DeepSpeed ZeRO the engine casts the module back to 16 bits.
  FinetuneJob j;
  j.method = FineTune::kQlora;
  j.samples = 1000;
  j.zero_stage = 2;
  j.framework = &find_framework("hf-trainer@2023-12");
  EXPECT_FALSE(estimate_finetune(find_model("qwen2.5-7b"), find_gpu("a800-sxm4-80gb"), j, 2).layout.frozen_fp32_embeddings);
}

TEST(FinetuneStacks, FullFineTuningPrecisionAsTheStackKeepsIt) {
  // LLaMA-Factory casts trainable weights to fp32 (adapter.py, unless
  // pure_bf16): AdamW with an fp32 copy, 16 B per parameter. ms-swift trains
  // the bf16-loaded model as it is on one GPU: 2 + 2 + 2·2 = 8 B.
  const ModelSpec m = find_model("qwen2.5-7b");
  auto full = [&](const char* stack) {
    FinetuneJob j;
    j.method = FineTune::kFull;
    j.samples = 1000;
    j.framework = &find_framework(stack);
    return estimate_finetune(m, find_gpu("a800-sxm4-80gb"), j, 1);
  };
  const FinetuneEstimate lf = full("llama-factory@0.9.0"), sw = full("ms-swift@2.6.1");
  EXPECT_FALSE(lf.layout.pure_bf16);
  EXPECT_TRUE(sw.layout.pure_bf16);
  const double n = lf.memory.trainable_params_on_gpu;
  EXPECT_NEAR(lf.memory.weights_bytes + lf.memory.gradients_bytes + lf.memory.optimizer_bytes, 16 * n, 1e-6 * n);
  EXPECT_NEAR(sw.memory.weights_bytes + sw.memory.gradients_bytes + sw.memory.optimizer_bytes, 8 * n, 1e-6 * n);
  // With DeepSpeed ZeRO (2 GPUs) ms-swift's bf16 optimizer keeps fp32 masters again.
  FinetuneJob j;
  j.method = FineTune::kFull;
  j.samples = 1000;
  j.zero_stage = 2;
  j.framework = &find_framework("ms-swift@2.6.1");
  EXPECT_FALSE(estimate_finetune(m, find_gpu("a800-sxm4-80gb"), j, 2).layout.pure_bf16);
}

TEST(FinetuneStacks, SeventyTwoBillionQloraOnA800) {
  // Qwen2.5-72B QLoRA at 2,048 tokens on one A800-80GB fits under both stacks;
  // LLaMA-Factory holds the whole micro-batch's logits in fp32 (10 B each),
  // Unsloth 2024.8 only the bf16 logits (2 B each): 8 B × 2,048 × 152,064.
  auto at = [](const char* stack) {
    FinetuneJob j;
    j.method = FineTune::kQlora;
    j.samples = 1000;
    j.framework = &find_framework(stack);
    return estimate_finetune(find_model("qwen2.5-72b"), find_gpu("a800-sxm4-80gb"), j, 1);
  };
  const FinetuneEstimate lf = at("llama-factory@0.9.0"), un = at("unsloth@2024.8");
  EXPECT_TRUE(lf.fits);
  EXPECT_TRUE(un.fits);
  EXPECT_NEAR(lf.memory.logits_bytes - un.memory.logits_bytes, 8 * 2048 * kQwen7bVocab, 1.0);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

FinetuneInputs torchtune_full_on_4090() {
  FinetuneInputs in;
  in.model = "llama-3.1-8b";
  in.method = "full";
  in.gpu = "rtx4090";
  in.software.framework = "torchtune";
  in.optimizer = "paged_adamw8bit";
  in.optimizer_in_backward = true;
  in.no_ranking = true;
  return in;
}

TEST(FinetuneStacks, TorchtuneFullFineTuneOfLlama8bFitsA4090) {
  // Issue 27's command: `finetune --model llama-3.1-8b --method full --gpu rtx4090
  // --framework torchtune --optimizer paged_adamw8bit --optimizer-in-backward`.
  const FinetuneRun run = run_finetune(make_finetune_request(torchtune_full_on_4090()));
  EXPECT_EQ(run.gpus, 1);
  EXPECT_TRUE(run.estimate.fits);
  EXPECT_TRUE(run.alternatives.empty());
  // torchtune recipes are pure bf16; the 8-bit paged states live in unified
  // memory, out of the device peak; one gradient at a time in the backward.
  EXPECT_TRUE(run.estimate.layout.pure_bf16);
  EXPECT_EQ(run.estimate.memory.optimizer_bytes, 0);
  // The shared case torchtune_llama31_8b_full_4090__mem runs the same recipe
  // with micro-batch 2 and compile on and logs 18.9 GiB reserved
  // (torchtune@2024, memory_scope reserved). Within 10%.
  FinetuneInputs in = torchtune_full_on_4090();
  in.software.framework = "torchtune@2024";
  in.software.compile = "on";
  in.micro_batch = 2;
  FinetuneRequest q = make_finetune_request(in);
  q.job.scope = MemoryScope::kReserved;
  const FinetuneEstimate e = estimate_finetune(q.model, q.gpu, q.job, 1);
  EXPECT_NEAR(e.memory.peak_bytes / kGiB, 18.9, 0.10 * 18.9);
}

TEST(FinetuneStacks, AJobThatDoesNotFitGetsTheChangesThatWould) {
  // Full fine-tuning of Llama 3.1 8B with AdamW on one 4090: 16 B × 8.03B
  // parameters = 120 GiB of model states alone. What would fit, cheapest first.
  FinetuneInputs in;
  in.model = "llama-3.1-8b";
  in.method = "full";
  in.gpu = "rtx4090";
  in.gpus = 1;
  in.no_ranking = true;
  const FinetuneRun run = run_finetune(make_finetune_request(in));
  EXPECT_FALSE(run.estimate.fits);
  EXPECT_EQ(run.largest_micro_batch, 0);
  ASSERT_GE(run.alternatives.size(), 3u);
  bool lora = false, more = false;
  for (size_t i = 0; i < run.alternatives.size(); ++i) {
    const FinetuneAlternative& a = run.alternatives[i];
    EXPECT_LE(a.peak_bytes, 0.85 * 24 * kGiB);  // each fits with the 15% margin kept free
    if (i > 0) EXPECT_GE(a.gpu_hours, run.alternatives[i - 1].gpu_hours);
    lora = lora || a.change == FinetuneChange::kLora;
    if (a.change == FinetuneChange::kMoreGpus) {
      more = true;
      EXPECT_EQ(a.value, run.smallest_gpus);
    }
  }
  EXPECT_TRUE(lora);
  EXPECT_TRUE(more);
  // Nothing is priced: no cost section, no wall clock.
  const Report r = finetune_report_for(in);
  for (const Section& s : r.sections) {
    EXPECT_NE(s.key, "cost");
    for (const Row& row : s.rows) EXPECT_NE(row.key, "wall_clock_s") << s.key;
  }
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

TEST(FinetuneStacks, SampleLengthsPaddedOrPacked) {
  // 50,000 samples of 401 tokens on average, --seq-len 2048, one 4090, LoRA.
  FinetuneJob j;
  j.method = FineTune::kLora;
  j.seq_len = 2048;
  j.samples = 50000;
  j.framework = &find_framework("llama-factory@0.9.0");
  const ModelSpec m = find_model("qwen2.5-7b");
  const GpuSpec g = find_gpu("rtx4090-24gb");
  const FinetuneEstimate fixed = estimate_finetune(m, g, j, 1);
  j.mean_sample_tokens = 401;
  const FinetuneEstimate padded = estimate_finetune(m, g, j, 1);
  j.packing = true;
  const FinetuneEstimate packed = estimate_finetune(m, g, j, 1);
  // Memory is sized at the longest sample either way.
  EXPECT_DOUBLE_EQ(padded.memory.peak_bytes, fixed.memory.peak_bytes);
  EXPECT_DOUBLE_EQ(packed.memory.peak_bytes, fixed.memory.peak_bytes);
  // Padded one per row (micro-batch 1): each runs at 401 rounded up to a
  // multiple of 8 = 408 tokens; one step per sample.
  EXPECT_EQ(padded.step_tokens_per_sequence, 408);
  EXPECT_EQ(padded.steps, 50000);
  EXPECT_LT(padded.step_s, fixed.step_s);
  // Packed: 50,000 × 401 = 20,050,000 tokens fill ceil(20,050,000 / 2,048) = ceil(9,790.04) = 9,791 rows.
  EXPECT_EQ(packed.steps, 9791);
  EXPECT_DOUBLE_EQ(packed.step_s, fixed.step_s);
  EXPECT_DOUBLE_EQ(packed.tokens, 50000.0 * 401);
  EXPECT_LT(packed.wall_s, padded.wall_s);
  // A mean longer than the sequence is refused, naming the field.
  j.mean_sample_tokens = 4096;
  EXPECT_THROW(estimate_finetune(m, g, j, 1), InputError);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

TEST(FinetuneStacks, EightGpusAsEachStackShardsThem) {
  const ModelSpec m = find_model("qwen2.5-72b");
  const GpuSpec g = find_gpu("a800-sxm4-80gb");
  auto at = [&](const char* stack, FineTune method, int64_t gpus) {
    FinetuneJob j;
    j.method = method;
    j.samples = 1000;
    j.framework = &find_framework(stack);
    return estimate_finetune(m, g, j, gpus);
  };
  // LLaMA-Factory runs ZeRO-3 (examples/deepspeed/ds_z3_config.json): every
  // GPU holds 1/8 of the frozen bf16 weights and of the fp32 adapters.
  const FinetuneEstimate lf = at("llama-factory@0.9.0", FineTune::kLora, 8);
  EXPECT_EQ(lf.layout.zero_stage, 3);
  const double frozen = lf.memory.params_on_gpu;  // the whole model's parameters (counted before ZeRO-3 shards them)
  EXPECT_NEAR(lf.memory.weights_bytes, (2 * frozen + 4 * lf.flops.adapter_params) / 8, 0.01 * lf.memory.weights_bytes);
  // Unsloth 2026.7 runs DDP only (no ZeRO): each of the 8 GPUs holds the whole
  // NF4 model, as one GPU does.
  const FinetuneEstimate un8 = at("unsloth@2026.7", FineTune::kQlora, 8), un1 = at("unsloth@2026.7", FineTune::kQlora, 1);
  EXPECT_EQ(un8.layout.zero_stage, 0);
  EXPECT_DOUBLE_EQ(un8.memory.weights_bytes, un1.memory.weights_bytes);
  // Unsloth 2024.8 trains on one GPU (CUDA_VISIBLE_DEVICES=0): 8 is refused with one sentence.
  FinetuneInputs in;
  in.model = "qwen2.5-72b";
  in.method = "qlora";
  in.gpu = "a800";
  in.gpus = 8;
  in.no_ranking = true;
  in.software.framework = "unsloth@2024.8";
  try {
    run_finetune(make_finetune_request(in));
    ADD_FAILURE() << "8 GPUs under unsloth@2024.8 were planned";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "framework");
    EXPECT_NE(std::string(e.what()).find("unsloth@2024.8"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuplan
