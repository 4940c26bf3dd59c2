// Serving-engine profiles (issue 26): each engine's defaults derived by hand from its code at a version,
// version resolution, the profile file format and the generated docs/engines.md. The serving model
// that reads them is tested in test_inference.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fstream>
#include <sstream>

#include "gpuplan/error.hpp"
#include "inputs/infer_inputs.hpp"
#include "gpuplan/engine.hpp"
#include "gpuplan/inference.hpp"
#include "report/report.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/units.hpp"
#include "validate/validate.hpp"
#include "report/engines_report.hpp"
#include "report/inference_report.hpp"
#include "report/inference_notes.hpp"
#include "frameworks/framework_words.hpp"

namespace gpuplan {
namespace {

// bf16 weights and a bf16 KV cache, the profiles' hand derivations' common case.
InferenceOptions bf16_options() {
  InferenceOptions o;
  o.weights = WeightFormat::kBf16;
  o.kv = Precision::kBf16;
  return o;
}

TEST(Inference, TrtllmBenchDefaultsByHand) {
  // tensorrt_llm/bench/build/tuning.py for Llama-3.1-8B FP8 (FP8 KV) on one H100 (80 GiB):
  //   engine 8,030,261,248 params × 1 B = 7.4787 GiB; (80 − 7.4787) × 0.90 = 65.269 GiB of cache;
  //   2 × 32 layers × 8 KV heads × 128 × 1 B = 65,536 B per token.
  // 2048/128: 65.269 GiB / (65,536 B × 2,176) = 491.4 requests → max_batch_size 128·⌈491.4/128⌉ = 512;
  //   tokens 491.4 × (1 + 2048/128) = 8,354 → 1024·⌈8.16⌉ = 9,216 (≥ 2048 + 512, chunking off).
  // 128/128: 4,177 requests, capped at 4,096 → 256·16 = 4,096; tokens min(4096·2, 32768) = 8,192.
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& g = find_gpu("h100");
  InferenceOptions o;
  o.weights = WeightFormat::kFp8;
  o.kv = Precision::kFp8;
  const std::string trt = "TensorRT-LLM 1.0 (PyTorch backend, trtllm-bench)";
  const EngineDefaults a = engine_defaults(trt, m, g, o, 2048, 128);
  EXPECT_EQ(a.max_batch_size, 512);
  EXPECT_EQ(a.max_num_tokens, 9216);
  EXPECT_EQ(a.tokens_per_block, 32);
  EXPECT_EQ(a.kv_share_of, KvShareOf::kFreeAfterWeights);
  EXPECT_DOUBLE_EQ(a.kv_memory_fraction, 0.90);
  EXPECT_FALSE(a.chunked_prefill);
  EXPECT_TRUE(a.reserve_whole_sequence);
  const EngineDefaults b = engine_defaults(trt, m, g, o, 128, 128);
  EXPECT_EQ(b.max_batch_size, 4096);
  EXPECT_EQ(b.max_num_tokens, 8192);
  // vLLM's offline defaults: ≥ 70 GiB and not an A100 → 1024 sequences, 16384 tokens; A100 → 256, 8192.
  EXPECT_EQ(engine_defaults("vLLM 0.10", m, g, o, 128, 128).max_batch_size, 1024);
  EXPECT_EQ(engine_defaults("vLLM 0.10", m, find_gpu("a100-80g"), o, 128, 128).max_num_tokens, 8192);
  EXPECT_EQ(engine_defaults("", m, g, o, 128, 128).tokens_per_block, 16);
}

TEST(Inference, SglangDefaultsFollowGpuMemory) {
  // python/sglang/srt/server_args.py ServerArgs._handle_gpu_memory_settings (v0.5.8-era), Llama-2-7B fp16, TP 1.
  // H100, 80 GiB = 81,920 MiB: the "H100, A100" branch (60–90 GiB): chunked_prefill_size 8192, cuda_graph_max_bs 256;
  //   reserved_mem = 512 + max(8192, 2048)·1.5 + 256·2 + 1·1/8·1024 = 13,440 MiB (≥ the 10 GiB floor above 60 GiB);
  //   mem_fraction_static = round((81,920 − 13,440)/81,920, 3) = round(0.8359375, 3) = 0.836.
  //   KV pool (model_runner.py profile_max_num_token): 0.836 · (80 − 0.75 GiB context) − 13,476,831,232 B of weights
  //   = 57,661,785,833 B / 524,288 B per token = 109,981 tokens; req_to_token_pool min(max(int(109,981/4096·512) = 13,747,
  //   2048), 4096) = 4096; max_running_requests = min(109,981 // 2, 4096) = 4096 (model_runner.py "Init max running requests").
  // RTX 4090, 24 GiB = 24,576 MiB: the "A10, 4090, 5090" branch (20–35 GiB): 2048, cuda_graph_max_bs 24 (tp < 4);
  //   reserved_mem = 512 + 2048·1.5 + 24·2 + 128 = 3,760 MiB (no floor below 60 GiB); round(20,816/24,576, 3) = 0.847;
  //   KV 0.847 · 23.25 GiB − 13,476,831,232 B = 7,668,098,072 B → 14,625 tokens; int(14,625/4096·512) = 1,828 → 2048;
  //   min(7,312, 2048) = 2048.
  const ModelSpec m = find_model("llama-2-7b");
  InferenceOptions o;
  const EngineDefaults h = engine_defaults("SGLang 0.5.8", m, find_gpu("h100"), o, 1024, 1024);
  EXPECT_DOUBLE_EQ(h.kv_memory_fraction, 0.836);
  EXPECT_EQ(h.kv_share_of, KvShareOf::kDevice);
  EXPECT_TRUE(h.kv_sized_before_buffers);
  EXPECT_EQ(h.max_num_tokens, 8192);
  EXPECT_EQ(h.max_batch_size, 4096);
  EXPECT_EQ(h.tokens_per_block, 1);          // page_size 1 (RadixAttention's token pool)
  EXPECT_TRUE(h.chunked_prefill);            // chunked_prefill_size > 0
  EXPECT_FALSE(h.mixed_prefill_decode);      // enable_mixed_chunk default False
  EXPECT_FALSE(h.reserve_whole_sequence);    // KV taken as tokens are computed; retraction on overflow
  const EngineDefaults r = engine_defaults("sglang", m, find_gpu("4090"), o, 1024, 1024);
  EXPECT_DOUBLE_EQ(r.kv_memory_fraction, 0.847);
  EXPECT_EQ(r.max_num_tokens, 2048);
  EXPECT_EQ(r.max_batch_size, 2048);
  // The same pool through max_throughput_run: 57,661,785,833 B at 1 token a block; 1024 + 512 tokens held
  // on average → ⌊109,981/1,536⌋ = 71 sequences, and the 8192-token prefill budget caps no decoding batch.
  const MaxThroughputRun run = max_throughput_run(m, find_gpu("h100"), o, h, 1024, 1024);
  ASSERT_TRUE(run.feasible) << infer_refusal_text(run.refusal).en;
  EXPECT_NEAR(run.memory.kv_budget_bytes, 57661785833.472, 1e3);
  EXPECT_EQ(run.batch_kv_limit, 71);
  EXPECT_EQ(run.batch_token_limit, 4096);
  EXPECT_EQ(run.limited_by, "kv_cache");
}

TEST(Inference, LmdeployTurbomindDefaultsFollowTheDevice) {
  // LMDeploy v0.16.0, Llama-3.1-8B bf16 (8,030,261,248 params · 2 B = 16,060,522,496 B), TP 1.
  // lmdeploy/utils.py get_max_batch_size('cuda'): 'h100' in the device name → 1024; the 4090 matches none → 128
  //   (H20 none → 128; A800 → 384).
  // src/turbomind/turbomind.cc TurboMind::Impl: max_forward_token_num = max_prefill_token_num 8192 + max_batch_size
  //   → 9,216 on the H100, 8,320 on the 4090.
  // TurbomindEngineConfig (lmdeploy/messages.py): cache_max_entry_count 0.8 of the free memory after the weights
  //   (turbomind.cc CreateEngine), cache_block_seq_len 64; session_len = the model's 131,072 (converter.py).
  // H100 KV pool: 0.8 · (80 GiB − 0.75 GiB context − 16,060,522,496 B) = 55,226,813,644.8 B; at 131,072 B a token
  //   and 64-token blocks (8 MiB): ⌊6,583.4⌋ = 6,583 blocks.
  const ModelSpec m = find_model("llama-3.1-8b");
  InferenceOptions o = bf16_options();
  const EngineDefaults h = engine_defaults("LMDeploy 0.16 (TurboMind)", m, find_gpu("h100"), o, 2048, 128);
  EXPECT_DOUBLE_EQ(h.kv_memory_fraction, 0.8);
  EXPECT_EQ(h.kv_share_of, KvShareOf::kFreeAfterWeights);
  EXPECT_TRUE(h.kv_sized_before_buffers);
  EXPECT_EQ(h.max_batch_size, 1024);
  EXPECT_EQ(h.max_num_tokens, 9216);
  EXPECT_EQ(h.tokens_per_block, 64);
  ASSERT_TRUE(h.max_prefill_context_tokens.has_value());
  EXPECT_EQ(*h.max_prefill_context_tokens, 131072);
  EXPECT_TRUE(h.chunked_prefill);
  EXPECT_TRUE(h.mixed_prefill_decode);
  EXPECT_FALSE(h.reserve_whole_sequence);
  const EngineDefaults r = engine_defaults("lmdeploy", m, find_gpu("4090"), o, 2048, 128);
  EXPECT_EQ(r.max_batch_size, 128);
  EXPECT_EQ(r.max_num_tokens, 8320);
  EXPECT_EQ(engine_defaults("turbomind", m, find_gpu("h20"), o, 2048, 128).max_batch_size, 128);
  EXPECT_EQ(engine_defaults("lmdeploy", m, find_gpu("a800"), o, 2048, 128).max_batch_size, 384);
  // TurbomindEngineConfig.__post_init__ refuses an fp8 KV cache (quant_policy is int8 or int4).
  InferenceOptions fp8 = o;
  fp8.kv = Precision::kFp8;
  EXPECT_THROW(engine_defaults("lmdeploy", m, find_gpu("h100"), fp8, 2048, 128), InputError);
  const MaxThroughputRun run = max_throughput_run(m, find_gpu("h100"), o, h, 2048, 128);
  ASSERT_TRUE(run.feasible) << infer_refusal_text(run.refusal).en;
  EXPECT_NEAR(run.memory.kv_budget_bytes, 55226813644.8, 1e3);
  EXPECT_DOUBLE_EQ(run.kv_blocks, 6583);
  // Held on average 2048 + 64 tokens = 33 blocks → ⌊6,583/33⌋ = 199 sequences; the pass budget allows
  // ⌊9,216 · 128 / 2,175⌋ = 542, the prefill context ⌊131,072 · 128 / 2,048⌋ = 8,192.
  EXPECT_EQ(run.batch_kv_limit, 199);
  EXPECT_EQ(run.batch_token_limit, 542);
  EXPECT_EQ(run.batch, 199);
}

TEST(Inference, EngineNamesMatchNarrowly) {
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& g = find_gpu("h100");
  InferenceOptions o;
  // Unknown names fall back to vLLM's latest profile, saying so first.
  const EngineDefaults u = engine_defaults("MyServe 2", m, g, o, 128, 128);
  EXPECT_EQ(u.profile, find_engine("vllm", "engine").label());
  EXPECT_EQ(u.fallback.reason, EngineFallback::kNoProfile);
  const std::vector<Bilingual> said = engine_choice_notes(u);
  ASSERT_FALSE(said.empty());
  EXPECT_EQ(said.front().en, "engine 'MyServe 2' has no profile: " + u.profile + "'s defaults assumed");
  EXPECT_EQ(said.front().zh, "推理引擎“MyServe 2”没有配置：按 " + u.profile + " 的默认值计");
  // LMDeploy's PyTorch engine, and LMDeploy off NVIDIA (TurboMind is CUDA-only), have no profile either.
  EXPECT_EQ(engine_defaults("lmdeploy pytorch", m, g, o, 128, 128).profile, u.profile);
  const EngineDefaults npu = engine_defaults("lmdeploy", m, find_gpu("ascend910b-64gb"), o, 128, 128);
  EXPECT_EQ(npu.profile, u.profile);
  EXPECT_EQ(npu.fallback.reason, EngineFallback::kNotOnVendor);
  const std::vector<Bilingual> npu_said = engine_choice_notes(npu);
  ASSERT_FALSE(npu_said.empty());
  EXPECT_NE(npu_said.front().en.find("does not run on huawei GPUs"), std::string::npos) << npu_said.front().en;
  EXPECT_EQ(engine_defaults("SGLang", m, g, o, 128, 128).profile, "sglang@0.5.8");
  EXPECT_EQ(engine_defaults("LMDeploy", m, g, o, 128, 128).profile, "lmdeploy@0.16.0");
  EXPECT_EQ(engine_defaults("turbomind", m, g, o, 128, 128).profile, "lmdeploy@0.16.0");
  EXPECT_EQ(engine_defaults("TensorRT-LLM 1.0 (PyTorch backend)", m, g, o, 128, 128).profile, "tensorrt-llm@1.0");
}

// fp16 weights and KV cache, the LMDeploy TurboMind benchmarks' setting.
InferenceOptions fp16_weights_and_kv() {
  InferenceOptions o;
  o.weights = WeightFormat::kFp16;
  o.kv = Precision::kFp16;
  return o;
}

// TurboMind before InternLM/lmdeploy#775 (v0.1.0a1) prefills a prompt's first
// input_len − 1 tokens and samples the first output token in the decode pass
// that follows (LlamaBatch.cc ContextDecode: 'skip last input token (will
// process with decoder later)'); from v0.1.0 the prefill pass samples it. So,
// Llama-2-7B fp16 on one A100-80GB, batch 1, 128 prompt tokens:
//   TTFT(0.1.0a1) = prefill(127 tokens) + one decode step over a 128-token context
//   TTFT(0.1.0)   = prefill(128 tokens)
// and the difference is about one decode step, which reads every weight once:
// at least 6,738,415,616 params · 2 B / 2.039e12 B/s = 6.61 ms.
TEST(Inference, OldTurbomindSamplesTheFirstTokenInTheNextDecodeStep) {
  const ModelSpec m = find_model("llama-2-7b");
  const GpuSpec g = find_gpu("a100-80g");
  const InferenceOptions o = fp16_weights_and_kv();
  InferenceOptions old_tm = o, new_tm = o;
  apply_engine_host(old_tm, engine_defaults("lmdeploy@0.1.0a1", m, g, o, 128, 128));
  apply_engine_host(new_tm, engine_defaults("lmdeploy@0.1.0", m, g, o, 128, 128));
  ASSERT_TRUE(old_tm.first_token_from_decode);
  ASSERT_FALSE(new_tm.first_token_from_decode);
  const BatchRun a = static_batch_run(m, g, old_tm, 1, 128, 128);
  const BatchRun b = static_batch_run(m, g, new_tm, 1, 128, 128);
  EXPECT_NEAR(a.ttft_s, prefill_time(m, g, old_tm, 1, 127).total_s + decode_step_time(m, g, old_tm, 1, 128).total_s, 1e-12);
  EXPECT_NEAR(b.ttft_s, prefill_time(m, g, new_tm, 1, 128).total_s, 1e-12);
  EXPECT_GT(a.ttft_s - b.ttft_s, 6.61e-3 * 0.9);  // one weight read, less the one prompt token saved
  EXPECT_NEAR(a.tpot_s, b.tpot_s, 1e-12);          // the later steps are the same
  // A one-token prompt leaves nothing to prefill: the first token is the decode step alone.
  EXPECT_NEAR(static_batch_run(m, g, old_tm, 1, 1, 2).ttft_s, decode_step_time(m, g, old_tm, 1, 1).total_s, 1e-12);
}

// TurboMind before v0.2.2 caps its KV blocks at cache_max_entry_count of the
// device's total memory, whatever the weights take (BlockManager::GetBlockCount
// @v0.1.0a1: total * ratio / block_size; the default ratio 0.5). Llama-2-7B fp16
// on an A100-80GB leaves ~70 GB free, so the pool is the cap itself:
// 0.5 · 80 GiB = 42,949,672,960 B; at 32 layers · 2 · 4,096 · 2 B = 524,288 B a
// token that holds 81,920 tokens = 640 blocks of 128. From v0.2.2 the share is
// 0.8 of the memory free after the weights.
TEST(Inference, OldTurbomindKvPoolIsAShareOfTheDeviceTotal) {
  const ModelSpec m = find_model("llama-2-7b");
  const GpuSpec g = find_gpu("a100-80g");
  const InferenceOptions o = fp16_weights_and_kv();
  const EngineDefaults e = engine_defaults("lmdeploy@0.1.0a1", m, g, o, 128, 128);
  EXPECT_EQ(e.kv_share_of, KvShareOf::kDeviceTotalForPool);
  EXPECT_DOUBLE_EQ(e.kv_memory_fraction, 0.5);
  EXPECT_EQ(e.tokens_per_block, 128);
  EXPECT_EQ(e.max_batch_size, 64);
  const MaxThroughputRun run = max_throughput_run(m, g, o, e, 128, 128);
  ASSERT_TRUE(run.feasible) << infer_refusal_text(run.refusal).en;
  EXPECT_NEAR(run.memory.kv_budget_bytes, 42949672960.0, 1.0);
  EXPECT_DOUBLE_EQ(run.kv_blocks, 640);
  const EngineDefaults later = engine_defaults("lmdeploy@0.2.2", m, g, o, 128, 128);
  EXPECT_EQ(later.kv_share_of, KvShareOf::kFreeAfterWeights);
  EXPECT_DOUBLE_EQ(later.kv_memory_fraction, 0.8);
  EXPECT_EQ(later.max_batch_size, 128);
}

// ENGINE@VERSION resolves to the latest profile entry at or before the
// version, release numbers compared part by part with missing parts 0; a
// version older than every entry takes the first and says so.
TEST(EngineProfiles, VersionsResolveToTheLatestEntryAtOrBefore) {
  const EngineProfile exact = find_engine("lmdeploy@0.16", "engine");
  EXPECT_EQ(exact.version, "0.16.0");
  EXPECT_TRUE(exact.note.empty()) << exact.note;
  const EngineProfile later = find_engine("lmdeploy@0.17.1", "engine");
  EXPECT_EQ(later.version, "0.16.0");
  EXPECT_NE(later.note.find("resolves to the profile of 0.16.0"), std::string::npos) << later.note;
  const EngineProfile older = find_engine("lmdeploy@0.0.14", "engine");
  EXPECT_EQ(older.version, "0.1.0a1");
  EXPECT_NE(older.note.find("no profile as old as 0.0.14"), std::string::npos) << older.note;
  // A pre-release sorts before its release (PEP 440): 0.1.0a1 < 0.1.0 < 0.2.1 < 0.2.2.
  EXPECT_EQ(find_engine("lmdeploy@0.1.0a1", "engine").version, "0.1.0a1");
  EXPECT_EQ(find_engine("lmdeploy@0.1.0", "engine").version, "0.1.0");
  EXPECT_EQ(find_engine("lmdeploy@0.1.0rc2", "engine").version, "0.1.0a1");
  EXPECT_EQ(find_engine("lmdeploy@0.1", "engine").version, "0.1.0");  // the series' latest entry
  EXPECT_EQ(find_engine("lmdeploy@0.2.1", "engine").version, "0.1.0");
  EXPECT_EQ(find_engine("lmdeploy@0.15.0", "engine").version, "0.2.2");
  EXPECT_EQ(find_engine("tensorrt-llm@2025-12", "engine").version, "1.0");
  EXPECT_EQ(find_engine("vllm@0.10", "engine").version, "0.10.2");  // a series takes its latest entry
  EXPECT_EQ(find_engine("vllm@0.9.1", "engine").version, "0.9.1");
  EXPECT_EQ(find_engine("vllm@0.8.2", "engine").version, "0.8.0");  // V1's first entry
  EXPECT_EQ(find_engine("vllm@0.6.3", "engine").version, "0.5.3");  // V0, its 512-token chunked budget
  EXPECT_EQ(find_engine("vllm@0.4.0", "engine").version, "0.5.3");  // older than every entry: the first, with a note  // a date picks by the entries' dates
  EXPECT_THROW(find_engine("vllm@latest", "--engine"), InputError);
  try {
    find_engine("foo", "--engine");
    FAIL() << "an unknown engine must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown serving engine 'foo'; known: "), std::string::npos) << e.what();
  }
}

