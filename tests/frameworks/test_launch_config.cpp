#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "frameworks/launch_config.hpp"
#include "frameworks/megatron_built_params.hpp"

using namespace gpuplan;

namespace {

Layout gpt3_tp8_layout() {
  // Narayanan et al. 2021, Table 1: GPT-3 175B on 1,024 A100s, TP 8, PP 8 (interleaved), global batch 1,536.
  Layout l;
  l.tp = 8;
  l.pp = 8;
  l.dp = 16;
  l.vp = 2;
  l.micro_batch = 1;
  l.global_batch = 1536;
  l.seq_len = 2048;
  l.zero_stage = 1;
  l.sequence_parallel = true;
  l.recompute = Recompute::kSelective;
  return l;
}

}  // namespace

// The model the Megatron export builds is the one planned (issue 29): its
// parameter count, from the exported flags and the tokenizer's vocabulary,
// equals gpuplan's. At TP 8 Megatron's default padding (multiples of 128 × 8)
// made Llama 3's 128,256-token embedding and output 129,024 rows (+25.2M
// parameters); Qwen2.5's q/k/v biases alone once came with biases on every
// linear. Where TP does not divide the vocabulary (GPT-3's 50,257 at TP 8),
// the rows Megatron must add are exactly what megatron_vocab says.
TEST(LaunchConfig, TheMegatronExportBuildsThePlannedModel) {
  for (const char* id : {"llama-3.1-70b", "llama-3.1-8b", "qwen2.5-72b", "qwen3-32b", "mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3", "gpt3-175b"}) {
    const ModelSpec m = find_model(id);
    for (int tp : {1, 2, 4, 8}) {
      if (m.heads % tp != 0 || (!m.mla && m.kv_heads % tp != 0)) continue;
      Layout l = gpt3_tp8_layout();
      l.tp = tp;
      l.pp = 1;
      l.vp = 1;
      l.dp = 8;
      l.ep = m.moe ? 8 : 1;
      l.seq_len = 2048;
      const std::string a = megatron_arguments(m, l);
      const double built = megatron_built_params(a, m.vocab);
      const MegatronVocab v = megatron_vocab(m, l);
      const double padding = static_cast<double>(v.padded - m.vocab) * static_cast<double>(m.hidden) * (m.tied_embeddings ? 1 : 2);
      EXPECT_EQ(built, count_params(m).total + padding) << id << " at TP " << tp << "\n" << a;
      // Padding only where TP does not divide the vocabulary.
      EXPECT_EQ(v.padded != m.vocab, m.vocab % tp != 0) << id << " at TP " << tp;
    }
  }
  // The example by hand: 128,256 = 2^8 × 501, so at TP 8 the divisor is 32 (32 × 8 = 256).
  Layout l = gpt3_tp8_layout();
  EXPECT_NE(megatron_arguments(find_model("llama-3.1-70b"), l).find("--make-vocab-size-divisible-by 32\n"), std::string::npos);
  // GPT-3 at TP 8: 50,257 is odd, so divisor 1 and 50,264 rows (7 added); its 2,048 learned positions whatever the sequence.
  l.seq_len = 1024;
  const std::string g = megatron_arguments(find_model("gpt3-175b"), l);
  EXPECT_NE(g.find("--make-vocab-size-divisible-by 1\n"), std::string::npos) << g;
  EXPECT_NE(g.find("--max-position-embeddings 2048\n"), std::string::npos) << g;
  EXPECT_EQ(megatron_vocab(find_model("gpt3-175b"), l).padded, 50264);
}

TEST(LaunchConfig, DeepSpeedCarriesZeroMicroAndAccumulation) {
  Layout l = gpt3_tp8_layout();
  l.zero_stage = 3;
  l.offload_optimizer = true;
  const auto j = nlohmann::json::parse(deepspeed_config(l).dump());  // round-trips as JSON
  EXPECT_EQ(j["zero_optimization"]["stage"], 3);
  EXPECT_EQ(j["train_micro_batch_size_per_gpu"], 1);
  // 1,536 sequences / (16 data-parallel ranks × 1) = 96 accumulation steps.
  EXPECT_EQ(j["gradient_accumulation_steps"], 96);
  EXPECT_EQ(j["train_batch_size"], 1536);
  EXPECT_EQ(j["zero_optimization"]["offload_optimizer"]["device"], "cpu");
  EXPECT_TRUE(j["bf16"]["enabled"].get<bool>());
}

