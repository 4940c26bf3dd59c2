// Named weight-quantisation methods (data/weight_quant.json): bytes per
// weight of each kind of matrix, derived by hand from the formats' layouts.
#include <gtest/gtest.h>

#include "gpuplan/error.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/units.hpp"
#include "inputs/infer_inputs.hpp"
#include "report/inference_notes.hpp"

namespace gpuplan {
namespace {

TEST(WeightQuant, EveryMethodOfTheCaseFormatIsInTheCatalog) {
  // ../shared/validation/README.md, infer.weight_quant's list.
  for (const char* id : {"none", "fp8", "int8", "gptq-int4", "gptq-int8", "awq-int4", "nf4", "gguf-q4_k_m", "gguf-q8_0", "mxfp4", "nvfp4"}) {
    const WeightQuant* q = find_weight_quant(id);
    ASSERT_NE(q, nullptr) << id;
    EXPECT_FALSE(q->source.empty()) << id;
  }
  EXPECT_EQ(find_weight_quant("q4"), nullptr);
}

TEST(WeightQuant, GgufQ4KMOfLlama31_8bByLlamaCppsRecipe) {
  // Llama-3.1-8B: 32 layers, h 4096, 8 KV heads of 128, MLP 14336, vocabulary 128256, untied.
  // Per layer: q 4096² = 16,777,216; k and v 4096·1024 = 4,194,304 each; o 16,777,216;
  // gate + up 2·4096·14336 = 117,440,512; down 58,720,256: 218,103,808 weights.
  // Q4_K (4.5 bits) everywhere: 122,683,392 bytes a layer. use_more_bits(i, 32) picks
  // i < 4, i ≥ 28 and i = 6, 9, …, 27 ((i − 4) % 3 == 2): 16 layers, whose v and down
  // (62,914,560 weights) take Q6_K (6.5625 bits): + 62,914,560 · 2.0625 / 8 = 16,220,160.
  // Mean over the layers: (122,683,392 + 138,903,552) / 2 / 218,103,808 bytes per weight.
  const ModelSpec m = find_model("llama-3.1-8b");
  InferenceOptions o;
  o.weights = WeightFormat::kInt4;
  o.weight_quant = "gguf-q4_k_m";
  const WeightBytes b = weight_bytes(m, o);
  EXPECT_NEAR(b.layers, 130793472.0 / 218103808.0, 1e-12);
  EXPECT_DOUBLE_EQ(b.embedding, 4.5 / 8);      // token_embd Q4_K
  EXPECT_DOUBLE_EQ(b.lm_head, 6.5625 / 8);     // output.weight Q6_K
  // Whole model: 32 layers 4,185,391,104 + embedding 525,336,576 · 0.5625 = 295,501,824
  // + LM head 525,336,576 · 0.8203125 = 430,940,160 + 65 norms of 4096 at 2 bytes = 532,480.
  const InferenceMemory r = inference_memory(m, find_gpu("rtx4090"), o);
  EXPECT_NEAR(r.weights_bytes, 4912365568.0, 1.0);
}

TEST(WeightQuant, ATiedEmbeddingTakesTheOutputsWidth) {
  // Llama-3.2-1B ties its 128,256 × 2,048 embedding to the LM head: llama.cpp's
  // Q4_K_M stores that one matrix as the output, Q6_K (6.5625 bits), not Q4_K.
  const ModelSpec m = find_model("llama-3.2-1b");
  InferenceOptions o;
  o.weights = WeightFormat::kInt4;
  const InferenceMemory awq = [&] { o.weight_quant = "awq-int4"; return inference_memory(m, find_gpu("rtx4090"), o); }();
  const InferenceMemory gguf = [&] { o.weight_quant = "gguf-q4_k_m"; return inference_memory(m, find_gpu("rtx4090"), o); }();
  // The embedding's share of the difference: 262,668,288 weights at 2 bytes (AWQ leaves it 16-bit)
  // against 6.5625/8: 525,336,576 − 215,469,768 = 309,866,808 bytes; the layers differ by their own widths.
  const double embedding = 128256.0 * 2048.0;
  const double layers = count_params(m).total - count_params(m).embedding - count_params(m).norms;
  const double expected = embedding * (2.0 - 6.5625 / 8) + layers * (weight_bytes(m, o).layers - (4 + 20.0 / 128) / 8) * -1;
  EXPECT_NEAR(awq.weights_bytes - gguf.weights_bytes, expected, 1.0);
}

TEST(WeightQuant, Q8_0AndAwqAndGptqFromTheirBlocks) {
  const ModelSpec m = find_model("llama-3.1-8b");
  InferenceOptions o;
  o.weights = WeightFormat::kInt8;
  o.weight_quant = "gguf-q8_0";
  // block_q8_0: fp16 d + 32 int8 = 34 bytes per 32 weights, output and embedding included.
  WeightBytes b = weight_bytes(m, o);
  EXPECT_DOUBLE_EQ(b.layers, 34.0 / 32);
  EXPECT_DOUBLE_EQ(b.lm_head, 34.0 / 32);
  // AWQ and GPTQ at group 128: 4 bits + a 16-bit scale and a packed 4-bit zero per group
  // and column: (4 + 20/128) / 8 bytes; the LM head stays 16-bit.
  o.weights = WeightFormat::kInt4;
  for (const char* id : {"awq-int4", "gptq-int4"}) {
    o.weight_quant = id;
    b = weight_bytes(m, o);
    EXPECT_DOUBLE_EQ(b.layers, (4 + 20.0 / 128) / 8) << id;
    EXPECT_DOUBLE_EQ(b.lm_head, 2.0) << id;
  }
}

TEST(WeightQuant, Mxfp4QuantisesOnlyGptOssExperts) {
  // gpt-oss: FP4 E2M1 in blocks of 32 with one E8M0 scale, 4.25 bits, on the
  // experts; attention, router, embedding and LM head in bf16.
  const ModelSpec m = find_model("gpt-oss-120b");
  InferenceOptions o;
  o.weights = WeightFormat::kInt4;
  o.weight_quant = "mxfp4";
  const WeightBytes b = weight_bytes(m, o);
  EXPECT_DOUBLE_EQ(b.experts, 4.25 / 8);
  EXPECT_DOUBLE_EQ(b.layers, 2.0);
  EXPECT_DOUBLE_EQ(b.lm_head, 2.0);
}

TEST(WeightQuant, BitsandbytesDequantisesTheWholeMatrixForMoreThanOneRow) {
  // nf4: one row runs gemv_4bit over the 4.5-bit weights; two rows dequantise
  // each matrix (read 4.5 bits, write 16) and then run a 16-bit GEMM (read 16):
  // 0.5625 + 2 + 2 = 4.5625 bytes per layer weight, 4 more than one row. The
  // LM head is 16-bit either way.
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& g = find_gpu("a100-80g");
  InferenceOptions o;
  o.weights = WeightFormat::kInt4;
  o.weight_quant = "nf4";
  const double layer_weights = 32 * 218103808.0;
  const PassTime one = decode_step_time(m, g, o, 1, 600);
  const PassTime two = decode_step_time(m, g, o, 2, 600);
  EXPECT_NEAR(two.weight_bytes - one.weight_bytes, 4.0 * layer_weights, 1e-6 * layer_weights);
  // AWQ reads its weights once however many rows: no such jump.
  o.weight_quant = "awq-int4";
  EXPECT_NEAR(decode_step_time(m, g, o, 2, 600).weight_bytes, decode_step_time(m, g, o, 1, 600).weight_bytes, 1.0);
}

TEST(WeightQuant, MethodAndFormatMustAgree) {
  const ModelSpec m = find_model("llama-3.1-8b");
  InferenceOptions o;
  o.weight_quant = "awq-int4";  // o.weights left fp16
  try {
    validate_inference(m, find_gpu("a100-80g"), o);
    FAIL() << "an int4 method with fp16 weights was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "weight_quant");
  }
  o.weights = WeightFormat::kInt4;
  o.weight_quant = "q4";
  EXPECT_THROW(weight_bytes(m, o), InputError);
  // An experts-only method on a dense model would quantise nothing.
  o.weight_quant = "mxfp4";
  EXPECT_THROW(validate_inference(m, find_gpu("a100-80g"), o), InputError);
  // The CLI's --weight-quant sets --precision, and a different --precision is refused by name.
  InferInputs in;
  in.model = "llama-3.1-8b";
  in.gpu = "rtx4090";
  in.batch = 1;
  in.weight_quant = "gguf-q4_k_m";
  EXPECT_EQ(make_infer_request(in).options.weights, WeightFormat::kInt4);
  in.precision = "fp8";
  try {
    (void)make_infer_request(in);
    FAIL() << "--precision fp8 beside an int4 method was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "weight_quant");
  }
}


// llama.cpp (data/engines/llama.cpp.json) run as llama-bench does: no flash
// attention, prompts in 512-token passes.
InferenceOptions llama_cpp_options(const ModelSpec& m, const GpuSpec& g) {
  InferenceOptions o;
  o.weights = WeightFormat::kInt4;
  o.weight_quant = "gguf-q4_k_m";
  apply_engine_host(o, engine_defaults("llama.cpp@b4747", m, g, o, 2048, 128));
  return o;
}

TEST(LlamaCpp, ScoresGoThroughMemoryWithoutFlashAttention) {
  // pp512 of Llama-3.1-8B: one pass; the KQ product spans all 512 keys (masked
  // ones too) for 32 query heads in 32 layers: 512 · 512 · 32 · 32 scores of 16
  // bytes (F32 written by KQ, read and written by the softmax, read by KQV) =
  // 4,294,967,296 bytes, beside the new K and V (512 · 131,072 = 67,108,864).
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& g = find_gpu("rtx4090");
  const InferenceOptions o = llama_cpp_options(m, g);
  ASSERT_TRUE(o.attention_scores_materialised);
  ASSERT_EQ(o.prefill_ubatch_tokens, 512);
  const PassTime p = prefill_time(m, g, o, 1, 512);
  EXPECT_NEAR(p.kv_bytes, 4294967296.0 + 67108864.0, 1.0);
  InferenceOptions fused = o;
  fused.attention_scores_materialised = false;
  const PassTime f = prefill_time(m, g, fused, 1, 512);
  EXPECT_NEAR(f.kv_bytes, 67108864.0, 1.0);
  // The scores' bytes at the streaming rate make the difference, at least.
  EXPECT_GT(p.attention_s - f.attention_s, 4294967296.0 / (0.8 * g.hbm_bytes_per_s));
}

TEST(LlamaCpp, LongPromptsPrefillIn512TokenPasses) {
  // A 2,048-token prompt: 4 passes of 512, each reading every weight and
  // attending to the passes before it: the scores of pass c span 512·(c + 1)
  // keys, 512² · 1,024 head-layers · 16 bytes · (1 + 2 + 3 + 4) = 42,949,672,960
  // bytes, plus 2,048 · 131,072 of new K and V.
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& g = find_gpu("rtx4090");
  const InferenceOptions o = llama_cpp_options(m, g);
  const PassTime one = prefill_time(m, g, o, 1, 512);
  const PassTime four = prefill_time(m, g, o, 1, 2048);
  EXPECT_NEAR(four.weight_bytes, 4 * one.weight_bytes, 1e-9 * one.weight_bytes);
  EXPECT_NEAR(four.kv_bytes, 42949672960.0 + 268435456.0, 1.0);
  // Short prompts share a pass: four of 128 tokens are one pass's weights.
  EXPECT_NEAR(prefill_time(m, g, o, 4, 128).weight_bytes, one.weight_bytes, 1e-9 * one.weight_bytes);
}

TEST(LlamaCpp, AStaticEngineServesOneBatchAtATime) {
  // llama.cpp decodes its batch with no prefill of another request between
  // the steps: the time per output token is the decode step's, and a replica
  // serves batch / (prefill + (output − 1) decode steps) requests a second.
  ServingTarget t;
  t.input_len = 4096;
  t.output_len = 128;
  t.batch = 1;
  t.tp = 1;
  t.pp = 1;
  t.engine = "llama.cpp";
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& g = find_gpu("rtx4090");
  InferenceOptions o;
  o.weights = WeightFormat::kInt4;
  o.weight_quant = "gguf-q4_k_m";
  const ServingPlan p = plan_serving(m, g, o, t);
  ASSERT_TRUE(p.feasible) << serving_why_not(p).en;
  const InferenceOptions lo = llama_cpp_options(m, g);
  const BatchRun r = static_batch_run(m, g, lo, 1, 4096, 128);
  EXPECT_NEAR(p.tpot_s, r.tpot_s, 1e-12);
  EXPECT_NEAR(p.replica_requests_per_s, 1.0 / r.total_s, 1e-12);
}

}  // namespace
}  // namespace gpuplan
