// The planner: enumerate every valid layout, keep those the memory model
// accepts, rank them by the step-time model. No physics here.
#include "gpuplan/plan.hpp"
#include "units/quantity_text.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <unordered_map>

#include <fmt/format.h>

#include "gpuplan/cost.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/workload.hpp"
#include "model/size_limits.hpp"
#include "units/text_match.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {
namespace {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i * i <= n; ++i) {
    if (n % i == 0) {
      d.push_back(i);
      if (i != n / i) d.push_back(n / i);
    }
  }
  std::sort(d.begin(), d.end());
  return d;
}

bool pinned_ok(int64_t pin, int64_t value) { return pin <= 0 || pin == value; }

struct StageSplitPin {
  std::optional<int> first, last;
  std::string layout;  // Megatron --pipeline-model-parallel-layout; empty: none
};

// The pipeline splits searched for pp stages of vp chunks: the pinned one if
// it is valid here; else the even split when pp·vp divides the layers; else
// the split stage_split chooses (the embedding and loss counted as layers, or
// the most even first/last one) and up to two other Megatron-valid first/last
// splits with different stage counts (uneven_split_candidates). Empty: none.
std::vector<StageSplitPin> stage_splits_to_search(const PlanRequest& r, const ModelSpec& m, int pp, int vp) {
  Layout probe;
  probe.pp = pp;
  probe.vp = vp;
  std::vector<StageSplitPin> out;
  auto valid = [&](std::optional<int> f, std::optional<int> l, StageSplit* s) {
    probe.first_stage_layers = f;
    probe.last_stage_layers = l;
    try {
      *s = stage_split(m, probe);
      return true;
    } catch (const InputError&) {
      return false;
    }
  };
  StageSplit chosen;
  // A framework without uneven stages (data/frameworks: uneven_stages) runs only even splits.
  const FrameworkProfile& fw = plan_framework(r);
  const bool uneven_ok = fw.uneven_stages;
  auto valid_layout = [&](const std::string& layout) {
    probe.pipeline_layout = layout;
    bool ok = valid(std::nullopt, std::nullopt, &chosen);
    probe.pipeline_layout.clear();
    return ok;
  };
  if (!r.pipeline_layout.empty()) {
    if (uneven_ok && valid_layout(r.pipeline_layout)) out.push_back({std::nullopt, std::nullopt, r.pipeline_layout});
    return out;
  }
  // The stack's own recipe layout for this model at pp·vp stages comes first:
  // it is what the framework runs there unless told otherwise.
  if (!r.first_stage_layers && !r.last_stage_layers && uneven_ok) {
    const std::string recipe = recipe_pipeline_layout(fw, m, probe);
    if (!recipe.empty() && valid_layout(recipe)) out.push_back({std::nullopt, std::nullopt, recipe});
  }
  if (r.first_stage_layers || r.last_stage_layers) {
    if (uneven_ok && valid(r.first_stage_layers, r.last_stage_layers, &chosen)) out.push_back({r.first_stage_layers, r.last_stage_layers, {}});
    return out;
  }
  if (!valid(std::nullopt, std::nullopt, &chosen)) return out;
  if (chosen.rule != StageSplitRule::kEven && !uneven_ok) return out;
  out.push_back({});
  if (chosen.rule == StageSplitRule::kEven) return out;
  const size_t limit = out.size() + 2;
  std::vector<std::vector<int64_t>> seen{{}};
  for (int s = 0; s < pp; ++s) seen.front().push_back(chosen.layers(s));
  for (const auto& [f, l] : uneven_split_candidates(m.layers, pp, vp)) {
    if (out.size() >= limit) break;
    StageSplit other;
    if (!valid(f, l, &other)) continue;
    std::vector<int64_t> counts;
    for (int s = 0; s < pp; ++s) counts.push_back(other.layers(s));
    if (std::find(seen.begin(), seen.end(), counts) != seen.end()) continue;
    seen.push_back(counts);
    out.push_back({f, l, {}});
  }
  return out;
}