// The format refuses what it cannot mean: an unknown property, a first
// version that leaves a required one out, a value out of range.
TEST(EngineProfiles, TheFormatRefusesBadFiles) {
  const std::string head = R"({"id": "x", "name": "X", "versions": [{"version": "1", "date": "2025-01", "source": "s", "properties": )";
  EXPECT_THROW(parse_engine_family(head + R"({"speed": {"value": 2, "source": "s"}}}]})", "t"), InputError);
  EXPECT_THROW(parse_engine_family(head + R"({"kv_block_tokens": {"value": 16, "source": "s"}}}]})", "t"), InputError);
  // The properties this session added take only their listed values.
  const std::string first = R"({"platforms": {"value": ["nvidia"], "source": "s"}, "batching": {"value": "continuous", "source": "s"},
    "kv_cache_memory": {"value": {"fraction": 0.9, "of": "device"}, "source": "s"},
    "batch_limits": {"value": {"rule": "device_table", "rows": [{"max_num_seqs": 8}]}, "source": "s"},
    "kv_block_tokens": {"value": 16, "source": "s"}, "chunked_prefill": {"value": true, "source": "s"},
    "mixed_prefill_decode": {"value": true, "source": "s"}, "kv_reservation": {"value": "as_generated", "source": "s"},
    "kv_precisions": {"value": ["fp16"], "source": "s"}, "cuda_graphs": {"value": true, "source": "s"}, )";
  EXPECT_NO_THROW(parse_engine_family(head + first + R"("tp_allreduce": {"value": "nccl", "source": "s"}}}]})", "t"));
  EXPECT_THROW(parse_engine_family(head + first + R"("tp_allreduce": {"value": "ring", "source": "s"}}}]})", "t"), InputError);
  EXPECT_THROW(parse_engine_family(head + first + R"("attention_scores": {"value": "fused", "source": "s"}}}]})", "t"), InputError);
  EXPECT_THROW(parse_engine_family(head + first + R"("prefill_ubatch_tokens": {"value": -1, "source": "s"}}}]})", "t"), InputError);
  for (const EngineFamily& f : engine_catalog()) {
    for (const EngineProfile& p : f.versions) {
      EXPECT_GT(p.kv_memory_fraction, 0) << p.label();
      EXPECT_FALSE(p.facts.empty()) << p.label();
      for (const EngineFact& fact : p.facts) EXPECT_FALSE(fact.source.empty()) << p.label() << " " << fact.key;
    }
  }
}