// Every key of every DeepSpeed export is one that version's config reader reads
// (data/exports/deepspeed-config-keys.json, from DeepSpeed's source at each
// profile version's tag by scripts/extract-deepspeed-config-keys.py): ZeRO 0–3
// with and without offload, recompute, fp16 and bf16, and where the version has
// them AutoTP and Ulysses. DeepSpeed before v0.6.0 reads no "bf16" section, so a
// bf16 export for 2021 or 0.5.0 names it; an fp16 one leaves the section out.
TEST(LaunchConfig, DeepSpeedExportsUseOnlyKeysTheirVersionReads) {
  const auto& versions = [] {
    for (const auto& f : framework_catalog()) {
      if (f.id == "deepspeed") return f.versions;
    }
    return std::vector<FrameworkProfile>{};
  }();
  ASSERT_EQ(versions.size(), 6u);
  for (const FrameworkProfile& v : versions) {
    const DeepSpeedConfigKeys keys = deepspeed_config_keys(v);
    const bool reads_bf16 = v.version != "2021" && v.version != "0.5.0";
    EXPECT_EQ(keys.bf16, reads_bf16) << v.label();
    for (int zero = 0; zero <= 3; ++zero) {
      for (const bool offload : {false, true}) {
        for (const Precision p : {Precision::kFp16, Precision::kBf16}) {
          Layout l;
          l.dp = 8;
          l.global_batch = 64;
          l.zero_stage = zero;
          l.offload_optimizer = offload && zero >= 1;
          l.offload_params = offload && zero == 3;
          l.recompute = offload ? Recompute::kFull : Recompute::kNone;
          l.precision = p;
          if (keys.autotp) l.tp = 2;
          if (keys.sequence_parallel) l.cp = 2;
          const nlohmann::json config = deepspeed_config(l, keys);
          const Reason unknown = deepspeed_config_unknown(config, v);
          if (p == Precision::kBf16 && !reads_bf16) {
            EXPECT_NE(unknown.en.find("does not read bf16"), std::string::npos) << v.label() << "\n" << config.dump(1);
          } else {
            EXPECT_TRUE(unknown.empty()) << v.label() << ": " << unknown.en << "\n" << config.dump(1);
          }
        }
      }
    }
  }
  // A key no version reads is named with the commit it was checked against.
  nlohmann::json bad = deepspeed_config(Layout{});
  bad["zero_optimization"]["stage3_prefetch_bucket"] = 1;
  const Reason r = deepspeed_config_unknown(bad, find_framework("deepspeed@0.16.4"));
  EXPECT_NE(r.en.find("zero_optimization.stage3_prefetch_bucket"), std::string::npos) << r.en;
  EXPECT_NE(r.en.find("at e2dc3eeb"), std::string::npos) << r.en;
}

TEST(LaunchConfig, MegatronCarriesEveryParallelDimension) {
  Layout l = gpt3_tp8_layout();
  const std::string a = megatron_arguments(find_model("gpt3-175b"), l);
  for (const char* s : {"--tensor-model-parallel-size 8", "--pipeline-model-parallel-size 8",
                        "--num-layers-per-virtual-pipeline-stage 6", "--context-parallel-size 1", "--micro-batch-size 1",
                        "--global-batch-size 1536", "--sequence-parallel", "--recompute-granularity selective",
                        "--use-distributed-optimizer", "--num-layers 96", "--hidden-size 12288"}) {
    EXPECT_NE(a.find(s), std::string::npos) << s << "\n" << a;
  }
  Layout moe = l;
  moe.ep = 8;
  moe.recompute = Recompute::kFull;
  const std::string b = megatron_arguments(find_model("mixtral-8x7b"), moe);
  EXPECT_NE(b.find("--expert-model-parallel-size 8"), std::string::npos);
  EXPECT_NE(b.find("--recompute-granularity full"), std::string::npos);
  EXPECT_NE(b.find("--num-query-groups 8"), std::string::npos);
  EXPECT_NE(b.find("--moe-grouped-gemm"), std::string::npos);
  EXPECT_EQ(b.find("--moe-layer-freq"), std::string::npos);  // every Mixtral layer is MoE
}

