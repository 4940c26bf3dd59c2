// `gpuplan plan --export`: the launch configuration of a ranked layout, read
// back and checked against what `plan --format json` ranks at that place.
// The expected values come from the plan's own JSON, not from constants, so the
// tests hold whichever layout the planner prefers; the pinned cases fix every
// dimension so their numbers can be derived by hand.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_binary.hpp"

namespace {

using gpuplan_test::Result;

Result run_command(const std::string& args, const char* redirect) { return gpuplan_test::run_binary(args, redirect); }

using gpuplan_test::run_stdout;
Result run_all(const std::string& args) { return run_command(args, "2>&1"); }

using gpuplan_test::expect_input_error;

// The issue's example: Llama 3.1 70B on 64 H100s, 4,096-token sequences, 256 per step.
const std::string kPlan = "plan --model llama-3.1-70b --gpu h100 --gpus 64 --seq 4096 --global-batch 256";
constexpr int64_t kGlobalBatch = 256;
constexpr int64_t kLayers = 80;  // Llama 3.1 70B's num_hidden_layers

struct Planned {
  int64_t tp, pp, dp, cp, ep, vp, micro, zero;
  std::string recompute;
};

// The n-th (1-based) layout of `plan --format json`: its one group's ranking.
Planned planned(const std::string& plan, int n) {
  const Result r = run_stdout(plan + " --top " + std::to_string(std::max(5, n)) + " --format json");
  EXPECT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("groups").size(), 1u) << "one GPU type and count, one ranking";
  const auto& row = j.at("groups").at(0).at("ranking").at(static_cast<size_t>(n - 1));
  EXPECT_EQ(row.at("rank").get<int64_t>(), n);
  auto i = [&](const char* k) { return row.at(k).get<int64_t>(); };  // counts are JSON integers (schema version 2)
  return {i("tp"), i("pp"), i("dp"), i("cp"), i("ep"), i("vp"), i("micro_batch"), i("zero"), row.at("recompute").get<std::string>()};
}

// "key = value" lines of a flat TOML file, keyed "section.key".
std::map<std::string, std::string> toml_values(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      section = line.substr(1, line.find(']') - 1);
      continue;
    }
    const auto eq = line.find(" = ");
    if (eq != std::string::npos) out[section + "." + line.substr(0, eq)] = line.substr(eq + 3);
  }
  return out;
}

bool has_exact_line(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) {
    if (l == line) return true;
  }
  return false;
}

void expect_deepspeed_matches(const std::string& plan, int rank) {
  const Planned p = planned(plan, rank);
  const Result r = run_stdout(plan + " --export deepspeed --rank " + std::to_string(rank));
  ASSERT_EQ(r.status, 0) << r.out;
  const auto ds = nlohmann::json::parse(r.out);  // stdout holds the JSON and nothing else
  EXPECT_EQ(ds["zero_optimization"]["stage"].get<int64_t>(), p.zero);
  EXPECT_EQ(ds["train_micro_batch_size_per_gpu"].get<int64_t>(), p.micro);
  // Accumulation = global batch / (data-parallel ranks × micro-batch).
  EXPECT_EQ(ds["gradient_accumulation_steps"].get<int64_t>(), kGlobalBatch / (p.dp * p.micro));
  // DeepSpeed's identity: train_batch_size = micro × accumulation × dp = the planned 256.
  EXPECT_EQ(ds["train_batch_size"].get<int64_t>(), kGlobalBatch);
  EXPECT_EQ(ds["train_micro_batch_size_per_gpu"].get<int64_t>() * ds["gradient_accumulation_steps"].get<int64_t>() * p.dp,
            kGlobalBatch);
  EXPECT_TRUE(ds["bf16"]["enabled"].get<bool>());  // H100 plans in bf16 (the default --precision)
  EXPECT_FALSE(ds["fp16"]["enabled"].get<bool>());
}

}  // namespace

// Planned for DeepSpeed: the generic plan's winner may be a layout DeepSpeed
// cannot run (interleaved pipelining), and exporting that is refused.
const std::string kDeepSpeedPlan = kPlan + " --framework deepspeed";

