// Framework profiles: the data loads, versions resolve, defaults apply in one
// place, the planner and the exporters respect what a framework can run, and
// docs/frameworks.md is the data's own table.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gpuplan/error.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/step_time.hpp"
#include "report/frameworks_report.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "run_binary.hpp"
#include "frameworks/framework_words.hpp"

namespace gpuplan {
namespace {

// A profile file the loader must refuse with one sentence naming `word`.
void expect_profile_refused(const std::string& json_text, const std::string& word) {
  try {
    parse_framework_family(json_text, "x.json");
    ADD_FAILURE() << "accepted: " << json_text;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
  }
}

TEST(Frameworks, EveryProfileLoadsWithASourceForEveryFact) {
  const auto& cat = framework_catalog();
  // The stacks issue 12 names, and generic for a user who names none.
  // Colossal-AI and MindSpeed-LLM: the stacks Chinese teams run on H800/A800 and the Ascend 910B.
  for (const char* id : {"generic", "megatron-lm", "nemo", "megatron-bridge", "deepspeed", "megatron-deepspeed", "torchtitan",
                         "llm-foundry", "olmo-core", "lit-gpt", "torchtune", "hf-trainer", "colossalai", "mindspeed-llm", "maxtext",
                         "hai-llm"}) {
    EXPECT_TRUE(std::any_of(cat.begin(), cat.end(), [&](const FrameworkFamily& f) { return f.id == id; })) << id;
  }
  for (const FrameworkFamily& fam : cat) {
    ASSERT_FALSE(fam.versions.empty()) << fam.id;
    for (const FrameworkProfile& v : fam.versions) {
      EXPECT_EQ(v.facts.size(), 72u) << v.label();  // 25 required + 47 optional properties (data/frameworks/README.md)
      for (const ProfileFact& f : v.facts) EXPECT_FALSE(f.source.empty()) << v.label() << " " << f.key;
      EXPECT_TRUE(v.supports_zero(v.zero_default)) << v.label();
    }
  }
}

TEST(Frameworks, VersionsResolveByNameOrDate) {
  EXPECT_EQ(find_framework("torchtitan@2024-12").version, "2024-12");
  // megatron-core is an alias; July 2024 is after core 0.8.0's date, before 0.9.0's.
  const FrameworkProfile& mc = find_framework("megatron-core@2024-07");
  EXPECT_EQ(mc.id, "megatron-lm");
  EXPECT_EQ(mc.version, "0.8.0");
  EXPECT_EQ(find_framework("megatron-core@0.8.0").version, "0.8.0");
  EXPECT_EQ(find_framework("nemo@24.07").version, "24.07");
  // A year is its December: the 2021 and 2022 entries of Megatron-LM.
  EXPECT_EQ(find_framework("megatron-lm@2021").version, "2021");
  EXPECT_EQ(find_framework("megatron-lm@2022").version, "2022");
  // No version: the newest entry.
  const FrameworkFamily* titan = nullptr;
  for (const auto& f : framework_catalog()) if (f.id == "torchtitan") titan = &f;
  ASSERT_NE(titan, nullptr);
  EXPECT_EQ(find_framework("torchtitan").version, titan->versions.back().version);
  // Before the first entry: the first.
  EXPECT_EQ(find_framework("torchtitan@2023-01").version, titan->versions.front().version);
  // Unknown names and versions name the field and what is allowed.
  try {
    find_framework("pytorch-lightning-9000", "train.framework");
    ADD_FAILURE() << "unknown framework accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "train.framework");
    EXPECT_NE(std::string(e.what()).find("torchtitan"), std::string::npos) << e.what();
  }
  EXPECT_THROW(find_framework("torchtitan@latest-nightly"), InputError);
}

TEST(Frameworks, AReleaseWithoutAnEntryTakesTheLatestReleaseAtOrBeforeIt) {
  // Megatron-LM's entries: 2021, 2022 (dated), then 0.5.0, 0.6.0, 0.8.0, ...
  // (release-numbered, data/frameworks/megatron-lm.json).
  EXPECT_EQ(find_framework("megatron-core@0.6.0").version, "0.6.0");  // its own entry
  EXPECT_EQ(find_framework("megatron-core@0.7.0").version, "0.6.0");  // 0.6.0 ≤ 0.7.0 < 0.8.0
  EXPECT_EQ(find_framework("megatron-core@0.8.1").version, "0.8.0");
  EXPECT_EQ(find_framework("megatron-core@0.13.1").version, "0.13.0");
  EXPECT_EQ(find_framework("megatron-core@0.12.1").version, "0.12.0");
  // Older than the first release entry: the entry before it, the code up to 0.5.0.
  EXPECT_EQ(find_framework("megatron-core@0.3.0").version, "2022");
  // A dated snapshot that names its release (llm-foundry 2023 follows v0.4.0):
  // 0.5.0 takes it; 0.3.0 is older than every release entry and it is the
  // family's first, so the earliest.
  EXPECT_EQ(find_framework("llm-foundry@0.5.0").version, "2023");
  EXPECT_EQ(find_framework("llm-foundry@0.3.0").version, "2023");
  EXPECT_EQ(find_framework("llm-foundry@0.3.0").release, "0.4.0");
  EXPECT_EQ(find_framework("megatron-core@0.6.0").release, "0.6.0");
  EXPECT_TRUE(find_framework("megatron-lm@2022").release.empty());
  // What reads as a date takes the date rule instead (validate flags only releases).
  EXPECT_EQ(framework_version_date("2021"), "2021-12");
  EXPECT_EQ(framework_version_date("24.07"), "2024-07");
  EXPECT_EQ(framework_version_date("0.7.0"), "");
  EXPECT_EQ(framework_version_date("0.6.0"), "");
  // A snapshot's release must be a release number.
  const std::string bad = R"({"id": "x", "name": "x", "versions": [{"version": "2023", "date": "2023-12", "release": "latest", "source": "s",
    "properties": {}}]})";
  expect_profile_refused(bad, "release");
}