// DeepSeek-V3: 3 dense layers then 58 MoE, one 2,048-wide shared expert, a router bias, and MLA
// (q rank 1,536, kv rank 512, 128 + 64 query/key head dims, 128 value dims): its HF config.json.
TEST(LaunchConfig, MegatronCarriesMoeAndMlaDetails) {
  Layout l;
  l.tp = 8;
  l.pp = 16;
  l.ep = 8;
  l.dp = 8;
  const std::string a = megatron_arguments(find_model("deepseek-v3"), l);
  for (const char* s : {"--num-experts 256", "--moe-router-topk 8", "--moe-ffn-hidden-size 2048",
                        "--moe-shared-expert-intermediate-size 2048", "--moe-router-enable-expert-bias",
                        "--moe-layer-freq [0]*3+[1]*58", "--multi-latent-attention", "--q-lora-rank 1536",
                        "--kv-lora-rank 512", "--qk-head-dim 128", "--qk-pos-emb-head-dim 64", "--v-head-dim 128"}) {
    EXPECT_NE(a.find(std::string(s) + "\n"), std::string::npos) << s << "\n" << a;
  }
  EXPECT_EQ(a.find("--kv-channels"), std::string::npos);
  EXPECT_EQ(a.find("--num-query-groups"), std::string::npos);
}

// DeepSeek-V3's YaRN (config.json rope_scaling: factor 40, base context 4,096,
// beta_fast 32, beta_slow 1, mscale 1.0, mscale_all_dim 1.0) as each Megatron
// release builds it (launch_config.cpp mla_yarn): without --rotary-scaling-factor
// the arguments' default 1.0 would replace the factor, and from core 0.14 the
// --mscale-all-dim default 0.0 the model's 1.0.
TEST(LaunchConfig, MegatronCarriesDeepSeekYarnByRelease) {
  const ModelSpec ds = find_model("deepseek-v3");
  ASSERT_EQ(ds.rope_scaling, "yarn");
  ASSERT_TRUE(ds.rope_original_context.has_value() && ds.rope_mscale_all_dim.has_value());
  EXPECT_EQ(*ds.rope_original_context, 4096);
  EXPECT_EQ(*ds.rope_mscale_all_dim, 1.0);
  Layout l;
  l.tp = 8;
  l.pp = 16;
  l.ep = 8;
  l.dp = 8;
  l.seq_len = 2048;
  // Core 0.16: the rope type named, the factor and both scales as flags; the base context is the config's 4,096.
  const FrameworkProfile& v016 = find_framework("megatron-lm@0.16.0");
  const std::string a = megatron_arguments(ds, l, MegatronDialect::kMegatronLm, &v016);
  for (const char* s : {"--rope-type yarn", "--rotary-scaling-factor 40", "--mscale 1", "--mscale-all-dim 1", "--max-position-embeddings 2048"}) {
    EXPECT_NE(a.find(std::string(s) + "\n"), std::string::npos) << s << "\n" << a;
  }
  EXPECT_TRUE(megatron_arguments_gap(ds, l, MegatronDialect::kMegatronLm, &v016).empty());
  EXPECT_TRUE(megatron_arguments_unknown(a, v016).empty());
  // Core 0.12 reads the base context off --max-position-embeddings: 4,096 even for a 2,048-token plan; no --rope-type yet.
  const FrameworkProfile& v012 = find_framework("megatron-lm@0.12.0");
  const std::string b = megatron_arguments(ds, l, MegatronDialect::kMegatronLm, &v012);
  EXPECT_NE(b.find("--max-position-embeddings 4096\n"), std::string::npos) << b;
  EXPECT_EQ(b.find("--rope-type"), std::string::npos) << b;
  EXPECT_NE(b.find("--mscale-all-dim 1\n"), std::string::npos) << b;
  EXPECT_TRUE(megatron_arguments_unknown(b, v012).empty());
  // … so an 8,192-token plan cannot carry a 4,096-token base context there.
  Layout longer = l;
  longer.seq_len = 8192;
  const Reason r12 = megatron_arguments_gap(ds, longer, MegatronDialect::kMegatronLm, &v012);
  EXPECT_NE(r12.en.find("--max-position-embeddings"), std::string::npos) << r12.en;
  EXPECT_TRUE(megatron_arguments_gap(ds, longer, MegatronDialect::kMegatronLm, &v016).empty());
  // Core 0.10 has no --mscale flags and keeps the config's 0.707: DeepSeek-V3's 1.0 cannot be written,
  // DeepSeek-V2-Lite's 0.707 needs none.
  const FrameworkProfile& v010 = find_framework("megatron-lm@0.10.0");
  EXPECT_NE(megatron_arguments_gap(ds, l, MegatronDialect::kMegatronLm, &v010).en.find("--mscale"), std::string::npos);
  EXPECT_EQ(megatron_arguments_gap(find_model("deepseek-v2-lite"), l, MegatronDialect::kMegatronLm, &v010).en.find("YaRN"), std::string::npos);
  // From core 0.14 the base context is fixed at 4,096 for MLA: another is refused.
  ModelSpec other = ds;
  other.rope_original_context = 8192;
  EXPECT_NE(megatron_arguments_gap(other, l, MegatronDialect::kMegatronLm, &v016).en.find("4,096"), std::string::npos);
}

