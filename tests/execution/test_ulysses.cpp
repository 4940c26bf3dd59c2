// DeepSpeed-Ulysses context parallelism (CpExchange::kUlysses*): the step time
// by hand, the head rules each framework asserts, the planner honouring them,
// the activations Ulysses keeps, and the ring frameworks left as they were.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/run_cli.hpp"
#include "estimate/kernels/attention_kernels.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/step_time.hpp"
#include "frameworks/launch_config.hpp"

namespace gpuplan {
namespace {

Layout ulysses_8b_32k(CpExchange e) {
  Layout l;
  l.seq_len = 32768;
  l.micro_batch = 1;
  l.cp = 4;
  l.attention = AttentionKernel::kSdpa;
  l.cp_exchange = e;
  return l;
}

// Llama 3.1 8B (32 heads, 8 KV heads, d 128, 32 layers) at 32k on 4 H100s,
// cp 4, SDPA (FA2 tables), no recompute, DeepSpeed's Ulysses.
// Attention: each rank runs all 32,768 tokens of 32/4 = 8 heads, one causal call
// per pass: f = 2 · 32,768 · 32,769/2 · 8 · 256 = 2.1991e12 FLOP forward, 2.5 f
// backward, each at the table's causal rate read at key length 32,768 (the
// forward loops over keys, the backward over queries, both s). The grid, 8 heads
// × 32,768/128 = 2,048 blocks on 132 SMs, fills 2,048/2,112 of its last wave,
// as the tables' own grid did, so the fill cancels. Kernel launches 4 µs: one
// forward, two backward. Before each all-to-all a .contiguous() copy reads and
// writes its tensor: 4 B per element of Q, K, V and the output, (8,192 tokens ·
// (32 + 8 + 8 + 32) heads · 128) · 4 B = 335,544,320 B per pass at 80% of
// 3.35 TB/s, four copy kernels each.
// All-to-alls, one way: Q and the output 8,192 · 4,096 · 2 B = 67,108,864 B
// each, K and V 8,192 · 1,024 · 2 B = 16,777,216 B each; each moves 3/4 of its
// bytes over NVLink's 365 GB/s bus bandwidth plus 3 × 6 µs: 0.41674 ms one way,
// the same backward, nothing hidden: 32 layers · 2 · 0.41674 ms = 26.671 ms.
TEST(Ulysses, StepTimeByHand) {
  const ModelSpec m = find_model("llama-3.1-8b");
  const GpuSpec& h100 = find_gpu("h100-sxm5-80gb");
  const StepTime t = estimate_step_time(m, ulysses_8b_32k(CpExchange::kUlysses), h100);
  auto rate = [&](AttentionPass p) { return attention_training_rate_flop_per_s(h100, AttentionKernel::kSdpa, p, true, 128, 32768); };
  const double f = 2.0 * 32768 * (32769.0 / 2) * 8 * 256;
  const double u = 2048.0 / 2112.0, table_fill = 2048.0 / 2112.0;
  const double copies = 2 * (335544320.0 / (3.35e12 * 0.8) + 4 * 4e-6);
  const double per_layer = (f / rate(AttentionPass::kForward) + 2.5 * f / rate(AttentionPass::kBackward)) / u * table_fill + 3 * 4e-6 + copies;
  EXPECT_NEAR(t.attention_s, 32 * per_layer, 1e-9 * t.attention_s);
  auto a2a = [](double bytes) { return 0.75 * bytes / 365e9 + 3 * 6e-6; };
  const double one_way = 2 * a2a(67108864.0) + 2 * a2a(16777216.0);
  EXPECT_NEAR(one_way, 0.41674e-3, 1e-8);
  EXPECT_NEAR(t.cp_comm_s, 32 * 2 * one_way, 1e-9);
  // The profile gives the same run: DeepSpeed 0.16.4's cp_exchange is Ulysses.
  Layout ds = ulysses_8b_32k(CpExchange::kP2pRing);
  apply_framework(find_framework("deepspeed@0.16.4"), RunSettings{}, ds);
  EXPECT_EQ(ds.cp_exchange, CpExchange::kUlysses);
  ds.attention = AttentionKernel::kSdpa;
  EXPECT_NEAR(estimate_step_time(m, ds, h100).cp_comm_s, t.cp_comm_s, 1e-12);
  // MindSpeed-LLM repeats K and V to the 32 query heads first: all four tensors
  // 67,108,864 B, 4 · (0.75 · 67,108,864 / 365e9 + 18 µs) one way. Its copies
  // per pass: the pre-all-to-all copy of K and V at 24 more heads, 4 B · 8,192
  // · 2 · 24 · 128 = 201,326,592 B, and the repeat_interleave reading 8 and
  // writing 32 heads of K and V, 2 B · 8,192 · 40 · 256 = 167,772,160 B, in two
  // more kernels.
  const StepTime rep = estimate_step_time(m, ulysses_8b_32k(CpExchange::kUlyssesRepeatKv), h100);
  EXPECT_NEAR(rep.cp_comm_s, 32 * 2 * 4 * a2a(67108864.0), 1e-9);
  EXPECT_NEAR(rep.attention_s - t.attention_s, 32 * 2 * ((201326592.0 + 167772160.0) / (3.35e12 * 0.8) + 2 * 4e-6), 1e-9);
}

// Each framework's head rule (src/execution/ulysses.cpp cites the assertions):
// Llama 3.1 8B has 32 heads and 8 KV heads, Llama 2 7B 32 and 32.
TEST(Ulysses, HeadRulesPerFramework) {
  const ModelSpec gqa = find_model("llama-3.1-8b"), mha = find_model("llama-2-7b");
  // DeepSpeed / Colossal-AI: both head counts split over tp×cp.
  EXPECT_TRUE(ulysses_refusal(gqa, 1, 8, CpExchange::kUlysses).empty());
  EXPECT_TRUE(ulysses_refusal(gqa, 2, 4, CpExchange::kUlysses).empty());
  EXPECT_FALSE(ulysses_refusal(gqa, 2, 8, CpExchange::kUlysses).empty());  // 16 ranks, 8 KV heads
  EXPECT_FALSE(ulysses_refusal(gqa, 1, 16, CpExchange::kUlysses).empty());
  EXPECT_FALSE(ulysses_refusal(mha, 1, 64, CpExchange::kUlysses).empty());  // 64 ranks, 32 heads
  // MindSpeed-LLM: the query heads only (K and V are repeated to them).
  EXPECT_TRUE(ulysses_refusal(gqa, 2, 16, CpExchange::kUlyssesRepeatKv).empty());
  EXPECT_FALSE(ulysses_refusal(gqa, 2, 32, CpExchange::kUlyssesRepeatKv).empty());
  // Megatron-DeepSpeed: no grouped-query model at all, at any cp > 1.
  EXPECT_FALSE(ulysses_refusal(gqa, 1, 2, CpExchange::kUlyssesMha).empty());
  EXPECT_TRUE(ulysses_refusal(mha, 1, 32, CpExchange::kUlyssesMha).empty());
  // A ring has no head rule; cp 1 is no context parallelism.
  EXPECT_TRUE(ulysses_refusal(gqa, 1, 16, CpExchange::kP2pRing).empty());
  EXPECT_TRUE(ulysses_refusal(gqa, 8, 1, CpExchange::kUlysses).empty());
}

int cli(std::vector<std::string> args, std::string* err) {
  args.insert(args.begin(), "gpuplan");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::string out;
  return cli::run_cli(static_cast<int>(argv.size()), argv.data(), &out, err);
}

// A pinned cp the framework's Ulysses refuses: InputError naming --cp, in both
// languages, exit status 2 from `memory` and from `plan`.
TEST(Ulysses, PinnedCpBreakingTheHeadRuleIsRefused) {
  const ModelSpec m = find_model("llama-3.1-8b");
  Layout l = ulysses_8b_32k(CpExchange::kP2pRing);
  l.cp = 16;
  apply_framework(find_framework("deepspeed@0.16.4"), RunSettings{}, l);
  try {
    validate_layout(m, l, 16);
    ADD_FAILURE() << "cp 16 with 8 KV heads was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "cp");
    EXPECT_NE(std::string(e.what()).find("8 key/value heads"), std::string::npos) << e.what();
    EXPECT_TRUE(e.has_zh());
  }
  std::string err;
  EXPECT_EQ(cli({"memory", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "16", "--cp", "16", "--seq-len", "32768",
                 "--framework", "deepspeed@0.16.4"},
                &err),
            2);
  EXPECT_NE(err.find("--cp 16"), std::string::npos) << err;
  EXPECT_EQ(cli({"plan", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "8", "--cp", "2", "--seq-len", "32768",
                 "--framework", "megatron-deepspeed@2024", "--lang", "zh"},
                &err),
            2);
  EXPECT_NE(err.find("不支持分组查询注意力"), std::string::npos) << err;
  // The ring frameworks take the same cp.
  l.cp_exchange = CpExchange::kP2pRing;
  EXPECT_NO_THROW(validate_layout(m, l, 16));
}

// The planner proposes no tp×cp a Ulysses framework refuses, still proposes the
// ones it runs, and searches the ring frameworks' cp as before.
TEST(Ulysses, PlannerSearchesOnlyTheHeadSplitsTheFrameworkRuns) {
  PlanRequest r;
  r.model = find_model("llama-3.1-8b");
  r.gpus = {find_gpu("h100")};
  r.gpu_counts = {32};
  r.seq_len = 32768;
  r.global_batch = 32;
  auto max_cp = [&](const char* fw) {
    r.framework = &find_framework(fw);
    int most = 0;
    for (const Layout& l : enumerate_layouts(r, r.gpus[0], 32)) {
      EXPECT_TRUE(ulysses_refusal(r.model, l.tp, l.cp, l.cp_exchange).empty()) << fw << " tp " << l.tp << " cp " << l.cp;
      most = std::max(most, l.cp);
    }
    return most;
  };
  EXPECT_EQ(max_cp("colossalai@0.4.9"), 8);         // 8 KV heads over tp×cp
  EXPECT_EQ(max_cp("deepspeed@0.16.4"), 8);
  EXPECT_EQ(max_cp("megatron-deepspeed@2024"), 1);  // no GQA under its Ulysses
  EXPECT_EQ(max_cp("megatron-core@0.8.0"), 32);     // the ring: cp up to the GPUs
}

// What attention keeps under Ulysses, Llama 3.1 8B at 32k, cp 4, tp 1: T = 8,192
// tokens per rank. The fused kernel's saved head-sharded output (T · 4,096
// elements) is a second tensor beside the output projection's input: +2 · 8,192
// · 4,096 = 67,108,864 B per layer. MindSpeed-LLM's K and V repeated to 32 heads
// are 2 · 8,192 · 2 · (4,096 − 1,024) = 100,663,296 B more than GQA's own.
TEST(Ulysses, ActivationsKeepTheSecondOutputAndRepeatedKv) {
  const ModelSpec m = find_model("llama-3.1-8b");
  const MemoryOptions o;
  const double ring = activation_bytes_per_layer(m, ulysses_8b_32k(CpExchange::kP2pRing), false, o);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, ulysses_8b_32k(CpExchange::kUlysses), false, o) - ring, 67108864.0);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, ulysses_8b_32k(CpExchange::kUlyssesRepeatKv), false, o) - ring,
                   67108864.0 + 100663296.0);
  // Materialised attention saves no output of its own: only the heads move.
  Layout mat = ulysses_8b_32k(CpExchange::kUlysses);
  mat.attention = AttentionKernel::kMaterialised;
  Layout mat_ring = mat;
  mat_ring.cp_exchange = CpExchange::kP2pRing;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, mat, false, o), activation_bytes_per_layer(m, mat_ring, false, o));
}

// The profiles: Ulysses where it is the default CP, and the export names the
// algorithm that was timed.
TEST(Ulysses, ProfilesAndExport) {
  EXPECT_EQ(find_framework("deepspeed@0.10.2").cp_exchange, CpExchange::kUlysses);
  EXPECT_EQ(find_framework("colossalai@0.4.9").cp_exchange, CpExchange::kUlysses);
  EXPECT_EQ(find_framework("megatron-deepspeed@2024").cp_exchange, CpExchange::kUlyssesMha);
  EXPECT_EQ(find_framework("mindspeed").cp_exchange, CpExchange::kUlyssesRepeatKv);
  EXPECT_EQ(find_framework("megatron-core@0.8.0").cp_exchange, CpExchange::kP2pRing);
  EXPECT_EQ(find_framework("torchtitan@2024-12").cp_exchange, CpExchange::kPytorchAllGather);
  Layout l = ulysses_8b_32k(CpExchange::kUlyssesRepeatKv);
  const std::string a = megatron_arguments(find_model("llama-3.1-8b"), l, MegatronDialect::kMindSpeedLlm);
  EXPECT_NE(a.find("--context-parallel-algo ulysses_cp_algo"), std::string::npos) << a;
}

}  // namespace
}  // namespace gpuplan