int node_size(const PlanRequest& r, const GpuSpec& g) {
  int node = r.step_options.gpus_per_node > 0 ? r.step_options.gpus_per_node : g.gpus_per_node;
  return std::max(node, g.nvlink_domain_gpus);
}

int64_t default_global_batch(const PlanRequest& r, int64_t gpus) {
  if (r.global_batch > 0) return r.global_batch;
  // ~4M tokens (workload.hpp), in odd·2^k sequences, odd the odd part of the
  // GPU count: a power-of-two count gets a power-of-two batch.
  int64_t odd = std::max<int64_t>(1, gpus);
  while (odd % 2 == 0) odd /= 2;
  return default_global_batch_seqs(r.seq_len, odd);
}

double price_usd(const GpuSpec& g, const std::optional<Market>& market) {
  // Rankings compare listings of one market only: no fallback to the other.
  const PriceQuote* q = market ? default_price(g.id, *market) : default_price(g.id);
  if (!q || q->on_demand_per_gpu_hour <= 0) return 0;
  return q->currency == "CNY" ? convert(q->on_demand_per_gpu_hour, Currency::kCny, Currency::kUsd) : q->on_demand_per_gpu_hour;
}

void check_pins(const PlanRequest& r) {
  const ModelSpec& m = r.model;
  if (r.tp > 0 && m.heads % r.tp != 0) {
    throw InputError("--tp", fmt::format("--tp {} must divide the model's {} attention heads.", r.tp, m.heads),
                     fmt::format("--tp {} 须能整除模型的 {} 个注意力头。", r.tp, m.heads));
  }
  if (r.pp > 0 && r.pp > m.layers) {
    throw InputError("--pp", fmt::format("--pp {} exceeds the model's {} layers.", r.pp, m.layers), fmt::format("--pp {} 超过了模型的 {} 层。", r.pp, m.layers));
  }
  for (auto [pin, field] : {std::pair{r.first_stage_layers, "--first-stage-layers"}, std::pair{r.last_stage_layers, "--last-stage-layers"}}) {
    if (pin && (*pin < 1 || *pin > m.layers)) {
      throw InputError(field, fmt::format("{} must be from 1 to the model's {} layers (got {}).", field, m.layers, *pin),
                       fmt::format("{} 须在 1 到模型层数 {} 之间（输入为 {}）。", field, m.layers, *pin));
    }
  }
  if (r.ep > 1 && !m.moe) throw InputError("--ep", "--ep needs a mixture-of-experts model; this one is dense.", "--ep 只适用于 MoE 模型；这是稠密模型。");

  if (r.etp < 0) throw InputError("--etp", "--etp must be a positive expert tensor-parallel degree.", "--etp 须为正的专家张量并行度。");
  if (r.etp > 0 && !m.moe) throw InputError("--etp", "--etp needs a mixture-of-experts model; this one is dense.", "--etp 只适用于 MoE 模型；这是稠密模型。");
  if (!r.pipeline_layout.empty()) {
    if (r.first_stage_layers || r.last_stage_layers) {
      throw InputError("--pipeline-layout", "--pipeline-layout cannot be combined with --first-stage-layers / --last-stage-layers (Megatron takes one or the other).",
                       "--pipeline-layout 不能与 --first-stage-layers / --last-stage-layers 同时使用（Megatron 只接受其一）。");
    }
    const size_t stages = parse_pipeline_layout(r.pipeline_layout).size();  // throws on a bad string
    if (r.pp > 0 && stages % static_cast<size_t>(r.pp) != 0) {
      throw InputError("--pipeline-layout", fmt::format("--pipeline-layout: its {} stages are not a multiple of --pp {}.", stages, r.pp),
                       fmt::format("--pipeline-layout：其 {} 段不是 --pp {} 的整数倍。", stages, r.pp));
    }
  }
  if (r.cp > 0 && r.seq_len % r.cp != 0) {
    throw InputError("--cp", fmt::format("--cp {} must divide the sequence length {}.", r.cp, r.seq_len),
                     fmt::format("--cp {} 须能整除序列长度 {}。", r.cp, r.seq_len));
  }
  if (r.zero_stage && (*r.zero_stage < 0 || *r.zero_stage > 3)) throw InputError("--zero", "--zero must be 0, 1, 2 or 3.", "--zero 须为 0、1、2 或 3。");
  const FrameworkProfile& fw = plan_framework(r);
  auto refuse = [&](const char* flag, const std::string& why, const std::string& why_zh) {
    throw InputError(flag, fmt::format("{}: {} (--framework {}).", flag, why, fw.label()),
                     fmt::format("{}：{}（--framework {}）。", flag, why_zh, fw.label()));
  };
  if (r.zero_stage && !fw.supports_zero(*r.zero_stage)) {
    refuse("--zero", fmt::format("ZeRO stage {} is not offered", *r.zero_stage), fmt::format("不提供 ZeRO-{}", *r.zero_stage));
  }
  if (r.tp > 1 && !fw.tp) refuse("--tp", "no tensor parallelism", "不支持张量并行");
  if (r.pp > 1 && !fw.pp) refuse("--pp", "no pipeline parallelism", "不支持流水线并行");
  if (r.cp > 1 && !fw.cp) refuse("--cp", "no context parallelism", "不支持上下文并行");
  // Ulysses's head rule at the pinned tp, or at tp 1 (the loosest) when tp is searched.
  if (const Reason why = ulysses_refusal(m, r.tp > 0 ? r.tp : 1, r.cp, fw.cp_exchange); r.cp > 1 && !why.empty()) {
    throw InputError("--cp", fmt::format("--cp {}: {} (--framework {}).", r.cp, why.en, fw.label()),
                     fmt::format("--cp {}：{}（--framework {}）。", r.cp, why.zh, fw.label()));
  }
  if (r.ep > 1 && !fw.ep) refuse("--ep", "no expert parallelism", "不支持专家并行");
  if (r.etp > 0 && !fw.moe_parallel_folding && r.tp > 0 && r.etp != r.tp) {
    refuse("--etp", fmt::format("expert TP {} other than TP {} needs MoE parallel folding, which it lacks", r.etp, r.tp),
           fmt::format("专家张量并行 {} 与 TP {} 不同需要 MoE 并行折叠，该框架不支持", r.etp, r.tp));
  }
  if (r.vp > 1 && !fw.interleaving()) refuse("--vp", "no interleaved pipeline schedule", "不支持交错流水线调度");
  if (r.pp > 1 && r.zero_stage && *r.zero_stage > fw.zero_max_with_pp) {
    refuse("--zero",
           fmt::format("ZeRO stage {} does not run with pipeline parallelism (at most {} with --pp {})", *r.zero_stage, fw.zero_max_with_pp, r.pp),
           fmt::format("ZeRO-{} 不能与流水线并行同时运行（--pp {} 时最多 ZeRO-{}）", *r.zero_stage, r.pp, fw.zero_max_with_pp));
  }
  if (r.gpus.empty()) throw InputError("--gpu", "--gpu needs at least one GPU type.", "--gpu 至少要给出一种 GPU。");
  if (r.gpu_counts.empty()) throw InputError("--gpus", "--gpus needs at least one GPU count.", "--gpus 至少要给出一个卡数。");
  for (int64_t n : r.gpu_counts) {
    if (n < 1) throw InputError("--gpus", fmt::format("--gpus must be positive (got {}).", n), fmt::format("--gpus 须为正数（输入为 {}）。", n));
  }
  // The pinned degrees multiply to the GPUs of one replica; a count they do not
  // divide has no layout at all, which is the constraint to name (not memory).
  std::string pinned;
  int64_t per_replica = 1;
  const char* first_flag = nullptr;
  for (auto [deg, flag] : {std::pair{r.tp, "--tp"}, std::pair{r.pp, "--pp"}, std::pair{r.cp, "--cp"}, std::pair{r.dp, "--dp"}}) {
    if (deg <= 0) continue;
    per_replica *= deg;
    pinned += fmt::format("{}{} {}", pinned.empty() ? "" : " × ", flag, deg);
    if (!first_flag) first_flag = flag;
  }
  if (first_flag) {
    bool any = false;
    for (int64_t n : r.gpu_counts) any = any || n % per_replica == 0;
    if (!any) {
      std::vector<std::string> counts;
      for (int64_t n : r.gpu_counts) counts.push_back(std::to_string(n));
      throw InputError(first_flag, fmt::format("{} needs a GPU count that is a multiple of {}; --gpus {} {} not.", pinned,
                                               per_replica, join(counts, ","), counts.size() == 1 ? "is" : "are"),
                       fmt::format("{} 要求卡数是 {} 的整数倍；--gpus {} 不满足。", pinned, per_replica, join(counts, ",")));
    }
  }
}