// docs/engines.md is generated from the data: a stale page fails here
// (renew it with `gpuplan engines --docs > docs/engines.md`).
TEST(EngineProfiles, DocsPageIsTheData) {
  std::ifstream f(std::string(GPUPLAN_SOURCE_DIR) + "/docs/engines.md");
  ASSERT_TRUE(f) << "docs/engines.md missing";
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_TRUE(ss.str() == engines_markdown()) << "docs/engines.md is stale: run gpuplan engines --docs > docs/engines.md";
}


// TensorRT-LLM before XQA decodes with the masked MHA kernel, one thread block
// per (sequence, query head), each loading its KV head's cache
// (decoderMaskedMultiheadAttentionTemplate.h @v0.5.0: `hi_kv = hi / qhead_per_kv`);
// XQA (default in 1.0) loads each KV head once for its group. Llama-2-70B has
// 64 query heads over 8 KV heads: a decode step's KV traffic is 8× at 0.5–0.7.
TEST(Inference, TrtllmMaskedMhaReadsTheCacheOncePerQueryHead) {
  const ModelSpec m = find_model("llama-2-70b");
  const GpuSpec g = find_gpu("h100-sxm5-80gb");
  InferenceOptions o = fp16_weights_and_kv();
  o.tp = 2;
  InferenceOptions old_trt = o, new_trt = o;
  apply_engine_host(old_trt, engine_defaults("tensorrt-llm@0.5.0", m, g, o, 2048, 2048));
  apply_engine_host(new_trt, engine_defaults("tensorrt-llm@1.0", m, g, o, 2048, 2048));
  ASSERT_TRUE(old_trt.kv_read_per_query_head);
  ASSERT_FALSE(new_trt.kv_read_per_query_head);
  EXPECT_TRUE(engine_defaults("tensorrt-llm@0.7.1", m, g, o, 2048, 2048).kv_read_per_query_head);  // XQA only with TRTLLM_ENABLE_XQA=1
  const PassTime a = decode_step_time(m, g, old_trt, 64, 3072);
  const PassTime b = decode_step_time(m, g, new_trt, 64, 3072);
  // 64 sequences × 3,072 cached tokens × 80 layers × 2 (K, V) × 8 KV heads / 2 (TP) × 128 × 2 B, read once or 8 times.
  const double once = 64.0 * 3072 * 80 * 2 * (8.0 / 2) * 128 * 2;
  EXPECT_NEAR(b.kv_bytes, once, 1e-6 * once);
  EXPECT_NEAR(a.kv_bytes, 8 * once, 1e-6 * once);
  EXPECT_GT(a.attention_s, b.attention_s);
}