TEST(Frameworks, MegatronCore060RunsTransformerEngineLayers) {
  // core_v0.6.0 made --transformer-impl transformer_engine the default (was
  // local at 0.5.0): TE's DotProductAttention, cuDNN fused attention on Hopper
  // (TE v1.5), no s×s scores; the loss stays Megatron's unfused vocab-parallel one.
  EXPECT_EQ(find_framework("megatron-core@0.5.0").attention, AttentionKernel::kMaterialised);
  EXPECT_EQ(find_framework("megatron-core@0.6.0").attention, AttentionKernel::kCudnn);
  EXPECT_EQ(find_framework("megatron-core@0.6.0").loss, LossKernel::kVocabParallel);
}

TEST(Frameworks, AFileMissingAPropertyIsRefusedNamingIt) {
  const std::string text = R"({"id": "x", "name": "x", "versions": [{"version": "1", "date": "2024-01", "source": "s",
    "properties": {"parallel": {"value": ["dp"], "source": "s"}}}]})";
  try {
    parse_framework_family(text, "x.json");
    ADD_FAILURE() << "incomplete profile accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("zero_stages"), std::string::npos) << e.what();
  }
  // A value outside the allowed list is refused with the list.
  const std::string bad = R"({"id": "x", "name": "x", "versions": [{"version": "1", "date": "2024-01", "source": "s",
    "properties": {"attention": {"value": "fast", "source": "s"}}}]})";
  EXPECT_THROW(parse_framework_family(bad, "x.json"), InputError);
}

// perf_recipes (Megatron-Bridge's benchmark presets): release keys are dated,
// GPU keys catalog ids as written, switches the two the step model reads.
TEST(Frameworks, PerfRecipesAreChecked) {
  auto file = [](const std::string& value) {
    return R"({"id": "x", "name": "x", "versions": [{"version": "1", "date": "2024-01", "source": "s", "properties": {"perf_recipes": {"value": )" +
           value + R"(, "source": "s"}}}]})";
  };
  expect_profile_refused(file(R"({"v1": {"deepseek-v3": {"h100-sxm5-80gb": {"moe_a2a_overlap": true}}}})"), "dated releases");
  expect_profile_refused(file(R"({"25.09": {"deepseek-v3": {"h100": {"moe_a2a_overlap": true}}}})"), "not a GPU id");
  expect_profile_refused(file(R"({"25.09": {"deepseek-v3": {"h100-sxm5-80gb": {"cuda_graphs": true}}}})"), "unknown switch");
  expect_profile_refused(file(R"({"25.09": {"deepseek-v3": {"h100-sxm5-80gb": {"moe_dispatch": "deepep"}}}})"), "moe_dispatch");
}

