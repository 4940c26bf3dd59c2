// The planner's Report: per GPU type and count, the ranked layouts with their
// time and memory breakdowns, why the winner wins, and a side-by-side
// comparison of GPU types.
#include <fmt/format.h>

#include <algorithm>

#include "gpuplan/flops.hpp"
#include "report/memory_report.hpp"
#include "report/model_notes.hpp"
#include "layout_rows.hpp"
#include "money_rows.hpp"
#include "row_makers.hpp"
#include "execution/layout_words.hpp"

#include "gpuplan/cost.hpp"
#include "report/plan_report.hpp"
#include "report/step_time_notes.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {
namespace {

// A table cell of the recompute column (its header says 重计算).
const char* recompute_short_zh(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "无";
    case Recompute::kSelective: return "选择性";
    case Recompute::kFull: return "完全";
  }
  return "";
}
Row text_zh(const char* key, const char* en, const char* zh, std::string t, std::string t_zh) {
  Row r = text_row(key, en, zh, std::move(t));
  r.text_zh = std::move(t_zh);
  return r;
}
// A layout in words, for people; programs read layout_rows' fields.
Row words(const char* key, const char* en, const char* zh, std::string t) {
  return Row{key, en, zh, 0, Unit::kText, std::move(t), {}, Audience::kPeople};
}
void append(std::vector<Row>& to, std::vector<Row> rows) {
  for (auto& r : rows) to.push_back(std::move(r));
}

// A part of the step (PlanWhy::saves_most) in the "mostly through less ..." clause.
const char* step_part_name(StepPart p) {
  switch (p) {
    case StepPart::kNone: return "";
    case StepPart::kCompute: return "compute (GEMM efficiency, recompute)";
    case StepPart::kTpComm: return "tensor-parallel communication";
    case StepPart::kPipeline: return "pipeline bubble and point-to-point";
    case StepPart::kDpComm: return "data-parallel / ZeRO communication";
    case StepPart::kCpEpComm: return "context/expert-parallel communication";
    case StepPart::kOptimizer: return "optimizer step";
  }
  return "";
}
const char* step_part_name_zh(StepPart p) {
  switch (p) {
    case StepPart::kNone: return "";
    case StepPart::kCompute: return "计算（GEMM 效率、重计算）";
    case StepPart::kTpComm: return "张量并行通信";
    case StepPart::kPipeline: return "流水线气泡与点对点通信";
    case StepPart::kDpComm: return "数据并行 / ZeRO 通信";
    case StepPart::kCpEpComm: return "上下文并行 / 专家并行通信";
    case StepPart::kOptimizer: return "优化器步";
  }
  return "";
}

// Why the winner wins (PlanGroup::why), in English and in Chinese: the same
// facts, in the order each language puts them. The group has a winner.
Note why_text(const PlanGroup& g) {
  const PlanCandidate& a = g.top.front();
  const StepTime& x = a.time;
  Note w;
  w.en = fmt::format(
      "Winner: tp {} pp {} dp {} cp {}{} micro-batch {} ZeRO-{} recompute {}: {:.3g} s per step, MFU {:.1f}%, "
      "{:.0f}% of the step is exposed communication and {:.0f}% pipeline bubble; it uses {:.1f} of {:.1f} GiB.",
      a.layout.tp, a.layout.pp, a.layout.dp, a.layout.cp, a.layout.ep > 1 ? fmt::format(" ep {}", a.layout.ep) : "",
      a.layout.micro_batch, a.layout.zero_stage, recompute_name(a.layout.recompute), x.step_s, 100 * x.mfu, 100 * x.comm_share,
      100 * x.bubble_s / x.step_s, a.memory.peak_bytes / kGiB, a.memory.capacity_bytes / kGiB);
  w.zh = fmt::format(
      "最优：TP {} × PP {} × DP {} × CP {}{}，微批 {}，ZeRO {}，{}：每步 {:.3g} 秒，MFU {:.1f}%，"
      "暴露的通信占一步的 {:.0f}%，流水线气泡占 {:.0f}%；每卡显存用 {:.1f} GiB（共 {:.1f} GiB）。",
      a.layout.tp, a.layout.pp, a.layout.dp, a.layout.cp, a.layout.ep > 1 ? fmt::format(" × EP {}", a.layout.ep) : "",
      a.layout.micro_batch, a.layout.zero_stage, recompute_name_zh(a.layout.recompute), x.step_s, 100 * x.mfu, 100 * x.comm_share,
      100 * x.bubble_s / x.step_s, a.memory.peak_bytes / kGiB, a.memory.capacity_bytes / kGiB);
  if (g.why.runner_up == 0) return w;
  const PlanCandidate& b = g.top[g.why.runner_up];
  const double ahead = 100 * (b.time.step_s / x.step_s - 1);
  w.en += fmt::format(" It beats the runner-up (tp {} pp {} dp {} micro-batch {} ZeRO-{} recompute {}) by {:.1f}%",
                      b.layout.tp, b.layout.pp, b.layout.dp, b.layout.micro_batch, b.layout.zero_stage,
                      recompute_name(b.layout.recompute), ahead);
  w.zh += fmt::format("比第二名（TP {} × PP {} × DP {}，微批 {}，ZeRO {}，{}）快 {:.1f}%", b.layout.tp, b.layout.pp,
                      b.layout.dp, b.layout.micro_batch, b.layout.zero_stage, recompute_name_zh(b.layout.recompute), ahead);
  if (g.why.saves_most != StepPart::kNone) {
    w.en += fmt::format(", mostly through less {} ({:.3g} s less per step)", step_part_name(g.why.saves_most), g.why.saved_s);
    w.zh += fmt::format("，主要省在{}（每步少 {:.3g} 秒）", step_part_name_zh(g.why.saves_most), g.why.saved_s);
  }
  w.en += ".";
  w.zh += "。";
  return w;
}