TEST(EngineProfiles, TgiReservesWholeSequencesAndCapsConcurrency) {
  // TGI v2.0.4 (data/engines/tgi.json), Llama-3.1-8B bf16 on one H100, 2,048 in / 512 out:
  // max_concurrent_requests 128; max_batch_prefill_tokens = min(131,072, 4,096) − 1 + 50 = 4,145;
  // blocks of 16 reserved for input + output at admission; prefills as passes of their own.
  // KV pool: 0.95 of what is free after the weights (16,060,522,496 B), the warm-up prefill's
  // activations (4,145 tokens · 2·(2·4096 + 4096 + 2·1024 + 3·14336) = 122,880 B = 509,337,600 B,
  // plus 128 rows of fp32 logits · 128,256 = 65,667,072 B) and the runtime (0.75 GiB context +
  // 0.5 GiB graphs = 1,342,177,280 B): 0.95 · (85,899,345,920 − 17,968,047,424) = 64,525,559,398.4 B.
  const ModelSpec m = find_model("llama-3.1-8b");
  InferenceOptions o = bf16_options();
  const GpuSpec& h100 = find_gpu("h100");
  const EngineDefaults v2 = engine_defaults("tgi@2.0.4", m, h100, o, 2048, 512);
  EXPECT_EQ(v2.max_batch_size, 128);
  EXPECT_EQ(v2.max_num_tokens, 4145);
  EXPECT_EQ(v2.tokens_per_block, 16);
  EXPECT_TRUE(v2.reserve_whole_sequence);
  EXPECT_FALSE(v2.mixed_prefill_decode);
  EXPECT_FALSE(v2.chunked_prefill);
  EXPECT_EQ(v2.kv_share_of, KvShareOf::kFreeAfterWeights);
  const MaxThroughputRun run = max_throughput_run(m, h100, o, v2, 2048, 512);
  ASSERT_TRUE(run.feasible) << infer_refusal_text(run.refusal).en;
  EXPECT_NEAR(run.memory.kv_budget_bytes, 64525559398.4, 1e3);
  // 2,560 tokens a sequence = 160 blocks of 131,072 · 16 B: ⌊KV / 2,097,152 / 160⌋ = 192 fit; the router's 128 bind.
  EXPECT_EQ(run.batch_kv_limit, 192);
  EXPECT_EQ(run.batch, 128);
  EXPECT_EQ(run.limited_by, "max_batch_size");
  // v3.0.0: 0.95 of the device less what the weights and warm-up hold; one-token blocks;
  // prefill chunks share the step with the decodes; an fp8 KV cache is offered.
  const EngineDefaults v3 = engine_defaults("tgi@3.0.0", m, h100, o, 2048, 512);
  EXPECT_EQ(v3.kv_share_of, KvShareOf::kDevice);
  EXPECT_DOUBLE_EQ(v3.kv_memory_fraction, 0.95);
  EXPECT_EQ(v3.tokens_per_block, 1);
  EXPECT_TRUE(v3.mixed_prefill_decode);
  EXPECT_EQ(v3.max_num_tokens, 4096);
  InferenceOptions fp8 = o;
  fp8.kv = Precision::kFp8;
  EXPECT_THROW(engine_defaults("tgi@2.0.4", m, h100, fp8, 2048, 512), InputError);
  EXPECT_NO_THROW(engine_defaults("tgi@3.0.0", m, h100, fp8, 2048, 512));
}

