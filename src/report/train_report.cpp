#include "report/train_report.hpp"
#include "units/quantity_text.hpp"
#include "hardware/hardware_words.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/memory_report.hpp"
#include "report/operations_report.hpp"
#include "report/rent_or_buy_report.hpp"
#include "gpuplan/units.hpp"
#include "report/typed_inputs_section.hpp"
#include "layout_rows.hpp"
#include "money_rows.hpp"
#include "row_makers.hpp"
#include "gpuplan/inference.hpp"  // kDefaultSeqLen
#include "report/model_notes.hpp"
#include "report/train_confidence_rows.hpp"

namespace gpuplan {

Section model_section(const ModelSpec& m) {
  Section s{"model", "Model", "模型", {}, {}, {}};
  const ParamCounts p = count_params(m);
  s.rows.push_back(text_row("name", "Model", "模型", m.name));
  if (m.count_only) {
    s.rows.back().text_zh = p.total >= 1e9 ? fmt::format("{:.4g}B 参数模型", p.total / 1e9) : fmt::format("{:.4g} 参数模型", p.total);
  }
  if (m.count_only) {
    s.rows.push_back(number_row("params_total", "Parameters (given)", "参数量（输入）", p.total, Unit::kParams));
    return s;
  }
  s.rows.push_back(number_row("params_total", "Parameters, total", "参数量（总）", p.total, Unit::kParams));
  if (m.is_moe()) s.rows.push_back(number_row("params_active", "Parameters active per token", "每 token 激活参数", p.active, Unit::kParams));
  s.rows.push_back(number_row("params_embedding", "Embedding parameters (incl. untied LM head)", "嵌入参数（含非共享输出层）", p.embedding, Unit::kParams));
  s.rows.push_back(number_row("params_non_embedding", "Non-embedding parameters", "非嵌入参数", p.non_embedding, Unit::kParams));
  std::string shape = fmt::format("{} layers, hidden {}, {} heads ({} KV), {} MLP {}", m.layers, m.hidden, m.heads,
                                  m.mla ? std::string("MLA") : std::to_string(m.kv_heads),
                                  m.mlp == MlpKind::kGated ? "gated" : "2-matrix", m.intermediate);
  if (m.moe) shape += fmt::format(", MoE {}+{} experts, top-{}", m.moe->routed_experts, m.moe->shared_experts, m.moe->experts_per_token);
  s.rows.push_back(text_row("shape", "Architecture", "结构", shape));
  std::string shape_zh = fmt::format("{} 层，隐藏维度 {}，{} 个注意力头（{}），{} MLP {}", m.layers, m.hidden, m.heads,
                                     m.mla ? std::string("MLA") : fmt::format("{} 个 KV 头", m.kv_heads),
                                     m.mlp == MlpKind::kGated ? "门控" : "两矩阵", m.intermediate);
  if (m.moe) shape_zh += fmt::format("，MoE {}+{} 个专家，每 token 选 {} 个", m.moe->routed_experts, m.moe->shared_experts, m.moe->experts_per_token);
  s.rows.back().text_zh = shape_zh;
  return s;
}

namespace {


// A layout shown where no table does: its degrees and recipe in one line.
Bilingual layout_words(const Layout& l) {
  return {fmt::format("tp {} × pp {} × dp {} × cp {}{}{}, micro-batch {}, ZeRO {}, recompute {}", l.tp, l.pp, l.dp, l.cp,
                      l.ep > 1 ? fmt::format(", ep {}", l.ep) : "", l.vp > 1 ? fmt::format(", vp {}", l.vp) : "", l.micro_batch,
                      l.zero_stage, recompute_name(l.recompute)),
          degrees_zh(l) + "，" + recipe_zh(l)};
}

// What the safety margin decided (TrainEstimate::layout_over_margin,
// faster_over_margin): a layout run closer to the card than the margin, or one
// the margin left out.
void add_margin_notes(Report& rep, const TrainEstimate& e) {
  const PlanCandidate& shown = *e.layout;
  const MemoryBreakdown& m = shown.memory;
  const double margin_pct = 100 * m.safety_margin_bytes / m.capacity_bytes;
  if (e.layout_over_margin) {
    rep.warnings.push_back({fmt::format("No layout keeps the {:.0f}% safety margin free here; the fastest that fits the GPU is shown: it needs {:.1f} of "
                                        "{:.1f} GiB ({:.1f} GiB free). Published runs of tuned stacks run this close, but it starts only "
                                        "if this memory estimate holds; --safety-margin sets the margin.",
                                        margin_pct, m.peak_bytes / kGiB, m.capacity_bytes / kGiB, (m.capacity_bytes - m.peak_bytes) / kGiB),
                            fmt::format("没有任何方案能留出 {:.0f}% 的显存余量；下面是放得进显存的最快方案：需要 {:.1f} GiB（共 {:.1f} GiB，"
                                        "剩 {:.1f} GiB）。调优过的框架在公开训练中常这样贴近上限运行，但只有本显存估算准确时才能启动；"
                                        "--safety-margin 可调整余量。",
                                        margin_pct, m.peak_bytes / kGiB, m.capacity_bytes / kGiB, (m.capacity_bytes - m.peak_bytes) / kGiB)});
  }
  if (e.faster_over_margin) {
    const PlanCandidate& f = *e.faster_over_margin;
    const Bilingual words = layout_words(f.layout);
    const double faster = f.time.tokens_per_s_per_gpu / shown.time.tokens_per_s_per_gpu - 1;
    rep.warnings.push_back({fmt::format("A layout {:.0f}% faster fits the GPU but not the {:.0f}% safety margin: {}; it needs {:.1f} of {:.1f} GiB. "
                                        "It starts only if this memory estimate holds; --safety-margin {:.2f} lets the planner take it.",
                                        100 * faster, margin_pct, words.en, f.memory.peak_bytes / kGiB, f.memory.capacity_bytes / kGiB,
                                        largest_margin_admitting(f.memory)),
                            fmt::format("有一个快 {:.0f}% 的方案放得进显存，但留不出 {:.0f}% 的余量：{}；需要 {:.1f} GiB（共 {:.1f} GiB）。"
                                        "只有本显存估算准确时才能启动；--safety-margin {:.2f} 可让规划器选用它。",
                                        100 * faster, margin_pct, words.zh, f.memory.peak_bytes / kGiB, f.memory.capacity_bytes / kGiB,
                                        largest_margin_admitting(f.memory))});
  }
}

// The planner's layout, its step and its memory; or, where none fits, that said first.
void add_layout_section(Report& rep, const TrainEstimate& e) {
  const ModelSpec& model = e.model;
  const GpuSpec& gpu = e.gpu;
  const bool can_plan = e.can_plan;
  const bool mfu_predicted = e.mfu_predicted;
  const std::optional<PlanCandidate>& layout = e.layout;
  const RunEstimate& run = e.run;
  if (layout) {
    const Layout& l = layout->layout;
    const StepTime& t = layout->time;
    const char* fits_en = e.layout_over_margin ? "Layout (fastest that fits the GPU, not keeping the safety margin free" : "Layout (planner's fastest that fits";
    const char* fits_zh = e.layout_over_margin ? "并行方案（放得进显存的最快方案，未留足余量" : "并行方案（规划器最优";
    Section ls{"layout", fmt::format("{}{})", fits_en, mfu_predicted ? "; the MFU below is calibrated from it" : ""),
               fmt::format("{}{}）", fits_zh, mfu_predicted ? "，下面的 MFU 由其校准得出" : ""), {}, {}, {}};
    ls.rows.push_back(text_row("parallel", "Parallelism", "并行方式",
                          fmt::format("tp {} × pp {} × dp {} × cp {}{}{}{}", l.tp, l.pp, l.dp, l.cp, l.ep > 1 ? fmt::format(", ep {}", l.ep) : "",
                                      l.vp > 1 ? fmt::format(", vp {}", l.vp) : "", l.dualpipe && l.pp > 1 ? ", DualPipe schedule" : "")));
    ls.rows.back().text_zh = degrees_zh(l);
    ls.rows.push_back(text_row("recipe", "Recipe", "训练配置",
                          fmt::format("micro-batch {} × {} micro-batches, global batch {}, ZeRO {}, recompute {}{}", l.micro_batch,
                                      l.micro_batches(), l.effective_global_batch(), l.zero_stage, recompute_name(l.recompute),
                                      l.sequence_parallel ? ", sequence parallel" : "")));
    ls.rows.back().text_zh = recipe_zh(l);
    // People read the layout in the two lines above; programs read each degree (tp, pp, dp, ...).
    ls.rows[ls.rows.size() - 2].audience = Audience::kPeople;
    ls.rows.back().audience = Audience::kPeople;
    for (Row& d : layout_rows(l)) ls.rows.push_back(std::move(d));
    // Predicted: the median of the calibrated distribution (the step-time
    // model's figure is each row's physics, beside it).
    const double to_median = e.mfu_distribution ? e.mfu_distribution->median / e.mfu_distribution->physics : 1.0;
    ls.rows.push_back(number_row("step_s", "Step time", "单步时间", t.step_s / to_median, Unit::kSeconds));
    ls.rows.push_back(number_row("tokens_per_s_per_gpu", "Tokens/s per GPU", "每卡 tokens/s", t.tokens_per_s_per_gpu * to_median, Unit::kCount));
    ls.rows.push_back(number_row("predicted_mfu", "Predicted MFU", "预测 MFU", *e.layout_mfu * to_median, Unit::kFraction));
    ls.rows.push_back(number_row("comm_share", "Exposed communication share", "暴露通信占比", t.comm_share, Unit::kFraction));
    ls.rows.push_back(number_row("bubble_share", "Pipeline bubble share", "流水线气泡占比", t.step_s > 0 ? t.bubble_s / t.step_s : 0, Unit::kFraction));
    rep.sections.push_back(ls);
    add_memory_to_report(rep, layout->memory);
    add_margin_notes(rep, e);
  } else if (can_plan) {
    rep.blocking.push_back({fmt::format("No parallel layout of {} on {} × {} fits in memory: the run as sized cannot start. Add GPUs, "
                                        "choose a GPU with more memory, or shorten the sequence.",
                                        model.name, run.gpus, gpu.id),
                            fmt::format("{} 在 {} 张 {} 上没有放得下的并行方案：按此规模无法开训。请增加卡数、换显存更大的卡或缩短序列。",
                                        model.name, run.gpus, gpu.id)});
  }
}

// Time and GPUs; for a run sized at a confidence, the note that says so (shown first).
std::optional<Note> add_time_section(Report& rep, const TrainRequest& r, const TrainEstimate& e) {
  const double peak = e.peak_flop_per_s;
  const train_detail::Confidence& conf = e.confidence;
  const RunEstimate& run = e.run;
  const double fault_budget = e.fault_budget;
  const std::optional<int64_t>& gpus_at_median = e.gpus_at_median;
  const std::optional<int64_t>& gpus_model_alone = e.gpus_model_alone;
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
    ts.rows.push_back(number_row("gpus_exact", "GPUs needed (unrounded)", "所需卡数（未取整）", run.gpus_exact, Unit::kCount));
  }
  ts.rows.push_back(number_row("gpus", run.gpus_solved ? "GPUs (rounded up to whole nodes)" : "GPUs", run.gpus_solved ? "卡数（按整节点取整）" : "卡数",
                        static_cast<double>(run.gpus), Unit::kGpus));
  if (gpus_at_median && gpus_model_alone) {
    ts.rows.back().en = fmt::format("GPUs ({:.0f}% confidence, whole nodes)", conf.confidence * 100);
    ts.rows.back().zh = fmt::format("卡数（{:.0f}% 把握，整节点）", conf.confidence * 100);
    ts.rows.push_back(number_row("gpus_at_median", "GPUs at the median estimate", "按中位估计所需卡数", static_cast<double>(*gpus_at_median), Unit::kGpus));
    if (e.gpus_fast && e.gpus_slow) {
      rep.ranges.push_back(RowRange{"time", "gpus_at_median", static_cast<double>(*e.gpus_fast), static_cast<double>(*e.gpus_slow), conf.interval,
                                    static_cast<double>(*gpus_model_alone)});
    }
    ts.rows.push_back(number_row("gpus_model_alone", "GPUs on the model's own estimate", "按模型自身估计所需卡数", static_cast<double>(*gpus_model_alone), Unit::kGpus));
  }
  ts.rows.push_back(number_row("nodes", "Nodes", "节点数", static_cast<double>(run.nodes), Unit::kCount));
  ts.rows.push_back(number_row("mfu", run.mfu_solved ? "MFU needed" : "MFU", run.mfu_solved ? "所需 MFU" : "MFU（算力利用率）", run.mfu, Unit::kFraction));
  ts.rows.push_back(number_row("achieved_flop_per_s_per_gpu", "Achieved per GPU", "单卡有效算力", peak * run.mfu, Unit::kFlopPerS));
  ts.rows.push_back(number_row("compute_s", "Pure compute time", "纯计算时间", run.compute_s, Unit::kSeconds));
  ts.rows.push_back(number_row("comm_margin_s", fmt::format("+ communication margin ({:.0f}%)", r.comm_margin * 100).c_str(),
                        fmt::format("+ 通信冗余（{:.0f}%）", r.comm_margin * 100).c_str(), run.comm_margin_s, Unit::kSeconds));
  ts.rows.push_back(number_row("fault_budget_s",
                        fmt::format("+ {} ({:.1f}%)", r.fault_budget ? "fault budget" : "failures, checkpoints, restarts", fault_budget * 100).c_str(),
                        fmt::format("+ {}（{:.1f}%）", r.fault_budget ? "容错预算" : "故障、检查点与重启", fault_budget * 100).c_str(),
                        run.fault_budget_s, Unit::kSeconds));
  ts.rows.push_back(number_row("wall_clock_s", "Wall-clock time", "总训练时间", run.wall_s, Unit::kSeconds));
  if (run.deadline_s) {
    ts.rows.push_back(number_row("deadline_s", "Deadline", "截止时间", *run.deadline_s, Unit::kSeconds));
    if (e.wall_s_at_confidence) {
      // Judged where published runs of this kind stay with the asked probability.
      ts.rows.push_back(number_row("wall_clock_at_confidence_s", fmt::format("Wall-clock at {:.0f}% confidence", conf.confidence * 100).c_str(),
                            fmt::format("{:.0f}% 把握的总训练时间", conf.confidence * 100).c_str(), *e.wall_s_at_confidence, Unit::kSeconds));
    }
    ts.rows.push_back(number_row("deadline_met", e.wall_s_at_confidence ? fmt::format("Deadline met ({:.0f}% confidence)", conf.confidence * 100).c_str() : "Deadline met",
                          e.wall_s_at_confidence ? fmt::format("能否按期完成（{:.0f}% 把握）", conf.confidence * 100).c_str() : "能否按期完成",
                          run.deadline_met ? 1 : 0, Unit::kFlag));
    // Under a second of slack is rounding (the MFU or GPU count was solved for the deadline), not time to spare.
    const double slack = std::fabs(run.deadline_slack_s) < 1 ? 0 : std::fabs(run.deadline_slack_s);
    ts.rows.push_back(number_row("deadline_slack_s", run.deadline_met ? "Time to spare" : "Late by", run.deadline_met ? "富余时间" : "超期",
                          slack, Unit::kSeconds));
  }
  rep.sections.push_back(ts);
  return sizing_note;
}

// GPU-hours by cause, and the failures, checkpoints and restarts behind them.
void add_gpu_hours_sections(Report& rep, const TrainEstimate& e) {
  const RunEstimate& run = e.run;
  const OperationsEstimate& ops = e.operations;
  const std::optional<OperationsEstimate>& spot_ops = e.spot_operations;
  const Price price = e.price.value_or(Price{});
  Section gh{"gpu_hours", "GPU-hours", "卡时", {}, {}, {}};
  gh.rows.push_back(number_row("compute_gpu_hours", "Compute", "纯计算", run.gpu_hours_compute, Unit::kGpuHours));
  gh.rows.push_back(number_row("comm_margin_gpu_hours", "Communication margin", "通信冗余", run.gpu_hours_comm_margin, Unit::kGpuHours));
  gh.rows.push_back(number_row("fault_budget_gpu_hours", "Fault budget", "容错预算", run.gpu_hours_fault_budget, Unit::kGpuHours));
  if (price.spot) {
    gh.rows.push_back(number_row("spot_overhead_gpu_hours", fmt::format("Spot preemption overhead ({:.0f}%)", price.spot_overhead * 100).c_str(),
                          fmt::format("竞价实例中断开销（{:.0f}%）", price.spot_overhead * 100).c_str(), e.spot_overhead_gpu_hours, Unit::kGpuHours));
  }
  gh.rows.push_back(number_row("total_gpu_hours", "Total", "合计", e.run_gpu_hours, Unit::kGpuHours));
  gh.rows.push_back(number_row("total_gpu_days", "Total in card-days", "合计（卡天）", e.run_gpu_hours / 24, Unit::kGpuDays));
  rep.sections.push_back(gh);

  rep.sections.push_back(operations_section(ops, spot_ops));
}

// The cost, its other phases and currency, the ways of renting and, asked for, owning.
void add_cost_sections(Report& rep, const TrainRequest& r, const TrainEstimate& e) {
  const GpuSpec& gpu = e.gpu;
  const int gpus_per_node = e.gpus_per_node;
  const RunEstimate& run = e.run;
  const Price price = e.price.value_or(Price{});
  const RentOptions& rent = e.rent;
  // The cost object (issue 17): its "currency" names the currency of every
  // amount in it; a price range adds the high end, a prediction its range
  // (total_low / total_high); the total converted to the other currency beside it.
  if (e.cost) {  // (not re-indented, to keep the cost code's history readable)
  const TrainCost& c = *e.cost;
  const Currency cur = c.currency;
  const Currency other = cur == Currency::kUsd ? Currency::kCny : Currency::kUsd;
  const bool range = c.per_gpu_hour_high.has_value();
  const double high_ratio = range ? *c.per_gpu_hour_high / c.per_gpu_hour : 1.0;
  Section cost{"cost", price.spot ? "Cost (spot)" : "Cost (on-demand)", price.spot ? "费用（竞价实例）" : "费用（按需）", {}, {}, {}};
  cost.rows.push_back(currency_row(cur));
  cost.rows.push_back(money_row("per_gpu_hour", "Price per GPU-hour", "每卡时单价", c.per_gpu_hour, cur,
                                range ? fmt::format("to {}", format_thousands(*c.per_gpu_hour_high, 2)) : ""));
  if (range) cost.rows.back().text_zh = fmt::format("至 {}", format_thousands(*c.per_gpu_hour_high, 2));
  cost.rows.push_back(range ? Row{"per_gpu_hour_high", "Price per GPU-hour (high)", "每卡时单价（高）", *c.per_gpu_hour_high, money_unit(cur), "",
                                  {}, Audience::kPrograms}
                            : null_row("per_gpu_hour_high", money_unit(cur)));
  cost.rows.push_back(price_source_row(price));
  if (!price.date.empty()) cost.rows.push_back(Row{"date", "Price date", "价格日期", 0, Unit::kText, price.date, {}, Audience::kPrograms});
  if (price.market) {
    const Market shown_market = r.price.market.value_or(*price.market);
    cost.rows.push_back(text_row("market", "Market", "市场", shown_market == Market::kCn ? "cn" : "us"));
    cost.rows.back().text_zh = shown_market == Market::kCn ? "国内（--market cn）" : "美国（--market us）";
  }
  cost.rows.push_back(Row{"spot", "Spot", "竞价实例", price.spot ? 1.0 : 0.0, Unit::kFlag, "", {}, Audience::kPrograms});
  // Each amount at the (low end of the) price; a range's high end is the same GPU-hours at per_gpu_hour_high.
  auto add_cost = [&](const char* key, const char* en, const char* zh, double amount) {
    cost.rows.push_back(money_row(key, range ? fmt::format("{} (low)", en) : en, range ? fmt::format("{}（低）", zh) : zh, amount, cur,
                                  range ? fmt::format("to {}", format_thousands(amount * high_ratio)) : ""));
    if (range) cost.rows.back().text_zh = fmt::format("至 {}", format_thousands(amount * high_ratio));
  };
  add_cost("compute", "Compute", "纯计算费用", c.compute);
  add_cost("comm_margin", "Communication margin", "通信冗余费用", c.comm_margin);
  add_cost("fault_budget", "Fault budget", "容错预算费用", c.fault_budget);
  if (c.spot_overhead) {
    add_cost("spot_overhead", "Spot preemption overhead", "竞价中断费用", *c.spot_overhead);
  } else {
    cost.rows.push_back(null_row("spot_overhead", money_unit(cur)));
  }
  add_cost("run", "Main run", "主训练费用", c.run);

  Section phases{"cost.phases", "Other phases (priced, not solved)", "其他阶段（只计价，不求解）", {},
                 {"phase", "gpu", "gpus", "hours", "GPU-hours", "cost"}, {}};
  for (const PhaseCost& ph : c.phases) {
    phases.records.push_back({text_row("name", "phase", "阶段", ph.name), text_row("gpu", "gpu", "GPU", ph.gpu_id), number_row("gpus", "gpus", "卡数", ph.gpus, Unit::kGpus),
                              number_row("hours", "hours", "小时", ph.hours, Unit::kCount), number_row("gpu_hours", "GPU-hours", "卡时", ph.gpu_hours, Unit::kGpuHours),
                              money_row("total", "cost", "费用", ph.total, cur, ph.total_high > ph.total ? fmt::format("to {}", format_thousands(ph.total_high)) : "")});
    if (ph.total_high > ph.total) phases.records.back().back().text_zh = fmt::format("至 {}", format_thousands(ph.total_high));
  }
  cost.rows.push_back(money_row("total", range ? "Total (low)" : "Total", range ? "总费用（低）" : "总费用", c.total, cur));
  if (c.total_at_price_high) {
    cost.rows.push_back(money_row("total_at_price_high", "Total (high)", "总费用（高）", *c.total_at_price_high, cur));
  } else {
    cost.rows.push_back(null_row("total_at_price_high", money_unit(cur)));
  }
  const ExchangeRate& fx = exchange_rate();
  cost.rows.push_back(number_row("cny_per_usd", "Exchange rate (CNY per USD)", "汇率（人民币/美元）", fx.cny_per_usd, Unit::kCount,
                          fmt::format("({}, {})", fx.date, fx.source)));
  cost.rows.back().text_zh = fmt::format("（{}，{}）", fx.date, fx.source_zh.empty() ? fx.source : fx.source_zh);
  rep.sections.push_back(cost);
  if (!phases.records.empty()) rep.sections.push_back(phases);
  // The total in the other currency, at the exchange rate above.
  Section converted{"cost.converted", fmt::format("Total in {}", currency_code(other)), fmt::format("总费用（换算为{}）", other == Currency::kCny ? "人民币" : "美元"),
                    {}, {}, {}};
  converted.rows.push_back(currency_row(other));
  converted.rows.push_back(money_row("total", range ? "Total (low)" : "Total", range ? "总费用（低）" : "总费用", convert(c.total, cur, other), other));
  if (c.total_at_price_high) {
    converted.rows.push_back(money_row("total_at_price_high", "Total (high)", "总费用（高）", convert(*c.total_at_price_high, cur, other), other));
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
}

// The assumptions behind the numbers, and the plausibility of a predicted MFU.
void add_train_assumptions(Report& rep, const TrainRequest& r, const TrainEstimate& e) {
  const ModelSpec& model = e.model;
  const bool have_model = e.have_model;
  const GpuSpec& gpu = e.gpu;
  const Workload& w = e.workload;
  const FlopsPerToken f = e.flops.value_or(FlopsPerToken{});
  const std::optional<double>& mfu = e.mfu;
  const std::optional<MfuCheck>& mfu_check = e.mfu_check;
  const bool mfu_predicted = e.mfu_predicted;
  const std::optional<PlanCandidate>& layout = e.layout;
  const RunEstimate& run = e.run;
  const double fault_budget = e.fault_budget;
  // Assumptions and warnings a user should see.
  if (layout && r.framework && r.framework->id != "generic") {
    // The stack the layout search planned for, and a benchmark recipe it took.
    rep.assumptions.push_back({fmt::format("Framework {}: the layout is searched among what it runs, with its defaults where the run states "
                                           "none (gpuplan frameworks {} lists every fact with its source).",
                                           r.framework->label(), r.framework->id),
                               fmt::format("框架 {}：只在它能运行的布局中搜索，未给出的设置按其默认值（gpuplan frameworks {} 列出每项及出处）。",
                                           r.framework->label(), r.framework->id)});
    for (const Bilingual& n : e.recipe_notes) rep.assumptions.push_back({n.en, n.zh});
  }
  if (!r.flop_per_sample && f.exact && !r.six_n) {
    rep.assumptions.push_back({fmt::format("FLOPs counted from the architecture: every matmul incl. the LM head, attention over the {} "
                                           "(s={}), backward = 2× forward.",
                                           r.causal_half ? "causal half" : "full s×s matrix (Megatron/PaLM convention)", w.seq_len),
                               fmt::format("计算量按结构精确计数：包含所有矩阵乘和输出层，注意力按{}（s={}），反向为前向的 2 倍。",
                                           r.causal_half ? "因果一半" : "完整 s×s 矩阵（Megatron/PaLM 口径）", w.seq_len)});
  }
  if (!r.flop_per_sample && !f.exact) {
    rep.assumptions.push_back({"Only a parameter count was given, so compute uses 6·N per token (Kaplan et al. 2020, eq. 2.1: each weight does "
                               "one multiply-add per token forward and two backward): linear in N, not N².",
                               "仅给出参数量，计算量按每 token 6·N 估算（Kaplan 等 2020，式 2.1：每个权重每个 token 前向一次乘加、反向两次）："
                               "与参数量 N 成正比，不是 N²。"});
  }
  if (r.fault_budget) {
    rep.assumptions.push_back({fmt::format("Margins are added to the pure compute time: communication {:.0f}%, a fixed fault budget {:.0f}% "
                                           "(a common planning figure is 20% for restarts, retries and hardware faults).",
                                           r.comm_margin * 100, fault_budget * 100),
                               fmt::format("在纯计算时间上叠加冗余：通信 {:.0f}%，固定容错预算 {:.0f}%。", r.comm_margin * 100, fault_budget * 100)});
  } else {
    rep.assumptions.push_back({fmt::format("Failure time is computed, not guessed: per-GPU MTBF {} h (Llama 3: 419 interruptions in 54 days on "
                                           "16,384 H100s), restart {}, checkpoints at Daly's optimal interval; it adds {:.1f}% to compute. "
                                           "--fault-budget fixes it instead.",
                                           format_thousands(r.ops.gpu_mtbf_hours), format_duration(r.ops.restart_s), fault_budget * 100),
                               fmt::format("故障开销按模型计算：单卡 MTBF {} 小时（Llama 3 数据），重启 {}，按 Daly 最优间隔保存检查点，"
                                           "增加 {:.1f}% 计算时间；可用 --fault-budget 固定。",
                                           format_thousands(r.ops.gpu_mtbf_hours), format_duration_zh(r.ops.restart_s), fault_budget * 100)});
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
  if (mfu_predicted && mfu_check) {
    const std::string cap_en = mfu_check->capped ? fmt::format(", held to the best published {:.1f}%", mfu_check->used * 100) : "";
    const std::string cap_zh = mfu_check->capped ? fmt::format("，并按已公开最好水平 {:.1f}% 封顶", mfu_check->used * 100) : "";
    rep.assumptions.push_back({fmt::format("MFU {:.1f}% is the median of published runs of this kind against the step-time model's {:.1f}% for "
                                           "the layout shown{} (docs/step-time.md, docs/intervals.md).",
                                           run.mfu * 100, mfu_check->raw * 100, cap_en),
                               fmt::format("MFU {:.1f}% 为同类公开训练相对步时模型（所示并行方案预测 {:.1f}%）的中位数{}。", run.mfu * 100,
                                           mfu_check->raw * 100, cap_zh)});
  }
  // Plausibility first (issue 15): stated above every number that depends on it.
  if (mfu_check && mfu_check->capped) {
    rep.blocking.insert(rep.blocking.begin(), train_detail::capped_mfu_note(*mfu_check, gpu, run.mfu));
  } else if (!mfu_predicted && !run.mfu_solved) {
    const train_detail::MfuCheck given = train_detail::check_mfu(run.mfu, gpu, r.precision);
    if (given.capped) {
      rep.blocking.insert(rep.blocking.begin(),
                          {fmt::format("Your MFU {:.1f}% is above the best published for {} ({:.1f}%, {}); the numbers below follow your figure.",
                                       run.mfu * 100, given.published.gpu_class, given.published.best_mfu * 100, given.published.run),
                           fmt::format("输入的 MFU {:.1f}% 高于 {} GPU 已公开的最好水平（{:.1f}%，{}）；下面的数字按你的输入计算。", run.mfu * 100,
                                       gpu_class_zh(given.published.gpu_class), given.published.best_mfu * 100, given.published.run_zh)});
    }
  }
  if (r.calibration) {
    train_detail::check_calibration(*r.calibration, have_model ? model.name : std::string(), gpu,
                                    layout ? calibration_layout_text(layout->layout) : std::string(), rep);
  }
}

// The batch taken, the deadline search's counts, the ranges beside predicted numbers, and the warnings.
void add_batch_search_and_ranges(Report& rep, const TrainRequest& r, const TrainEstimate& e) {
  const ModelSpec& model = e.model;
  const int gpus_per_node = e.gpus_per_node;
  const Workload& w = e.workload;
  const train_detail::Confidence& conf = e.confidence;
  const bool mfu_predicted = e.mfu_predicted;
  const std::optional<PlanCandidate>& layout = e.layout;
  const RunEstimate& run = e.run;
  if (e.batch_rule_tokens && e.batch_rule_compute_flop) {
    // Issue 25: the batch every layout and the step count take, said first.
    const double seqs = w.batch_tokens / static_cast<double>(w.seq_len);
    // Read first where the predicted MFU and GPU count depend on it; with
    // --mfu given it sets only the step count and the layout shown.
    (mfu_predicted ? rep.blocking : rep.assumptions).push_back({fmt::format("No global batch given: {} sequences of {} tokens ({} tokens per step), the power of two nearest "
                                        "DeepSeek LLM's fitted optimum B = 0.2920 · C^0.3271 = {} tokens for this run's C = {} FLOP "
                                        "(arXiv:2401.02954 §3.1). Published runs often chose smaller (GPT-3 3.2M, Llama 2 4M, Llama 3 405B "
                                        "16M tokens); a smaller batch caps the data parallelism and so the GPUs a run can use. "
                                        "--global-batch or --batch-tokens sets yours.",
                                        format_thousands(seqs), format_thousands(static_cast<double>(w.seq_len)), format_thousands(w.batch_tokens),
                                        format_si(*e.batch_rule_tokens, ""), fmt::format("{:.2e}", *e.batch_rule_compute_flop)),
                            fmt::format("未给出全局批：取 {} 条 {} token 的序列（每步 {} token），即最接近 DeepSeek LLM 拟合最优批 "
                                        "B = 0.2920 · C^0.3271 = {} token 的 2 的幂（本次训练 C = {} FLOP；arXiv:2401.02954 §3.1）。"
                                        "公开训练常取更小的批（GPT-3 320 万、Llama 2 400 万、Llama 3 405B 1600 万 token）；批越小，"
                                        "数据并行度和可用的卡数越受限。可用 --global-batch 或 --batch-tokens 指定。",
                                        format_thousands(seqs), format_thousands(static_cast<double>(w.seq_len)), format_thousands(w.batch_tokens),
                                        format_si(*e.batch_rule_tokens, ""), fmt::format("{:.2e}", *e.batch_rule_compute_flop))});
  }
  if (!e.batch_rule_tokens && w.batch_tokens > 1e9 && w.seq_len > 0) {
    // A stated batch of over a billion tokens a step is 16× Llama 3 405B's 16M
    // tokens (Llama 3 paper §3.4.1) and 15× DeepSeek-V3's 15,360 × 4,096 (§4.2):
    // most likely a token count typed into --global-batch, which counts sequences.
    rep.blocking.push_back({fmt::format("--global-batch is read as {} sequences of {} tokens: {} tokens per optimizer step, over 60× the 16M of "
                                        "Llama 3 405B and over 15× DeepSeek-V3's 62.9M. For a batch in tokens use --batch-tokens.",
                                        format_thousands(w.batch_tokens / static_cast<double>(w.seq_len)),
                                        format_thousands(static_cast<double>(w.seq_len)), format_si(w.batch_tokens, "")),
                            fmt::format("--global-batch 按序列条数读取：{} 条 {} token 的序列，每个优化步 {} token，是 Llama 3 405B 的 1600 万 token 的 "
                                        "60 倍以上、DeepSeek-V3 的 6290 万 token 的 15 倍以上。按 token 数给批请用 --batch-tokens。",
                                        format_thousands(w.batch_tokens / static_cast<double>(w.seq_len)),
                                        format_thousands(static_cast<double>(w.seq_len)), format_si(w.batch_tokens, ""))});
  }
  if (!e.sizing_trace.empty()) {
    // The deadline search's counts, in the order tried (issue 25).
    Section ss{"deadline_search", fmt::format("GPU counts tried for the deadline ({:.0f}% confidence)", conf.confidence * 100),
               fmt::format("为满足期限试过的卡数（{:.0f}% 把握）", conf.confidence * 100), {}, {"GPUs", "fits", "MFU", "wall-clock"}, {}};
    for (const SizingStep& st : e.sizing_trace) {
      ss.records.push_back({number_row("gpus", "GPUs", "卡数", static_cast<double>(st.gpus), Unit::kGpus),
                            Row{"fits", "fits", "放得下", st.fits ? 1.0 : 0.0, Unit::kFlag, ""},
                            number_row("mfu", "MFU", "MFU", st.mfu, Unit::kFraction),
                            number_row("wall_clock_s", "wall-clock", "总训练时间", st.wall_s, Unit::kSeconds)});
    }
    rep.sections.push_back(ss);
    // A larger count that is slower than a smaller one: why, in words.
    for (size_t i = 1; i < e.sizing_trace.size(); ++i) {
      const SizingStep& a = e.sizing_trace[i - 1];
      const SizingStep& b = e.sizing_trace[i];
      if (!a.fits || !b.fits || !(b.wall_s > a.wall_s)) continue;
      rep.warnings.push_back({fmt::format("{} GPUs would take longer than {} at this batch ({} sequences): the layouts that count admits "
                                          "split the batch into fewer micro-batches per pipeline or need more model parallelism, so the "
                                          "step does not shrink with the GPUs. A larger --global-batch lets more GPUs help.",
                                          format_thousands(static_cast<double>(b.gpus)), format_thousands(static_cast<double>(a.gpus)),
                                          format_thousands(w.batch_tokens / static_cast<double>(w.seq_len))),
                              fmt::format("在此批大小（{} 条序列）下，{} 张卡比 {} 张卡更慢：该卡数可用的并行方案使每条流水线的微批更少或需要更多模型并行，"
                                          "步时不随卡数缩短。更大的 --global-batch 能让更多的卡发挥作用。",
                                          format_thousands(w.batch_tokens / static_cast<double>(w.seq_len)),
                                          format_thousands(static_cast<double>(b.gpus)), format_thousands(static_cast<double>(a.gpus)))});
    }
  }
  // Ranges beside the predicted numbers.
  train_detail::add_train_ranges(rep, conf, e.mfu_distribution);
  if (mfu_predicted && conf.time_range) {
    const ErrorRange& t = *conf.time_range;
    rep.assumptions.push_back({fmt::format("Time, throughput, MFU, GPU-hours and cost are the median of what published runs of this kind "
                                           "achieved against gpuplan's physics: actual runs took {:.2f}× the predicted time at the median and "
                                           "{:.2f}–{:.2f}× over the {:.0f}% range, read from gpuplan's errors on {} published runs from {} sources "
                                           "({}; docs/intervals.md). The ideal-stack physics, the step-time model alone, is shown beside each.",
                                           t.median, t.low, t.high, t.level * 100, t.cases, t.sources, t.group),
                               fmt::format("时间、吞吐、MFU、卡时与费用取公开训练相对 gpuplan 物理模型的中位数：实际耗时中位为预测的 {:.2f} 倍，"
                                           "{:.0f}% 区间为 {:.2f}–{:.2f} 倍，取自 gpuplan 在 {} 个来源的 {} 个公开训练上的误差（{}；见 docs/intervals.md）。"
                                           "每项旁注理想软件栈的物理估计（仅步时模型）。",
                                           t.median, t.level * 100, t.low, t.high, t.sources, t.cases, t.group_zh)});
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
                                           m.high, m.sources, m.cases, m.group_zh)});
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
                            fmt::format("将超期 {}。", format_duration_zh(-run.deadline_slack_s))});
  }
  if (model.moe && !r.six_n) {
    rep.assumptions.push_back({"MoE FLOPs count only the top-k routed experts, the shared experts and the router.",
                               "MoE 计算量只计激活的 top-k 专家、共享专家和路由。"});
  }
}

}  // namespace