TEST(ExportCli, DeepSpeedCarriesTheBestLayoutsZeroMicroAndAccumulation) {
  expect_deepspeed_matches(kDeepSpeedPlan, 1);
}

// A DeepSpeed config holds what DeepSpeed reads from it: at deepspeed@0.16.4 AutoTP's
// tensor_parallel.autotp_size and Ulysses' sequence_parallel_size; never the
// pipeline stages (PipelineModule(num_stages) in the model code), which are refused.
TEST(ExportCli, DeepSpeedCarriesTpAndCpOrRefusesPipelineStages) {
  for (int rank = 1; rank <= 7; ++rank) {
    const Planned p = planned(kDeepSpeedPlan, rank);
    const std::string args = kDeepSpeedPlan + " --export deepspeed --rank " + std::to_string(rank);
    if (p.pp > 1) {
      expect_input_error(args, "--export", "cannot express pipeline parallelism (PP " + std::to_string(p.pp) + ")");
      expect_input_error(args, "--export", "--pipeline-model-parallel-size " + std::to_string(p.pp));
      continue;
    }
    const Result r = run_stdout(args);
    ASSERT_EQ(r.status, 0) << r.out;
    const auto ds = nlohmann::json::parse(r.out);
    if (p.tp > 1) EXPECT_EQ(ds.at("tensor_parallel").at("autotp_size").get<int64_t>(), p.tp);
    // DeepSpeed 0.16.4 asserts AutoTP with ZeRO ≤ 2 (engine.py
    // _configure_tensor_parallel_states): no TP layout is planned at ZeRO-3.
    if (p.tp > 1) EXPECT_LE(ds.at("zero_optimization").at("stage").get<int>(), 2) << "rank " << rank;
    else EXPECT_FALSE(ds.contains("tensor_parallel"));
    if (p.cp > 1) {
      EXPECT_EQ(ds.at("sequence_parallel_size").get<int64_t>(), p.cp);
      EXPECT_EQ(ds.at("data_parallel_size").get<int64_t>(), p.dp);
    } else {
      EXPECT_FALSE(ds.contains("sequence_parallel_size"));
    }
  }
}

// Megatron-DeepSpeed sets TP and PP with its own arguments: its export is one
// script holding them beside the DeepSpeed JSON (microsoft/Megatron-DeepSpeed@f4157bea
// spellings), and a bare DeepSpeed config of a TP/PP layout is refused naming them.
TEST(ExportCli, MegatronDeepSpeedLayoutsPointToItsArguments) {
  const std::string plan = "plan --model llama-2-70b --gpu h100 --gpus 64 --seq 4096 --global-batch 256 --framework megatron-deepspeed@2024";
  const Planned p = planned(plan, 1);
  ASSERT_TRUE(p.tp > 1 || p.pp > 1) << "the test needs a layout with TP or PP";
  const std::string args = "--tensor-model-parallel-size " + std::to_string(p.tp) + " --pipeline-model-parallel-size " + std::to_string(p.pp);
  const Result own = run_stdout(plan + " --export");
  ASSERT_EQ(own.status, 0) << own.out;
  EXPECT_TRUE(has_exact_line(own.out, "  --tensor-model-parallel-size " + std::to_string(p.tp))) << own.out;
  EXPECT_TRUE(has_exact_line(own.out, "  --pipeline-model-parallel-size " + std::to_string(p.pp))) << own.out;
  EXPECT_TRUE(has_exact_line(own.out, "  --num-key-value-heads 8")) << own.out;
  EXPECT_NE(own.out.find("cat > ds_config.json"), std::string::npos) << own.out;
  // The DeepSpeed config alone is read by the newest DeepSpeed, which cannot run the ranked-1 layout.
  expect_input_error(plan + " --export deepspeed --rank 1", "--export", "deepspeed@0.16.4");
}

TEST(ExportCli, RankPicksALowerPlace) {
  // The first lower place without pipeline stages (a DeepSpeed config cannot
  // express PP: ExportCli.DeepSpeedCarriesTpAndCpOrRefusesPipelineStages), and
  // one past --top (default 5), which extends the ranking rather than refusing.
  int below = 0, past_top = 0;
  for (int rank = 2; rank <= 9; ++rank) {
    if (planned(kDeepSpeedPlan, rank).pp > 1) continue;
    if (!below) below = rank;
    if (rank > 5 && !past_top) past_top = rank;
  }
  ASSERT_GT(below, 0);
  ASSERT_GT(past_top, 0);
  expect_deepspeed_matches(kDeepSpeedPlan, below);
  expect_deepspeed_matches(kDeepSpeedPlan, past_top);
}