TEST(EngineProfiles, TgiAllReducesThroughNccl) {
  // Llama-3.1-70B at TP 4 on H100s, a decode step of 8 sequences: each of the 80 layers' two
  // all-reduces carries 8 · 8,192 · 2 = 131,072 B. TGI calls NCCL: 1.5 · 131,072 / 5.40 GB/s
  // (AZ-H100's bus bandwidth at 128 KiB) = 36.41 µs, 160 of them 5.825 ms; vLLM's custom
  // all-reduce is the bandwidth term plus two 6 µs hops.
  const ModelSpec m = find_model("llama-3.1-70b");
  const GpuSpec& h100 = find_gpu("h100");
  InferenceOptions o = bf16_options();
  o.tp = 4;
  apply_engine_host(o, engine_defaults("tgi@2.0.4", m, h100, o, 2048, 512));
  ASSERT_TRUE(o.tp_allreduce_nccl);
  EXPECT_NEAR(decode_step_time(m, h100, o, 8, 2048).tp_comm_s, 160 * 1.5 * 131072 / 5.40e9, 1e-9);
  InferenceOptions v = o;
  apply_engine_host(v, engine_defaults("vllm@0.10.2", m, h100, v, 2048, 512));
  EXPECT_FALSE(v.tp_allreduce_nccl);
  EXPECT_LT(decode_step_time(m, h100, v, 8, 2048).tp_comm_s, 0.5 * decode_step_time(m, h100, o, 8, 2048).tp_comm_s);
  // TensorRT-LLM built as its 0.5–0.7 documentation builds: NCCL; 1.0's AUTO strategy: custom kernels.
  EXPECT_TRUE(engine_defaults("tensorrt-llm@0.6.1", m, h100, o, 2048, 512).tp_allreduce_nccl);
  EXPECT_FALSE(engine_defaults("tensorrt-llm@1.0", m, h100, o, 2048, 512).tp_allreduce_nccl);
}