Report train_report(const TrainRequest& r, const TrainEstimate& e) {
  Report rep;
  rep.command = "train";
  rep.title_en = "Training run estimate";
  rep.title_zh = "训练资源估算";
  // The estimate under the names the rows below read.
  const ModelSpec& model = e.model;
  const bool have_model = e.have_model;
  const GpuSpec& gpu = e.gpu;
  const double peak = e.peak_flop_per_s;
  const int gpus_per_node = e.gpus_per_node;
  const Workload& w = e.workload;
  const FlopsPerToken f = e.flops.value_or(FlopsPerToken{});
  const double total_model_flop = e.total_model_flop;
  const double total_six_n_flop = e.total_six_n_flop;
  const std::optional<double>& mfu = e.mfu;
  const RunEstimate& run = e.run;
  const double fault_budget = e.fault_budget;
  const bool price_known = e.price.has_value();
  const Price price = e.price.value_or(Price{});
  // No price in the catalog and none given: the report still stands, its
  // cost does not, and that is said first.
  if (!price_known) {
    rep.blocking.push_back({fmt::format("No rental price is known for {}: costs are not shown. Give --price (e.g. --price 2.5 or 15cny).", gpu.id),
                            fmt::format("没有 {} 的租用价格：不显示费用。请用 --price 给出单价（如 --price 2.5 或 15cny）。", gpu.id)});
  }
  if (e.spot_left_out) {
    rep.warnings.push_back({fmt::format("Spot is left out of the rental comparison: with a preemption every {} h per node, {} nodes would spend "
                                        "more than 10× the GPU-hours on restarts.", format_sig(r.ops.spot_node_mtbf_hours, 3), run.nodes),
                            fmt::format("租用对比未列竞价实例：每节点平均 {} 小时被回收一次，{} 个节点的重启开销将超过 10 倍卡时。",
                                        format_sig(r.ops.spot_node_mtbf_hours, 3), run.nodes)});
  }
  rep.inputs = {{"model", have_model ? model.name : std::string("(FLOPs per sample)")},
                {"gpu", gpu.id},
                {"precision", precision_name(r.precision)},
                {"recompute", recompute_name(r.recompute)},
                {"safety_margin", r.safety_margin},
                {"seq_len", w.seq_len},
                {"total_tokens", json_count(w.total_tokens)},
                {"fault_budget", fault_budget},
                {"comm_margin", r.comm_margin}};
  if (r.gpus) rep.inputs["gpus"] = json_count(*r.gpus);
  if (r.deadline_s) rep.inputs["deadline_s"] = *r.deadline_s;
  if (mfu && !run.mfu_solved) rep.inputs["mfu"] = *mfu;

  std::vector<TypedInput> echoed = r.typed_inputs;
  if (e.seq_len_defaulted && w.seq_len != kDefaultSeqLen) {
    // Said where it differs from the documented 4,096: the model's own context.
    echoed.push_back(TypedInput{"--seq-len", "", static_cast<double>(w.seq_len), Unit::kCount,
                                fmt::format("(not given: {}'s own context, max_position_embeddings; {} otherwise)", model.name,
                                            format_thousands(static_cast<double>(kDefaultSeqLen))),
                                fmt::format("（未给出：取 {} 自身的上下文长度 max_position_embeddings；其他模型默认 {}）", model.name,
                                            format_thousands(static_cast<double>(kDefaultSeqLen)))});
  }
  if (auto echo = typed_inputs_section(echoed)) rep.sections.push_back(*echo);
  if (have_model) rep.sections.push_back(model_section(model));
  if (have_model) add_model_scope_warning(rep, model);

  Section ws{"workload", "Workload", "训练数据", {}, {}, {}};
  if (r.flop_per_sample) {
    ws.rows.push_back(number_row("samples_per_epoch", "Samples per epoch", "每轮样本数", *r.workload.samples, Unit::kCount));
    ws.rows.push_back(number_row("flop_per_sample", "FLOPs per sample (given)", "每样本计算量（输入）", *r.flop_per_sample, Unit::kFlop));
  } else {
    ws.rows.push_back(number_row("tokens_per_epoch", "Tokens per epoch", "每轮 token 数", w.tokens_per_epoch, Unit::kCount));
    if (r.workload.samples && r.workload.tokens_per_sample) {
      ws.rows.push_back(number_row("tokens_per_sample", "Tokens per sample", "每样本 token 数", *r.workload.tokens_per_sample, Unit::kCount));
    }
  }
  ws.rows.push_back(number_row("epochs", "Epochs", "训练轮数", w.epochs, Unit::kCount));
  if (!r.flop_per_sample) ws.rows.push_back(number_row("total_tokens", "Tokens in total", "总 token 数", w.total_tokens, Unit::kCount));
  ws.rows.push_back(number_row("seq_len", "Sequence length", "序列长度", static_cast<double>(w.seq_len), Unit::kCount));
  if (w.batch_tokens > 0) {
    ws.rows.push_back(number_row("batch_tokens", "Tokens per optimizer step", "每步 token 数", w.batch_tokens, Unit::kCount));
    ws.rows.push_back(number_row("steps_per_epoch", "Optimizer steps per epoch", "每轮步数", w.steps_per_epoch, Unit::kCount));
    ws.rows.push_back(number_row("total_steps", "Optimizer steps in total", "总步数", w.total_steps, Unit::kCount));
  }
  rep.sections.push_back(ws);

  Section cs{"compute", "Compute", "计算量", {}, {}, {}};
  if (!r.flop_per_sample) {
    cs.rows.push_back(number_row("six_n_flop_per_token", "6·N per token (quick rule)", "6·N 每 token（经验公式）", f.six_n_flop, Unit::kFlop));
    if (f.exact) {
      cs.rows.push_back(number_row("forward_flop_per_token", "Forward per token (exact)", "前向每 token（精确）", f.forward_flop, Unit::kFlop));
      cs.rows.push_back(number_row("forward_attention_flop_per_token", "  of which attention scores+context", "  其中注意力", f.forward_attention_flop, Unit::kFlop));
      cs.rows.push_back(number_row("forward_lm_head_flop_per_token", "  of which LM head", "  其中输出层", f.forward_lm_head_flop, Unit::kFlop));
      cs.rows.push_back(number_row("backward_flop_per_token", "Backward per token (2× forward)", "反向每 token（前向的 2 倍）", f.backward_flop, Unit::kFlop));
      cs.rows.push_back(number_row("model_flop_per_token", "Model FLOPs per token (fwd+bwd)", "模型计算量每 token（前向+反向）", f.model_flop, Unit::kFlop));
      cs.rows.push_back(number_row("recompute_flop_per_token", "Recompute extra per token", "重计算额外每 token", f.recompute_flop, Unit::kFlop,
                            fmt::format("(recompute {})", recompute_name(e.recompute_counted))));
      cs.rows.back().text_zh = fmt::format("（{}）", recompute_zh(e.recompute_counted));
      cs.rows.push_back(number_row("hardware_flop_per_token", "Hardware FLOPs per token", "硬件计算量每 token", f.hardware_flop, Unit::kFlop));
    }
    cs.rows.push_back(number_row("total_six_n_flop", "Total by 6·N", "总计算量（6·N）", total_six_n_flop, Unit::kFlop));
    if (f.exact) {
      cs.rows.push_back(number_row("total_exact_flop", "Total, exact model FLOPs", "总计算量（精确）", f.model_flop * w.total_tokens, Unit::kFlop));
      cs.rows.push_back(number_row("total_hardware_flop", "Total hardware FLOPs (with recompute)", "总硬件计算量（含重计算）", f.hardware_flop * w.total_tokens, Unit::kFlop));
    }
  }
  cs.rows.push_back(number_row("total_flop", "Total used for time and MFU", "用于时间与 MFU 的总计算量", total_model_flop, Unit::kFlop,
                        r.flop_per_sample ? "(samples × FLOPs per sample)" : (r.six_n || !f.exact) ? "(6·N)" : "(exact)"));
  cs.rows.back().text_zh = r.flop_per_sample ? "（样本数 × 每样本计算量）" : (r.six_n || !f.exact) ? "（6·N）" : "（精确计数）";
  rep.sections.push_back(cs);

  Section hs{"hardware", "Hardware", "硬件", {}, {}, {}};
  hs.rows.push_back(text_row("gpu", "GPU", "GPU", fmt::format("{} ({})", gpu.name, gpu.id)));
  hs.rows.push_back(number_row("peak_flop_per_s", fmt::format("Dense peak, {}", precision_name(r.precision)).c_str(),
                        fmt::format("{} 稠密峰值", precision_name(r.precision)).c_str(), peak, Unit::kFlopPerS));
  hs.rows.push_back(number_row("gpus_per_node", "GPUs per node", "每节点卡数", gpus_per_node, Unit::kCount));
  rep.sections.push_back(hs);

  add_layout_section(rep, e);

  const std::optional<Note> sizing_note = add_time_section(rep, r, e);

  add_gpu_hours_sections(rep, e);

  add_cost_sections(rep, r, e);

  add_train_assumptions(rep, r, e);
  if (sizing_note) rep.assumptions.insert(rep.assumptions.begin(), *sizing_note);
  add_batch_search_and_ranges(rep, r, e);
  return rep;
}

}  // namespace gpuplan