TEST(ExportCli, MegatronCarriesEveryPlannedDimension) {
  const Planned p = planned(kPlan, 1);
  const Result r = run_stdout(kPlan + " --export megatron");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string& a = r.out;
  std::vector<std::string> want = {
      "--tensor-model-parallel-size " + std::to_string(p.tp), "--pipeline-model-parallel-size " + std::to_string(p.pp),
      "--context-parallel-size " + std::to_string(p.cp),       "--micro-batch-size " + std::to_string(p.micro),
      "--global-batch-size 256",                               "--seq-length 4096"};
  // Interleaving: 80 layers in pp × vp chunks.
  if (p.vp > 1) want.push_back("--num-layers-per-virtual-pipeline-stage " + std::to_string(kLayers / (p.pp * p.vp)));
  if (p.recompute == "full") {
    for (const char* s : {"--recompute-granularity full", "--recompute-method uniform", "--recompute-num-layers 1"}) want.push_back(s);
  } else if (p.recompute == "selective") {
    want.push_back("--recompute-granularity selective");
  }
  if (p.zero >= 1) want.push_back("--use-distributed-optimizer");
  for (const std::string& s : want) EXPECT_TRUE(has_exact_line(a, s)) << s << "\n" << a;
  // The planner turns sequence parallelism on exactly when TP > 1 (docs/step-time.md, Planner).
  EXPECT_EQ(has_exact_line(a, "--sequence-parallel"), p.tp > 1) << a;
  if (p.vp == 1) EXPECT_EQ(a.find("virtual"), std::string::npos) << a;
  if (p.recompute == "none") EXPECT_EQ(a.find("--recompute"), std::string::npos) << a;
  // A dense model has no expert-parallel argument; arguments only, no backslash continuations.
  EXPECT_EQ(a.find("--expert-model-parallel-size"), std::string::npos) << a;
  EXPECT_EQ(a.find('\\'), std::string::npos) << a;
}

TEST(ExportCli, MegatronPinnedInterleavedLayout) {
  // Every dimension pinned: 8 × 4 × 2 = 64 GPUs leaves CP 1, and the dense model EP 1, so one layout.
  const std::string plan = kPlan + " --tp 8 --pp 4 --dp 2 --vp 2 --micro-batch 1 --zero 1 --recompute selective";
  const Result r = run_stdout(plan + " --export megatron");
  ASSERT_EQ(r.status, 0) << r.out;
  // 80 layers / (4 stages × 2 virtual) = 10 layers per virtual stage; 256 / (2 × 1) = 128 micro-batches
  // (divisible by pp = 4, as interleaving requires).
  for (const char* s : {"--tensor-model-parallel-size 8", "--pipeline-model-parallel-size 4",
                        "--num-layers-per-virtual-pipeline-stage 10", "--context-parallel-size 1", "--micro-batch-size 1",
                        "--global-batch-size 256", "--sequence-parallel", "--recompute-granularity selective",
                        "--use-distributed-optimizer", "--overlap-grad-reduce", "--overlap-param-gather", "--bf16",
                        "--num-layers 80", "--hidden-size 8192", "--num-query-groups 8"}) {
    EXPECT_TRUE(has_exact_line(r.out, s)) << s << "\n" << r.out;
  }
  // Only one layout fits the pins, so rank 2 does not exist.
  expect_input_error(plan + " --export megatron --rank 2", "--rank", "1 layout");
}