TEST(EngineProfiles, VllmOnRocmSendsFp8DecodeGemmsToHipblaslt) {
  // Llama-3.1-405B FP8 at TP 8 on MI300X. Per GPU a layer holds (2 · 16,384² + 2 · 16,384 · 1,024
  // + 3 · 16,384 · 53,248) / 8 = 398,458,880 B of FP8 weights, 126 layers 50,205,818,880 B. A decode
  // step of 2 sequences also reads and writes 2 · (k + n) activation bytes per GEMM (0.05% more).
  // vLLM 0.10.2 runs its skinny wvSplitKQ for one token row and hipBLASLt above
  // (rocm_skinny_fp8_tokens 1), which streams at 0.596 of 5.3 TB/s (blas_fp8_decode_hbm_efficiency)
  // where the skinny kernel streams at the decode model's 0.8: the step's GEMM reads take
  // 50.21e9 · (1/0.596 − 1/0.8) / 5.3e12 = 4.053 ms longer than an all-skinny engine's.
  const ModelSpec m = find_model("llama-3.1-405b");
  const GpuSpec& mi = find_gpu("mi300x");
  InferenceOptions o;
  o.weights = WeightFormat::kFp8;
  o.kv = Precision::kFp16;
  o.tp = 8;
  apply_engine_host(o, engine_defaults("vllm@0.10.2", m, mi, o, 128, 128));
  ASSERT_EQ(o.fp8_blas_above_tokens, 1);
  InferenceOptions skinny = o;
  skinny.fp8_blas_above_tokens = -1;
  const double weights = 126 * 398458880.0;
  const double longer = weights * (1 / 0.596 - 1 / 0.8) / 5.3e12;
  const double d2 = decode_step_time(m, mi, o, 2, 192).gemm_memory_s - decode_step_time(m, mi, skinny, 2, 192).gemm_memory_s;
  EXPECT_NEAR(d2, longer, 1e-3 * longer);
  // One token row: the skinny kernel, the same step as the all-skinny engine's.
  EXPECT_DOUBLE_EQ(decode_step_time(m, mi, o, 1, 192).gemm_memory_s, decode_step_time(m, mi, skinny, 1, 192).gemm_memory_s);
  // vLLM 0.9.1: wvSplitKQ traced away by torch.compile (PR #22281), hipBLASLt at every size.
  EXPECT_EQ(engine_defaults("vllm@0.9.1", m, mi, o, 128, 128).fp8_blas_above_tokens, 0);
  // The statement is about the ROCm build's FP8 GEMMs: on an H100, or with BF16 weights, nothing changes.
  EXPECT_EQ(engine_defaults("vllm@0.10.2", m, find_gpu("h100"), o, 128, 128).fp8_blas_above_tokens, -1);
  InferenceOptions bf16 = o, bf16_skinny = skinny;
  bf16.weights = bf16_skinny.weights = WeightFormat::kBf16;
  bf16.kv = bf16_skinny.kv = Precision::kBf16;
  EXPECT_DOUBLE_EQ(decode_step_time(m, mi, bf16, 2, 192).gemm_memory_s, decode_step_time(m, mi, bf16_skinny, 2, 192).gemm_memory_s);
  // RCCL at every size on ROCm before the custom all-reduce came to gfx94x (PR #14125, April 2025);
  // the CUDA build's custom all-reduce is unchanged.
  EXPECT_TRUE(engine_defaults("vllm@0.6.3", m, mi, o, 128, 128).tp_allreduce_nccl);
  EXPECT_FALSE(engine_defaults("vllm@0.6.3", m, find_gpu("h100"), o, 128, 128).tp_allreduce_nccl);
  EXPECT_FALSE(engine_defaults("vllm@0.9.1", m, mi, o, 128, 128).tp_allreduce_nccl);
}

