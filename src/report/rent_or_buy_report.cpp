#include "report/rent_or_buy_report.hpp"
#include "units/quantity_text.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "units/text_match.hpp"
#include "gpuplan/units.hpp"
#include "money_rows.hpp"

namespace gpuplan {
namespace {

Row value_row(const std::string& key, const std::string& en, const std::string& zh, double v, Unit u, std::string text = "") {
  return Row{key, en, zh, v, u, std::move(text)};
}

struct Way {
  const char* key;
  const char* en;
  const char* zh;
  double per_gpu_hour;
  double hours_factor;  // GPU-hours and wall-clock relative to on-demand
};

std::vector<Way> ways(const RentOptions& r) {
  std::vector<Way> out;
  if (r.on_demand_per_gpu_hour) out.push_back({"on_demand", "On-demand", "按需", *r.on_demand_per_gpu_hour, 1.0});
  if (r.reserved_per_gpu_hour) out.push_back({"reserved", "Reserved (committed term)", "包年包月/预留", *r.reserved_per_gpu_hour, 1.0});
  if (r.spot_per_gpu_hour) out.push_back({"spot", "Spot (preemptible)", "竞价实例", *r.spot_per_gpu_hour, 1.0 + r.spot_overhead});
  return out;
}

}  // namespace

Section rent_options_section(const RentOptions& rent, double run_gpu_hours, double wall_s) {
  Section s{"rent_options", "Renting: on-demand, reserved, spot", "租用方式对比：按需、预留、竞价", {},
            {"way", "price per GPU-hour", "GPU-hours", "days", "cost"}, {}};
  for (const Way& w : ways(rent)) {
    s.records.push_back({Row{"way", "way", "方式", 0, Unit::kText, w.key, {}, Audience::kAll, w.zh}, currency_row(rent.currency),
                         money_row("per_gpu_hour", "price per GPU-hour", "每卡时单价", w.per_gpu_hour, rent.currency),
                         value_row("gpu_hours", "GPU-hours", "卡时", run_gpu_hours * w.hours_factor, Unit::kGpuHours),
                         value_row("days", "days", "天数", wall_s * w.hours_factor / 86400.0, Unit::kCount),
                         money_row("cost", "cost", "费用", run_gpu_hours * w.hours_factor * w.per_gpu_hour, rent.currency)});
  }
  return s;
}

// Where an ownership input came from: its catalog source, and a conversion
// into the run's currency.
static std::string sourced_value_source(const SourcedValue& v, Currency shown) {
  if (!v.converted_from) return v.source;
  return v.source + fmt::format(" (converted {} → {} at the catalog rate)", currency_code(*v.converted_from), currency_code(shown));
}

// The node's power as the sum it is, unless the user gave it.
static std::string node_power_source(const OwnershipInputs& own) {
  if (!own.node_power_sum) return sourced_value_source(own.node_power_kw, own.currency);
  const NodePowerSum& p = *own.node_power_sum;
  const std::string gpu = p.gpu_w_is_tdp ? fmt::format("{} TDP {} W (data/gpus.json)", p.gpu_id, p.gpu_w) : p.gpu_w_source;
  return fmt::format("{} GPUs × {} W + host {} W: {}; host: {}", own.gpus_per_node, p.gpu_w, p.host_w.value, gpu, p.host_w.source);
}

void add_rent_vs_own(Report* rep, const OwnershipInputs& own, const RentOptions& rent, double run_gpu_hours, int64_t nodes) {
  const Currency cur = own.currency;
  const OwnedNodeCost c = owned_node_cost(own);
  const double gpn = own.gpus_per_node;
  const double node_hours = run_gpu_hours / gpn;
  const double u = own.fleet_utilisation.value;
  const double owned_run = node_hours * c.per_busy_hour(u);

  Section s{"rent_vs_own", "Rent or own (this run)", "租用还是自建（本次训练）", {}, {}, {}};
  s.rows.push_back(currency_row(cur));  // of every amount below
  // Annotations are symbols and numbers only (L life, r resale, i rate, N nodes per engineer: docs/rent-or-buy.md),
  // so they read the same in both languages; the words are in the labels.
  s.rows.push_back(money_row("own_capital_per_node", "Owned: capital per node (server + network share)", "自建：每节点投资（服务器+网络分摊）", c.capital, cur));
  s.rows.push_back(money_row("own_depreciation_per_node_year", "  depreciation per node-year", "  每节点每年折旧", c.depreciation_per_year, cur,
                             fmt::format("(L = {}, r = {:.0f}%)", format_sig(own.life_years.value, 3), own.resale_fraction.value * 100)));
  s.rows.push_back(money_row("own_financing_per_node_year", "  financing per node-year", "  每节点每年资金成本", c.financing_per_year, cur,
                             fmt::format("(i = {:.2f}%)", own.financing_rate.value * 100)));
  s.rows.push_back(money_row("own_colocation_per_node_year", "  machine room per node-year", "  每节点每年机房费用", c.colocation_per_year, cur,
                             fmt::format("({} kW)", format_sig(own.node_power_kw.value, 3))));
  s.rows.push_back(money_row("own_staff_per_node_year", "  operations staff per node-year", "  每节点每年运维人力", c.staff_per_year, cur,
                             fmt::format("(N = {})", format_sig(own.nodes_per_engineer.value, 3))));
  s.rows.push_back(money_row("own_fixed_per_node_hour", "Owned: fixed cost per node-hour (busy or idle)", "自建：每节点小时固定成本（无论忙闲）", c.fixed_per_hour, cur));
  s.rows.push_back(money_row("own_energy_per_busy_node_hour", "Owned: power per busy node-hour", "自建：每忙碌节点小时电费", c.energy_per_busy_hour, cur,
                             fmt::format("({} kW × PUE {})", format_sig(own.node_power_kw.value, 3), format_sig(own.pue.value, 3))));
  s.rows.push_back(value_row("fleet_utilisation", "Fleet utilisation over the hardware's life", "自建集群全寿命利用率", u, Unit::kFraction));
  s.rows.push_back(money_row("own_per_gpu_hour", "Owned: cost per busy GPU-hour at that utilisation", "自建：该利用率下每有效卡时成本", c.per_busy_hour(u) / gpn, cur));
  s.rows.push_back(value_row("run_node_hours", "Node-hours of this run", "本次训练节点小时", node_hours, Unit::kCount));
  s.rows.push_back(money_row("own_run_cost", "Owned: this run", "自建：本次训练费用", owned_run, cur));
  for (const Way& w : ways(rent)) {
    const double rent_run = run_gpu_hours * w.hours_factor * w.per_gpu_hour;
    const double vs = (owned_run / rent_run - 1) * 100;
    s.rows.push_back(money_row(fmt::format("rent_{}_run_cost", w.key), fmt::format("Rented ({}): this run (owning {:+.0f}%)", w.en, vs),
                               fmt::format("租用（{}）：本次训练费用（自建 {:+.0f}%）", w.zh, vs), rent_run, cur));
  }
  const char* code = currency_code(cur);
  for (const Way& w : ways(rent)) {
    const double rent_node_hour = w.per_gpu_hour * w.hours_factor * gpn;
    const auto be = break_even_utilisation(c, rent_node_hour);
    Row row = value_row(fmt::format("break_even_utilisation_vs_{}", w.key), fmt::format("Break-even utilisation against {}", w.en),
                        fmt::format("与{}持平的利用率", w.zh), be.value_or(0), be ? Unit::kFraction : Unit::kText);
    if (!be) {
      row.text = "—";
      rep->warnings.push_back({fmt::format("Owning never breaks even against {}: busy every hour of its life an owned node costs {} {} per node-hour, "
                                           "renting {} {}.", w.en, format_thousands(c.per_busy_hour(1), 2), code, format_thousands(rent_node_hour, 2), code),
                               fmt::format("相对{}自建永远不划算：即使寿命内全部时间满负荷，自建每节点小时成本 {} {}，租用 {} {}。", w.zh,
                                           format_thousands(c.per_busy_hour(1), 2), code, format_thousands(rent_node_hour, 2), code)});
    }
    s.rows.push_back(row);
  }
  if (rent.on_demand_per_gpu_hour) {
    const auto months = payback_months(c, *rent.on_demand_per_gpu_hour * gpn, u);
    const double life_months = own.life_years.value * 12;
    Row row = value_row("payback_months_vs_on_demand",
                        fmt::format("Break-even months against on-demand at {:.0f}% utilisation (life {} months)", u * 100, format_sig(life_months, 3)),
                        fmt::format("按 {:.0f}% 利用率相对按需的回本月数（寿命 {} 个月）", u * 100, format_sig(life_months, 3)), months.value_or(0),
                        months ? Unit::kCount : Unit::kText);
    if (!months) row.text = "—";
    if (!months || *months > life_months) {
      rep->warnings.push_back({fmt::format("At {:.0f}% utilisation the rent an owned cluster saves does not repay its capital within its {}-month life.",
                                           u * 100, format_sig(life_months, 3)),
                               fmt::format("按 {:.0f}% 利用率，自建省下的租金在 {} 个月寿命内收不回投资。", u * 100, format_sig(life_months, 3))});
    }
    s.rows.push_back(row);
  }
  s.rows.push_back(money_row("own_fleet_capital", fmt::format("Capital for this run's {} nodes", format_thousands(static_cast<double>(nodes))),
                             fmt::format("本次训练 {} 个节点的总投资", format_thousands(static_cast<double>(nodes))), c.capital * static_cast<double>(nodes), cur));
  if (own.lead_time) {
    s.rows.push_back(value_row("lead_time_weeks_low", "Lead time to get the servers, weeks (from)", "服务器交付周期，周（下限）", own.lead_time->weeks_low, Unit::kCount));
    s.rows.push_back(value_row("lead_time_weeks_high", "Lead time to get the servers, weeks (to)", "服务器交付周期，周（上限）", own.lead_time->weeks_high, Unit::kCount));
    rep->assumptions.push_back({fmt::format("Ownership: lead time {}–{} weeks ({}, {}).", format_sig(own.lead_time->weeks_low, 3), format_sig(own.lead_time->weeks_high, 3),
                                            own.lead_time->source, own.lead_time->date),
                                fmt::format("自建：交付周期 {}–{} 周（{}，{}）。", format_sig(own.lead_time->weeks_low, 3), format_sig(own.lead_time->weeks_high, 3),
                                            source_zh(own.lead_time->source, "data/ownership.json"), own.lead_time->date)});
  }
  rep->sections.push_back(s);

  // The curve the web page draws: this run's cost against fleet utilisation.
  Section curve{"own_vs_utilisation", "Cost of this run against fleet utilisation", "本次训练费用随自建利用率的变化", {},
                {"utilisation", "owned", "on-demand", "reserved", "spot"}, {}};
  for (int i = 1; i <= 20; ++i) {
    const double uu = i * 0.05;
    std::vector<Row> rec{value_row("utilisation", "utilisation", "利用率", uu, Unit::kFraction), currency_row(cur),
                         money_row("owned", "owned", "自建", node_hours * c.per_busy_hour(uu), cur)};
    for (const Way& w : ways(rent)) {
      rec.push_back(money_row(w.key, w.en, w.zh, run_gpu_hours * w.hours_factor * w.per_gpu_hour, cur));
    }
    curve.records.push_back(rec);
  }
  rep->sections.push_back(curve);

  auto note_from = [&](const char* en, const char* zh, const SourcedValue& v, const std::string& source, const std::string& shown,
                       std::string shown_zh = "") {
    if (shown_zh.empty()) shown_zh = shown;
    rep->assumptions.push_back({fmt::format("Ownership: {} {} ({}{}).", en, shown, source, v.date.empty() ? "" : ", " + v.date),
                                fmt::format("自建：{} {}（{}{}）。", zh, shown_zh, source_zh(source, "data/ownership.json"), v.date.empty() ? "" : "，" + v.date)});
  };
  auto note = [&](const char* en, const char* zh, const SourcedValue& v, const std::string& shown, std::string shown_zh = "") {
    note_from(en, zh, v, sourced_value_source(v, own.currency), shown, std::move(shown_zh));
  };
  note("server price per node", "每节点服务器价格", own.server_price_per_node, fmt::format("{} {}", format_thousands(own.server_price_per_node.value), code));
  note("network (switches, cables) per node", "每节点网络（交换机、线缆）", own.network_per_node, fmt::format("{} {}", format_thousands(own.network_per_node.value), code));
  note("depreciation life", "折旧年限", own.life_years, fmt::format("{} years", format_sig(own.life_years.value, 3)),
       fmt::format("{} 年", format_sig(own.life_years.value, 3)));
  note("resale value at end of life", "期末残值", own.resale_fraction, fmt::format("{:.0f}%", own.resale_fraction.value * 100));
  note_from("IT power per node at training load", "训练负载下每节点功率", own.node_power_kw, node_power_source(own),
            fmt::format("{} kW", format_sig(own.node_power_kw.value, 3)));
  note("PUE", "PUE", own.pue, format_sig(own.pue.value, 3));
  note("electricity", "电价", own.electricity_per_kwh, fmt::format("{} {}/kWh", format_sig(own.electricity_per_kwh.value, 3), code));
  note("machine room / colocation", "机房/托管", own.colocation_per_kw_month, fmt::format("{} {} per kW per month", format_thousands(own.colocation_per_kw_month.value, 2), code),
       fmt::format("每 kW 每月 {} {}", format_thousands(own.colocation_per_kw_month.value, 2), code));
  note("operations staff", "运维人力", own.staff_cost_per_engineer_year, fmt::format("{} {} per engineer-year", format_thousands(own.staff_cost_per_engineer_year.value), code),
       fmt::format("每人每年 {} {}", format_thousands(own.staff_cost_per_engineer_year.value), code));
  note("nodes per engineer", "每名工程师负责节点数", own.nodes_per_engineer, format_sig(own.nodes_per_engineer.value, 3));
  note("financing rate", "资金成本（年利率）", own.financing_rate, fmt::format("{:.2f}%", own.financing_rate.value * 100));
  note("fleet utilisation", "集群利用率", own.fleet_utilisation, fmt::format("{:.0f}%", u * 100));
  if (rent.reserved_per_gpu_hour) {
    rep->assumptions.push_back({fmt::format("Reserved price: on-demand less the market's reserved discount ({}).", rent.reserved_source),
                                fmt::format("预留价格：按需价格减去该市场的预留折扣（{}）。", source_zh(rent.reserved_source, "data/prices.json"))});
  }
}

}  // namespace gpuplan