std::string layout_text(const Layout& l) {
  std::string s = fmt::format("tp{} pp{} dp{}", l.tp, l.pp, l.dp);
  if (l.cp > 1) s += fmt::format(" cp{}", l.cp);
  if (l.ep > 1) s += fmt::format(" ep{}", l.ep);
  if (l.vp > 1) s += fmt::format(" vp{}", l.vp);
  if (l.first_stage_layers) s += fmt::format(" first{}", *l.first_stage_layers);
  if (l.last_stage_layers) s += fmt::format(" last{}", *l.last_stage_layers);
  return s;
}

// GPU types and counts side by side, each with its own best layout (more than one group).
Section comparison_section(const PlanResult& res, Currency cur) {
  const Unit cur_unit = money_unit(cur);
  auto shown = [&](double usd) { return convert(usd, Currency::kUsd, cur); };
  Section cmp{"comparison", "GPU types and counts side by side (each with its own best layout)", "GPU 类型对比（各自最优方案）", {},
              {"gpu", "gpus", "layout", "step_s", "tokens_per_s_per_gpu", "mfu", cur == Currency::kUsd ? "USD per 1M tokens" : "CNY per 1M tokens"}, {}};
  for (const PlanGroup& g : res.groups) {
    std::vector<Row> rec;
    rec.push_back(text_row("gpu", "GPU", "GPU", g.gpu_id));
    rec.push_back(number_row("gpus", "GPUs", "卡数", static_cast<double>(g.gpus), Unit::kGpus));
    if (g.top.empty()) {
      rec.push_back(words("layout", "Best layout", "最优方案", "nothing fits"));
      rec.push_back(Row{"fits", "Fits", "放得下", 0, Unit::kFlag, "", {}, Audience::kPrograms});
    } else {
      const PlanCandidate& c = g.top.front();
      rec.push_back(words("layout", "Best layout", "最优方案", layout_text(c.layout)));
      rec.push_back(Row{"fits", "Fits", "放得下", 1, Unit::kFlag, "", {}, Audience::kPrograms});
      append(rec, layout_rows(c.layout));
      rec.push_back(number_row("step_s", "Step", "单步", c.time.step_s, Unit::kSeconds));
      rec.push_back(number_row("tokens_per_s_per_gpu", "Tokens/s/GPU", "每卡 tokens/s", c.time.tokens_per_s_per_gpu, Unit::kCount));
      rec.push_back(number_row("mfu", "MFU", "MFU", c.time.mfu, Unit::kFraction));
      // Money in the record's currency; null where the GPU has no known price.
      rec.push_back(currency_row(cur));
      if (g.usd_per_gpu_hour > 0) {
        rec.push_back(money_row("cost_per_m_tokens", cur == Currency::kUsd ? "USD per 1M tokens" : "CNY per 1M tokens",
                                cur == Currency::kUsd ? "每百万 token 美元" : "每百万 token 人民币",
                                shown(g.usd_per_gpu_hour * static_cast<double>(g.gpus) / 3600.0 / c.time.tokens_per_s * 1e6), cur));
      } else {
        rec.push_back(null_row("cost_per_m_tokens", cur_unit));
      }
    }
    cmp.records.push_back(std::move(rec));
  }
  return cmp;
}