TEST(EngineProfiles, MindieSizesItsPoolFromTheDeviceAndBatchesPrefillsApart) {
  // MindIE 2.3.0 on a 910B (64 GiB), Qwen2.5-7B bf16, 2,048 in / 512 out (data/engines/mindie.json):
  // maxBatchSize 200, maxPrefillTokens 8,192, 128-token blocks taken as tokens arrive, prefill and decode
  // batches apart. KV pool: 0.8 of the device less what the weights and the warm-up hold
  // (generator.py warm_up, NPU_MEMORY_FRACTION 0.8). The warm-up's activations: 8,192 tokens ·
  // 2·(2·3,584 + 3,584 + 2·512 + 3,584 + 3·18,944) = 144,384 B = 1,182,793,728 B, plus 200 rows of fp32
  // logits · 152,064 = 121,651,200 B; runtime 0.75 + 0.5 GiB = 1,342,177,280 B.
  const ModelSpec m = find_model("qwen2.5-7b");
  const GpuSpec& npu = find_gpu("910b");
  InferenceOptions o = bf16_options();
  const EngineDefaults e = engine_defaults("mindie", m, npu, o, 2048, 512);
  EXPECT_EQ(e.profile, "mindie@2.3.0");
  EXPECT_EQ(e.max_batch_size, 200);
  EXPECT_EQ(e.max_num_tokens, 8192);
  EXPECT_EQ(e.tokens_per_block, 128);
  EXPECT_FALSE(e.mixed_prefill_decode);
  EXPECT_FALSE(e.chunked_prefill);
  EXPECT_FALSE(e.reserve_whole_sequence);
  EXPECT_EQ(e.kv_share_of, KvShareOf::kDevice);
  const MaxThroughputRun run = max_throughput_run(m, npu, o, e, 2048, 512);
  ASSERT_TRUE(run.feasible) << infer_refusal_text(run.refusal).en;
  EXPECT_NEAR(run.memory.activation_bytes, 1182793728.0 + 121651200.0, 1.0);
  EXPECT_NEAR(run.memory.runtime_bytes, 1342177280.0, 1.0);
  EXPECT_NEAR(run.memory.kv_budget_bytes, 0.8 * npu.memory_bytes - run.memory.weights_bytes - 1182793728.0 - 121651200.0 - 1342177280.0, 1e3);
  // On an NVIDIA part MindIE does not run: vLLM's profile, said so.
  const EngineDefaults h = engine_defaults("mindie", m, find_gpu("h100"), o, 2048, 512);
  EXPECT_EQ(h.profile.rfind("vllm@", 0), 0u);
  EXPECT_EQ(h.fallback.reason, EngineFallback::kNotOnVendor);
}