TEST(Frameworks, LossBytesPerLogitAreReadAndChecked) {
  // torchtitan's versions as their code reads (data/frameworks/torchtitan.json):
  // 2024-04 keeps the fp32 pred through the backward (16, with TP 20); 2024-12
  // deletes the bf16 pred first (12, with TP 16) and pipelining keeps the last
  // stage's outputs until return_outputs=False (2025-10).
  const FrameworkProfile& t04 = find_framework("torchtitan@2024-04");
  EXPECT_EQ(t04.loss_bytes_per_logit, 16);
  EXPECT_EQ(t04.loss_bytes_per_logit_tp.value_or(0), 20);
  const FrameworkProfile& t12 = find_framework("torchtitan@2024-12");
  EXPECT_EQ(t12.loss_bytes_per_logit, 12);
  EXPECT_EQ(t12.loss_bytes_per_logit_tp.value_or(0), 16);
  EXPECT_TRUE(t12.pipeline_keeps_outputs);
  EXPECT_FALSE(find_framework("torchtitan@2025-11").pipeline_keeps_outputs);
  // Not stated: the generic 10, with TP the same.
  const FrameworkProfile& mcore = find_framework("megatron-core@0.8.0");
  EXPECT_EQ(mcore.loss_bytes_per_logit, 10);
  EXPECT_FALSE(mcore.loss_bytes_per_logit_tp.has_value());
  // torchtitan from 2025-04 compiles its loss with the model: 4 B per logit
  // without TP; earlier versions never compile it.
  EXPECT_EQ(find_framework("torchtitan@2025-06").loss_bytes_per_logit_compiled.value_or(0), 4);
  EXPECT_FALSE(find_framework("torchtitan@2024-12").loss_bytes_per_logit_compiled.has_value());
  // Fewer bytes than the bf16 logits themselves is refused, naming the property.
  const std::string bad = R"({"id": "x", "name": "x", "versions": [{"version": "1", "date": "2024-01", "source": "s",
    "properties": {"loss_bytes_per_logit": {"value": 1, "source": "s"}}}]})";
  expect_profile_refused(bad, "loss_bytes_per_logit");
}

TEST(Frameworks, DefaultsApplyInOnePlace) {
  Layout l;
  l.tp = 8;
  l.dp = 4;
  // torchtitan's TP always shards norms and activations along the sequence
  // (SequenceParallel in its parallelize plan): a stated "off" does not turn it off.
  RunSettings off;
  off.sequence_parallel = false;
  apply_framework(find_framework("torchtitan@2024-12"), off, l);
  EXPECT_TRUE(l.sequence_parallel);
  EXPECT_EQ(framework_cannot_run(find_framework("torchtitan@2024-12"), l), "");  // tp 8 with SP, FSDP: runnable
  l.sequence_parallel = false;  // what torchtitan never runs
  EXPECT_NE(framework_cannot_run(find_framework("torchtitan@2024-12"), l).find("sequence parallelism"), std::string::npos);
  l.sequence_parallel = true;
  // Megatron-LM in 2021: the fused (materialised) softmax, no sequence parallelism.
  apply_framework(find_framework("megatron-lm@2021"), RunSettings{}, l);
  EXPECT_TRUE(keeps_attention_scores(l));
  EXPECT_FALSE(l.sequence_parallel);
  EXPECT_FALSE(l.eager);
  // Its backward TP all-reduce ran synchronously (v2.5 predates the async one,
  // 6e1bde1e 2021-09-02); from 2022 on it runs under the weight-gradient GEMM.
  EXPECT_FALSE(l.tp_grad_comm_async);
  apply_framework(find_framework("megatron-lm@2022"), RunSettings{}, l);
  EXPECT_TRUE(l.tp_grad_comm_async);
  // Stating the overlap on an optional-SP framework turns SP on (Megatron refuses one without the other).
  RunSettings overlap;
  overlap.tp_comm_overlap = true;
  apply_framework(find_framework("megatron-core@0.8.0"), overlap, l);
  EXPECT_TRUE(l.tp_comm_overlap);
  EXPECT_TRUE(l.sequence_parallel);
  // Eager PyTorch unless torch.compile is stated (torchtitan runs eager by default).
  Layout t;
  t.dp = 8;
  t.zero_stage = 3;
  apply_framework(find_framework("torchtitan@2024-12"), RunSettings{}, t);
  EXPECT_TRUE(t.eager);
  RunSettings compiled;
  compiled.compile = true;
  apply_framework(find_framework("torchtitan@2024-12"), compiled, t);
  EXPECT_FALSE(t.eager);
  // --eager forces unfused element-wise ops even on a stack that fuses them,
  // and the planner's candidates carry it (a regression once lost it).
  RunSettings eager;
  eager.force_eager = true;
  Layout meg;
  apply_framework(find_framework("megatron-core@0.8.0"), eager, meg);
  EXPECT_TRUE(meg.eager);
  PlanRequest r;
  r.model = find_model("llama-3.1-8b");
  r.gpus = {find_gpu("h100")};
  r.gpu_counts = {8};
  r.seq_len = 4096;
  r.global_batch = 64;
  r.settings = eager;
  for (const Layout& c : enumerate_layouts(r, r.gpus[0], 8)) ASSERT_TRUE(c.eager);
  // torchtune keeps no fp32 master copy (pure bf16 recipes).
  Layout tune;
  apply_framework(find_framework("torchtune@2024"), RunSettings{}, tune);
  EXPECT_TRUE(tune.pure_bf16);
}