// One GPU type and count: the layouts searched, the ranking, where given
// layouts rank, and where the winner's step goes (or why nothing is ranked).
// The layout the safety margin left out (PlanGroup::over_margin): faster than
// the winner, or the only kind that fits, with the margin it would need.
void add_over_margin(Report& rep, const PlanGroup& g, const nlohmann::json& group) {
  if (!g.over_margin) return;
  const PlanCandidate& c = *g.over_margin;
  const MemoryBreakdown& m = c.memory;
  const double margin_pct = 100 * m.safety_margin_bytes / m.capacity_bytes;
  const double needs = largest_margin_admitting(m);
  Section o{"over_margin",
            fmt::format("{} × {}: {} if less memory is kept free", g.gpus, g.gpu_id, g.top.empty() ? "what fits" : "faster"),
            fmt::format("{} × {}：{}", g.gpus, g.gpu_id, g.top.empty() ? "少留显存余量才放得下的方案" : "少留显存余量时更快的方案"),
            {}, {}, {}, group};
  o.rows = {words("layout", "Layout", "方案", layout_text(c.layout)),
            number_row("micro_batch", "Micro-batch", "微批", static_cast<double>(c.layout.micro_batch), Unit::kCount),
            number_row("zero", "ZeRO", "ZeRO", c.layout.zero_stage, Unit::kCount),
            text_zh("recompute", "Recompute", "重计算", recompute_name(c.layout.recompute), recompute_short_zh(c.layout.recompute)),
            number_row("step_s", "Step time", "单步时间", c.time.step_s, Unit::kSeconds),
            number_row("tokens_per_s_per_gpu", "Tokens/s per GPU", "每卡 tokens/s", c.time.tokens_per_s_per_gpu, Unit::kCount),
            number_row("memory_bytes", "Memory", "显存", m.peak_bytes, Unit::kBytes),
            number_row("capacity_bytes", "GPU capacity", "显存容量", m.capacity_bytes, Unit::kBytes),
            number_row("safety_margin_needed", "Largest --safety-margin that admits it", "能选用它的最大 --safety-margin", needs, Unit::kFraction)};
  rep.sections.push_back(std::move(o));
  // One sentence either way: nothing keeps the margin, or the winner is slower than this one.
  const double peak = m.peak_bytes / kGiB, cap = m.capacity_bytes / kGiB;
  const std::string lead = g.top.empty()
                               ? fmt::format("no layout keeps the {:.0f}% safety margin free; the fastest that fits the GPU", margin_pct)
                               : fmt::format("a layout faster than the winner fits the GPU but not the {:.0f}% safety margin; it", margin_pct);
  const std::string lead_zh = g.top.empty() ? fmt::format("没有任何方案能留出 {:.0f}% 的显存余量；放得进显存的最快方案", margin_pct)
                                            : fmt::format("有一个比最优方案更快的方案放得进显存，但留不出 {:.0f}% 的余量；它", margin_pct);
  rep.warnings.push_back({fmt::format("{} × {}: {} needs {:.1f} of {:.1f} GiB and starts only if this memory estimate holds; "
                                      "--safety-margin {:.2f} lets the planner rank it.",
                                      g.gpus, g.gpu_id, lead, peak, cap, needs),
                          fmt::format("{} × {}：{}需要 {:.1f} GiB（共 {:.1f} GiB），只有本显存估算准确时才能启动；"
                                      "--safety-margin {:.2f} 可让规划器把它排进来。",
                                      g.gpus, g.gpu_id, lead_zh, peak, cap, needs)});
}