TEST(EngineProfiles, Sglang043SetsItsPoolShareByTpDegree) {
  // SGLang v0.4.3.post2 (server_args.py l.194-223): mem_fraction_static 0.88 at TP 1, 0.87 at 2, 0.85
  // at 4, 0.81 at 8, 0.79 from 16; chunked_prefill_size 8192 and cuda_graph_max_bs 160 from 25,000 MiB
  // of GPU memory, below it 2048 and 8 (TP < 4) or 80.
  const ModelSpec m = find_model("llama-3.1-8b");
  InferenceOptions o = bf16_options();
  const EngineDefaults h1 = engine_defaults("sglang@0.4.3.post2", m, find_gpu("h100"), o, 2048, 512);
  EXPECT_EQ(h1.profile, "sglang@0.4.3.post2");
  EXPECT_DOUBLE_EQ(h1.kv_memory_fraction, 0.88);
  EXPECT_EQ(h1.max_num_tokens, 8192);
  EXPECT_FALSE(h1.mixed_prefill_decode);
  InferenceOptions tp8 = o;
  tp8.tp = 8;
  EXPECT_DOUBLE_EQ(engine_defaults("sglang@0.4.3.post2", find_model("llama-3.1-70b"), find_gpu("h100"), tp8, 2048, 512).kv_memory_fraction, 0.81);
  // An RTX 4090 (24 GiB = 24,576 MiB < 25,000): 2,048-token chunks.
  const EngineDefaults r = engine_defaults("sglang@0.4.3.post2", m, find_gpu("rtx4090"), o, 2048, 512);
  EXPECT_EQ(r.max_num_tokens, 2048);
  EXPECT_DOUBLE_EQ(r.kv_memory_fraction, 0.88);
  // The pool, sized before the runtime buffers, bounds the running requests: min(KV tokens // 2, the
  // request pool min(max(int(tokens / 131,072 · 512), 2048), 4096)) = 2,048 for Llama-3.1-8B on an H100.
  EXPECT_EQ(h1.max_batch_size, 2048);
  // The latest entry keeps its own rule (reserved memory by GPU size).
  EXPECT_EQ(engine_defaults("sglang", m, find_gpu("h100"), o, 2048, 512).profile, "sglang@0.5.8");
  // v0.4.6 (server_args.py l.223-238): an 80 GiB H100 (81,920 MiB, not above it) keeps the TP table;
  // an H20 (96 GiB = 98,304 MiB) takes (98,304 − 13,312) / 98,304 = 0.864583…, unrounded.
  EXPECT_DOUBLE_EQ(engine_defaults("sglang@0.4.6", m, find_gpu("h100"), o, 2048, 512).kv_memory_fraction, 0.88);
  EXPECT_NEAR(engine_defaults("sglang@0.4.6", m, find_gpu("h20"), o, 2048, 512).kv_memory_fraction, (98304.0 - 13312.0) / 98304.0, 1e-12);
}

}  // namespace
}  // namespace gpuplan