TEST(Frameworks, CannotRunSaysWhy) {
  Layout l;
  l.pp = 2;
  l.dp = 4;
  l.zero_stage = 3;
  const std::string why = framework_cannot_run(find_framework("torchtitan@2024-04"), l);
  EXPECT_NE(why.find("pipeline"), std::string::npos) << why;
  l.pp = 1;
  l.zero_stage = 1;
  EXPECT_NE(framework_cannot_run(find_framework("torchtitan@2024-12"), l).find("ZeRO stage 1"), std::string::npos);
  l.zero_stage = 3;
  EXPECT_EQ(framework_cannot_run(find_framework("torchtitan@2024-12"), l), "");
}

// The planner never returns a layout its framework cannot run.
TEST(Frameworks, PlannerSearchesOnlyWhatTheFrameworkRuns) {
  for (const char* fw : {"torchtitan@2024-04", "torchtitan@2024-12", "llm-foundry@2024-04", "megatron-lm@2021", "deepspeed@2021"}) {
    PlanRequest r;
    r.model = find_model("llama-3.1-70b");
    r.gpus = {find_gpu("h100")};
    r.gpu_counts = {64};
    r.seq_len = 4096;
    // 128, not 256: torchtitan 2024-04 cannot accumulate gradients, so its
    // micro-batch is the global batch / dp, and at 256 its loss (20 B per
    // local logit with TP, 16 without) leaves no layout of 64 H100 that fits.
    r.global_batch = 128;
    r.framework = &find_framework(fw);
    r.top_k = 100;
    const PlanResult res = plan(r);
    ASSERT_FALSE(res.groups.front().top.empty()) << fw;
    for (const PlanCandidate& c : res.groups.front().top) EXPECT_EQ(framework_cannot_run(*r.framework, c.layout), "") << fw;
    for (const Layout& l : enumerate_layouts(r, r.gpus[0], 64)) {
      ASSERT_EQ(framework_cannot_run(*r.framework, l), "") << fw << " tp " << l.tp << " pp " << l.pp << " zero " << l.zero_stage;
    }
  }
  // torchtitan@2024-04 had FSDP and TP only: every layout is ZeRO-3 without pipelining.
  PlanRequest r;
  r.model = find_model("llama-3.1-8b");
  r.gpus = {find_gpu("h100")};
  r.gpu_counts = {64};
  r.seq_len = 8192;
  r.framework = &find_framework("torchtitan@2024-04");
  for (const Layout& l : enumerate_layouts(r, r.gpus[0], 64)) {
    EXPECT_EQ(l.pp, 1);
    EXPECT_EQ(l.zero_stage, 3);
    EXPECT_EQ(l.cp, 1);
  }
}