double score(const PlanRequest& r, const StepTime& t, int64_t gpus) {
  return r.rank_by == PlanRank::kCost ? t.step_s * static_cast<double>(gpus) : t.step_s;
}

// Why the winner wins: against the runner-up (the second-ranked layout), the
// part of the step where it is ahead by the most seconds.
PlanWhy why_winner(const std::vector<PlanCandidate>& top) {
  PlanWhy w;
  if (top.size() < 2) return w;
  w.runner_up = 1;
  const StepTime& x = top[0].time;
  const StepTime& y = top[w.runner_up].time;
  struct Part { StepPart part; double d; };
  Part parts[] = {{StepPart::kCompute, y.compute_s - x.compute_s},
                  {StepPart::kTpComm, y.tp_comm_s - x.tp_comm_s},
                  {StepPart::kPipeline, (y.bubble_s + y.pp_comm_s) - (x.bubble_s + x.pp_comm_s)},
                  {StepPart::kDpComm, (y.dp_comm_s + y.zero3_comm_s) - (x.dp_comm_s + x.zero3_comm_s)},
                  {StepPart::kCpEpComm, (y.cp_comm_s + y.ep_comm_s) - (x.cp_comm_s + x.ep_comm_s)},
                  {StepPart::kOptimizer, y.optimizer_s - x.optimizer_s}};
  std::sort(std::begin(parts), std::end(parts), [](const Part& p, const Part& q) { return p.d > q.d; });
  if (parts[0].d > 0) {
    w.saves_most = parts[0].part;
    w.saved_s = parts[0].d;
  }
  return w;
}

}  // namespace

