// estimate_train (train_estimate.hpp): validates a training request and runs the
// estimators on it; train_report renders the result.
#include "gpuplan/train_estimate.hpp"
#include "units/quantity_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpuplan/checkpoint.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/inference.hpp"  // require_supported_context
#include "model/size_limits.hpp"
#include "gpuplan/units.hpp"
#include "commands/train_confidence.hpp"

namespace gpuplan {
namespace {

void validate(const TrainRequest& r) {
  if (r.gpus) require_range(*r.gpus, 1, static_cast<double>(kMaxGpus), "--gpus", "a whole number of GPUs from 1 to 10,000,000", "1 到 10,000,000 之间的整数卡数");
  if (r.gpus && std::floor(*r.gpus) != *r.gpus) {
    throw InputError("--gpus", fmt::format("--gpus must be a whole number of GPUs (got {}).", *r.gpus), fmt::format("--gpus 须为整数卡数（输入为 {}）。", *r.gpus));
  }
  if (r.mfu) require_range(*r.mfu, 1e-4, 1, "--mfu", "a fraction greater than 0 and at most 1 (e.g. 0.4)", "大于 0、不超过 1 的比例（如 0.4）");
  if (r.tflops_per_gpu) require_range(*r.tflops_per_gpu, 1e-3, 1e6, "--tflops-per-gpu", "a positive achieved TFLOP/s per GPU", "正的单卡实测 TFLOP/s");
  if (r.mfu && r.tflops_per_gpu) {
    throw InputError("--mfu", "--mfu and --tflops-per-gpu both set the utilisation; give only one of them.",
                     "--mfu 和 --tflops-per-gpu 都是在给算力利用率，只能给其中一个。");
  }
  if (r.deadline_s) require_range(*r.deadline_s, 1, 1e11, "--deadline", "a positive duration up to about 3,000 years", "正的时长，最长约 3000 年");
  if (r.fault_budget) require_range(*r.fault_budget, 0, 10, "--fault-budget", "a fraction from 0 to 10 (0.2 = 20%)", "0 到 10 之间的比例（0.2 即 20%）");
  require_range(r.comm_margin, 0, 10, "--comm-margin", "a fraction from 0 to 10 (0.1 = 10%)", "0 到 10 之间的比例（0.1 即 10%）");
  require_range(r.workload.epochs, 1e-6, 1e6, "--epochs", "a positive number of epochs", "正的轮数（epoch）");
  // 0 is "not given": estimate_train takes default_seq_len(model).
  if (r.workload.seq_len != 0) {
    require_range(static_cast<double>(r.workload.seq_len), 1, static_cast<double>(kMaxContext), "--seq-len", "a whole number of tokens from 1 to 100,000,000", "1 到 100,000,000 之间的整数 token 数");
  }
  if (r.workload.tokens) require_range(*r.workload.tokens, 1, 1e18, "--tokens", "a positive token count up to 1e18", "不超过 1e18 的正 token 数");
  if (r.workload.samples) require_range(*r.workload.samples, 1, 1e18, "--samples", "a positive sample count up to 1e18", "不超过 1e18 的正样本数");
  if (r.workload.tokens_per_sample) require_range(*r.workload.tokens_per_sample, 1, 1e9, "--tokens-per-sample", "a positive number up to 1e9", "不超过 1e9 的正数");
  if (r.flop_per_sample) require_range(*r.flop_per_sample, 1, 1e30, "--flops-per-sample", "a positive FLOP count", "正的 FLOP 数");
  if (r.gpus_per_node) require_range(*r.gpus_per_node, 1, 1024, "--gpus-per-node", "a whole number from 1 to 1024", "1 到 1024 之间的整数");
}

// The layout pins a run states, as its flags read ("--pp 16 --ep 64"); empty without any.
std::string pinned_layout_text(const TrainRequest& r) {
  std::string out;
  auto add = [&out](const char* flag, const std::string& value) { out += fmt::format("{}{} {}", out.empty() ? "" : " ", flag, value); };
  for (const auto& [flag, v] : {std::pair{"--tp", int64_t{r.tp}}, {"--pp", r.pp}, {"--dp", r.dp}, {"--cp", r.cp}, {"--ep", r.ep}, {"--vp", r.vp},
                                {"--etp", r.etp}, {"--micro-batch", r.micro_batch}}) {
    if (v > 0) add(flag, std::to_string(v));
  }
  if (r.zero_stage) add("--zero", std::to_string(*r.zero_stage));
  if (!r.pipeline_layout.empty()) add("--pipeline-layout", r.pipeline_layout);
  if (r.pin_recompute) add("--recompute", recompute_name(r.layout_recompute_pin));
  return out;
}

// A predicted run with a deadline, judged at the asked confidence: the
// wall-clock there, with the run's slack and verdict set from it.
double judge_deadline(const RunInput& ri, const train_detail::Confidence& conf, const train_detail::MfuCheck& check, RunEstimate* run) {
  RunInput at = ri;
  at.gpus = static_cast<double>(run->gpus);
  at.mfu = train_detail::mfu_at(conf, check, conf.confidence);
  const RunEstimate slow = solve_run(at);
  run->deadline_slack_s = *run->deadline_s - slow.wall_s;
  run->deadline_met = run->deadline_slack_s >= -1e-6 * *run->deadline_s;
  return slow.wall_s;
}

// What the layout shown decides beyond its time: unstated, the recompute is
// the layout's (its extra forward is what the hardware runs), and the
// release's benchmark recipe the search took is named. Call with e.flops and
// e.layout set.
void add_layout_facts(const TrainRequest& r, const ModelSpec& model, const GpuSpec& gpu, const Workload& w, TrainEstimate& e) {
  e.recompute_counted = e.layout && !r.pin_recompute ? e.layout->layout.recompute : r.recompute;
  if (e.flops && e.flops->exact && e.recompute_counted != r.recompute) {
    e.flops = flops_per_token(model, {w.seq_len, r.causal_half, e.recompute_counted});
  }
  if (e.layout && r.framework) {
    RunSettings s = r.settings;
    apply_perf_recipe(*r.framework, model, gpu.id, s, &e.recipe_notes);
  }
}

// --gpus given and no layout fits the GPU, under the stated pins.
InputError no_layout_fits(const TrainRequest& r, const ModelSpec& model, const GpuSpec& gpu) {
  const std::string pins = pinned_layout_text(r);
  return InputError("--gpus", fmt::format("--gpus: no parallel layout of {} on {} × {}{} fits in memory; add GPUs, choose a "
                                          "larger GPU{}, or give --mfu to skip the layout search.",
                                          model.name, *r.gpus, gpu.id, pins.empty() ? "" : " with " + pins + " pinned",
                                          pins.empty() ? "" : ", pin less"),
                    fmt::format("--gpus：{} 在 {} 张 {} 上{}没有任何并行布局放得进显存；请加卡、换显存更大的 GPU{}，"
                                "或给出 --mfu 跳过布局搜索。",
                                model.name, *r.gpus, gpu.id, pins.empty() ? "" : "固定 " + pins + " 时", pins.empty() ? "" : "、少固定几项"));
}

// The planner's fastest layout that keeps the margin on `gpus` GPUs, and the
// fastest that fits the GPU without it when that one is faster or alone.
struct LayoutChoice {
  std::optional<PlanCandidate> best;
  std::optional<PlanCandidate> over_margin;
};

LayoutChoice choose_layout(const TrainRequest& r, const ModelSpec& model, const GpuSpec& gpu, int64_t gpus,
                           const Workload& w) {
  PlanRequest pr;
  pr.model = model;
  pr.gpus = {gpu};
  pr.gpu_counts = {gpus};
  pr.seq_len = w.seq_len;
  if (w.batch_tokens > 0) pr.global_batch = static_cast<int64_t>(std::llround(w.batch_tokens / static_cast<double>(w.seq_len)));
  pr.precision = r.precision;
  pr.framework = r.framework;
  pr.settings = r.settings;
  pr.top_k = 1;
  if (r.pin_recompute) pr.recompute = r.layout_recompute_pin;
  pr.tp = r.tp, pr.pp = r.pp, pr.dp = r.dp, pr.cp = r.cp, pr.ep = r.ep, pr.vp = r.vp, pr.etp = r.etp;
  pr.micro_batch = r.micro_batch;
  pr.zero_stage = r.zero_stage;
  pr.pipeline_layout = r.pipeline_layout;
  pr.memory_options.safety_margin = r.safety_margin;
  if (r.calibration) apply_calibration(*r.calibration, &pr.step_options, &pr.memory_options);
  PlanResult res = plan(pr);
  LayoutChoice c;
  if (res.groups.empty()) return c;
  PlanGroup& g = res.groups.front();
  if (!g.top.empty()) c.best = std::move(g.top.front());
  c.over_margin = std::move(g.over_margin);
  return c;
}

// The planner's fastest layout that keeps the margin on `gpus` GPUs, or nothing
// (the deadline search sizes the run to keep it).
std::optional<PlanCandidate> best_layout(const TrainRequest& r, const ModelSpec& model, const GpuSpec& gpu, int64_t gpus,
                                         const Workload& w) {
  return choose_layout(r, model, gpu, gpus, w).best;
}

// The whole-node GPU counts the deadline search tries, ascending from the
// floor: nodes × {1, 3, 5, 7} × 2^k. A layout's degrees are powers of two
// but its pipeline depth, which brings the odd factor, so these are the counts
// a power-of-two batch admits; about four per doubling.
std::vector<int64_t> deadline_search_counts(double floor_gpus, int gpus_per_node) {
  std::vector<int64_t> out;
  const double lo = std::max<double>(gpus_per_node, floor_gpus);
  for (int64_t odd : {1, 3, 5, 7}) {
    for (int64_t n = odd * gpus_per_node; n <= kMaxGpus; n *= 2) {
      if (static_cast<double>(n) >= lo / 1.5) out.push_back(n);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  // Bounded work: 48 counts span more than ten doublings above the floor.
  if (out.size() > 48) out.resize(48);
  return out;
}

// No count meets the deadline: which limit binds, in one sentence (exit 2).
InputError no_count_meets_deadline(const std::vector<SizingStep>& trace, bool failures_bind, int64_t dp, const Workload& w, double deadline_s,
                                   double confidence) {
  double best_wall = 0;
  int64_t best_n = 0;
  for (const SizingStep& s : trace) {
    if (s.fits && s.wall_s > 0 && (best_wall == 0 || s.wall_s < best_wall)) {
      best_wall = s.wall_s;
      best_n = s.gpus;
    }
  }
  const std::string when = format_duration(deadline_s), when_zh = format_duration_zh(deadline_s);
  if (best_n == 0) {
    return InputError("--deadline", fmt::format("--deadline: no parallel layout fits in memory on any GPU count tried ({} to {} GPUs) at a global "
                                                "batch of {} sequences; choose a GPU with more memory or a shorter --seq-len.",
                                                trace.empty() ? 0 : trace.front().gpus, trace.empty() ? 0 : trace.back().gpus, w.batch_tokens / w.seq_len),
                      fmt::format("--deadline：在所试的卡数（{} 到 {} 张）下，全局批 {} 条序列时没有放得进显存的并行方案；请换显存更大的卡或缩短 --seq-len。",
                                  trace.empty() ? 0 : trace.front().gpus, trace.empty() ? 0 : trace.back().gpus, w.batch_tokens / w.seq_len));
  }
  if (failures_bind) {
    return InputError("--deadline", fmt::format("--deadline: no GPU count finishes in {} with {:.0f}% confidence: past {} GPUs (fastest: {}) the job "
                                                "fails faster than it can checkpoint and restart. Allow more time, or give a better --gpu-mtbf-hours "
                                                "or faster checkpoint storage.",
                                                when, confidence * 100, best_n, format_duration(best_wall)),
                      fmt::format("--deadline：没有任何卡数能以 {:.0f}% 的把握在 {} 内完成：超过 {} 张卡（最快 {}）后作业故障比保存检查点和重启还快。"
                                  "请放宽期限，或给出更好的 --gpu-mtbf-hours 或更快的检查点存储。",
                                  confidence * 100, when_zh, best_n, format_duration_zh(best_wall)));
  }
  const double batch_seqs = w.batch_tokens / static_cast<double>(w.seq_len);
  return InputError("--deadline", fmt::format("--deadline: no GPU count finishes in {} with {:.0f}% confidence at a global batch of {} sequences "
                                              "({} tokens): the fastest is {} GPUs at {} (data parallelism {}); more GPUs need a larger batch "
                                              "(--global-batch or --batch-tokens) or more time.",
                                              when, confidence * 100, format_thousands(batch_seqs), format_si(w.batch_tokens, ""), best_n,
                                              format_duration(best_wall), dp),
                    fmt::format("--deadline：全局批为 {} 条序列（{} token）时，没有任何卡数能以 {:.0f}% 的把握在 {} 内完成：最快为 {} 张卡、{}"
                                "（数据并行 {}）；更多的卡需要更大的批（--global-batch 或 --batch-tokens）或更长的期限。",
                                format_thousands(batch_seqs), format_si(w.batch_tokens, ""), confidence * 100, when_zh, best_n,
                                format_duration_zh(best_wall), dp));
}

// A deadline no GPU count gpuplan sizes can meet even at the fastest MFU
// (the best published, else the peak): the deadline is what binds, and the
// shortest one that kMaxGpus GPUs could meet is said (issue 30: `--deadline 1s`
// once read "no layout fits ... (0 to 0 GPUs)").
InputError deadline_beyond_any_count(double run_flop, double margin, double peak_flop_per_s, double fastest_mfu, double floor_gpus, double deadline_s) {
  const double shortest_s = run_flop * margin / (peak_flop_per_s * fastest_mfu * static_cast<double>(kMaxGpus));
  return InputError("--deadline",
                    fmt::format("--deadline: {} is too short for {:.3g} FLOPs: even at {:.0f}% MFU it needs {} GPUs, more than the {} gpuplan "
                                "sizes; allow at least {}.",
                                format_duration(deadline_s), run_flop, fastest_mfu * 100, format_thousands(std::ceil(floor_gpus)),
                                format_thousands(static_cast<double>(kMaxGpus)), format_duration(shortest_s)),
                    fmt::format("--deadline：{} 对 {:.3g} FLOPs 的训练太短：即使 MFU 达到 {:.0f}%，也需要 {} 张卡，超过程序可估算的 {} 张；期限至少要 {}。",
                                format_duration_zh(deadline_s), run_flop, fastest_mfu * 100, format_thousands(std::ceil(floor_gpus)),
                                format_thousands(static_cast<double>(kMaxGpus)), format_duration_zh(shortest_s)));
}

// A run solved with its failures (solve_run, estimate_operations): their
// cost depends on the GPU count (the job's MTBF falls as 1/GPUs) and a solved
// GPU count depends on their cost, so a run is solved to the fixed point (it
// moves by a node or two at most); `in.fault_budget` ends at it. One place for
// the run estimate_train shows and for every count the deadline search tries.
struct RunSolver {
  const TrainRequest& r;
  const ModelSpec* model;  // nullptr with --flops-per-sample alone
  const GpuSpec& gpu;
  double total_model_flop = 0;
  double peak = 0;
  int gpus_per_node = 0;
  Layout ckpt_layout;

  OperationsEstimate operations(const RunEstimate& est, double extra_per_hour) {
    ckpt_layout.dp = static_cast<int>(std::min<int64_t>(est.gpus, 1 << 24));
    return estimate_operations(model, ckpt_layout, gpu, est.gpus, est.compute_s + est.comm_margin_s, r.ops, extra_per_hour);
  }
  RunEstimate settle_failures(RunInput& in, OperationsEstimate* ops_out) {
    RunEstimate est = solve_run(in);
    OperationsEstimate ops = operations(est, 0);
    for (int i = 0; i < 8 && !r.fault_budget; ++i) {
      // fault time = useful·(1/ETTR − 1), as a fraction of pure compute.
      const double fb = (1.0 + r.comm_margin) * (1.0 / ops.reliability.effective_time_ratio - 1.0);
      if (std::fabs(fb - in.fault_budget) < 1e-9) break;
      in.fault_budget = fb;
      est = solve_run(in);
      ops = operations(est, 0);
    }
    if (ops_out) *ops_out = ops;
    return est;
  }
  RunInput run_input(std::optional<double> gpus, std::optional<double> at_mfu) const {
    RunInput in;
    in.total_model_flop = total_model_flop;
    in.peak_flop_per_s = peak;
    in.gpus = gpus;
    in.deadline_s = r.deadline_s;
    in.mfu = at_mfu;
    in.gpus_per_node = gpus_per_node;
    in.comm_margin = r.comm_margin;
    in.fault_budget = r.fault_budget.value_or(0.2);
    return in;
  }
};

// The GPU count a --deadline run needs: the sizing search.
struct DeadlineSizing {
  std::optional<PlanCandidate> layout;  // the planner's best at the count chosen
  std::optional<int64_t> gpus;           // the count chosen
  std::vector<SizingStep> trace;         // the counts tried, in order
};

// Issue 25: search whole-node GPU counts at the run's batch, smallest
// first, for the first whose wall-clock at the asked confidence
// (failures included) meets the deadline. No count below the one the
// best published MFU would need can, so the search starts there.
// (With nothing published to cap it, the bound is the peak itself.)
DeadlineSizing size_for_deadline(const TrainRequest& r, const ModelSpec& model, const GpuSpec& gpu, const Workload& w,
                                 const train_detail::Confidence& conf, RunSolver& solver, double flop_per_token_used) {
  const double total_model_flop = solver.total_model_flop, peak = solver.peak;
  const int gpus_per_node = solver.gpus_per_node;
  DeadlineSizing out;
  const train_detail::MfuCheck best = train_detail::check_mfu(1.0, gpu, r.precision);
  const double fastest_mfu = best.capped ? best.used : 1.0;
  const double floor_gpus = total_model_flop * (1 + r.comm_margin) / (peak * fastest_mfu * *r.deadline_s);
  const std::vector<int64_t> counts = deadline_search_counts(floor_gpus, gpus_per_node);
  if (counts.empty()) throw deadline_beyond_any_count(total_model_flop, 1 + r.comm_margin, peak, fastest_mfu, floor_gpus, *r.deadline_s);
  int64_t best_layout_dp = 0;
  bool failures_bind = false;
  for (int64_t n : counts) {
    auto c = best_layout(r, model, gpu, n, w);
    if (!c) {
      out.trace.push_back({n, 0, 0, false});
      continue;
    }
    const train_detail::MfuCheck m = train_detail::check_mfu(c->time.tokens_per_s_per_gpu * flop_per_token_used / peak, gpu, r.precision);
    const double at_conf = train_detail::mfu_at(conf, m, conf.confidence);
    std::optional<RunEstimate> est;
    try {
      RunInput in = solver.run_input(static_cast<double>(n), at_conf);
      est = solver.settle_failures(in, nullptr);
    } catch (const InputError&) {
      failures_bind = true;  // the job would fail faster than it checkpoints: more GPUs only worsen it
      break;
    }
    out.trace.push_back({n, est->wall_s, at_conf, true});
    best_layout_dp = c->layout.dp;
    if (est->wall_s <= *r.deadline_s * (1 + 1e-9)) {
      out.layout = c;
      out.gpus = n;
      break;
    }
  }
  if (!out.gpus) throw no_count_meets_deadline(out.trace, failures_bind, best_layout_dp, w, *r.deadline_s, conf.confidence);
  return out;
}

// Neither the MFU nor a layout to predict it: what is missing, as bad input.
InputError missing_run_inputs(const TrainRequest& r, bool can_plan) {
  if (!r.gpus && !r.deadline_s) {
    return InputError("--gpus", can_plan ? "--gpus: give --gpus or --deadline (gpuplan then predicts the MFU, or give --mfu as well)."
                                        : "--gpus: give two of --gpus, --deadline and --mfu (or --tflops-per-gpu): gpuplan solves the third "
                                          "(--mfu is predicted only for a model with an architecture).",
                     can_plan ? "--gpus：请给出 --gpus 或 --deadline（MFU 由程序预测，也可同时给 --mfu）。"
                              : "--gpus：请在 --gpus、--deadline、--mfu（或 --tflops-per-gpu）中给出两个，程序求第三个"
                                "（只有给了模型结构才能预测 --mfu）。");
  }
  return InputError("--mfu", can_plan ? "--mfu: no layout fits in memory at the GPU count the deadline needs; give --mfu or --gpus."
                                     : "give two of --gpus, --deadline and --mfu (or --tflops-per-gpu): gpuplan solves the third "
                                       "(--mfu is predicted only for a model with an architecture).",
                   can_plan ? "--mfu：按期限所需的卡数，没有任何并行布局放得进显存；请给出 --mfu 或 --gpus。"
                            : "--mfu：请在 --gpus、--deadline、--mfu（或 --tflops-per-gpu）中给出两个，程序求第三个"
                              "（只有给了模型结构才能预测 --mfu）。");
}

// The ways of renting side by side (on-demand, reserved, spot), in the price's currency;
// spot is left out (*spot_left_out) when preemptions would multiply the run by more than 11.
RentOptions rent_options(const TrainRequest& r, const GpuSpec& gpu, const PriceInput& price_in, const Price& price, bool price_known,
                         double spot_overhead_cmp, bool* spot_left_out) {
  RentOptions rent;
  rent.currency = price.currency;
  if (price_known) {
    PriceInput on = price_in;
    on.spot = false;
    PriceInput sp = price_in;
    sp.spot = true;
    sp.spot_overhead = spot_overhead_cmp;
    // A typed price is on-demand unless --spot says it is the spot price; its
    // spot counterpart takes the stated discount, else seed 004's "60% or more".
    if (on.text && !sp.spot_discount) sp.spot_discount = 0.6;
    if (!(r.price.text && r.price.spot)) {
      const Price od = resolve_price(gpu.id, on);
      rent.on_demand_per_gpu_hour = 0.5 * (od.low_per_gpu_hour + od.high_per_gpu_hour);
      const Market m = od.market.value_or(r.price.market.value_or(Market::kUs));
      const ReservedDiscount& rd = reserved_discount(r.price.market.value_or(m));
      if (rd.fraction > 0) {
        rent.reserved_per_gpu_hour = *rent.on_demand_per_gpu_hour * (1 - rd.fraction);
        rent.reserved_source = fmt::format("{:.0f}% off, {} ({})", rd.fraction * 100, rd.source, rd.date);
      }
    }
    // Spot is shown unless preemptions would more than multiply the run by 11
    // (then the run barely progresses; --spot itself refuses that overhead).
    if (r.price.spot || (std::isfinite(spot_overhead_cmp) && spot_overhead_cmp >= 0 && spot_overhead_cmp <= 10)) {
      const Price spp = r.price.spot ? price : resolve_price(gpu.id, sp);
      rent.spot_per_gpu_hour = 0.5 * (spp.low_per_gpu_hour + spp.high_per_gpu_hour);
      rent.spot_overhead = r.price.spot ? price.spot_overhead : spot_overhead_cmp;
    } else {
      *spot_left_out = true;
    }
  }
  return rent;
}

// Each GPU-hour line times the price, in the price's currency, and the extra phases.
TrainCost train_cost(const TrainRequest& r, const Price& price, const RunEstimate& run, double run_gpu_hours, double spot_overhead_gpu_hours) {
  // Each GPU-hour line times the price, in the price's currency.
  TrainCost c;
  c.currency = price.currency;
  c.per_gpu_hour = price.low_per_gpu_hour;
  const bool range = price.high_per_gpu_hour > price.low_per_gpu_hour;
  if (range) c.per_gpu_hour_high = price.high_per_gpu_hour;
  c.compute = run.gpu_hours_compute * price.low_per_gpu_hour;
  c.comm_margin = run.gpu_hours_comm_margin * price.low_per_gpu_hour;
  c.fault_budget = run.gpu_hours_fault_budget * price.low_per_gpu_hour;
  if (price.spot) c.spot_overhead = spot_overhead_gpu_hours * price.low_per_gpu_hour;
  c.run = run_gpu_hours * price.low_per_gpu_hour;
  double phases_low = 0, phases_high = 0;
  for (const Phase& ph : r.phases) {
    require_range(ph.gpus, 1, 1e7, "--phase GPU count", "a whole number of GPUs from 1 to 10,000,000", "1 到 10,000,000 之间的整数卡数");
    require_range(ph.hours, 1e-6, 1e9, "--phase duration", "a positive duration", "正的时长");
    const Price phase_price = resolve_price(ph.gpu_id, ph.price);
    PhaseCost pc{ph.name, ph.gpu_id, ph.gpus, ph.hours, ph.gpu_hours(), convert(ph.gpu_hours() * phase_price.low_per_gpu_hour, phase_price.currency, c.currency),
                 convert(ph.gpu_hours() * phase_price.high_per_gpu_hour, phase_price.currency, c.currency)};
    phases_low += pc.total;
    phases_high += pc.total_high;
    c.phases.push_back(std::move(pc));
  }
  c.total = run_gpu_hours * price.low_per_gpu_hour + phases_low;
  if (range) c.total_at_price_high = run_gpu_hours * price.high_per_gpu_hour + phases_high;
  return c;
}

// The run's FLOPs: per token (6·N or the exact count, whichever times the run)
// and in all. With no batch given, the published rule that grows with the run
// (workload.hpp) sets it, in whole sequences, for the step count and every
// layout searched: r.workload and w are updated.
struct RunFlops {
  double flop_per_token_used = 0;
  double total_model_flop = 0;
  double total_six_n_flop = 0;
  FlopsPerToken f;
  std::optional<double> batch_rule_tokens, batch_rule_compute_flop;
};

RunFlops run_flops(TrainRequest& r, const ModelSpec& model, Workload& w) {
  RunFlops x;
  if (r.flop_per_sample) {
    if (!r.workload.samples) {
      throw InputError("--samples", "--flops-per-sample needs --samples (how many samples per epoch).", "--flops-per-sample 需要同时给出 --samples（每轮的样本数）。");
    }
    x.total_model_flop = *r.flop_per_sample * *r.workload.samples * w.epochs;
  } else {
    FlopOptions fo;
    fo.seq_len = w.seq_len;
    fo.causal_half = r.causal_half;
    fo.recompute = r.recompute;
    x.f = flops_per_token(model, fo);
    x.flop_per_token_used = (r.six_n || !x.f.exact) ? x.f.six_n_flop : x.f.model_flop;
    x.total_model_flop = x.flop_per_token_used * w.total_tokens;
    x.total_six_n_flop = x.f.six_n_flop * w.total_tokens;
  }
  // No batch given: the published rule that grows with the run (workload.hpp),
  // in whole sequences, for the step count and every layout searched.
  if (!r.flop_per_sample && !r.workload.global_batch_seqs && !r.workload.global_batch_tokens) {
    // DeepSeek's M: non-embedding FLOPs per token, fwd+bwd (the LM head's 3 × 2·h·V left out).
    const double m = x.f.exact ? x.f.model_flop - 3 * x.f.forward_lm_head_flop : x.f.six_n_flop;
    x.batch_rule_compute_flop = m * w.total_tokens;
    x.batch_rule_tokens = default_batch_tokens(*x.batch_rule_compute_flop);
    // Never more sequences than the data holds (a tiny test run gets one step).
    const double whole_sequences = std::max(1.0, std::floor(w.tokens_per_epoch / static_cast<double>(w.seq_len)));
    r.workload.global_batch_seqs = std::min(static_cast<double>(default_batch_seqs(*x.batch_rule_tokens, w.seq_len)), whole_sequences);
    w = make_workload(r.workload);
  }
  return x;
}

// --spot without --spot-overhead: the failures with the job's nodes' preemptions
// added, and the overhead they put on the run (into price_in).
OperationsEstimate spot_operations(const TrainRequest& r, RunSolver& solver, const RunEstimate& run, const OperationsEstimate& ops,
                                   PriceInput* price_in) {
  // Spot: preemptions of any of the job's nodes add to the failures.
  require_range(r.ops.spot_node_mtbf_hours, 0.01, 1e7, "--spot-mtbf-hours", "a positive number of hours", "正的小时数");
  const OperationsEstimate spot = solver.operations(run, static_cast<double>(run.nodes) / r.ops.spot_node_mtbf_hours);
  price_in->spot_overhead = ops.reliability.effective_time_ratio / spot.reliability.effective_time_ratio - 1.0;
  // At this many nodes preemptions would take more than ten times the
  // run's GPU-hours: say so about --spot itself, not about a flag nobody gave.
  if (!(*price_in->spot_overhead <= 10)) {
    throw InputError("--spot", fmt::format("--spot: with {} nodes each preempted every {:g} hours on average, preemptions would add {:.0f}× the "
                                           "run's GPU-hours; price on-demand or reserved capacity, or give --spot-mtbf-hours or --spot-overhead.",
                                           run.nodes, r.ops.spot_node_mtbf_hours, *price_in->spot_overhead),
                     fmt::format("--spot：{} 个节点、每个节点平均每 {:g} 小时被抢占一次，抢占会多出 {:.0f} 倍的卡时；"
                                 "请按按需或包年包月价格估算，或给出 --spot-mtbf-hours 或 --spot-overhead。",
                                 run.nodes, r.ops.spot_node_mtbf_hours, *price_in->spot_overhead));
  }
  return spot;
}

// Extra GPU-hours spot preemptions would add, relative to on-demand, for the
// side-by-side rent options (--spot-overhead fixes it); infinite where
// preemptions would stop the run from progressing.
double spot_overhead_compared(const TrainRequest& r, RunSolver& solver, const RunEstimate& run, const OperationsEstimate& ops,
                              const std::optional<OperationsEstimate>& spot_ops) {
  if (r.price.spot_overhead) {
    return *r.price.spot_overhead;
  } else if (spot_ops) {
    return ops.reliability.effective_time_ratio / spot_ops->reliability.effective_time_ratio - 1.0;
  } else {
    require_range(r.ops.spot_node_mtbf_hours, 0.01, 1e7, "--spot-mtbf-hours", "a positive number of hours", "正的小时数");
    try {
      const OperationsEstimate s = solver.operations(run, static_cast<double>(run.nodes) / r.ops.spot_node_mtbf_hours);
      return ops.reliability.effective_time_ratio / s.reliability.effective_time_ratio - 1.0;
    } catch (const InputError&) {
      // infinite: spot left out
    }
  }
  return std::numeric_limits<double>::infinity();
}

}  // namespace

TrainEstimate estimate_train(const TrainRequest& request) {
  validate(request);
  // A model, unless the workload gives its FLOPs per sample.
  ModelSpec model;
  const bool have_model = !request.model.empty() || request.params || request.model_spec;
  if (have_model || !request.flop_per_sample) model = choose_model(request.model, request.params, request.model_spec);
  // No sequence length given: the one default every front end shares.
  TrainRequest r = request;
  const bool seq_len_defaulted = r.workload.seq_len == 0;
  if (seq_len_defaulted) r.workload.seq_len = model.count_only ? kDefaultSeqLen : default_seq_len(model);
  if (!model.count_only) require_supported_context(model, r.workload.seq_len, r.force_context, "--seq-len");

  const GpuSpec& gpu = find_gpu(r.gpu.empty() ? throw InputError("--gpu", "--gpu is required: a GPU id or alias such as h100, a100-80g or 910b (gpuplan gpus lists them).",
                                                                  "缺少 --gpu：请给出 GPU 的 id 或别名，如 h100、a100-80g、910b（gpuplan gpus 列出全部）。")
                                               : r.gpu);
  const double peak = gpu.peak(r.precision);
  const int gpus_per_node = r.gpus_per_node.value_or(gpu.gpus_per_node);

  Workload w = make_workload(r.workload);

  RunFlops flops = run_flops(r, model, w);
  const double flop_per_token_used = flops.flop_per_token_used;
  const double total_model_flop = flops.total_model_flop;
  const double total_six_n_flop = flops.total_six_n_flop;
  const FlopsPerToken& f = flops.f;
  const std::optional<double> batch_rule_tokens = flops.batch_rule_tokens, batch_rule_compute_flop = flops.batch_rule_compute_flop;

  std::optional<double> mfu = r.mfu;
  if (r.tflops_per_gpu) mfu = *r.tflops_per_gpu * kTera / peak;
  // Issue 15: a predicted MFU is held to the best published for the GPU
  // class, and a deadline run is sized for the slow end of gpuplan's own
  // errors on published runs at the asked confidence.
  const train_detail::Confidence conf = train_detail::train_confidence(r, have_model ? &model : nullptr, gpu);
  std::optional<train_detail::MfuCheck> mfu_check;
  const bool size_by_confidence = r.deadline_s && !r.gpus;
  // The residuals were measured on the model's own (uncapped) predictions,
  // so the confidence factors apply to those (train_detail::mfu_at); the
  // published best caps the result.
  const bool can_plan = r.layout_search && have_model && !model.count_only && !r.flop_per_sample;
  // Without --mfu the planner predicts it: the best layout's tokens/s per GPU
  // times the FLOPs per token this report counts (so any FLOP convention agrees).
  std::optional<PlanCandidate> layout;
  bool mfu_predicted = false;
  std::vector<SizingStep> sizing_trace;    // the deadline search's counts, in order
  std::optional<int64_t> sized_gpus;       // the count it chose
  // Failures, checkpoints and restarts (RunSolver).
  RunSolver solver{r, have_model ? &model : nullptr, gpu, total_model_flop, peak, gpus_per_node, {}};
  solver.ckpt_layout.precision = r.precision;
  solver.ckpt_layout.zero_stage = 1;
  // The layout shown on a stated GPU count: the fastest that keeps the
  // margin, else the fastest that fits the GPU (said in the report).
  bool layout_over_margin = false;
  std::optional<PlanCandidate> faster_over_margin;
  auto take_choice = [&](int64_t n) {
    LayoutChoice c = choose_layout(r, model, gpu, n, w);
    layout_over_margin = !c.best && c.over_margin;
    faster_over_margin = c.best ? std::move(c.over_margin) : std::nullopt;
    return c.best ? std::move(c.best) : std::move(c.over_margin);
  };
  auto predicted_mfu = [&](const PlanCandidate& c) { return c.time.tokens_per_s_per_gpu * flop_per_token_used / peak; };
  // Issue 25: with --gpus and --deadline both given the MFU is predicted
  // too, and the deadline judged on it; it is never solved to meet it.
  if (!mfu && can_plan) {
    if (r.gpus) {
      layout = take_choice(static_cast<int64_t>(*r.gpus));
      if (!layout) throw no_layout_fits(r, model, gpu);
      mfu_check = train_detail::check_mfu(predicted_mfu(*layout), gpu, r.precision);
      // The central number: the raw prediction times the median factor of
      // published runs of this kind (issue 25), held to the cap.
      mfu = train_detail::mfu_at(conf, *mfu_check, 0.5);
      mfu_predicted = true;
    } else if (r.deadline_s) {
      DeadlineSizing sized = size_for_deadline(r, model, gpu, w, conf, solver, flop_per_token_used);
      layout = sized.layout;
      sized_gpus = sized.gpus;
      sizing_trace = std::move(sized.trace);
      mfu_check = train_detail::check_mfu(predicted_mfu(*layout), gpu, r.precision);
      // The run is solved on the sized count at the asked confidence; the
      // numbers shown are re-solved at the median below.
      mfu = train_detail::mfu_at(conf, *mfu_check, conf.confidence);
      mfu_predicted = true;
    }
  }
  if (!mfu && !(r.gpus && r.deadline_s)) throw missing_run_inputs(r, can_plan);
  if (mfu && *mfu > 1) {
    throw InputError("--tflops-per-gpu", fmt::format("--tflops-per-gpu: {} TFLOP/s exceeds the {} dense {} peak of {} TFLOP/s.",
                                                     *r.tflops_per_gpu, gpu.id, precision_name(r.precision), peak / kTera),
                     fmt::format("--tflops-per-gpu：{} TFLOP/s 超过了 {} 的 {} 稠密峰值 {} TFLOP/s。", *r.tflops_per_gpu, gpu.id,
                                 precision_name(r.precision), peak / kTera));
  }
  RunInput ri = solver.run_input(sized_gpus ? std::optional<double>(static_cast<double>(*sized_gpus)) : r.gpus, mfu);
  OperationsEstimate ops;
  RunEstimate run = solver.settle_failures(ri, &ops);
  const double fault_budget = ri.fault_budget;
  // Sized at the asked confidence; the numbers shown are the median of the
  // calibrated distribution on that many GPUs, with its range beside them.
  std::optional<int64_t> gpus_at_median, gpus_model_alone, gpus_fast, gpus_slow;
  if (mfu_predicted && size_by_confidence && mfu_check) {
    // The layout is the search's on the sized count: the counts at the
    // median, the range's ends and the physics come from its prediction.
    RunInput at = ri;
    at.gpus.reset();  // solved from each MFU: the count that MFU would need
    auto count_at = [&](double mfu_value) {
      at.mfu = mfu_value;
      return solve_run(at).gpus;
    };
    const MfuDistribution sized = train_detail::mfu_distribution(conf, *mfu_check);
    gpus_at_median = count_at(sized.median);
    gpus_fast = count_at(sized.fast);
    gpus_slow = count_at(sized.slow);
    gpus_model_alone = count_at(sized.physics);
    RunInput shown = ri;
    shown.gpus = static_cast<double>(run.gpus);
    // On the sized count, every number shown is the median of its distribution.
    shown.mfu = sized.median;
    RunEstimate point = solve_run(shown);
    point.gpus_solved = true;
    // The continuous count the sized MFU would need; the count itself is the
    // search's, a whole-node count a layout runs on.
    at.mfu = *mfu;
    point.gpus_exact = solve_run(at).gpus_exact;
    run = point;
    ops = solver.operations(run, 0);
  }
  // The layout shown (memory verdict, launch configs) is the planner's best at the final GPU count.
  if (can_plan && (!layout || layout->layout.gpus() != run.gpus)) {
    // A deadline-sized count keeps the margin (the search asked it to); a
    // stated count with --mfu shows what fits it.
    layout = sized_gpus ? best_layout(r, model, gpu, run.gpus, w) : take_choice(run.gpus);
  }
  // A predicted run with a deadline is judged at the asked confidence: the
  // wall-clock published runs of this kind stay within with that probability.
  std::optional<double> wall_at_confidence;
  if (mfu_predicted && mfu_check && run.deadline_s) wall_at_confidence = judge_deadline(ri, conf, *mfu_check, &run);

  PriceInput price_in = r.price;
  std::optional<OperationsEstimate> spot_ops;
  if (r.price.spot && !r.price.spot_overhead) spot_ops = spot_operations(r, solver, run, ops, &price_in);
  // No price in the catalog and none given: the report still stands, its
  // cost does not, and that is said first.
  const bool price_known = r.price.text || has_default_price(gpu.id);
  Price price = price_known ? resolve_price(gpu.id, price_in) : Price{};

  // The ways of renting side by side (on-demand, reserved, spot), in the price's currency.
  // Extra GPU-hours spot preemptions would add, relative to on-demand
  // (--spot-overhead fixes it). When preemptions would stop the run from
  // progressing, the estimate refuses; unasked-for, spot is then left out.
  const double spot_overhead_cmp = spot_overhead_compared(r, solver, run, ops, spot_ops);
  bool spot_left_out = false;
  const RentOptions rent = rent_options(r, gpu, price_in, price, price_known, spot_overhead_cmp, &spot_left_out);

  TrainEstimate e;
  e.seq_len_defaulted = seq_len_defaulted;
  e.model = model;
  e.have_model = have_model;
  e.gpu = gpu;
  e.gpus_per_node = gpus_per_node;
  e.peak_flop_per_s = peak;
  e.workload = w;
  if (!r.flop_per_sample) e.flops = f;
  e.flop_per_token_used = flop_per_token_used;
  e.total_model_flop = total_model_flop;
  e.total_six_n_flop = total_six_n_flop;
  e.can_plan = can_plan;
  e.layout = layout;
  e.layout_over_margin = layout_over_margin;
  e.faster_over_margin = faster_over_margin;
  add_layout_facts(r, model, gpu, w, e);
  if (layout) e.layout_mfu = predicted_mfu(*layout);
  e.mfu = mfu;
  e.mfu_predicted = mfu_predicted;
  e.mfu_check = mfu_check;
  e.confidence = conf;
  e.gpus_at_median = gpus_at_median;
  e.gpus_model_alone = gpus_model_alone;
  e.gpus_fast = gpus_fast;
  e.gpus_slow = gpus_slow;
  e.wall_s_at_confidence = wall_at_confidence;
  e.sizing_trace = std::move(sizing_trace);
  e.batch_rule_tokens = batch_rule_tokens;
  e.batch_rule_compute_flop = batch_rule_compute_flop;
  if (mfu_predicted && mfu_check) e.mfu_distribution = train_detail::mfu_distribution(conf, *mfu_check);
  e.run = run;
  e.fault_budget = fault_budget;
  e.operations = ops;
  e.spot_operations = spot_ops;
  // Spot preemptions add GPU-hours on top of the run's.
  if (price.spot) e.spot_overhead_gpu_hours = run.gpu_hours_total * price.spot_overhead;
  e.run_gpu_hours = run.gpu_hours_total + e.spot_overhead_gpu_hours;
  e.rent = rent;
  e.spot_left_out = spot_left_out;
  if (price_known) {
    e.price = price;
    e.cost = train_cost(r, price, run, e.run_gpu_hours, e.spot_overhead_gpu_hours);
  }
  return e;
}

}  // namespace gpuplan