TEST(ExportCli, MegatronAndTorchtitanForZero3WithFullRecompute) {
  // TP 8 × DP 8 = 64 GPUs, ZeRO-3 without pipelining, full recompute, micro-batch 1.
  const std::string plan = kPlan + " --tp 8 --pp 1 --dp 8 --micro-batch 1 --zero 3 --recompute full";
  const Result m = run_stdout(plan + " --export megatron");
  ASSERT_EQ(m.status, 0) << m.out;
  for (const char* s : {"--recompute-granularity full", "--recompute-method uniform", "--recompute-num-layers 1",
                        "--use-distributed-optimizer", "--use-megatron-fsdp",
                        "--data-parallel-sharding-strategy optim_grads_params"}) {
    EXPECT_TRUE(has_exact_line(m.out, s)) << s << "\n" << m.out;
  }
  const Result t = run_stdout(plan + " --export torchtitan");
  ASSERT_EQ(t.status, 0) << t.out;
  const auto v = toml_values(t.out);
  EXPECT_EQ(v.at("model.name"), "\"llama3\"");
  EXPECT_EQ(v.at("model.flavor"), "\"70B\"");
  // No pipeline: one rank runs the micro-batch per forward/backward, and torchtitan
  // accumulates 256 / (1 × 8) = 32 of them per step.
  EXPECT_EQ(v.at("training.local_batch_size"), "1");
  EXPECT_EQ(v.at("training.global_batch_size"), "256");
  EXPECT_EQ(v.at("parallelism.data_parallel_shard_degree"), "8");  // ZeRO-3 over all 8 data-parallel ranks
  EXPECT_EQ(v.at("parallelism.data_parallel_replicate_degree"), "1");
  EXPECT_EQ(v.at("parallelism.fsdp_reshard_after_forward"), "\"always\"");
  EXPECT_EQ(v.at("parallelism.tensor_parallel_degree"), "8");
  EXPECT_EQ(v.at("activation_checkpoint.mode"), "\"full\"");
}

TEST(ExportCli, TorchtitanCarriesTheParallelDegrees) {
  // Planned for torchtitan: an export for a stack that cannot run the
  // generic plan's winner (ZeRO-1, say) is refused (Frameworks.NemoExportCarriesItsDefaults).
  const std::string titan = kPlan + " --framework torchtitan@2025-10";
  const Planned p = planned(titan, 1);
  const Result r = run_stdout(titan + " --export torchtitan");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto v = toml_values(r.out);
  EXPECT_EQ(v.at("parallelism.tensor_parallel_degree"), std::to_string(p.tp));
  EXPECT_EQ(v.at("parallelism.pipeline_parallel_degree"), std::to_string(p.pp));
  EXPECT_EQ(v.at("parallelism.context_parallel_degree"), std::to_string(p.cp));
  // Data parallelism is replicate × shard: FSDP over dp with ZeRO ≥ 1, plain replicas without.
  const int64_t rep = std::stoll(v.at("parallelism.data_parallel_replicate_degree"));
  const int64_t shard = std::stoll(v.at("parallelism.data_parallel_shard_degree"));
  EXPECT_EQ(rep * shard, p.dp);
  EXPECT_EQ(shard, p.zero >= 1 ? p.dp : 1);
  EXPECT_EQ(v.at("training.global_batch_size"), "256");
  EXPECT_EQ(v.at("training.seq_len"), "4096");
  EXPECT_EQ(v.at("activation_checkpoint.mode"), "\"" + p.recompute + "\"");
  if (p.pp > 1) {
    // Whole per-rank share (256 / dp) through the pipeline in micro-batches of the planned size.
    EXPECT_EQ(v.at("training.local_batch_size"), std::to_string(kGlobalBatch / p.dp));
    EXPECT_EQ(v.at("parallelism.pipeline_parallel_microbatch_size"), std::to_string(p.micro));
  } else {
    EXPECT_EQ(v.at("training.local_batch_size"), std::to_string(p.micro));
  }
}

TEST(ExportCli, MoeExportCarriesExpertParallelism) {
  const std::string plan = "plan --model mixtral-8x7b --gpu h100 --gpus 64 --seq 4096 --global-batch 256";
  const Planned p = planned(plan, 1);
  const Result m = run_stdout(plan + " --export megatron");
  ASSERT_EQ(m.status, 0) << m.out;
  EXPECT_TRUE(has_exact_line(m.out, "--expert-model-parallel-size " + std::to_string(p.ep))) << m.out;
  EXPECT_TRUE(has_exact_line(m.out, "--num-experts 8")) << m.out;
  const Result t = run_stdout(plan + " --export torchtitan");
  ASSERT_EQ(t.status, 0) << t.out;
  EXPECT_EQ(toml_values(t.out).at("parallelism.expert_parallel_degree"), std::to_string(p.ep));
}

