// Issue 5, fine-tuning: exact adapter counts, FLOP counts and the published memory claims.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "inputs/choice_words.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/finetune.hpp"
#include "inputs/finetune_inputs.hpp"
#include "gpuplan/step_time.hpp"
#include "report/memory_report.hpp"
#include "report/report.hpp"
#include "gpuplan/units.hpp"
#include "model/hf_config.hpp"
#include "units/quantity_text.hpp"

namespace gpuplan {
namespace {

ModelSpec llama_65b() {
  // LLaMA-65B (Touvron et al. 2023, table 2): 80 layers, 8192 wide, 64 heads, FFN 22016.
  const nlohmann::json c = {{"model_type", "llama"}, {"num_hidden_layers", 80}, {"hidden_size", 8192},
                            {"num_attention_heads", 64}, {"num_key_value_heads", 64}, {"intermediate_size", 22016},
                            {"vocab_size", 32000}, {"hidden_act", "silu"}, {"rms_norm_eps", 1e-5}};
  return model_from_hf_config(c, "llama-65b");
}

TEST(Finetune, LoraParamsAreRankTimesInPlusOut) {
  const ModelSpec m = find_model("llama-2-7b");  // h 4096, MHA, FFN 11008
  // q,k,v,o: 4 matrices of 4096×4096 → r·(4096+4096) each, 32 layers.
  EXPECT_DOUBLE_EQ(lora_params(m, 8, parse_lora_modules("q,k,v,o", "--modules")), 8.0 * 4 * 8192 * 32);
  // All linear adds gate and up (4096→11008) and down (11008→4096).
  EXPECT_DOUBLE_EQ(lora_params(m, 16, parse_lora_modules("all", "--modules")),
                   16.0 * (4 * 8192 + 3 * (4096 + 11008)) * 32);
  // GQA: k and v are 4096→1024 on Llama-3-8B.
  const ModelSpec l3 = find_model("llama-3.1-8b");
  EXPECT_DOUBLE_EQ(lora_params(l3, 1, parse_lora_modules("k_proj", "--modules")), (4096.0 + 1024) * 32);
}

TEST(Finetune, LoraFlopsAboutFourN) {
  FinetuneJob j;
  j.method = FineTune::kLora;
  j.gradient_checkpointing = false;
  const FinetuneFlops f = finetune_flops(find_model("llama-2-7b"), j);
  // Frozen weights: forward 2N + backward 2N (input gradients only) ≈ 4N, i.e. ≈ 2/3 of 6N;
  // a little more at 2,048 tokens because the attention core's backward stays 2× its forward.
  EXPECT_GT(f.ratio_to_6n, 0.64);
  EXPECT_LT(f.ratio_to_6n, 0.76);
  j.method = FineTune::kFull;
  EXPECT_NEAR(finetune_flops(find_model("llama-2-7b"), j).ratio_to_6n, 1.0, 0.1);
}

TEST(Finetune, Qlora65bFitsOne48GBGpu) {
  // Dettmers et al. 2023 (QLoRA), abstract: 65B fine-tuning on a single 48 GB GPU.
  FinetuneJob j;
  j.method = FineTune::kQlora;  // NF4 + double quantisation, r 64 on all linear layers, paged optimizer
  j.seq_len = 512;
  j.micro_batch = 1;
  const FinetuneEstimate e = estimate_finetune(llama_65b(), find_gpu("l40s"), j, 1);
  EXPECT_LT(e.memory.peak_bytes, 48e9) << e.memory.peak_bytes / kGiB << " GiB";
  EXPECT_GT(e.memory.peak_bytes, 33e9);  // the NF4 weights alone are ~33.6 GB
}

TEST(Finetune, QlorasPagedStatesAreWarnedOfInTheReportAndTheAdapterLineIsItsOwn) {
  // QLoRA's recipe moves the adapters' two 1-byte AdamW states into paged
  // (unified) memory after the training memory model ran (finetune.cpp); the
  // warning is worded from the final breakdown (report/memory_report.cpp), so
  // it names those bytes. Before issue 31 moved the sentences out of the
  // estimator, they were written before the move and the warning was missing.
  // Adapters of LLaMA-65B at rank 64 on every linear layer (Dettmers et al.
  // 2023): per layer 4 × 64 × (8192 + 8192) + 3 × 64 × (8192 + 22016) =
  // 4,194,304 + 5,799,936 = 9,994,240; × 80 layers = 799,539,200 parameters.
  FinetuneJob j;
  j.method = FineTune::kQlora;
  j.seq_len = 512;
  j.micro_batch = 1;
  const FinetuneEstimate e = estimate_finetune(llama_65b(), find_gpu("l40s"), j, 1);
  EXPECT_DOUBLE_EQ(e.flops.adapter_params, 799'539'200.0);
  ASSERT_GT(e.memory.paged_optimizer_bytes, 0);
  const MemoryNotes notes = memory_notes(e.memory, /*lora_line=*/false);
  ASSERT_EQ(notes.warnings.size(), 1u);
  EXPECT_EQ(notes.warnings[0].en.rfind(format_sig(e.memory.paged_optimizer_bytes / kGiB, 3) + " GiB of paged 8-bit optimizer states", 0), 0u)
      << notes.warnings[0].en;
  for (const Note& n : notes.assumptions) EXPECT_NE(n.en.rfind("LoRA:", 0), 0u) << n.en;
  // The training memory model's own line names the adapters' rank and matrices.
  const MemoryNotes with_lora = memory_notes(e.memory);
  ASSERT_EQ(with_lora.assumptions.size(), notes.assumptions.size() + 1);
  EXPECT_EQ(with_lora.assumptions[1].en.rfind("LoRA: rank 64 adapters on q, k, v, o, gate, up, down with fp32", 0), 0u)
      << with_lora.assumptions[1].en;
}

TEST(Finetune, Full7bAdamWDoesNotFitOneA100_80) {
  FinetuneJob j;
  j.method = FineTune::kFull;
  j.seq_len = 2048;
  const FinetuneEstimate e = estimate_finetune(find_model("llama-2-7b"), find_gpu("a100-80g"), j, 1);
  EXPECT_FALSE(e.fits);
  EXPECT_GT(e.memory.peak_bytes, 80 * kGiB);  // 16 B/param × 6.74B = 108 GB of states alone
  EXPECT_GT(smallest_fitting_gpus(find_model("llama-2-7b"), find_gpu("a100-80g"), j), 1);
}

TEST(Finetune, TimeAndCostScaleWithTheDataset) {
  FinetuneJob j;
  j.method = FineTune::kQlora;
  j.seq_len = 2048;
  j.samples = 50000;
  j.epochs = 3;
  const FinetuneEstimate e = estimate_finetune(find_model("qwen2.5-7b"), find_gpu("rtx4090"), j, 1);
  EXPECT_TRUE(e.fits);
  EXPECT_DOUBLE_EQ(e.tokens, 50000.0 * 2048 * 3);
  EXPECT_NEAR(e.wall_s, e.steps * e.step_s, 1e-6 * e.wall_s);
  j.epochs = 6;
  EXPECT_NEAR(estimate_finetune(find_model("qwen2.5-7b"), find_gpu("rtx4090"), j, 1).wall_s, 2 * e.wall_s, 1e-6 * e.wall_s);
  const auto ranking = rank_gpus_for_finetune(find_model("qwen2.5-7b"), j);
  ASSERT_FALSE(ranking.empty());
  for (size_t i = 1; i < ranking.size(); ++i) EXPECT_LE(ranking[i - 1].cost_usd, ranking[i].cost_usd);
}

TEST(Finetune, BadInputNamesTheField) {
  try {
    parse_lora_modules("q,bogus", "--modules");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "modules");
  }
  FinetuneJob j;
  j.method = FineTune::kLora;
  j.lora_rank = -3;
  EXPECT_THROW(validate_finetune(find_model("llama-2-7b"), j), InputError);
}

// A dataset beyond any real one is refused with training's bound (1e18 tokens
// or samples), not estimated into FLOPs no unit can print.
TEST(Finetune, ADatasetBeyondTheBoundIsRefusedNamingTheFlag) {
  for (const auto& [flag, text] : {std::pair<std::string, std::string>{"--samples", "1e30"}, {"--tokens", "1e20"}}) {
    FinetuneInputs in;
    in.model = "llama-3.1-8b";
    in.gpu = "h100";
    in.gpus = 1;
    (flag == "--samples" ? in.samples : in.tokens) = text;
    try {
      finetune_report_for(in);
      ADD_FAILURE() << flag << " " << text << " was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), InputError::request_key(flag));  // the request key: "samples"
      EXPECT_NE(std::string(e.what()).find("up to 1e18"), std::string::npos) << e.what();
    }
  }
}


// The step-time model times LoRA itself (Layout::finetune), so `finetune` and
// `validate` share it. Llama-3.1-8B, one H100, one micro-batch of 4,096 tokens,
// no recompute. Full training runs each weight GEMM three times (forward,
// dX = dY·Wᵀ, dW = Xᵀ·dY, all with the same FLOPs and near-equal shapes);
// LoRA's frozen weights skip dW (requires_grad off), so their GEMMs take
// about 2/3 of full training's, plus the rank-8 adapters' skinny GEMMs
// (r/h = 0.2% of a projection's FLOPs, but an 8-wide output fills 8 of a
// tile's 128 columns, so each costs several times its FLOPs: ~4% here). The
// optimizer walks only the adapters: 8·(4·4096 + 2·4096 + 2·1024)·32 =
// 6.8M of 8.03B parameters (0.08%), so its step is a small fraction of full's.
TEST(Finetune, LoraStepSkipsTheFrozenWeightGradientsAndOptimizer) {
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec g = find_gpu("h100-sxm5-80gb");
  Layout full;
  full.micro_batch = 1;
  full.global_batch = 1;
  full.seq_len = 4096;
  full.finetune = FineTune::kFull;
  Layout lora = full;
  lora.finetune = FineTune::kLora;
  lora.lora_rank = 8;
  const StepTime f = estimate_step_time(m, full, g);
  const StepTime l = estimate_step_time(m, lora, g);
  const double ratio = l.gemm_s / f.gemm_s;
  EXPECT_GT(ratio, 0.64);  // 2/3 less the LM head's dW, plus the adapters
  EXPECT_LT(ratio, 0.72);
  EXPECT_LT(l.optimizer_s, 0.01 * f.optimizer_s);
  // QLoRA: each frozen weight is dequantised once in the forward and once for
  // the backward's dX, 2.5 B per weight each (NF4 read 0.5, bf16 write 2):
  // 2 × 2.5 × 6.98e9 layer weights / (3.35 TB/s × 0.80) ≈ 13.0 ms on top of
  // LoRA, plus one kernel's overhead (4 µs) per matrix and pass: 4 matrices ×
  // 2 passes × 32 layers × 4 µs = 1.024 ms.
  Layout qlora = lora;
  qlora.finetune = FineTune::kQlora;
  const StepTime q = estimate_step_time(m, qlora, g);
  const double layer_weights = 32.0 * (4096.0 * (4096 + 2 * 1024) + 4096.0 * 4096 + 3.0 * 4096 * 14336);
  const double dequant_s = 2 * 2.5 * layer_weights / (g.hbm_bytes_per_s * 0.80);
  EXPECT_NEAR(dequant_s, 0.0130, 0.0003);
  EXPECT_NEAR(q.elementwise_s - l.elementwise_s, dequant_s + 4 * 2 * 32 * 4e-6, 1e-9);
  EXPECT_NEAR(q.gemm_s, l.gemm_s, 1e-12);
  // QLoRA over a GPTQ Int4 checkpoint (AutoGPTQ 0.5.1 qlinear_cuda_old, more
  // than 128 rows): the forward rebuilds each fp16 weight with torch ops, 16.5 B
  // of traffic per weight (int32 shift 0.5 + 4, cast 4 + 1, and 1 + 1, minus
  // zeros 1 + 1, times scales 1 + 2) in 5 kernels plus 4 on the zero points;
  // autograd keeps the rebuilt weight, so the backward rebuilds nothing:
  // 16.5 × 6.98e9 / (3.35 TB/s × 0.80) ≈ 43.0 ms, plus 9 kernels × 4 matrices ×
  // 32 layers × 4 µs = 4.608 ms.
  Layout gptq = qlora;
  gptq.qlora_base = QloraBase::kGptqInt4;
  const StepTime gq = estimate_step_time(m, gptq, g);
  const double rebuild_s = 16.5 * layer_weights / (g.hbm_bytes_per_s * 0.80);
  EXPECT_NEAR(rebuild_s, 0.0430, 0.0003);
  EXPECT_NEAR(gq.elementwise_s - l.elementwise_s, rebuild_s + 9 * 4 * 32 * 4e-6, 1e-9);
  EXPECT_NEAR(gq.gemm_s, l.gemm_s, 1e-12);
}

// Which checkpoints are GPTQ: config.json's quantization_config, else the name
// as Qwen (README l.418: its -Int4/-Int8 models are AutoGPTQ checkpoints) and
// community uploads (-GPTQ, -AWQ) write it.
TEST(Finetune, GptqCheckpointsAreKnownByConfigOrName) {
  EXPECT_EQ(checkpoint_quant_from_name("Qwen-72B-Chat-Int4"), "gptq-int4");
  EXPECT_EQ(checkpoint_quant_from_name("Qwen/Qwen1.5-7B-Chat-GPTQ-Int8"), "gptq-int8");
  EXPECT_EQ(checkpoint_quant_from_name("TheBloke/Llama-2-7B-GPTQ"), "gptq-int4");
  EXPECT_EQ(checkpoint_quant_from_name("Qwen2.5-7B-Instruct-AWQ"), "awq-int4");
  EXPECT_EQ(checkpoint_quant_from_name("Qwen-7B-Chat"), "");
  nlohmann::json c = {{"model_type", "llama"}, {"hidden_size", 4096}, {"num_hidden_layers", 32}, {"num_attention_heads", 32},
                      {"intermediate_size", 11008}, {"vocab_size", 32000}, {"hidden_act", "silu"},
                      {"quantization_config", {{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}}}};
  EXPECT_EQ(model_from_hf_config(c, "test").checkpoint_quant, "gptq-int4");
  // `finetune` picks AutoGPTQ's path for such a checkpoint unless told otherwise,
  // and its dequantisation makes the step longer than over NF4 at 2,048 tokens.
  ModelSpec m = model_from_hf_config(c, "test");
  FinetuneJob j;
  j.method = FineTune::kQlora;
  j.samples = 1000;
  const GpuSpec g = find_gpu("a100-sxm4-80gb");
  const FinetuneEstimate gptq = estimate_finetune(m, g, j, 1);
  EXPECT_EQ(gptq.layout.qlora_base, QloraBase::kGptqInt4);
  j.qlora_base = QloraBase::kNf4;
  const FinetuneEstimate nf4 = estimate_finetune(m, g, j, 1);
  EXPECT_EQ(nf4.layout.qlora_base, QloraBase::kNf4);
  EXPECT_GT(gptq.step_s, nf4.step_s);
}

// `finetune` reports the step-time model's own step on its layout: nothing is
// taken out afterwards, so a validated case and the command agree.
TEST(Finetune, CommandStepIsTheStepTimeModels) {
  FinetuneJob j;
  j.method = FineTune::kLora;
  j.seq_len = 2048;
  j.samples = 1000;
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec g = find_gpu("a100-sxm4-80gb");
  const FinetuneEstimate e = estimate_finetune(m, g, j, 1);
  EXPECT_DOUBLE_EQ(e.step_s, estimate_step_time(m, e.layout, g).step_s);
  EXPECT_EQ(e.layout.lora_modules.size(), 4u);  // q, k, v, o: the LoRA default, named on the layout
}

}  // namespace
}  // namespace gpuplan