// Colossal-AI, read at hpcaitech/ColossalAI@v0.3.6 and @v0.4.9 (data/frameworks/colossalai.json).
TEST(Frameworks, ColossalAiProfileStatesItsCitedDefaults) {
  // The names people type resolve to the one profile; a date picks the version.
  for (const char* name : {"colossalai", "colossal", "Colossal-AI", "cai", "colossal_ai"}) EXPECT_EQ(find_framework(name).id, "colossalai") << name;
  EXPECT_EQ(find_framework("cai").version, "0.4.9");
  EXPECT_EQ(find_framework("colossalai@2024-06").version, "0.3.6");
  const FrameworkProfile& old = find_framework("colossalai@0.3.6");
  // hybrid_parallel_plugin.py: zero_stage in (0, 1, 2), default 0; Gemini is its ZeRO-3.
  EXPECT_EQ(old.zero_stages, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(old.zero_default, 0);
  // "zero stage must be 0 or 1 when using pipeline parallelism".
  EXPECT_EQ(old.zero_max_with_pp, 1);
  ASSERT_NE(old.fact("zero_max_with_pp"), nullptr);
  EXPECT_NE(old.fact("zero_max_with_pp")->source.find("zero stage must be 0 or 1"), std::string::npos);
  // enable_flash_attention defaults False and the example pins torch <= 2.0: HF's eager attention.
  EXPECT_EQ(old.attention, AttentionKernel::kMaterialised);
  EXPECT_EQ(old.elementwise, ElementwiseMode::kEager);  // enable_fused_normalization = False
  EXPECT_FALSE(old.cp);                                 // split_gather SP only, within TP
  EXPECT_EQ(old.export_format, ExportFormat::kNone);    // configured in Python (Booster(plugin=...))
  const FrameworkProfile& now = find_framework("colossalai@0.4.9");
  EXPECT_TRUE(now.cp);                                  // sequence_parallelism_mode all_to_all / ring_attn
  EXPECT_EQ(now.attention, AttentionKernel::kSdpa);     // transformers==4.39.3: _attn_implementation 'sdpa'
  EXPECT_EQ(now.pipeline_schedules, (std::vector<std::string>{"1f1b", "interleaved", "zero_bubble"}));  // pp_style 1f1b/interleaved/zbv
  EXPECT_EQ(now.fp8_scaling, Fp8Scaling::kDynamic);     // cast_to_fp8: per-tensor amax each call
  EXPECT_EQ(now.zero_max_with_pp, 1);                   // inherited from 0.3.6
  // A pipelined ZeRO-2 layout is refused with the reason; ZeRO-1 with PP and ZeRO-3 without run.
  Layout l;
  l.tp = 2;
  l.pp = 2;
  l.dp = 4;
  l.zero_stage = 2;
  EXPECT_NE(framework_cannot_run(now, l).find("at most ZeRO stage 1 with pipeline parallelism"), std::string::npos);
  l.zero_stage = 1;
  EXPECT_EQ(framework_cannot_run(now, l), "");
  l.pp = 1;
  l.dp = 8;
  l.zero_stage = 3;
  EXPECT_EQ(framework_cannot_run(now, l), "");
  // ZeRO-3 without pipelining stays allowed for the other stacks' pipelined layouts (default 3).
  EXPECT_EQ(find_framework("megatron-core@0.12.0").zero_max_with_pp, 3);
}

// MindSpeed-LLM 2.1.0 on MindSpeed core_r0.8.0 and Megatron-LM core_r0.8.0 (data/frameworks/mindspeed-llm.json).
TEST(Frameworks, MindSpeedProfileStatesItsCitedDefaults) {
  for (const char* name : {"mindspeed", "mindspeed-llm", "MindSpeed_LLM", "modellink", "ModelLink"}) {
    EXPECT_EQ(find_framework(name).id, "mindspeed-llm") << name;
  }
  const FrameworkProfile& ms = find_framework("mindspeed@2.1.0");
  // --use-flash-attn in all 133 shipped pretrain scripts -> torch_npu.npu_fusion_attention.
  EXPECT_EQ(ms.attention, AttentionKernel::kNpuFusion);
  EXPECT_NE(ms.fact("attention")->source.find("npu_fusion_attention"), std::string::npos);
  EXPECT_EQ(parse_attention_kernel("npu_fusion", "--attention"), AttentionKernel::kNpuFusion);
  EXPECT_STREQ(attention_kernel_name(AttentionKernel::kNpuFusion), "npu_fusion");
  EXPECT_EQ(ms.zero_stages, (std::vector<int>{0, 1}));  // --use-distributed-optimizer; no ZeRO-3 reachable
  EXPECT_EQ(ms.zero_default, 1);                         // 102 of 133 scripts
  EXPECT_TRUE(ms.sequence_parallel_default);             // 126 of 133 scripts
  EXPECT_EQ(ms.grad_accum_dtype, GradAccumDtype::kFp32); // bf16 forces fp32 main_grad (Megatron core_r0.8.0)
  EXPECT_EQ(ms.cpu_offload, (std::vector<std::string>{"optimizer", "activations"}));  // --swap-optimizer, --swap-attention
  EXPECT_EQ(ms.fp8_gemms, Fp8Gemms::kNone);
  EXPECT_EQ(ms.export_format, ExportFormat::kMegatron);
  // Its kernel keeps no s×s scores; TP turns sequence parallelism on.
  Layout l;
  l.tp = 8;
  l.dp = 2;
  l.zero_stage = 1;
  apply_framework(ms, RunSettings{}, l);
  EXPECT_FALSE(keeps_attention_scores(l));
  EXPECT_TRUE(l.sequence_parallel);
  EXPECT_FALSE(l.eager);  // --use-fused-rmsnorm / swiglu / rotary
  l.zero_stage = 3;
  EXPECT_NE(framework_cannot_run(ms, l).find("ZeRO stage 3"), std::string::npos);
}

// A 7B plan on each stack returns only layouts it can run: Colossal-AI never
// pipelines above ZeRO-1, MindSpeed never shards parameters and always runs
// npu_fusion_attention on the 910B.
TEST(Frameworks, ChineseStacksPlanOnly7bLayoutsTheyRun) {
  struct Case { const char* fw; const char* gpu; };
  for (const Case& c : {Case{"colossalai@0.4.9", "h800"}, Case{"colossalai@0.3.6", "a800"}, Case{"mindspeed", "ascend910b-64gb"}}) {
    PlanRequest r;
    r.model = find_model("llama-2-7b");
    r.gpus = {find_gpu(c.gpu)};
    r.gpu_counts = {16};
    r.seq_len = 4096;
    r.global_batch = 128;
    r.zero_stage = std::nullopt;
    r.framework = &find_framework(c.fw);
    r.top_k = 20;
    bool any_pipelined = false;
    for (const Layout& l : enumerate_layouts(r, r.gpus[0], 16)) {
      ASSERT_EQ(framework_cannot_run(*r.framework, l), "") << c.fw << " tp " << l.tp << " pp " << l.pp << " zero " << l.zero_stage;
      if (l.pp > 1) {
        any_pipelined = true;
        EXPECT_LE(l.zero_stage, r.framework->zero_max_with_pp) << c.fw;
      }
      EXPECT_LE(l.zero_stage, r.framework->zero_stages.back()) << c.fw;
    }
    EXPECT_TRUE(any_pipelined) << c.fw;  // the pipelined part of the space is searched, within its ZeRO bound
    const PlanResult res = plan(r);
    ASSERT_FALSE(res.groups.front().top.empty()) << c.fw;
    for (const PlanCandidate& p : res.groups.front().top) {
      EXPECT_EQ(framework_cannot_run(*r.framework, p.layout), "") << c.fw;
      if (std::string(c.fw) == "mindspeed") EXPECT_EQ(p.layout.attention, AttentionKernel::kNpuFusion);
    }
  }
  // Pinned ZeRO-2 with PP 2 on Colossal-AI is refused, naming the bound.
  PlanRequest r;
  r.model = find_model("llama-2-7b");
  r.gpus = {find_gpu("h800")};
  r.gpu_counts = {16};
  r.seq_len = 4096;
  r.global_batch = 128;
  r.pp = 2;
  r.zero_stage = 2;
  r.framework = &find_framework("colossalai");
  EXPECT_TRUE(enumerate_layouts(r, r.gpus[0], 16).empty());
  try {
    plan(r);
    ADD_FAILURE() << "pipelined ZeRO-2 planned on Colossal-AI";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "zero");
    EXPECT_NE(std::string(e.what()).find("at most 1 with --pp 2"), std::string::npos) << e.what();
  }
}