TEST(LaunchConfig, TorchtitanHasItsSections) {
  Layout l = gpt3_tp8_layout();
  l.zero_stage = 3;
  l.shard_group = 8;
  const std::string t = torchtitan_toml(find_model("llama-3.1-70b"), l);
  for (const char* s : {"[parallelism]", "data_parallel_shard_degree = 8", "data_parallel_replicate_degree = 2",
                        "tensor_parallel_degree = 8", "pipeline_parallel_degree = 8", "[activation_checkpoint]",
                        "mode = \"selective\"", "seq_len = 2048"}) {
    EXPECT_NE(t.find(s), std::string::npos) << s << "\n" << t;
  }
}

TEST(LaunchConfig, TorchtitanBatchesFollowThePipeline) {
  const ModelSpec llama = find_model("llama-3.1-70b");  // 80 layers
  Layout l = gpt3_tp8_layout();
  l.vp = 5;
  // With PP the rank's share of the step, 1,536 / 16 = 96 sequences, goes through the pipeline at once in
  // micro-batches of 1 (96 micro-batches, no further accumulation); 80 layers / (8 × 5) = 2 per stage.
  std::string t = torchtitan_toml(llama, l);
  for (const char* s : {"local_batch_size = 96", "global_batch_size = 1536", "pipeline_parallel_microbatch_size = 1",
                        "pipeline_parallel_schedule = \"Interleaved1F1B\"", "pipeline_parallel_layers_per_stage = 2",
                        "name = \"llama3\"", "flavor = \"70B\""}) {
    EXPECT_NE(t.find(s), std::string::npos) << s << "\n" << t;
  }
  // Without PP local_batch_size is the micro-batch; torchtitan accumulates 1,536 / (2 × 16) = 48 of them.
  l.pp = 1;
  l.vp = 1;
  l.micro_batch = 2;
  t = torchtitan_toml(llama, l);
  EXPECT_NE(t.find("local_batch_size = 2\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("pipeline_parallel_microbatch_size"), std::string::npos) << t;
  // ZeRO-1: FSDP over all 16 data-parallel ranks, parameters kept after the forward (ZeRO-2-like memory).
  l.zero_stage = 1;
  t = torchtitan_toml(llama, l);
  EXPECT_NE(t.find("data_parallel_shard_degree = 16"), std::string::npos) << t;
  EXPECT_NE(t.find("fsdp_reshard_after_forward = \"never\""), std::string::npos) << t;
  // torchtitan has no fp16 mixed precision: bfloat16 is written and the change is said in a comment.
  l.precision = Precision::kFp16;
  t = torchtitan_toml(llama, l);
  EXPECT_NE(t.find("mixed_precision_param = \"bfloat16\""), std::string::npos) << t;
  EXPECT_NE(t.find("# planned in fp16"), std::string::npos) << t;
}

TEST(LaunchConfig, MegatronShardsZero2And3WithMegatronFsdp) {
  Layout l = gpt3_tp8_layout();
  l.pp = 1;
  l.vp = 1;
  l.dp = 128;
  l.zero_stage = 2;
  const ModelSpec gpt3 = find_model("gpt3-175b");
  std::string a = megatron_arguments(gpt3, l);
  for (const char* s : {"--use-distributed-optimizer\n", "--use-megatron-fsdp\n", "--data-parallel-sharding-strategy optim_grads\n",
                        "--overlap-grad-reduce\n", "--overlap-param-gather\n"}) {
    EXPECT_NE(a.find(s), std::string::npos) << s << "\n" << a;
  }
  l.zero_stage = 3;
  a = megatron_arguments(gpt3, l);
  EXPECT_NE(a.find("--data-parallel-sharding-strategy optim_grads_params\n"), std::string::npos) << a;
  // ZeRO-0: plain data parallelism, nothing sharded.
  l.zero_stage = 0;
  a = megatron_arguments(gpt3, l);
  EXPECT_EQ(a.find("--use-distributed-optimizer"), std::string::npos) << a;
  EXPECT_EQ(a.find("sharding-strategy"), std::string::npos) << a;
  EXPECT_NE(a.find("--overlap-grad-reduce\n"), std::string::npos) << a;
}

// MindSpeed-LLM 2.1.0 reads Megatron core_r0.8.0's arguments plus its own
// (Ascend/MindSpeed-LLM@v2.1.0 mindspeed_llm/training/arguments.py): an uneven
// split is --num-layer-list (core_r0.8.0 has no --decoder-first-pipeline-num-layers),
// the NPU fused kernels are named, and CP is the ring gpuplan timed.
TEST(LaunchConfig, MindSpeedDialectWritesItsOwnFlags) {
  const ModelSpec llama = find_model("llama-2-7b");  // 32 layers, RMSNorm, SwiGLU, RoPE
  Layout l;
  l.tp = 2;
  l.pp = 3;  // 32 layers over 3 stages: uneven
  l.cp = 2;
  l.dp = 1;
  l.micro_batch = 1;
  l.global_batch = 12;
  l.seq_len = 4096;
  l.zero_stage = 1;
  l.sequence_parallel = true;
  l.attention = AttentionKernel::kNpuFusion;
  EXPECT_EQ(megatron_dialect(find_framework("mindspeed")), MegatronDialect::kMindSpeedLlm);
  EXPECT_EQ(megatron_dialect(find_framework("megatron-core")), MegatronDialect::kMegatronLm);
  const std::string a = megatron_arguments(llama, l, MegatronDialect::kMindSpeedLlm);
  for (const char* s : {"--context-parallel-algo megatron_cp_algo", "--use-flash-attn", "--use-mcore-models", "--use-fused-rmsnorm",
                        "--use-fused-swiglu", "--use-fused-rotary-pos-emb", "--use-distributed-optimizer", "--sequence-parallel"}) {
    EXPECT_NE(a.find(s), std::string::npos) << s << "\n" << a;
  }
  EXPECT_EQ(a.find("pipeline-num-layers"), std::string::npos) << a;
  EXPECT_EQ(a.find("account-for"), std::string::npos) << a;
  // The list names every stage and adds up to the model's 32 layers.
  const auto at = a.find("--num-layer-list ");
  ASSERT_NE(at, std::string::npos) << a;
  const std::string list = a.substr(at + 17, a.find('\n', at) - at - 17);
  int sum = 0, stages = 0;
  for (size_t i = 0; i <= list.size();) {
    const size_t comma = std::min(list.find(',', i), list.size());
    sum += std::stoi(list.substr(i, comma - i));
    ++stages;
    i = comma + 1;
  }
  EXPECT_EQ(stages, 3) << list;
  EXPECT_EQ(sum, 32) << list;
  // Megatron-LM's own dialect keeps its flags for the same layout.
  const std::string b = megatron_arguments(llama, l);
  EXPECT_EQ(b.find("--num-layer-list"), std::string::npos);
  EXPECT_EQ(b.find("--use-fused-rmsnorm"), std::string::npos);
  // Interleaving that needs unequal chunks has no MindSpeed-LLM 2.1.0 flags: named, not written.
  l.vp = 2;  // 32 layers into 3 × 2 chunks
  EXPECT_NE(megatron_arguments_gap(llama, l, MegatronDialect::kMindSpeedLlm).en.find("equal chunks"), std::string::npos);
  EXPECT_NE(megatron_arguments_gap(llama, l, MegatronDialect::kMindSpeedLlm).zh.find("等长"), std::string::npos);
  EXPECT_TRUE(megatron_arguments_gap(llama, l, MegatronDialect::kMegatronLm).empty());
  l.pp = 4;  // 32 = 4 × 2 × 4
  EXPECT_TRUE(megatron_arguments_gap(llama, l, MegatronDialect::kMindSpeedLlm).empty());
}