// Megatron-Bridge 26.04's Qwen3-30B-A3B preset on 16 H100s dispatches with
// HybridEP across the two nodes (moe_flex_dispatcher_backend hybridep,
// data/frameworks/megatron-bridge.json): both exports name that backend.
TEST(ExportCli, FlexDispatcherExportsNameTheRecipesBackend) {
  const std::string plan = "plan --model qwen3-30b-a3b --gpu h100 --gpus 16 --tp 1 --pp 1 --dp 16 --ep 16 --micro-batch 1 "
                           "--global-batch 1024 --seq-len 4096 --precision fp8 --framework megatron-bridge@26.04";
  const Result m = run_stdout(plan + " --export megatron");
  ASSERT_EQ(m.status, 0) << m.out;
  EXPECT_TRUE(has_exact_line(m.out, "--moe-token-dispatcher-type flex")) << m.out;
  EXPECT_TRUE(has_exact_line(m.out, "--moe-flex-dispatcher-backend hybridep")) << m.out;
  const Result b = run_stdout(plan + " --export megatron-bridge");
  ASSERT_EQ(b.status, 0) << b.out;
  EXPECT_TRUE(has_exact_line(b.out, "model.moe_flex_dispatcher_backend=hybridep")) << b.out;
}

TEST(ExportCliErrors, BadExportAndRank) {
  expect_input_error(kPlan + " --export slurm", "--export", "megatron, deepspeed, torchtitan, megatron-bridge, nemo, megatron-deepspeed or gpt-neox");
  expect_input_error(kPlan + " --export deepspeed --rank 0", "--rank");
  expect_input_error(kPlan + " --export deepspeed --rank 101", "--rank");
  expect_input_error(kPlan + " --rank 2", "--rank", "--export");
  expect_input_error("plan --model llama-3.1-70b --gpu h100,a100-80g --gpus 64 --export megatron", "--export", "--gpu");
  expect_input_error("plan --model llama-3.1-70b --gpu h100 --gpus 32,64 --export megatron", "--export", "--gpus");
  // 405B × 16 bytes of weights and AdamW state is 6.5 TB; 8 × 80 GB cannot hold it, so nothing ranks.
  expect_input_error("plan --model llama-3.1-405b --gpu h100 --gpus 8 --export deepspeed", "--export", "fits");
}

namespace {

// The flags one Megatron-LM release's parser takes (data/exports/megatron-lm-arguments.json).
std::vector<std::string> parser_flags(const std::string& version) {
  std::ifstream f(std::string(GPUPLAN_SOURCE_DIR) + "/data/exports/megatron-lm-arguments.json");
  const nlohmann::json j = nlohmann::json::parse(f);
  for (const auto& v : j.at("versions")) {
    if (v.at("version") == version) return v.at("flags").get<std::vector<std::string>>();
  }
  return {};
}

}  // namespace

TEST(ExportCli, MegatronBuildsTheModelsRopeRouterAndNoDropout) {
  // Llama 3.1 70B (config.json rope_theta 500000, rope_scaling llama3 factor 8):
  // Megatron's defaults are base 10000, no scaling and 0.1 dropout.
  const std::string plan = kPlan + " --tp 8 --pp 4 --dp 2 --micro-batch 1 --zero 1 --recompute selective";
  const Result l = run_stdout(plan + " --export megatron");
  ASSERT_EQ(l.status, 0) << l.out;
  for (const char* s : {"--rotary-base 500000", "--use-rope-scaling", "--attention-dropout 0.0", "--hidden-dropout 0.0"}) {
    EXPECT_TRUE(has_exact_line(l.out, s)) << s << "\n" << l.out;
  }
  EXPECT_EQ(l.out.find("--rope-scaling-factor"), std::string::npos) << "factor 8 is --use-rope-scaling's own";
  // Qwen3-32B: per-head q/k RMSNorm, base 1,000,000, no scaling.
  const Result q = run_stdout("plan --model qwen3-32b --gpu h100 --gpus 16 --seq 4096 --global-batch 64 --tp 8 --pp 1 --dp 2 --micro-batch 1 --export megatron");
  ASSERT_EQ(q.status, 0) << q.out;
  EXPECT_TRUE(has_exact_line(q.out, "--qk-layernorm")) << q.out;
  EXPECT_TRUE(has_exact_line(q.out, "--rotary-base 1000000")) << q.out;
  EXPECT_EQ(q.out.find("--use-rope-scaling"), std::string::npos) << q.out;
}