TEST(Frameworks, NemoExportCarriesItsDefaults) {
  // Llama 3.1 405B (126 layers) on tp 8 × pp 8 × vp 8: 126 is no multiple of
  // 64 chunks, so Megatron's embedding-and-loss split (128 slots) applies.
  const auto r = gpuplan_test::run_binary(
      "plan --model llama-3.1-405b --gpu h100 --gpus 1024 --seq 8192 --global-batch 2048 --tp 8 --pp 8 --vp 8 "
      "--framework nemo --export megatron");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* flag : {"--use-distributed-optimizer", "--sequence-parallel", "--num-virtual-stages-per-pipeline-rank 8",
                           "--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split"}) {
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag << "\n" << r.out;
  }
  // An export for a stack that cannot run the layout is refused with the reason.
  const auto t = gpuplan_test::run_binary(
      "plan --model llama-3.1-70b --gpu h100 --gpus 64 --seq 4096 --global-batch 256 --framework nemo --zero 1 --export torchtitan");
  EXPECT_EQ(t.status, 2) << t.out;
  EXPECT_NE(t.out.find("ZeRO stage 1"), std::string::npos) << t.out;
  // An unknown framework is one sentence and exit status 2.
  const auto u = gpuplan_test::run_binary("memory --model llama-3.1-8b --gpu h100 --gpus 8 --framework megatorch");
  EXPECT_EQ(u.status, 2) << u.out;
  EXPECT_NE(u.out.find("--framework"), std::string::npos) << u.out;
}

TEST(Frameworks, Llama405bOnPp8Vp8IsAccepted) {
  const auto m = gpuplan_test::run_binary(
      "memory --model llama-3.1-405b --gpu h100 --gpus 1024 --tp 8 --pp 8 --vp 8 --seq-len 8192 --global-batch 2048 "
      "--zero 1 --recompute full --framework megatron-core --format json");
  ASSERT_EQ(m.status, 0) << m.out;
  const auto p = gpuplan_test::run_binary(
      "plan --model llama-3.1-405b --gpu h100 --gpus 1024 --seq 8192 --global-batch 2048 --framework megatron-core "
      "--compare-layout tp=8,pp=8,vp=8,zero=1,recompute=full --format json");
  ASSERT_EQ(p.status, 0) << p.out;
  // Placed in the ranking (its row says whether it fits and where it ranks).
  const auto pj = nlohmann::json::parse(p.out);
  EXPECT_TRUE(pj.at("groups").at(0).contains("reference")) << p.out.substr(0, 2000);
  EXPECT_EQ(pj.at("groups").at(0).at("gpu"), "h100-sxm5-80gb");
  EXPECT_EQ(pj.at("groups").at(0).at("gpus"), 1024);
}