const FrameworkProfile& plan_framework(const PlanRequest& r) {
  static const FrameworkProfile& generic = find_framework("generic");
  return r.framework ? *r.framework : generic;
}

Layout plan_recipe_layout(const PlanRequest& r) {
  Layout l = r.base_layout.value_or(Layout{});
  l.tp = l.pp = l.dp = l.cp = l.ep = l.vp = 1;
  l.micro_batch = 1;
  l.seq_len = r.seq_len;
  if (r.global_batch > 0) l.global_batch = r.global_batch;
  l.precision = r.precision;
  l.optimizer = r.optimizer;
  apply_framework(plan_framework(r), r.settings, l);
  if (r.zero3_per_module) l.zero3_per_module = true;
  return l;
}



std::vector<Layout> enumerate_layouts(const PlanRequest& r, const GpuSpec& g, int64_t gpus) {
  std::vector<Layout> out;
  const ModelSpec& m = r.model;
  const int node = node_size(r, g);
  const int64_t gb = default_global_batch(r, gpus);
  const FrameworkProfile& fw = plan_framework(r);
  Layout recipe = plan_recipe_layout(r);
  recipe.global_batch = gb;
  // The request's precision where the GPU has it, else its 16-bit format.
  if (!g.has(r.precision)) recipe.precision = g.has(Precision::kFp16) ? Precision::kFp16 : Precision::kBf16;
  for (int64_t tp : divisors(gpus)) {
    if (!pinned_ok(r.tp, tp) || (tp > node && !r.cross_node_tp && r.tp <= 0)) continue;
    if (tp > 1 && !fw.tp) continue;
    if (m.heads % tp != 0) continue;
    if (!m.mla && m.kv_heads % tp != 0 && tp % m.kv_heads != 0) continue;
    for (int64_t cp : divisors(gpus / tp)) {
      if (!pinned_ok(r.cp, cp) || r.seq_len % cp != 0 || cp > 64) continue;
      if (cp > 1 && !fw.cp) continue;
      if (!ulysses_refusal(m, static_cast<int>(tp), static_cast<int>(cp), fw.cp_exchange).empty()) continue;
      const int64_t rest = gpus / (tp * cp);
      for (int64_t pp : divisors(rest)) {
        if (!pinned_ok(r.pp, pp) || pp > m.layers) continue;
        if (r.pp <= 0 && pp > kMaxSearchedPipelineStages) continue;  // size_limits.hpp: bounded work per layout
        if (pp > 1 && !fw.pp) continue;
        const int64_t dp = rest / pp;
        if (dp > 1 && !fw.dp) continue;
        if (!pinned_ok(r.dp, dp) || gb % dp != 0) continue;
        // The stage splits searched for each vp (index vp − 1; vp 1 to 8).
        std::vector<std::vector<StageSplitPin>> splits_by_vp(8);
        for (int v = 1; v <= 8; ++v) {
          if (v > 1 && pp == 1) break;
          splits_by_vp[static_cast<size_t>(v - 1)] = stage_splits_to_search(r, m, static_cast<int>(pp), v);
        }
        if (std::all_of(splits_by_vp.begin(), splits_by_vp.end(), [](const auto& v) { return v.empty(); })) continue;
        std::vector<int64_t> eps{1};
        if (m.moe) {
          eps.clear();
          // EP ranks come from dp×cp, or, where the stack folds MoE parallelism
          // with its own expert TP, from tp×cp×dp in groups of etp (validate_layout).
          const int64_t etp = r.etp > 0 ? r.etp : (fw.moe_parallel_folding && fw.expert_tp_default > 0 ? fw.expert_tp_default : tp);
          // A stack without folding runs expert TP = TP only (a pinned --etp then fixes tp).
          for (int64_t e : divisors(m.moe->routed_experts)) {
            if (etp != tp && !fw.moe_parallel_folding) break;
            const bool fits = etp == tp ? (dp * cp) % e == 0 : (tp * cp * dp) % (etp * e) == 0 && m.moe->expert_intermediate % etp == 0;
            if (fits && (e == 1 || fw.ep)) eps.push_back(e);
          }
        }
        const int64_t per_rank = gb / dp;
        for (int64_t ep : eps) {
          if (!pinned_ok(r.ep, ep)) continue;
          for (int64_t mb : divisors(per_rank)) {
            if (!pinned_ok(r.micro_batch, mb)) continue;
            if (r.micro_batch <= 0 && mb > r.max_micro_batch) continue;
            const int64_t micro_batches = per_rank / mb;
            // Without gradient accumulation a pp-1 step is one micro-batch per rank.
            if (!fw.gradient_accumulation && pp == 1 && micro_batches > 1) continue;
            std::vector<int64_t> vps{1};
            if (pp > 1 && micro_batches % pp == 0 && fw.interleaving()) {
              // Interleaving needs the layers to split into pp·v chunks
              // (stage_split: evenly, or Megatron's uneven rules) and (Megatron)
              // a micro-batch count divisible by pp.
              for (int64_t v = 2; v <= 8; ++v) {
                if (!splits_by_vp[static_cast<size_t>(v - 1)].empty()) vps.push_back(v);
              }
            }
            for (int64_t vp : vps) {
              if (!pinned_ok(r.vp, vp)) continue;
              for (const StageSplitPin& split : splits_by_vp[static_cast<size_t>(vp - 1)]) {
              // ZeRO stages from 3 down and recompute from full to none: the
              // memory-lean end first, so failures prune the rest (see plan()).
              for (int zero = 3; zero >= 0; --zero) {
                if (r.zero_stage && *r.zero_stage != zero) continue;
                if (!fw.supports_zero(zero)) continue;
                if (pp > 1 && zero > fw.zero_max_with_pp) continue;  // profile zero_max_with_pp (Colossal-AI: ZeRO 0-1 with PP)
                if (ep > 1 && zero > fw.zero_max_with_ep) continue;  // profile zero_max_with_ep (Megatron core 0.10/0.11: FSDP2 without EP)
                if (tp > 1 && zero > fw.zero_max_with_tp) continue;  // profile zero_max_with_tp (DeepSpeed AutoTP: ZeRO ≤ 2)
                if (!r.zero_stage && zero > 0 && dp * cp == 1) continue;     // nothing to shard over
                if (!r.zero_stage && zero >= 2 && pp > 1) continue;          // ZeRO-2/3 with pipelines: not searched
                for (Recompute rc : {Recompute::kFull, Recompute::kSelective, Recompute::kNone}) {
                  if (r.recompute && *r.recompute != rc) continue;
                  // A framework without a selective mode (recompute_selective: none) is not searched for one.
                  if (rc == Recompute::kSelective && fw.recompute_selective == SelectiveRecompute::kNone &&
                      !r.settings.recompute_policy) continue;
                  // Nor one that always recomputes (MaxText: every layer under remat) for none.
                  if (rc == Recompute::kNone && !fw.recompute_none) continue;
                  Layout l = recipe;
                  l.tp = static_cast<int>(tp);
                  l.pp = static_cast<int>(pp);
                  l.dp = static_cast<int>(dp);
                  l.cp = static_cast<int>(cp);
                  l.ep = static_cast<int>(ep);
                  l.vp = static_cast<int>(vp);
                  l.micro_batch = mb;
                  l.zero_stage = zero;
                  l.recompute = rc;
                  l.first_stage_layers = split.first;
                  l.last_stage_layers = split.last;
                  l.pipeline_layout = split.layout;
                  if (r.etp > 0) l.etp = r.etp;
                  apply_framework(fw, r.settings, l);
                  if (!dualpipe_can_run(l) || !moe_a2a_overlap_can_run(l)) continue;  // the schedules' own checks
                  if (r.zero3_per_module) l.zero3_per_module = true;
                  if (fw.sequence_parallel == SequenceParallelMode::kOptional) {
                    // A tunable the planner chooses where the framework makes it
                    // optional: on, which never needs more memory or time (the
                    // same bytes as TP's all-reduces, the replicated norms and
                    // dropouts split; Korthikanti et al. 2022 §4.2.2), unless pinned.
                    const std::optional<bool> pin = r.sequence_parallel ? r.sequence_parallel : r.settings.sequence_parallel;
                    // Off beside CP where the stack refuses the two together (profile sequence_parallel_with_cp).
                    l.sequence_parallel = tp > 1 && pin.value_or(l.cp <= 1 || fw.sequence_parallel_with_cp);
                  }
                  out.push_back(l);
                }
              }
              }
            }
          }
        }
      }
    }
  }
  return out;
}