void add_group_sections(Report& rep, const PlanRequest& req, const PlanGroup& g, Currency cur) {
  auto shown = [&](double usd) { return convert(usd, Currency::kUsd, cur); };
  // Each GPU type and count is one object of the JSON's "groups" array.
  const nlohmann::json group = {{"gpu", g.gpu_id}, {"gpus", g.gpus}};
  Section search{"search", fmt::format("{} × {}: layouts searched", g.gpus, g.gpu_name), fmt::format("{} × {}：搜索的方案", g.gpus, g.gpu_name),
                 {number_row("layouts_evaluated", "Layouts evaluated", "评估的方案", static_cast<double>(g.evaluated), Unit::kCount),
                  number_row("layouts_fitting", "Layouts that fit in memory", "放得下的方案", static_cast<double>(g.fitting), Unit::kCount)},
                 {}, {}, group};
  for (Row& r : search.rows) r.audience = Audience::kPrograms;  // the ranking's title says it to people
  rep.sections.push_back(std::move(search));
  Section s{"ranking", fmt::format("{} × {}: best layouts of {} searched ({} fit in memory)", g.gpus, g.gpu_name, g.evaluated, g.fitting),
            fmt::format("{} × {}：共搜索 {} 种方案（{} 种放得下）", g.gpus, g.gpu_name, g.evaluated, g.fitting),
            {},
            {"rank", "tp", "pp", "dp", "cp", "ep", "vp", "micro_batch", "zero", "recompute", "step_s", "tokens_per_s_per_gpu", "mfu",
             "memory_bytes", "comm_share", "bubble_share"},
            {}, group};
  int rank = 0;
  for (const PlanCandidate& c : g.top) {
    const Layout& l = c.layout;
    std::vector<Row> rec{number_row("rank", "#", "#", ++rank, Unit::kCount),
                         number_row("tp", "TP", "TP", l.tp, Unit::kCount),
                         number_row("pp", "PP", "PP", l.pp, Unit::kCount),
                         number_row("dp", "DP", "DP", l.dp, Unit::kCount),
                         number_row("cp", "CP", "CP", l.cp, Unit::kCount),
                         number_row("ep", "EP", "EP", l.ep, Unit::kCount),
                         number_row("vp", "VP", "VP", l.vp, Unit::kCount),
                         number_row("micro_batch", "Micro-batch", "微批", static_cast<double>(l.micro_batch), Unit::kCount),
                         number_row("zero", "ZeRO", "ZeRO", l.zero_stage, Unit::kCount),
                         text_zh("recompute", "Recompute", "重计算", recompute_name(l.recompute), recompute_short_zh(l.recompute)),
                         number_row("step_s", "Step", "单步", c.time.step_s, Unit::kSeconds),
                         number_row("tokens_per_s_per_gpu", "Tokens/s/GPU", "每卡 tokens/s", c.time.tokens_per_s_per_gpu, Unit::kCount),
                         number_row("mfu", "MFU", "MFU", c.time.mfu, Unit::kFraction),
                         number_row("memory_bytes", "Memory", "显存", c.memory.peak_bytes, Unit::kBytes),
                         number_row("comm_share", "Exposed comm", "暴露通信", c.time.comm_share, Unit::kFraction),
                         number_row("bubble_share", "Bubble", "流水线气泡", c.time.bubble_s / c.time.step_s, Unit::kFraction)};
    // The rest of the layout, for programs (the table has the columns above).
    for (Row& r : layout_rows(l)) {
      if (r.key == "global_batch" || r.key == "sequence_parallel" || r.key == "first_stage_layers" || r.key == "last_stage_layers") {
        rec.push_back(std::move(r));
      }
    }
    s.records.push_back(std::move(rec));
  }
  rep.sections.push_back(std::move(s));
  if (!g.references.empty()) {
    Section rs{"reference", fmt::format("{} × {}: where the given layouts rank", g.gpus, g.gpu_id),
               fmt::format("{} × {}：指定方案的排名", g.gpus, g.gpu_id), {},
               {"layout", "micro_batch", "zero", "recompute", "fits", "rank", "of", "step_s", "vs_best", "mfu", "memory_bytes"}, {}, group};
    for (const PlanReference& pr : g.references) {
      const Layout& l = pr.layout;
      std::vector<Row> rec{words("layout", "Layout", "方案", layout_text(l) + (l.sequence_parallel ? " sp" : "")),
                           number_row("micro_batch", "Micro-batch", "微批", static_cast<double>(l.micro_batch), Unit::kCount),
                           number_row("zero", "ZeRO", "ZeRO", l.zero_stage, Unit::kCount),
                           text_zh("recompute", "Recompute", "重计算", recompute_name(l.recompute), recompute_short_zh(l.recompute)),
                           number_row("fits", "Fits", "放得下", pr.fits ? 1 : 0, Unit::kFlag)};
      for (Row& r : layout_rows(l)) {
        if (r.key != "micro_batch" && r.key != "zero" && r.key != "recompute") rec.push_back(std::move(r));
      }
      if (pr.fits) {
        rec.push_back(number_row("rank", "Rank", "排名", static_cast<double>(pr.rank), Unit::kCount));
        rec.push_back(number_row("of", "Of (fitting)", "共（放得下）", static_cast<double>(pr.of), Unit::kCount));
      }
      rec.push_back(number_row("step_s", "Step", "单步", pr.time.step_s, Unit::kSeconds));
      if (!g.top.empty()) rec.push_back(number_row("vs_best", "Slower than best", "比最优慢", pr.vs_best, Unit::kFraction));
      rec.push_back(number_row("mfu", "MFU", "MFU", pr.time.mfu, Unit::kFraction));
      rec.push_back(number_row("memory_bytes", "Memory", "显存", pr.memory.peak_bytes, Unit::kBytes));
      rs.records.push_back(std::move(rec));
    }
    rep.sections.push_back(std::move(rs));
  }
  if (g.top.empty() && g.evaluated == 0) {
    // Nothing was searched: the pins, the batch or the model's shape leave no layout, memory was never the question.
    rep.warnings.push_back({fmt::format("{} × {}: no layout matches the pinned degrees, the global batch of {} sequences and the model's "
                                        "{} heads and {} layers; change a pin or --gpus.",
                                        g.gpus, g.gpu_id, g.global_batch, req.model.heads, req.model.layers),
                            fmt::format("{} × {}：没有满足固定并行度、全局批 {} 条序列和模型 {} 个注意力头、{} 层的方案；请调整固定参数或 --gpus。",
                                        g.gpus, g.gpu_id, g.global_batch, req.model.heads, req.model.layers)});
    return;
  }
  add_over_margin(rep, g, group);
  if (g.top.empty()) {
    if (g.over_margin) return;  // said with the layout that fits the GPU
    rep.warnings.push_back({fmt::format("{} × {}: no layout fits in memory; add GPUs, a larger GPU, or allow ZeRO-3/recompute.", g.gpus, g.gpu_id),
                            fmt::format("{} × {}：没有放得下的方案；请加卡、换更大显存的卡，或允许 ZeRO-3/重计算。", g.gpus, g.gpu_id)});
    return;
  }
  {
    // A pinned TP beyond the node is searched (the user asked for it) but is unusual: say what it costs.
    const GpuSpec& gs = find_gpu(g.gpu_id);
    const int node = req.step_options.gpus_per_node > 0 ? req.step_options.gpus_per_node : gs.gpus_per_node;
    const int domain = std::max(node, gs.nvlink_domain_gpus);
    if (req.tp > domain) {
      rep.warnings.push_back({fmt::format("{} × {}: --tp {} spans {} nodes of {}; tensor-parallel all-reduces cross the scale-out network.",
                                          g.gpus, g.gpu_id, req.tp, (req.tp + domain - 1) / domain, domain),
                              fmt::format("{} × {}：--tp {} 跨 {} 个 {} 卡节点，张量并行的 all-reduce 走节点间网络。",
                                          g.gpus, g.gpu_id, req.tp, (req.tp + domain - 1) / domain, domain)});
    }
  }
  const PlanCandidate& w = g.top.front();
  const StepTime& t = w.time;
  Note why = why_text(g);
  Section b{"winner", fmt::format("{} × {}: where the winner's step goes", g.gpus, g.gpu_id),
            fmt::format("{} × {}：最优方案的时间分解", g.gpus, g.gpu_id), {}, {}, {}, group};
  b.rows = {words("layout", "Layout", "方案", layout_text(w.layout)),
            number_row("step_s", "Step time", "单步时间", t.step_s, Unit::kSeconds),
            number_row("tokens_per_s_per_gpu", "Tokens/s per GPU", "每卡 tokens/s", t.tokens_per_s_per_gpu, Unit::kCount),
            number_row("mfu", "MFU (model FLOPs, no recompute, full attention matrix)", "MFU（模型 FLOPs）", t.mfu, Unit::kFraction),
            number_row("hfu", "HFU (with recompute)", "HFU（含重计算）", t.hfu, Unit::kFraction),
            number_row("compute_s", "Compute", "计算", t.compute_s, Unit::kSeconds),
            number_row("gemm_s", "  of which GEMMs", "  其中矩阵乘", t.gemm_s, Unit::kSeconds),
            number_row("attention_s", "  of which attention", "  其中注意力", t.attention_s, Unit::kSeconds),
            number_row("elementwise_s", "  of which element-wise", "  其中逐元素", t.elementwise_s, Unit::kSeconds),
            number_row("recompute_s", "  of which recompute", "  其中重计算", t.recompute_s, Unit::kSeconds),
            number_row("tp_comm_s", "Exposed TP communication", "暴露的张量并行通信", t.tp_comm_s, Unit::kSeconds),
            number_row("cp_comm_s", "Exposed CP communication", "暴露的上下文并行通信", t.cp_comm_s, Unit::kSeconds),
            number_row("ep_comm_s", "Exposed EP all-to-all", "暴露的专家并行通信", t.ep_comm_s, Unit::kSeconds),
            number_row("pp_comm_s", "Exposed pipeline point-to-point", "暴露的流水线通信", t.pp_comm_s, Unit::kSeconds),
            number_row("bubble_s", "Pipeline bubble", "流水线气泡", t.bubble_s, Unit::kSeconds),
            number_row("dp_comm_s", "Exposed DP gradient reduction", "暴露的数据并行通信", t.dp_comm_s, Unit::kSeconds),
            number_row("zero3_comm_s", "Exposed ZeRO-3 gathers", "暴露的 ZeRO-3 通信", t.zero3_comm_s, Unit::kSeconds),
            number_row("optimizer_s", "Optimizer step", "优化器", t.optimizer_s, Unit::kSeconds),
            number_row("comm_share", "Communication share (exposed)", "通信占比（暴露）", t.comm_share, Unit::kFraction),
            number_row("memory_bytes", "Peak memory per GPU", "每卡显存峰值", w.memory.peak_bytes, Unit::kBytes),
            number_row("capacity_bytes", "GPU memory", "显存容量", w.memory.capacity_bytes, Unit::kBytes),
            text_zh("why", "Why it wins", "为何最优", why.en, why.zh)};
  if (w.memory.stage_split) {
    const Note split = stage_split_note(*w.memory.stage_split);
    b.rows.insert(b.rows.begin() + 1, text_zh("stage_layers", "Layers per pipeline stage", "各级层数", split.en, split.zh));
  }
  const std::vector<Row> degrees = layout_rows(w.layout);
  b.rows.insert(b.rows.begin() + 1, degrees.begin(), degrees.end());
  if (w.cost_per_step_usd > 0) {
    b.rows.push_back(currency_row(cur));
    b.rows.push_back(money_row("cost_per_step", "Cost per step (on-demand)", "每步成本（按需）", shown(w.cost_per_step_usd), cur));
  }
  rep.sections.push_back(std::move(b));
  for (const Note& n : step_time_notes(t.basis)) {
    rep.assumptions.push_back({fmt::format("{}: {}", g.gpu_id, n.en), fmt::format("{}：{}", g.gpu_id, n.zh)});
  }
}