// MaxText (google/maxtext, now AI-Hypercomputer/maxtext): the facts its
// base.yml and layers state at each version, with their commits.
TEST(Frameworks, MaxTextProfileStatesItsDefaults) {
  const FrameworkProfile& old = find_framework("max-text@2024-06");
  EXPECT_EQ(old.id, "maxtext");
  EXPECT_EQ(find_framework("maxtext@2025-01").version, "2024-06");  // dated between the two entries
  EXPECT_EQ(find_framework("maxtext").version, "2025-09");
  const auto fact = [](const FrameworkProfile& p, const char* key) {
    const ProfileFact* f = p.fact(key);
    return f ? f->value + " | " + f->source : std::string("missing");
  };
  // base.yml at 4378403a: remat_policy 'full', ici_fsdp_parallelism -1, no gradient accumulation.
  EXPECT_EQ(old.recompute_default, Recompute::kFull);
  EXPECT_NE(fact(old, "recompute_default").find("remat_policy: 'full'"), std::string::npos) << fact(old, "recompute_default");
  EXPECT_NE(fact(old, "recompute_default").find("4378403a"), std::string::npos);
  EXPECT_EQ(old.recompute_selective, SelectiveRecompute::kSaveDots);
  EXPECT_FALSE(old.recompute_none);
  EXPECT_EQ(old.zero_default, 3);
  EXPECT_NE(fact(old, "zero_default").find("ici_fsdp_parallelism: -1"), std::string::npos);
  EXPECT_EQ(old.attention, AttentionKernel::kCudnn);  // GPU runs set cudnn_flash_te (autoselected is a TPU kernel then)
  EXPECT_EQ(old.elementwise, ElementwiseMode::kCompiled);
  EXPECT_EQ(old.loss, LossKernel::kFull);
  EXPECT_FALSE(old.gradient_accumulation);
  EXPECT_FALSE(old.ep);
  EXPECT_FALSE(old.cp);
  EXPECT_EQ(old.pipeline_schedules, std::vector<std::string>{"gpipe"});
  EXPECT_EQ(old.master_weights, MasterWeights::kFp32);
  EXPECT_EQ(old.fp8_scaling, Fp8Scaling::kDelayed);
  EXPECT_EQ(old.export_format, ExportFormat::kNone);
  // maxtext-v0.1.0: gradient_accumulation_steps, an expert axis, autoselected = Pallas flash on GPU.
  const FrameworkProfile& v01 = find_framework("maxtext@2025-09");
  EXPECT_TRUE(v01.gradient_accumulation);
  EXPECT_NE(fact(v01, "gradient_accumulation").find("maxtext-v0.1.0"), std::string::npos);
  EXPECT_TRUE(v01.ep);
  EXPECT_EQ(v01.attention, AttentionKernel::kFlash2);
  EXPECT_EQ(v01.fp8_scaling, Fp8Scaling::kDynamic);
  EXPECT_EQ(v01.recompute_default, Recompute::kFull);  // inherited: still remat_policy 'full'
  // A layout MaxText cannot run says why: no remat-free run, no torchtitan policy, no context axis.
  Layout l;
  l.dp = 8;
  l.zero_stage = 3;
  l.recompute = Recompute::kNone;
  EXPECT_NE(framework_cannot_run(v01, l).find("always recomputes"), std::string::npos) << framework_cannot_run(v01, l);
  l.recompute = Recompute::kSelective;
  RunSettings qkv;
  qkv.recompute_policy = parse_selective_recompute("save_qkv_proj", "--recompute-policy");
  apply_framework(v01, qkv, l);
  EXPECT_EQ(l.selective, SelectiveRecompute::kSaveQkvProj);
  EXPECT_EQ(framework_cannot_run(v01, l), "");
  l.selective = SelectiveRecompute::kOp;
  EXPECT_NE(framework_cannot_run(v01, l).find("'op'"), std::string::npos);
  // ... and a MaxText policy is MaxText's alone.
  l.selective = SelectiveRecompute::kSaveQkvProj;
  EXPECT_NE(framework_cannot_run(find_framework("torchtitan@2024-12"), l).find("save_qkv_proj"), std::string::npos);
  EXPECT_THROW(parse_selective_recompute("save_everything", "--recompute-policy"), InputError);
}

