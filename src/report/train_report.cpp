#include "gpuplan/train_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "gpuplan/checkpoint.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/size_limits.hpp"
#include "gpuplan/memory_report.hpp"
#include "gpuplan/operations_report.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/rent_or_buy_report.hpp"
#include "gpuplan/training_run.hpp"
#include "gpuplan/units.hpp"
#include "layout_rows.hpp"
#include "money_rows.hpp"
#include "train_confidence.hpp"

namespace gpuplan {
namespace {

Row num(const char* key, const char* en, const char* zh, double value, Unit unit, std::string text = "") {
  return Row{key, en, zh, value, unit, std::move(text)};
}
Row txt(const char* key, const char* en, const char* zh, std::string text) {
  return Row{key, en, zh, 0, Unit::kText, std::move(text)};
}

void validate(const TrainRequest& r) {
  if (r.gpus) require_range(*r.gpus, 1, static_cast<double>(kMaxGpus), "--gpus", "a whole number of GPUs from 1 to 10,000,000");
  if (r.gpus && std::floor(*r.gpus) != *r.gpus) {
    throw InputError("--gpus", fmt::format("--gpus must be a whole number of GPUs (got {}).", *r.gpus));
  }
  if (r.mfu) require_range(*r.mfu, 1e-4, 1, "--mfu", "a fraction greater than 0 and at most 1 (e.g. 0.4)");
  if (r.tflops_per_gpu) require_range(*r.tflops_per_gpu, 1e-3, 1e6, "--tflops-per-gpu", "a positive achieved TFLOP/s per GPU");
  if (r.mfu && r.tflops_per_gpu) {
    throw InputError("--mfu", "--mfu and --tflops-per-gpu both set the utilisation; give only one of them.");
  }
  if (r.deadline_s) require_range(*r.deadline_s, 1, 1e11, "--deadline", "a positive duration up to about 3,000 years");
  if (r.fault_budget) require_range(*r.fault_budget, 0, 10, "--fault-budget", "a fraction from 0 to 10 (0.2 = 20%)");
  require_range(r.comm_margin, 0, 10, "--comm-margin", "a fraction from 0 to 10 (0.1 = 10%)");
  require_range(r.workload.epochs, 1e-6, 1e6, "--epochs", "a positive number of epochs");
  require_range(static_cast<double>(r.workload.seq_len), 1, static_cast<double>(kMaxContext), "--seq-len", "a whole number of tokens from 1 to 100,000,000");
  if (r.workload.tokens) require_range(*r.workload.tokens, 1, 1e18, "--tokens", "a positive token count up to 1e18");
  if (r.workload.samples) require_range(*r.workload.samples, 1, 1e18, "--samples", "a positive sample count up to 1e18");
  if (r.workload.tokens_per_sample) require_range(*r.workload.tokens_per_sample, 1, 1e9, "--tokens-per-sample", "a positive number up to 1e9");
  if (r.flop_per_sample) require_range(*r.flop_per_sample, 1, 1e30, "--flops-per-sample", "a positive FLOP count");
  if (r.gpus_per_node) require_range(*r.gpus_per_node, 1, 1024, "--gpus-per-node", "a whole number from 1 to 1024");
}

}  // namespace

Section model_section(const ModelSpec& m) {
  Section s{"model", "Model", "模型", {}, {}, {}};
  const ParamCounts p = count_params(m);
  s.rows.push_back(txt("name", "Model", "模型", m.name));
  if (m.count_only) {
    s.rows.push_back(num("params_total", "Parameters (given)", "参数量（输入）", p.total, Unit::kParams));
    return s;
  }
  s.rows.push_back(num("params_total", "Parameters, total", "参数量（总）", p.total, Unit::kParams));
  if (m.is_moe()) s.rows.push_back(num("params_active", "Parameters active per token", "每 token 激活参数", p.active, Unit::kParams));
  s.rows.push_back(num("params_embedding", "Embedding parameters (incl. untied LM head)", "嵌入参数（含非共享输出层）", p.embedding, Unit::kParams));
  s.rows.push_back(num("params_non_embedding", "Non-embedding parameters", "非嵌入参数", p.non_embedding, Unit::kParams));
  std::string shape = fmt::format("{} layers, hidden {}, {} heads ({} KV), {} MLP {}", m.layers, m.hidden, m.heads,
                                  m.mla ? std::string("MLA") : std::to_string(m.kv_heads),
                                  m.mlp == MlpKind::kGated ? "gated" : "2-matrix", m.intermediate);
  if (m.moe) shape += fmt::format(", MoE {}+{} experts, top-{}", m.moe->routed_experts, m.moe->shared_experts, m.moe->experts_per_token);
  s.rows.push_back(txt("shape", "Architecture", "结构", shape));
  return s;
}

namespace {

// The planner's fastest layout that fits on `gpus` GPUs, or nothing.
std::optional<PlanCandidate> best_layout(const TrainRequest& r, const ModelSpec& model, const GpuSpec& gpu, int64_t gpus,
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
  if (r.calibration) apply_calibration(*r.calibration, &pr.step_options, &pr.memory_options);
  const PlanResult res = plan(pr);
  if (res.groups.empty() || res.groups.front().top.empty()) return std::nullopt;
  return res.groups.front().top.front();
}

}  // namespace

Report train_report(const TrainRequest& r) {
  validate(r);
  // A model, unless the workload gives its FLOPs per sample.
  ModelSpec model;
  const bool have_model = !r.model.empty() || r.params || r.model_spec;
  if (have_model || !r.flop_per_sample) model = choose_model(r.model, r.params, r.model_spec);
  if (!model.count_only) require_supported_context(model, r.workload.seq_len, r.force_context, "--seq-len");
  Report rep;
  rep.command = "train";
  rep.title_en = "Training run estimate";
  rep.title_zh = "训练资源估算";

  const GpuSpec& gpu = find_gpu(r.gpu.empty() ? throw InputError("--gpu", "--gpu is required: a GPU id or alias such as h100, a100-80g or 910b (gpuplan gpus lists them).") : r.gpu);
  const double peak = gpu.peak(r.precision);
  const int gpus_per_node = r.gpus_per_node.value_or(gpu.gpus_per_node);

  const Workload w = make_workload(r.workload);

  // FLOPs.
  double flop_per_token_used = 0;
  double total_model_flop = 0;
  double total_six_n_flop = 0;
  FlopsPerToken f;
  if (r.flop_per_sample) {
    if (!r.workload.samples) throw InputError("--samples", "--flops-per-sample needs --samples (how many samples per epoch).");
    total_model_flop = *r.flop_per_sample * *r.workload.samples * w.epochs;
  } else {
    FlopOptions fo;
    fo.seq_len = w.seq_len;
    fo.causal_half = r.causal_half;
    fo.recompute = r.recompute;
    f = flops_per_token(model, fo);
    flop_per_token_used = (r.six_n || !f.exact) ? f.six_n_flop : f.model_flop;
    total_model_flop = flop_per_token_used * w.total_tokens;
    total_six_n_flop = f.six_n_flop * w.total_tokens;
  }

  std::optional<double> mfu = r.mfu;
  if (r.tflops_per_gpu) mfu = *r.tflops_per_gpu * kTera / peak;
  // Issue 15: a predicted MFU is held to the best published for the GPU
  // class, and a deadline run is sized for the slow end of gpuplan's own
  // errors on published runs at the asked confidence.
  const train_detail::Confidence conf = train_detail::train_confidence(r, gpu);
  std::optional<train_detail::MfuCheck> mfu_check;
  const bool size_by_confidence = r.deadline_s && !r.gpus;
  // The residuals were measured on the model's own (uncapped) predictions,
  // so the confidence factor applies to those; the published best caps the
  // result.
  auto sizing_mfu = [&](double predicted) {
    const train_detail::MfuCheck m = train_detail::check_mfu(predicted, gpu, r.precision);
    return size_by_confidence ? train_detail::capped(m, m.raw / conf.sizing_factor) : m.used;
  };
  const bool can_plan = r.layout_search && have_model && !model.count_only && !r.flop_per_sample;
  // Without --mfu the planner predicts it: the best layout's tokens/s per GPU
  // times the FLOPs per token this report counts (so any FLOP convention agrees).
  std::optional<PlanCandidate> layout;
  bool mfu_predicted = false;
  auto predicted_mfu = [&](const PlanCandidate& c) { return c.time.tokens_per_s_per_gpu * flop_per_token_used / peak; };
  if (!mfu && !(r.gpus && r.deadline_s) && can_plan) {
    if (r.gpus) {
      layout = best_layout(r, model, gpu, static_cast<int64_t>(*r.gpus), w);
      if (!layout) {
        throw InputError("--gpus", fmt::format("--gpus: no parallel layout of {} on {} × {} fits in memory; add GPUs, choose a "
                                               "larger GPU, or give --mfu to skip the layout search.",
                                               model.name, *r.gpus, gpu.id));
      }
      mfu_check = train_detail::check_mfu(predicted_mfu(*layout), gpu, r.precision);
      mfu = mfu_check->used;
      mfu_predicted = true;
    } else if (r.deadline_s) {
      // GPU count and MFU depend on each other: iterate from a typical 40%.
      double guess = 0.4;
      for (int i = 0; i < 5; ++i) {
        RunInput probe;
        probe.total_model_flop = total_model_flop;
        probe.peak_flop_per_s = peak;
        probe.deadline_s = r.deadline_s;
        probe.mfu = guess;
        probe.gpus_per_node = gpus_per_node;
        probe.comm_margin = r.comm_margin;
        probe.fault_budget = r.fault_budget.value_or(0.1);
        const RunEstimate est = solve_run(probe);
        auto c = best_layout(r, model, gpu, est.gpus, w);
        if (!c) break;
        layout = c;
        const double next = sizing_mfu(predicted_mfu(*c));
        if (std::fabs(next - guess) < 1e-3) break;
        guess = next;
      }
      if (layout) {
        mfu_check = train_detail::check_mfu(predicted_mfu(*layout), gpu, r.precision);
        mfu = sizing_mfu(mfu_check->raw);
        mfu_predicted = true;
      }
    }
  }
  if (!mfu && !(r.gpus && r.deadline_s)) {
    if (!r.gpus && !r.deadline_s) {
      throw InputError("--gpus", can_plan ? "--gpus: give --gpus or --deadline (gpuplan then predicts the MFU, or give --mfu as well)."
                                          : "--gpus: give two of --gpus, --deadline and --mfu (or --tflops-per-gpu): gpuplan solves the third "
                                            "(--mfu is predicted only for a model with an architecture).");
    }
    throw InputError("--mfu", can_plan ? "--mfu: no layout fits in memory at the GPU count the deadline needs; give --mfu or --gpus."
                                       : "give two of --gpus, --deadline and --mfu (or --tflops-per-gpu): gpuplan solves the third "
                                         "(--mfu is predicted only for a model with an architecture).");
  }
  if (mfu && *mfu > 1) {
    throw InputError("--tflops-per-gpu", fmt::format("--tflops-per-gpu: {} TFLOP/s exceeds the {} dense {} peak of {} TFLOP/s.",
                                                     *r.tflops_per_gpu, gpu.id, precision_name(r.precision), peak / kTera));
  }
  RunInput ri;
  ri.total_model_flop = total_model_flop;
  ri.peak_flop_per_s = peak;
  ri.gpus = r.gpus;
  ri.deadline_s = r.deadline_s;
  ri.mfu = mfu;
  ri.gpus_per_node = gpus_per_node;
  ri.comm_margin = r.comm_margin;
  ri.fault_budget = r.fault_budget.value_or(0.2);
  RunEstimate run = solve_run(ri);

  // Failures, checkpoints and restarts. Their cost depends on the GPU count
  // (the job's MTBF falls as 1/GPUs) and a solved GPU count depends on their
  // cost, so iterate to the fixed point (it moves by a node or two at most).
  Layout ckpt_layout;
  ckpt_layout.precision = r.precision;
  ckpt_layout.zero_stage = 1;
  ckpt_layout.dp = static_cast<int>(std::min<int64_t>(run.gpus, 1 << 24));
  auto operations = [&](const RunEstimate& est, double extra_per_hour) {
    ckpt_layout.dp = static_cast<int>(std::min<int64_t>(est.gpus, 1 << 24));
    return estimate_operations(have_model ? &model : nullptr, ckpt_layout, gpu, est.gpus, est.compute_s + est.comm_margin_s,
                               r.ops, extra_per_hour);
  };
  auto computed_fault_budget = [&](const OperationsEstimate& ops) {
    // fault time = useful·(1/ETTR − 1), as a fraction of pure compute.
    return (1.0 + r.comm_margin) * (1.0 / ops.reliability.effective_time_ratio - 1.0);
  };
  OperationsEstimate ops = operations(run, 0);
  if (!r.fault_budget) {
    for (int i = 0; i < 8; ++i) {
      const double f = computed_fault_budget(ops);
      if (std::fabs(f - ri.fault_budget) < 1e-9) break;
      ri.fault_budget = f;
      run = solve_run(ri);
      ops = operations(run, 0);
    }
  }
  const double fault_budget = ri.fault_budget;
  // Sized for the slow end at the asked confidence; the numbers shown are
  // the model's point estimate (MFU capped where implausible) on that many
  // GPUs, with its range beside them.
  std::optional<int64_t> gpus_at_median, gpus_model_alone;
  if (mfu_predicted && size_by_confidence && mfu_check) {
    // The counts at the median and on the model alone come from the same
    // prediction the sized count did, so --confidence 0.5 gives the median count.
    const auto sizing_check = *mfu_check;
    // The layout shown is the planner's best on the sized count: its MFU is the one stated.
    if (auto c = best_layout(r, model, gpu, run.gpus, w)) {
      layout = c;
      mfu_check = train_detail::check_mfu(predicted_mfu(*c), gpu, r.precision);
    }
    RunInput at = ri;
    at.mfu = train_detail::capped(sizing_check, sizing_check.raw / conf.median_factor);
    gpus_at_median = solve_run(at).gpus;
    at.mfu = sizing_check.used;
    gpus_model_alone = solve_run(at).gpus;
    RunInput shown = ri;
    shown.gpus = static_cast<double>(run.gpus);
    shown.mfu = mfu_check->used;
    RunEstimate point = solve_run(shown);
    point.gpus_solved = true;
    point.gpus_exact = run.gpus_exact;
    run = point;
    ops = operations(run, 0);
  }
  // The layout shown (memory verdict, launch configs) is the planner's best at the final GPU count.
  if (can_plan && (!layout || layout->layout.gpus() != run.gpus)) layout = best_layout(r, model, gpu, run.gpus, w);

  PriceInput price_in = r.price;
  std::optional<OperationsEstimate> spot_ops;
  if (r.price.spot && !r.price.spot_overhead) {
    // Spot: preemptions of any of the job's nodes add to the failures.
    require_range(r.ops.spot_node_mtbf_hours, 0.01, 1e7, "--spot-mtbf-hours", "a positive number of hours");
    spot_ops = operations(run, static_cast<double>(run.nodes) / r.ops.spot_node_mtbf_hours);
    price_in.spot_overhead = ops.reliability.effective_time_ratio / spot_ops->reliability.effective_time_ratio - 1.0;
    // At this many nodes preemptions would take more than ten times the
    // run's GPU-hours: say so about --spot itself, not about a flag nobody gave.
    if (!(*price_in.spot_overhead <= 10)) {
      throw InputError("--spot", fmt::format("--spot: with {} nodes each preempted every {:g} hours on average, preemptions would add {:.0f}× the "
                                             "run's GPU-hours; price on-demand or reserved capacity, or give --spot-mtbf-hours or --spot-overhead.",
                                             run.nodes, r.ops.spot_node_mtbf_hours, *price_in.spot_overhead));
    }
  }
  // No price in the catalog and none given: the report still stands, its
  // cost does not, and that is said first.
  const bool price_known = r.price.text || (r.price.market ? default_price(gpu.id, *r.price.market) : default_price(gpu.id)) != nullptr;
  if (!price_known) {
    rep.blocking.push_back({fmt::format("No rental price is known for {}: costs are not shown. Give --price (e.g. --price 2.5 or 15cny).", gpu.id),
                            fmt::format("没有 {} 的租用价格：不显示费用。请用 --price 给出单价（如 --price 2.5 或 15cny）。", gpu.id)});
  }
  Price price = price_known ? resolve_price(gpu.id, price_in) : Price{};

  // The ways of renting side by side (on-demand, reserved, spot), in the price's currency.
  // Extra GPU-hours spot preemptions would add, relative to on-demand
  // (--spot-overhead fixes it). When preemptions would stop the run from
  // progressing, the estimate refuses; unasked-for, spot is then left out.
  double spot_overhead_cmp = std::numeric_limits<double>::infinity();
  if (r.price.spot_overhead) {
    spot_overhead_cmp = *r.price.spot_overhead;
  } else if (spot_ops) {
    spot_overhead_cmp = ops.reliability.effective_time_ratio / spot_ops->reliability.effective_time_ratio - 1.0;
  } else {
    require_range(r.ops.spot_node_mtbf_hours, 0.01, 1e7, "--spot-mtbf-hours", "a positive number of hours");
    try {
      const OperationsEstimate s = operations(run, static_cast<double>(run.nodes) / r.ops.spot_node_mtbf_hours);
      spot_overhead_cmp = ops.reliability.effective_time_ratio / s.reliability.effective_time_ratio - 1.0;
    } catch (const InputError&) {
      // spot_overhead_cmp stays infinite: spot left out below.
    }
  }
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
      rent.on_demand_source = od.source;
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
      rent.spot_source = spp.source;
    } else {
      rep.warnings.push_back({fmt::format("Spot is left out of the rental comparison: with a preemption every {} h per node, {} nodes would spend "
                                          "more than 10× the GPU-hours on restarts.", format_sig(r.ops.spot_node_mtbf_hours, 3), run.nodes),
                              fmt::format("租用对比未列竞价实例：每节点平均 {} 小时被回收一次，{} 个节点的重启开销将超过 10 倍卡时。",
                                          format_sig(r.ops.spot_node_mtbf_hours, 3), run.nodes)});
    }
  }

  rep.inputs = {{"model", have_model ? model.name : std::string("(FLOPs per sample)")},
                {"gpu", gpu.id},
                {"precision", precision_name(r.precision)},
                {"recompute", recompute_name(r.recompute)},
                {"seq_len", w.seq_len},
                {"total_tokens", json_count(w.total_tokens)},
                {"fault_budget", fault_budget},
                {"comm_margin", r.comm_margin}};
  if (r.gpus) rep.inputs["gpus"] = json_count(*r.gpus);
  if (r.deadline_s) rep.inputs["deadline_s"] = *r.deadline_s;
  if (mfu && !run.mfu_solved) rep.inputs["mfu"] = *mfu;

  if (auto echo = typed_inputs_section(r.typed_inputs)) rep.sections.push_back(*echo);
  if (have_model) rep.sections.push_back(model_section(model));

  Section ws{"workload", "Workload", "训练数据", {}, {}, {}};
  if (r.flop_per_sample) {
    ws.rows.push_back(num("samples_per_epoch", "Samples per epoch", "每轮样本数", *r.workload.samples, Unit::kCount));
    ws.rows.push_back(num("flop_per_sample", "FLOPs per sample (given)", "每样本计算量（输入）", *r.flop_per_sample, Unit::kFlop));
  } else {
    ws.rows.push_back(num("tokens_per_epoch", "Tokens per epoch", "每轮 token 数", w.tokens_per_epoch, Unit::kCount));
    if (r.workload.samples && r.workload.tokens_per_sample) {
      ws.rows.push_back(num("tokens_per_sample", "Tokens per sample", "每样本 token 数", *r.workload.tokens_per_sample, Unit::kCount));
    }
  }
  ws.rows.push_back(num("epochs", "Epochs", "训练轮数", w.epochs, Unit::kCount));
  if (!r.flop_per_sample) ws.rows.push_back(num("total_tokens", "Tokens in total", "总 token 数", w.total_tokens, Unit::kCount));
  ws.rows.push_back(num("seq_len", "Sequence length", "序列长度", static_cast<double>(w.seq_len), Unit::kCount));
  if (w.batch_tokens > 0) {
    ws.rows.push_back(num("batch_tokens", "Tokens per optimizer step", "每步 token 数", w.batch_tokens, Unit::kCount));
    ws.rows.push_back(num("steps_per_epoch", "Optimizer steps per epoch", "每轮步数", w.steps_per_epoch, Unit::kCount));
    ws.rows.push_back(num("total_steps", "Optimizer steps in total", "总步数", w.total_steps, Unit::kCount));
  }
  rep.sections.push_back(ws);

  Section cs{"compute", "Compute", "计算量", {}, {}, {}};
  if (!r.flop_per_sample) {
    cs.rows.push_back(num("six_n_flop_per_token", "6·N per token (quick rule)", "6·N 每 token（经验公式）", f.six_n_flop, Unit::kFlop));
    if (f.exact) {
      cs.rows.push_back(num("forward_flop_per_token", "Forward per token (exact)", "前向每 token（精确）", f.forward_flop, Unit::kFlop));
      cs.rows.push_back(num("forward_attention_flop_per_token", "  of which attention scores+context", "  其中注意力", f.forward_attention_flop, Unit::kFlop));
      cs.rows.push_back(num("forward_lm_head_flop_per_token", "  of which LM head", "  其中输出层", f.forward_lm_head_flop, Unit::kFlop));
      cs.rows.push_back(num("backward_flop_per_token", "Backward per token (2× forward)", "反向每 token（前向的 2 倍）", f.backward_flop, Unit::kFlop));
      cs.rows.push_back(num("model_flop_per_token", "Model FLOPs per token (fwd+bwd)", "模型计算量每 token（前向+反向）", f.model_flop, Unit::kFlop));
      cs.rows.push_back(num("recompute_flop_per_token", "Recompute extra per token", "重计算额外每 token", f.recompute_flop, Unit::kFlop,
                            fmt::format("(recompute {})", recompute_name(r.recompute))));
      cs.rows.push_back(num("hardware_flop_per_token", "Hardware FLOPs per token", "硬件计算量每 token", f.hardware_flop, Unit::kFlop));
    }
    cs.rows.push_back(num("total_six_n_flop", "Total by 6·N", "总计算量（6·N）", total_six_n_flop, Unit::kFlop));
    if (f.exact) {
      cs.rows.push_back(num("total_exact_flop", "Total, exact model FLOPs", "总计算量（精确）", f.model_flop * w.total_tokens, Unit::kFlop));
      cs.rows.push_back(num("total_hardware_flop", "Total hardware FLOPs (with recompute)", "总硬件计算量（含重计算）", f.hardware_flop * w.total_tokens, Unit::kFlop));
    }
  }
  cs.rows.push_back(num("total_flop", "Total used for time and MFU", "用于时间与 MFU 的总计算量", total_model_flop, Unit::kFlop,
                        r.flop_per_sample ? "(samples × FLOPs per sample)" : (r.six_n || !f.exact) ? "(6·N)" : "(exact)"));
  rep.sections.push_back(cs);

  Section hs{"hardware", "Hardware", "硬件", {}, {}, {}};
  hs.rows.push_back(txt("gpu", "GPU", "GPU", fmt::format("{} ({})", gpu.name, gpu.id)));
  hs.rows.push_back(num("peak_flop_per_s", fmt::format("Dense peak, {}", precision_name(r.precision)).c_str(),
                        fmt::format("{} 稠密峰值", precision_name(r.precision)).c_str(), peak, Unit::kFlopPerS));
  hs.rows.push_back(num("gpus_per_node", "GPUs per node", "每节点 GPU 数", gpus_per_node, Unit::kCount));
  rep.sections.push_back(hs);

  if (layout) {
    const Layout& l = layout->layout;
    const StepTime& t = layout->time;
    Section ls{"layout", mfu_predicted ? "Layout (planner's fastest that fits; its MFU is used)" : "Layout (planner's fastest that fits)",
               mfu_predicted ? "并行方案（规划器最优，采用其 MFU）" : "并行方案（规划器最优）", {}, {}, {}};
    ls.rows.push_back(txt("parallel", "Parallelism", "并行方式",
                          fmt::format("tp {} × pp {} × dp {} × cp {}{}{}", l.tp, l.pp, l.dp, l.cp, l.ep > 1 ? fmt::format(", ep {}", l.ep) : "",
                                      l.vp > 1 ? fmt::format(", vp {}", l.vp) : "")));
    ls.rows.push_back(txt("recipe", "Recipe", "训练配置",
                          fmt::format("micro-batch {} × {} micro-batches, global batch {}, ZeRO {}, recompute {}{}", l.micro_batch,
                                      l.micro_batches(), l.effective_global_batch(), l.zero_stage, recompute_name(l.recompute),
                                      l.sequence_parallel ? ", sequence parallel" : "")));
    // People read the layout in the two lines above; programs read each degree (tp, pp, dp, ...).
    ls.rows[ls.rows.size() - 2].audience = Audience::kPeople;
    ls.rows.back().audience = Audience::kPeople;
    for (Row& d : layout_rows(l)) ls.rows.push_back(std::move(d));
    ls.rows.push_back(num("step_s", "Step time", "单步时间", t.step_s, Unit::kSeconds));
    ls.rows.push_back(num("tokens_per_s_per_gpu", "Tokens/s per GPU", "每卡 tokens/s", t.tokens_per_s_per_gpu, Unit::kCount));
    ls.rows.push_back(num("predicted_mfu", "Predicted MFU", "预测 MFU", predicted_mfu(*layout), Unit::kFraction));
    ls.rows.push_back(num("comm_share", "Exposed communication share", "暴露通信占比", t.comm_share, Unit::kFraction));
    ls.rows.push_back(num("bubble_share", "Pipeline bubble share", "流水线气泡占比", t.step_s > 0 ? t.bubble_s / t.step_s : 0, Unit::kFraction));
    rep.sections.push_back(ls);
    add_memory_to_report(rep, layout->memory);
  } else if (can_plan) {
    rep.blocking.push_back({fmt::format("No parallel layout of {} on {} × {} fits in memory: the run as sized cannot start. Add GPUs, "
                                        "choose a GPU with more memory, or shorten the sequence.",
                                        model.name, run.gpus, gpu.id),
                            fmt::format("{} 在 {} 张 {} 上没有放得下的并行方案：按此规模无法开训。请增加卡数、换显存更大的卡或缩短序列。",
                                        model.name, run.gpus, gpu.id)});
  }

  Section ts{"time", "Time and GPUs", "时间与卡数", {}, {}, {}};
  std::optional<Note> sizing_note;
  if (gpus_at_median && gpus_model_alone) {
    const double pct = conf.confidence * 100;
    sizing_note = Note{fmt::format("{} GPUs finish by the deadline with {:.0f}% confidence; {} at the median estimate ({} on the step-time model's "
                                   "own estimate, which published runs have mostly fallen short of). --confidence 0.5–0.99 changes it.",
                                   format_thousands(static_cast<double>(run.gpus)), pct, format_thousands(static_cast<double>(*gpus_at_median)),
                                   format_thousands(static_cast<double>(*gpus_model_alone))),
                       fmt::format("{} 张卡能以 {:.0f}% 的把握按期完成；按中位估计需 {} 张（按步时模型自身估计为 {} 张，公开的实际训练大多达不到它）。"
                                   "可用 --confidence 0.5–0.99 调整。",
                                   format_thousands(static_cast<double>(run.gpus)), pct, format_thousands(static_cast<double>(*gpus_at_median)),
                                   format_thousands(static_cast<double>(*gpus_model_alone)))};
    rep.inputs["confidence"] = conf.confidence;
  }
  if (run.gpus_solved) {
    ts.rows.push_back(num("gpus_exact", "GPUs needed (unrounded)", "所需卡数（未取整）", run.gpus_exact, Unit::kCount));
  }
  ts.rows.push_back(num("gpus", run.gpus_solved ? "GPUs (rounded up to whole nodes)" : "GPUs", run.gpus_solved ? "卡数（按整节点取整）" : "卡数",
                        static_cast<double>(run.gpus), Unit::kGpus));
  if (gpus_at_median && gpus_model_alone) {
    ts.rows.back().en = fmt::format("GPUs ({:.0f}% confidence, whole nodes)", conf.confidence * 100);
    ts.rows.back().zh = fmt::format("卡数（{:.0f}% 把握，整节点）", conf.confidence * 100);
    ts.rows.push_back(num("gpus_at_median", "GPUs at the median estimate", "按中位估计所需卡数", static_cast<double>(*gpus_at_median), Unit::kGpus));
    ts.rows.push_back(num("gpus_model_alone", "GPUs on the model's own estimate", "按模型自身估计所需卡数", static_cast<double>(*gpus_model_alone), Unit::kGpus));
  }
  ts.rows.push_back(num("nodes", "Nodes", "节点数", static_cast<double>(run.nodes), Unit::kCount));
  ts.rows.push_back(num("mfu", run.mfu_solved ? "MFU needed" : "MFU", run.mfu_solved ? "所需 MFU" : "MFU（算力利用率）", run.mfu, Unit::kFraction));
  ts.rows.push_back(num("achieved_flop_per_s_per_gpu", "Achieved per GPU", "单卡有效算力", peak * run.mfu, Unit::kFlopPerS));
  ts.rows.push_back(num("compute_s", "Pure compute time", "纯计算时间", run.compute_s, Unit::kSeconds));
  ts.rows.push_back(num("comm_margin_s", fmt::format("+ communication margin ({:.0f}%)", r.comm_margin * 100).c_str(),
                        fmt::format("+ 通信冗余（{:.0f}%）", r.comm_margin * 100).c_str(), run.comm_margin_s, Unit::kSeconds));
  ts.rows.push_back(num("fault_budget_s",
                        fmt::format("+ {} ({:.1f}%)", r.fault_budget ? "fault budget" : "failures, checkpoints, restarts", fault_budget * 100).c_str(),
                        fmt::format("+ {}（{:.1f}%）", r.fault_budget ? "容错预算" : "故障、检查点与重启", fault_budget * 100).c_str(),
                        run.fault_budget_s, Unit::kSeconds));
  ts.rows.push_back(num("wall_clock_s", "Wall-clock time", "总训练时间", run.wall_s, Unit::kSeconds));
  if (run.deadline_s) {
    ts.rows.push_back(num("deadline_s", "Deadline", "截止时间", *run.deadline_s, Unit::kSeconds));
    ts.rows.push_back(num("deadline_met", "Deadline met", "能否按期完成", run.deadline_met ? 1 : 0, Unit::kFlag));
    // Under a second of slack is rounding (the MFU or GPU count was solved for the deadline), not time to spare.
    const double slack = std::fabs(run.deadline_slack_s) < 1 ? 0 : std::fabs(run.deadline_slack_s);
    ts.rows.push_back(num("deadline_slack_s", run.deadline_met ? "Time to spare" : "Late by", run.deadline_met ? "富余时间" : "超期",
                          slack, Unit::kSeconds));
  }
  rep.sections.push_back(ts);

  Section gh{"gpu_hours", "GPU-hours", "卡时", {}, {}, {}};
  gh.rows.push_back(num("compute_gpu_hours", "Compute", "纯计算", run.gpu_hours_compute, Unit::kGpuHours));
  gh.rows.push_back(num("comm_margin_gpu_hours", "Communication margin", "通信冗余", run.gpu_hours_comm_margin, Unit::kGpuHours));
  gh.rows.push_back(num("fault_budget_gpu_hours", "Fault budget", "容错预算", run.gpu_hours_fault_budget, Unit::kGpuHours));
  double run_gpu_hours = run.gpu_hours_total;
  if (price.spot) {
    const double extra = run.gpu_hours_total * price.spot_overhead;
    gh.rows.push_back(num("spot_overhead_gpu_hours", fmt::format("Spot preemption overhead ({:.0f}%)", price.spot_overhead * 100).c_str(),
                          fmt::format("竞价实例中断开销（{:.0f}%）", price.spot_overhead * 100).c_str(), extra, Unit::kGpuHours));
    run_gpu_hours += extra;
  }
  gh.rows.push_back(num("total_gpu_hours", "Total", "合计", run_gpu_hours, Unit::kGpuHours));
  gh.rows.push_back(num("total_gpu_days", "Total in card-days", "合计（卡天）", run_gpu_hours / 24, Unit::kGpuDays));
  rep.sections.push_back(gh);

  rep.sections.push_back(operations_section(ops, spot_ops));

  // Cost: each GPU-hour line times the price, in the price's currency, with
  // the total converted to the other. One object with fixed keys (issue 17):
  // its "currency" names the currency of every amount in it; a price range
  // adds the high end, a prediction its range (total_low / total_high).
  if (price_known) {  // (not re-indented, to keep the cost code's history readable)
  const Currency cur = price.currency;
  const Currency other = cur == Currency::kUsd ? Currency::kCny : Currency::kUsd;
  const bool range = price.high_per_gpu_hour > price.low_per_gpu_hour;
  Section cost{"cost", price.spot ? "Cost (spot)" : "Cost (on-demand)", price.spot ? "费用（竞价实例）" : "费用（按需）", {}, {}, {}};
  cost.rows.push_back(currency_row(cur));
  cost.rows.push_back(money_row("per_gpu_hour", "Price per GPU-hour", "每卡时单价", price.low_per_gpu_hour, cur,
                                range ? fmt::format("to {}", format_thousands(price.high_per_gpu_hour, 2)) : ""));
  cost.rows.push_back(range ? Row{"per_gpu_hour_high", "Price per GPU-hour (high)", "每卡时单价（高）", price.high_per_gpu_hour, money_unit(cur), "",
                                  {}, Audience::kPrograms}
                            : null_row("per_gpu_hour_high", money_unit(cur)));
  cost.rows.push_back(txt("source", "Price source", "价格来源", price.source));
  if (!price.date.empty()) cost.rows.push_back(Row{"date", "Price date", "价格日期", 0, Unit::kText, price.date, {}, Audience::kPrograms});
  if (price.market) {
    const Market shown_market = r.price.market.value_or(*price.market);
    cost.rows.push_back(txt("market", "Market", "市场", shown_market == Market::kCn ? "cn" : "us"));
  }
  cost.rows.push_back(Row{"spot", "Spot", "竞价实例", price.spot ? 1.0 : 0.0, Unit::kFlag, "", {}, Audience::kPrograms});
  // Each amount at the (low end of the) price; a range's high end is the same GPU-hours at per_gpu_hour_high.
  auto add_cost = [&](const char* key, const char* en, const char* zh, double hours) {
    cost.rows.push_back(money_row(key, range ? fmt::format("{} (low)", en) : en, range ? fmt::format("{}（低）", zh) : zh, hours * price.low_per_gpu_hour, cur,
                                  range ? fmt::format("to {}", format_thousands(hours * price.high_per_gpu_hour)) : ""));
  };
  add_cost("compute", "Compute", "纯计算费用", run.gpu_hours_compute);
  add_cost("comm_margin", "Communication margin", "通信冗余费用", run.gpu_hours_comm_margin);
  add_cost("fault_budget", "Fault budget", "容错预算费用", run.gpu_hours_fault_budget);
  if (price.spot) {
    add_cost("spot_overhead", "Spot preemption overhead", "竞价中断费用", run.gpu_hours_total * price.spot_overhead);
  } else {
    cost.rows.push_back(null_row("spot_overhead", money_unit(cur)));
  }
  add_cost("run", "Main run", "主训练费用", run_gpu_hours);

  double phases_low = 0, phases_high = 0;
  Section phases{"cost.phases", "Other phases (priced, not solved)", "其他阶段（只计价，不求解）", {},
                 {"phase", "gpu", "gpus", "hours", "GPU-hours", "cost"}, {}};
  for (const auto& text : r.phases) {
    const Phase ph = parse_phase(text);
    const double low = convert(ph.gpu_hours() * ph.price.low_per_gpu_hour, ph.price.currency, cur);
    const double high = convert(ph.gpu_hours() * ph.price.high_per_gpu_hour, ph.price.currency, cur);
    phases_low += low;
    phases_high += high;
    phases.records.push_back({txt("name", "phase", "阶段", ph.name), txt("gpu", "gpu", "GPU", ph.gpu_id), num("gpus", "gpus", "卡数", ph.gpus, Unit::kGpus),
                              num("hours", "hours", "小时", ph.hours, Unit::kCount), num("gpu_hours", "GPU-hours", "卡时", ph.gpu_hours(), Unit::kGpuHours),
                              money_row("total", "cost", "费用", low, cur, high > low ? fmt::format("to {}", format_thousands(high)) : "")});
  }
  const double total_low = run_gpu_hours * price.low_per_gpu_hour + phases_low;
  const double total_high = run_gpu_hours * price.high_per_gpu_hour + phases_high;
  cost.rows.push_back(money_row("total", range ? "Total (low)" : "Total", range ? "总费用（低）" : "总费用", total_low, cur));
  if (range) {
    cost.rows.push_back(money_row("total_at_price_high", "Total (high)", "总费用（高）", total_high, cur));
  } else {
    cost.rows.push_back(null_row("total_at_price_high", money_unit(cur)));
  }
  const ExchangeRate& fx = exchange_rate();
  cost.rows.push_back(num("cny_per_usd", "Exchange rate (CNY per USD)", "汇率（人民币/美元）", fx.cny_per_usd, Unit::kCount,
                          fmt::format("({}, {})", fx.date, fx.source)));
  rep.sections.push_back(cost);
  if (!phases.records.empty()) rep.sections.push_back(phases);
  // The total in the other currency, at the exchange rate above.
  Section converted{"cost.converted", fmt::format("Total in {}", currency_code(other)), fmt::format("总费用（换算为{}）", other == Currency::kCny ? "人民币" : "美元"),
                    {}, {}, {}};
  converted.rows.push_back(currency_row(other));
  converted.rows.push_back(money_row("total", range ? "Total (low)" : "Total", range ? "总费用（低）" : "总费用", convert(total_low, cur, other), other));
  if (range) {
    converted.rows.push_back(money_row("total_at_price_high", "Total (high)", "总费用（高）", convert(total_high, cur, other), other));
  } else {
    converted.rows.push_back(null_row("total_at_price_high", money_unit(other)));
  }
  rep.sections.push_back(converted);
  rep.sections.push_back(rent_options_section(rent, run.gpu_hours_total, run.wall_s));
  if (r.own) {
    const Market own_market = r.price.market.value_or(price.market.value_or(Market::kUs));
    const OwnershipInputs own = resolve_ownership(gpu, gpus_per_node, own_market, price.currency, *r.own);
    add_rent_vs_own(&rep, own, rent, run.gpu_hours_total, run.nodes);
  }
  }

  // Assumptions and warnings a user should see.
  if (!r.flop_per_sample && f.exact && !r.six_n) {
    rep.assumptions.push_back({fmt::format("FLOPs counted from the architecture: every matmul incl. the LM head, attention over the {} "
                                           "(s={}), backward = 2× forward.",
                                           r.causal_half ? "causal half" : "full s×s matrix (Megatron/PaLM convention)", w.seq_len),
                               fmt::format("计算量按结构精确计数：包含所有矩阵乘和输出层，注意力按{}（s={}），反向为前向的 2 倍。",
                                           r.causal_half ? "因果一半" : "完整 s×s 矩阵（Megatron/PaLM 口径）", w.seq_len)});
  }
  if (!r.flop_per_sample && !f.exact) {
    rep.assumptions.push_back({"Only a parameter count was given, so compute uses 6·N per token (Kaplan et al. 2020).",
                               "仅给出参数量，计算量按每 token 6·N 估算（Kaplan 等 2020）。"});
  }
  if (r.fault_budget) {
    rep.assumptions.push_back({fmt::format("Margins are added to the pure compute time: communication {:.0f}%, a fixed fault budget {:.0f}% "
                                           "(seed 004 uses 20% for restarts, retries and hardware faults).",
                                           r.comm_margin * 100, fault_budget * 100),
                               fmt::format("在纯计算时间上叠加冗余：通信 {:.0f}%，固定容错预算 {:.0f}%。", r.comm_margin * 100, fault_budget * 100)});
  } else {
    rep.assumptions.push_back({fmt::format("Failure time is computed, not guessed: per-GPU MTBF {} h (Llama 3: 419 interruptions in 54 days on "
                                           "16,384 H100s), restart {}, checkpoints at Daly's optimal interval; it adds {:.1f}% to compute. "
                                           "--fault-budget fixes it instead.",
                                           format_thousands(r.ops.gpu_mtbf_hours), format_duration(r.ops.restart_s), fault_budget * 100),
                               fmt::format("故障开销按模型计算：单卡 MTBF {} 小时（Llama 3 数据），重启 {}，按 Daly 最优间隔保存检查点，"
                                           "增加 {:.1f}% 计算时间；可用 --fault-budget 固定。",
                                           format_thousands(r.ops.gpu_mtbf_hours), format_duration(r.ops.restart_s), fault_budget * 100)});
  }
  if (mfu && !run.mfu_solved && !mfu_predicted) {
    rep.assumptions.push_back({fmt::format("MFU {:.1f}% is your input; without --mfu gpuplan predicts it from the fastest layout that fits.", *mfu * 100),
                               fmt::format("MFU {:.1f}% 为输入值；不给 --mfu 时按最优并行方案预测。", *mfu * 100)});
  }
  if (r.calibration) {
    rep.assumptions.push_back({fmt::format("Calibrated to a trial run: GEMM efficiency ceiling {:.3f}{} (the uncalibrated model was {:+.1f}% off its step time).",
                                           r.calibration->gemm_ceiling,
                                           r.calibration->fragmentation >= 0 ? fmt::format(", memory overhead {:.1f}%", r.calibration->fragmentation * 100) : "",
                                           r.calibration->step_error * 100),
                               fmt::format("已按试跑校准：GEMM 效率上限 {:.3f}（未校准模型步时误差 {:+.1f}%）。", r.calibration->gemm_ceiling,
                                           r.calibration->step_error * 100)});
  }
  if (mfu_predicted && mfu_check && mfu_check->capped) {
    rep.assumptions.push_back({fmt::format("MFU {:.1f}% is the step-time model's {:.1f}% for the layout shown, capped at the best published "
                                           "(docs/step-time.md, data/published_mfu.json).",
                                           run.mfu * 100, mfu_check->raw * 100),
                               fmt::format("MFU {:.1f}% 为步时模型按所示并行方案预测的 {:.1f}%，按已公开最好水平封顶。", run.mfu * 100, mfu_check->raw * 100)});
  } else if (mfu_predicted) {
    rep.assumptions.push_back({fmt::format("MFU {:.1f}% is predicted by the step-time model for the layout shown (docs/step-time.md).", run.mfu * 100),
                               fmt::format("MFU {:.1f}% 由步时模型按所示并行方案预测。", run.mfu * 100)});
  }
  // Plausibility first (issue 15): stated above every number that depends on it.
  if (mfu_check && mfu_check->capped) {
    rep.blocking.insert(rep.blocking.begin(), train_detail::capped_mfu_note(*mfu_check, gpu));
  } else if (!mfu_predicted && !run.mfu_solved) {
    const train_detail::MfuCheck given = train_detail::check_mfu(run.mfu, gpu, r.precision);
    if (given.capped) {
      rep.blocking.insert(rep.blocking.begin(),
                          {fmt::format("Your MFU {:.1f}% is above the best published for {} ({:.1f}%, {}); the numbers below follow your figure.",
                                       run.mfu * 100, given.published.gpu_class, given.published.best_mfu * 100, given.published.run),
                           fmt::format("输入的 MFU {:.1f}% 高于 {} 类已公开的最好水平（{:.1f}%，{}）；下面的数字按你的输入计算。", run.mfu * 100,
                                       given.published.gpu_class, given.published.best_mfu * 100, given.published.run)});
    }
  }
  if (r.calibration) {
    train_detail::check_calibration(*r.calibration, have_model ? model.name : std::string(), gpu,
                                    layout ? calibration_layout_text(layout->layout) : std::string(), rep);
  }
  if (sizing_note) rep.assumptions.insert(rep.assumptions.begin(), *sizing_note);
  // Ranges beside the predicted numbers.
  train_detail::add_train_ranges(rep, conf, mfu_predicted, mfu_check ? mfu_check->used / mfu_check->raw : 1.0);
  if (mfu_predicted && conf.time_range) {
    const ErrorRange& t = *conf.time_range;
    rep.assumptions.push_back({fmt::format("{:.0f}% ranges on time, throughput, GPU-hours and cost: actual runs took {:.2f}–{:.2f}× the "
                                           "predicted time, read from gpuplan's errors on {} published runs from {} sources ({}; docs/intervals.md).",
                                           t.level * 100, t.low, t.high, t.cases, t.sources, t.group),
                               fmt::format("时间、吞吐、卡时与费用的 {:.0f}% 区间：实际训练耗时为预测的 {:.2f}–{:.2f} 倍，取自 gpuplan 在 {} 个来源的 {} 个"
                                           "公开训练上的误差（{}；见 docs/intervals.md）。",
                                           t.level * 100, t.low, t.high, t.sources, t.cases, t.group)});
  } else if (!mfu_predicted) {
    rep.assumptions.push_back({"Times, GPU-hours and cost follow the MFU given, so they carry no prediction range; leave --mfu out to have it "
                               "predicted with one.",
                               "时间、卡时与费用按给定的 MFU 计算，没有预测区间；不给 --mfu 时会预测并给出区间。"});
  }
  if (layout && conf.memory_range) {
    const ErrorRange& m = *conf.memory_range;
    rep.assumptions.push_back({fmt::format("{:.0f}% range on peak memory: {:.2f}–{:.2f}× the prediction ({} published runs, {} sources; {}).",
                                           m.level * 100, m.low, m.high, m.cases, m.sources, m.group),
                               fmt::format("显存峰值的 {:.0f}% 区间：预测值的 {:.2f}–{:.2f} 倍（{} 个来源的 {} 个公开训练；{}）。", m.level * 100, m.low,
                                           m.high, m.sources, m.cases, m.group)});
  }
  if (run.mfu_solved) {
    rep.warnings.push_back({fmt::format("To finish on time the run must sustain {:.1f}% MFU; published large runs reach 38–55%.", run.mfu * 100),
                            fmt::format("按期完成需要 {:.1f}% 的 MFU；公开的大规模训练为 38–55%。", run.mfu * 100)});
  }
  if (r.gpus && static_cast<int64_t>(*r.gpus) % gpus_per_node != 0 && *r.gpus > gpus_per_node) {
    rep.warnings.push_back({fmt::format("{} GPUs is not a whole number of {}-GPU nodes.", *r.gpus, gpus_per_node),
                            fmt::format("{} 卡不是整数个 {} 卡节点。", *r.gpus, gpus_per_node)});
  }
  if (run.deadline_s && !run.deadline_met) {
    rep.warnings.push_back({fmt::format("The deadline is missed by {}.", format_duration(-run.deadline_slack_s)),
                            fmt::format("将超期 {}。", format_duration(-run.deadline_slack_s))});
  }
  if (model.moe && !r.six_n) {
    rep.assumptions.push_back({"MoE FLOPs count only the top-k routed experts, the shared experts and the router.",
                               "MoE 计算量只计激活的 top-k 专家、共享专家和路由。"});
  }
  return rep;
}

}  // namespace gpuplan