TEST(ExportCli, DeepSeekV3ExportCarriesItsRouterAndTheAllToAllDispatcher) {
  // config.json: scoring_func sigmoid, routed_scaling_factor 2.5, n_group 8,
  // topk_group 4; the step-time model timed an all-to-all dispatch (Megatron's
  // default dispatcher is allgather).
  const Result d = run_stdout("plan --model deepseek-v3 --gpu h800 --gpus 256 --seq 4096 --global-batch 1024 --tp 1 --pp 16 --ep 16 "
                              "--micro-batch 1 --zero 1 --framework megatron-lm@0.19.0 --export megatron");
  ASSERT_EQ(d.status, 0) << d.out;
  for (const char* s : {"--moe-token-dispatcher-type alltoall", "--moe-router-score-function sigmoid", "--moe-router-topk-scaling-factor 2.5",
                        "--moe-router-num-groups 8", "--moe-router-group-topk 4", "--moe-router-enable-expert-bias", "--attention-dropout 0.0"}) {
    EXPECT_TRUE(has_exact_line(d.out, s)) << s << "\n" << d.out;
  }
}

TEST(ExportCli, EveryMegatronReleaseTakesItsExportOrRefusesNamingTheFlags) {
  // Each megatron-lm profile release reads the export with its own parser's
  // flags (data/exports/megatron-lm-arguments.json, extracted from Megatron-LM's
  // arguments.py at the release's commit by scripts/extract-megatron-arguments.py).
  // Llama 3.1 70B needs --rotary-base (core 0.8.0 on) and --use-rope-scaling
  // (0.10.0 on); 2021/2022 have no GQA, SwiGLU or RMSNorm either. ZeRO and
  // recompute are left to each release's planner (2021 has neither ZeRO-1 nor
  // selective recompute).
  const std::string plan = kPlan + " --tp 8 --pp 4 --dp 2 --micro-batch 1";
  for (const char* v : {"2021", "2022", "0.5.0", "0.6.0", "0.8.0"}) {
    expect_input_error(plan + " --framework megatron-lm@" + v + " --export megatron", "--export", "--use-rope-scaling");
  }
  for (const char* v : {"0.10.0", "0.11.0", "0.12.0", "0.14.0", "0.16.0", "0.19.0"}) {
    const Result r = run_stdout(plan + " --framework megatron-lm@" + v + " --export megatron");
    ASSERT_EQ(r.status, 0) << v << "\n" << r.out;
    const std::vector<std::string> flags = parser_flags(v);
    ASSERT_FALSE(flags.empty()) << v;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      const std::string flag = line.substr(0, line.find(' '));
      EXPECT_NE(std::find(flags.begin(), flags.end(), flag), flags.end()) << v << " has no " << flag;
    }
  }
  // Megatron-Core 0.10–0.11 shard parameters only with PyTorch FSDP2, which
  // refuses pipeline and expert parallelism (validate_args): ZeRO-3 with PP is
  // not planned there (zero_max_with_pp 1), and 0.12's custom FSDP writes its own flags.
  const std::string z3 = "plan --model llama-3.1-70b --gpu h100 --gpus 64 --seq 4096 --global-batch 256 --tp 8 --pp 1 --dp 8 --micro-batch 1 --zero 3 --recompute full";
  const Result f10 = run_stdout(z3 + " --framework megatron-lm@0.10.0 --export megatron");
  ASSERT_EQ(f10.status, 0) << f10.out;
  EXPECT_TRUE(has_exact_line(f10.out, "--use-torch-fsdp2")) << f10.out;
  EXPECT_FALSE(has_exact_line(f10.out, "--use-distributed-optimizer")) << "FSDP2 asserts against the distributed optimizer\n" << f10.out;
  const Result f12 = run_stdout(z3 + " --framework megatron-lm@0.12.0 --export megatron");
  ASSERT_EQ(f12.status, 0) << f12.out;
  EXPECT_TRUE(has_exact_line(f12.out, "--use-custom-fsdp")) << f12.out;
  EXPECT_TRUE(has_exact_line(f12.out, "--data-parallel-sharding-strategy optim_grads_params")) << f12.out;
}