// MaxText's named policies in the memory and step-time models: each saves the
// bf16 outputs it names on top of full recompute's layer inputs, and re-runs the rest.
TEST(Frameworks, MaxTextPoliciesOrderMemoryAndRecompute) {
  const ModelSpec& m = find_model("llama-3.1-8b");
  const GpuSpec& g = find_gpu("h100");
  Layout l;
  l.dp = 8;
  l.zero_stage = 3;
  l.micro_batch = 1;
  l.seq_len = 4096;
  l.global_batch = 8;
  apply_framework(find_framework("maxtext@2025-09"), RunSettings{}, l);
  const auto with = [&](Recompute rc, SelectiveRecompute p) {
    Layout x = l;
    x.recompute = rc;
    x.selective = p;
    return x;
  };
  const auto act = [&](Recompute rc, SelectiveRecompute p) { return estimate_memory(m, with(rc, p), g).activations_bytes; };
  const double full = act(Recompute::kFull, SelectiveRecompute::kSaveDots);
  const double minimal = act(Recompute::kSelective, SelectiveRecompute::kSaveDots);
  const double qkv = act(Recompute::kSelective, SelectiveRecompute::kSaveQkvProj);
  // 32 layers × 2 B × 4096 tokens × saved widths: minimal keeps 6144 + 28672 + 4096 + 4096 = 43,008
  // per token more than full (11,274,289,152 B), save_qkv_proj 6144 (1,610,612,736 B).
  EXPECT_NEAR(minimal - full, 32.0 * 2 * 4096 * 43008, 1.0);
  EXPECT_NEAR(qkv - full, 32.0 * 2 * 4096 * 6144, 1.0);
  // The backward re-runs more the less a policy saves: minimal only attention and
  // element-wise work, save_dot_except_mlp the MLP too, save_qkv_proj all but
  // the q/k/v projections, full everything.
  const auto rerun = [&](Recompute rc, SelectiveRecompute p) { return estimate_step_time(m, with(rc, p), g).recompute_s; };
  const double r_min = rerun(Recompute::kSelective, SelectiveRecompute::kSaveDots);
  const double r_mlp = rerun(Recompute::kSelective, SelectiveRecompute::kSaveDotExceptMlp);
  const double r_qkv = rerun(Recompute::kSelective, SelectiveRecompute::kSaveQkvProj);
  const double r_full = rerun(Recompute::kFull, SelectiveRecompute::kSaveDots);
  EXPECT_GT(r_min, 0);
  EXPECT_LT(r_min, r_mlp);
  EXPECT_LT(r_mlp, r_qkv);
  EXPECT_LT(r_qkv, r_full);
}

// `plan --framework maxtext`: only layouts MaxText runs (no recompute none, no
// context parallelism, GPipe only; in 2024-06 no gradient accumulation).
TEST(Frameworks, PlannerRunsOnlyMaxTextLayouts) {
  for (const char* fw : {"maxtext@2024-06", "maxtext@2025-09"}) {
    PlanRequest r;
    r.model = find_model("llama-2-7b");
    r.gpus = {find_gpu("h100")};
    r.gpu_counts = {8};
    r.seq_len = 4096;
    r.global_batch = 64;
    r.framework = &find_framework(fw);
    const std::vector<Layout> all = enumerate_layouts(r, r.gpus[0], 8);
    ASSERT_FALSE(all.empty()) << fw;
    bool selective = false;
    for (const Layout& l : all) {
      ASSERT_EQ(framework_cannot_run(*r.framework, l), "") << fw << " tp " << l.tp << " pp " << l.pp << " zero " << l.zero_stage;
      EXPECT_NE(l.recompute, Recompute::kNone) << fw;
      EXPECT_EQ(l.cp, 1) << fw;
      if (l.recompute == Recompute::kSelective) {
        selective = true;
        EXPECT_EQ(l.selective, SelectiveRecompute::kSaveDots) << fw;
      }
    }
    EXPECT_TRUE(selective) << fw;
    const PlanResult res = plan(r);
    ASSERT_FALSE(res.groups.front().top.empty()) << fw;
    for (const PlanCandidate& c : res.groups.front().top) EXPECT_EQ(framework_cannot_run(*r.framework, c.layout), "") << fw;
  }
}

// docs/frameworks.md is generated from the data: a stale page fails here
// (renew it with `gpuplan frameworks --docs > docs/frameworks.md`).
TEST(Frameworks, DocsPageIsTheDataTable) {
  std::ifstream f(std::string(GPUPLAN_SOURCE_DIR) + "/docs/frameworks.md");
  ASSERT_TRUE(f) << "docs/frameworks.md missing";
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_TRUE(ss.str() == frameworks_markdown()) << "docs/frameworks.md is stale: run gpuplan frameworks --docs > docs/frameworks.md";
}

}  // namespace
}  // namespace gpuplan