PlanResult plan(const PlanRequest& r) {
  check_pins(r);
  const auto start = std::chrono::steady_clock::now();
  PlanResult result;
  MemoryOptions mo = r.memory_options;
  mo.suggest = false;
  StepTimeOptions so = r.step_options;
  so.explain = false;
  const int64_t groups = static_cast<int64_t>(r.gpus.size() * r.gpu_counts.size());
  if (groups > kMaxPlanGroups) {
    throw InputError("--gpus", fmt::format("--gpus: {} GPU types × {} counts = {} searches, more than the {} one plan request runs; "
                                           "give fewer GPU types or counts (a range a-b searches its powers of two).",
                                           r.gpus.size(), r.gpu_counts.size(), groups, kMaxPlanGroups),
                     fmt::format("--gpus：{} 种 GPU × {} 个卡数 = {} 组搜索，超过单次规划上限 {} 组；"
                                 "请减少 GPU 种类或卡数（范围 a-b 只搜索其中 2 的幂）。",
                                 r.gpus.size(), r.gpu_counts.size(), groups, kMaxPlanGroups));
  }
  auto too_much = [&](const std::string& what, const std::string& what_zh) {
    return InputError("--gpus", fmt::format("--gpus: this search over {} GPU type(s) × {} count(s) of a {}-layer model would {}, beyond what "
                                            "one request may spend; pin --tp or --pp, or give fewer GPU types or counts.",
                                            r.gpus.size(), r.gpu_counts.size(), r.model.layers, what),
                      fmt::format("--gpus：对 {} 层模型、{} 种 GPU × {} 个卡数的搜索{}，超出单次请求允许的计算量；"
                                  "请固定 --tp 或 --pp，或减少 GPU 种类或卡数。",
                                  r.model.layers, r.gpus.size(), r.gpu_counts.size(), what_zh));
  };
  // Work units (size_limits.hpp): a memory check costs one, a step-time
  // estimate kStepTimePasses, each growing with the pipeline stages it walks;
  // the layer count barely matters. kMaxPlanWorkUnits bounds them as the
  // search goes, so a request is refused after about a second, not hours.
  double work = 0;
  auto spend = [&](const Layout& l, double passes) {
    work += passes * (1.0 + static_cast<double>(l.pp) * l.vp / 16.0);
    if (work > static_cast<double>(kMaxPlanWorkUnits)) {
      throw too_much(fmt::format("need more than {} layout evaluations", format_thousands(static_cast<double>(kMaxPlanWorkUnits))),
                     fmt::format("需要评估超过 {} 个并行布局", format_thousands(static_cast<double>(kMaxPlanWorkUnits))));
    }
  };
  for (const GpuSpec& g : r.gpus) {
    for (int64_t n : r.gpu_counts) {
      PlanGroup grp;
      grp.gpu_id = g.id;
      grp.gpu_name = g.name;
      grp.gpus = n;
      grp.global_batch = default_global_batch(r, n);
      grp.usd_per_gpu_hour = price_usd(g, r.market);
      // The release's benchmark recipe for this model on this GPU (Megatron-Bridge's presets), where the stack has one.
      PlanRequest rg = r;
      apply_perf_recipe(plan_framework(r), r.model, g.id, rg.settings);
      const std::vector<Layout> layouts = enumerate_layouts(rg, g, n);
      work += kEnumeratePasses * static_cast<double>(layouts.size());
      std::vector<std::pair<double, size_t>> fitting;
      std::pair<double, size_t> over{0, 0};  // best over-margin score and layout index + 1 (0: none)
      // Memory only grows with the micro-batch, with a lower ZeRO stage and with
      // less recomputation, all else fixed. A layout is rejected without asking
      // the memory model when a leaner one of the same shape already failed.
      struct Fail { int zero; int lean; int64_t mb; };
      std::unordered_map<uint64_t, std::vector<Fail>> failed;
      auto key_of = [](const Layout& l) {
        uint64_t k = static_cast<uint64_t>(l.tp);
        for (uint64_t v : {static_cast<uint64_t>(l.pp), static_cast<uint64_t>(l.dp), static_cast<uint64_t>(l.cp),
                           static_cast<uint64_t>(l.ep), static_cast<uint64_t>(l.vp),
                           static_cast<uint64_t>(l.first_stage_layers.value_or(-1) + 1),
                           static_cast<uint64_t>(l.last_stage_layers.value_or(-1) + 1),
                           static_cast<uint64_t>(std::hash<std::string>{}(l.pipeline_layout)), static_cast<uint64_t>(l.expert_tp())}) {
          k = k * 1000003u + v;
        }
        return k;
      };
      auto lean_of = [](Recompute rc) { return rc == Recompute::kFull ? 2 : rc == Recompute::kSelective ? 1 : 0; };
      for (size_t i = 0; i < layouts.size(); ++i) {
        ++grp.evaluated;
        const Layout& l = layouts[i];
        const uint64_t key = key_of(l);
        const int lean = lean_of(l.recompute);
        auto& fails = failed[key];
        bool dominated = false;
        for (const Fail& f : fails) {
          if (f.zero >= l.zero_stage && f.lean >= lean && f.mb <= l.micro_batch) {
            dominated = true;
            break;
          }
        }
        if (dominated) continue;
        ++grp.memory_checked;
        spend(l, 1);
        const MemoryBreakdown mem = estimate_memory_numbers(r.model, l, g, mo);
        if (!mem.fits) {
          fails.push_back({l.zero_stage, lean, l.micro_batch});
          // Over the margin but on the card: timed while the search has a
          // fifth of its work to spare, never refused for it.
          if (mem.fits_card && work + kStepTimePasses * 16 < 0.8 * static_cast<double>(kMaxPlanWorkUnits)) {
            spend(l, kStepTimePasses);
            const double sc = score(r, estimate_step_time(r.model, l, g, so), n);
            if (!over.second || sc < over.first) over = {sc, i + 1};
          }
          continue;
        }
        spend(l, kStepTimePasses);
        const StepTime t = estimate_step_time(r.model, layouts[i], g, so);
        fitting.push_back({score(r, t, n), i});
      }
      grp.fitting = static_cast<int64_t>(fitting.size());
      const size_t k = std::min<size_t>(fitting.size(), static_cast<size_t>(std::max(1, r.top_k)));
      std::partial_sort(fitting.begin(), fitting.begin() + static_cast<std::ptrdiff_t>(k), fitting.end());
      MemoryOptions mo_full = r.memory_options;
      mo_full.suggest = false;
      for (size_t j = 0; j < k; ++j) {
        PlanCandidate c;
        c.layout = layouts[fitting[j].second];
        c.time = estimate_step_time(r.model, c.layout, g, r.step_options);
        c.memory = estimate_memory(r.model, c.layout, g, mo_full);
        c.cost_per_step_usd = c.time.step_s * static_cast<double>(n) * grp.usd_per_gpu_hour / 3600.0;
        grp.top.push_back(std::move(c));
      }
      if (over.second && (fitting.empty() || over.first < fitting.front().first)) {
        PlanCandidate c;
        c.layout = layouts[over.second - 1];
        c.time = estimate_step_time(r.model, c.layout, g, r.step_options);
        c.memory = estimate_memory(r.model, c.layout, g, mo_full);
        c.cost_per_step_usd = c.time.step_s * static_cast<double>(n) * grp.usd_per_gpu_hour / 3600.0;
        grp.over_margin = std::move(c);
      }
      for (const Layout& given : r.references) {
        if (given.gpus() != n) continue;
        Layout ref = given;
        if (!ref.global_batch) ref.global_batch = grp.global_batch;
        validate_layout(r.model, ref, n);
        PlanReference pr;
        pr.layout = ref;
        pr.memory = estimate_memory(r.model, ref, g, mo_full);
        pr.fits = pr.memory.fits;
        pr.time = estimate_step_time(r.model, ref, g, r.step_options);
        pr.of = grp.fitting;
        const double s = score(r, pr.time, n);
        if (pr.fits) {
          pr.rank = 1;
          for (const auto& f : fitting) pr.rank += f.first < s ? 1 : 0;
        }
        if (!fitting.empty()) pr.vs_best = s / fitting.front().first - 1;
        grp.references.push_back(std::move(pr));
      }
      grp.why = why_winner(grp.top);
      result.groups.push_back(std::move(grp));
    }
  }
  result.search_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace gpuplan