TEST(ExportCli, TorchtitanVersionsGetTheirOwnKeysOrAreRefused) {
  // torchtitan's loader sets the keys it knows and ignores the rest
  // (data/exports/torchtitan-config-keys.json): at 2024-12 there is no
  // [parallelism] section and no local/global batch (no gradient accumulation),
  // so the export is written in that version's keys: batch_size (a data-parallel
  // rank's share of the step), the degrees under [training] and [experimental],
  // the pipeline's micro-batches and split points (config_manager.py at 3f20451b).
  // From 2026-08 jobs are Python configs, not TOML: refused.
  const Result old = run_stdout(kPlan + " --framework torchtitan@2024-12 --export torchtitan");
  ASSERT_EQ(old.status, 0) << old.out;
  const auto o = toml_values(old.out);
  const Planned p = planned(kPlan + " --framework torchtitan@2024-12", 1);
  EXPECT_EQ(o.at("training.tensor_parallel_degree"), std::to_string(p.tp)) << old.out;
  EXPECT_EQ(o.at("experimental.pipeline_parallel_degree"), std::to_string(p.pp)) << old.out;
  EXPECT_EQ(o.count("training.local_batch_size"), 0u) << old.out;
  EXPECT_EQ(old.out.find("[parallelism]"), std::string::npos) << old.out;
  // 256 sequences over the data-parallel ranks, all in one step.
  EXPECT_EQ(std::stoi(o.at("training.batch_size")) * p.dp, 256) << old.out;
  if (p.pp > 1) EXPECT_EQ(o.count("experimental.pipeline_parallel_split_points"), 1u) << old.out;
  expect_input_error(kPlan + " --framework torchtitan@2026-08 --export torchtitan", "--export", "Python job configs");
  // A plan for no torchtitan version is exported for the newest that reads TOML,
  // whose float8 settings sit under quantize.linear.float8 (also the converter's name).
  const Result t = run_stdout("plan --model llama-3.1-8b --gpu h100 --gpus 8 --seq 4096 --global-batch 64 --precision fp8 --tp 1 --pp 1 --dp 8 "
                              "--micro-batch 1 --zero 3 --export torchtitan");
  ASSERT_EQ(t.status, 0) << t.out;
  const auto v = toml_values(t.out);
  EXPECT_EQ(v.at("model.converters"), "[\"quantize.linear.float8\"]");
  EXPECT_EQ(v.at("quantize.linear.float8.enable_fsdp_float8_all_gather"), "true");
}

TEST(ExportCli, DeepSpeedSaysTheModelMustTurnOnRecompute) {
  // A DeepSpeed config's activation_checkpointing section configures
  // DeepSpeed's checkpointing API; the model turns recompute on. The JSON on
  // stdout stays clean, the note goes to stderr.
  const std::string plan = "plan --model llama-3.1-8b --gpu h100 --gpus 16 --seq 4096 --global-batch 64 --framework deepspeed@0.16.4 "
                           "--recompute full --export deepspeed";
  const Result out = run_stdout(plan);
  ASSERT_EQ(out.status, 0) << out.out;
  EXPECT_TRUE(nlohmann::json::accept(out.out)) << out.out;
  const Result both = run_all(plan);
  EXPECT_NE(both.out.find("gradient_checkpointing_enable()"), std::string::npos) << both.out;
  const Result none = run_all("plan --model llama-3.1-8b --gpu h100 --gpus 16 --seq 4096 --global-batch 64 --framework deepspeed@0.16.4 "
                              "--recompute none --export deepspeed");
  EXPECT_EQ(none.out.find("gradient_checkpointing_enable()"), std::string::npos) << none.out;
}
