// Framework profiles: the data loads, versions resolve, defaults apply in one
// place, the planner and the exporters respect what a framework can run, and
// docs/frameworks.md is the data's own table.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gpuplan/error.hpp"
#include "gpuplan/framework.hpp"
#include "report/frameworks_report.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "run_binary.hpp"

namespace gpuplan {
namespace {

TEST(Frameworks, EveryProfileLoadsWithASourceForEveryFact) {
  const auto& cat = framework_catalog();
  // The stacks issue 12 names, and generic for a user who names none.
  for (const char* id : {"generic", "megatron-lm", "nemo", "megatron-bridge", "deepspeed", "megatron-deepspeed", "torchtitan",
                         "llm-foundry", "olmo-core", "lit-gpt", "torchtune", "hf-trainer"}) {
    EXPECT_TRUE(std::any_of(cat.begin(), cat.end(), [&](const FrameworkFamily& f) { return f.id == id; })) << id;
  }
  for (const FrameworkFamily& fam : cat) {
    ASSERT_FALSE(fam.versions.empty()) << fam.id;
    for (const FrameworkProfile& v : fam.versions) {
      EXPECT_EQ(v.facts.size(), 36u) << v.label();  // 25 required + 11 optional properties (data/frameworks/README.md)
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
    r.global_batch = 256;
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