// What the planned framework can run and the defaults it gives each layout (data/frameworks/).
Note framework_assumption(const PlanRequest& req) {
  const FrameworkProfile& fw = plan_framework(req);
  std::string dims, zeros;
  for (const auto& [on, name] : std::initializer_list<std::pair<bool, const char*>>{
           {fw.tp, "TP"}, {fw.pp, "PP"}, {fw.dp, "DP"}, {fw.cp, "CP"}, {fw.ep, "EP"}, {fw.interleaving(), "interleaving"}}) {
    if (on) dims += (dims.empty() ? "" : ", ") + std::string(name);
  }
  for (int z : fw.zero_stages) zeros += (zeros.empty() ? "" : "/") + std::to_string(z);
  std::string dims_zh = dims;
  if (fw.interleaving()) dims_zh.replace(dims_zh.find("interleaving"), 12, "交错流水线");
  const char* sp_zh = fw.sequence_parallel == SequenceParallelMode::kWithTp ? "总随 TP 开启"
                      : fw.sequence_parallel == SequenceParallelMode::kNone ? "不支持"
                      : fw.sequence_parallel_default ? "默认随 TP 开启（可固定）" : "默认关闭（可固定）";
  const char* sp = fw.sequence_parallel == SequenceParallelMode::kWithTp ? "always with TP"
                   : fw.sequence_parallel == SequenceParallelMode::kNone ? "none"
                   : fw.sequence_parallel_default ? "on with TP unless pinned" : "off unless pinned";
  // A stack whose pipelines run DualPipe (its first schedule) gets only the layouts DualPipe accepts.
  const bool dualpipe = fw.runs_dualpipe();
  const std::string schedule = dualpipe ? "; pipelines run DualPipe (even pp, an even number of micro-batches ≥ 2·pp)" : "";
  const std::string schedule_zh = dualpipe ? "；流水线按 DualPipe 运行（pp 为偶数，微批数为偶数且不少于 2·pp）" : "";
  return {fmt::format("Framework {}: only what it runs is searched ({}; ZeRO {}; {} stages{}); sequence parallelism {}; "
                                         "attention {}; {} element-wise ops (gpuplan frameworks {} lists every fact with its source).",
                                         fw.label(), dims, zeros, fw.uneven_stages ? "uneven" : "even", schedule, sp,
                                         attention_kernel_name(fw.attention),
                                         fw.elementwise == ElementwiseMode::kFused ? "fused" : fw.elementwise == ElementwiseMode::kCompiled ? "compiled" : "eager",
                                         fw.id),
                             fmt::format("框架 {}：只搜索它能运行的布局（{}；ZeRO {}；{}{}）；序列并行{}；注意力 {}；逐元素算子{}（gpuplan frameworks {} 列出每项及出处）。",
                                         fw.label(), dims_zh, zeros, fw.uneven_stages ? "各级层数可不等" : "各级层数相等", schedule_zh, sp_zh,
                                         attention_kernel_name(fw.attention),
                                         fw.elementwise == ElementwiseMode::kFused ? "融合" : fw.elementwise == ElementwiseMode::kCompiled ? "编译" : "逐个执行",
                                         fw.id)};
}

}  // namespace

Report plan_report(const PlanRequest& req, const PlanResult& res) {
  // Costs are computed in USD (the ranking key) and shown in the chosen currency.
  const Currency cur = req.currency.value_or(req.market ? market_currency(*req.market) : Currency::kUsd);
  Report rep;
  add_model_scope_warning(rep, req.model);
  rep.command = "plan";
  rep.csv_table = "ranking";
  rep.title_en = fmt::format("Parallel layouts for {} (seq {}, {} rank)", req.model.name, req.seq_len,
                             req.rank_by == PlanRank::kCost ? "cost" : "step-time");
  rep.title_zh = fmt::format("{} 的并行方案（序列 {}）", req.model.name, req.seq_len);
  rep.inputs["model"] = req.model.id;
  rep.inputs["seq_len"] = req.seq_len;
  rep.inputs["global_batch"] = req.global_batch;
  rep.inputs["precision"] = precision_name(req.precision);

  if (res.groups.size() > 1) rep.sections.push_back(comparison_section(res, cur));

  for (const PlanGroup& g : res.groups) add_group_sections(rep, req, g, cur);
  rep.assumptions.push_back({"MFU counts model FLOPs without recompute and with the full s×s attention matrix (Narayanan 2021 eq. 3); HFU adds the recompute forward.",
                             "MFU 按不含重计算、完整注意力矩阵的模型 FLOPs 计算；HFU 含重计算。"});
  rep.assumptions.push_back({"Searched: TP within a node dividing the heads, CP dividing the sequence (and with Ulysses tp×cp dividing the heads the framework splits), PP up to the layer count, interleaving and uneven first/last "
                             "stages where Megatron's rules split the layers (stage_split), "
                             "every micro-batch dividing the per-rank batch, the ZeRO stages the framework offers (ZeRO-2/3 only without pipelining), recompute none/selective/full.",
                             "搜索范围：节点内 TP、CP（Ulysses 时 TP×CP 须整除框架所切分的头数）、PP、交错流水线、微批、ZeRO 0–3、重计算。"});
  rep.assumptions.push_back(framework_assumption(req));
  rep.assumptions.push_back({fmt::format("Search took {:.0f} ms.", 1000 * res.search_s), fmt::format("搜索耗时 {:.0f} 毫秒。", 1000 * res.search_s)});
  return rep;
}

}  // namespace gpuplan
