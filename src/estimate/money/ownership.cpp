// The ownership model (include/gpuplan/ownership.hpp, docs/rent-or-buy.md).
#include "gpuplan/ownership.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gpuplan/cost.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {
namespace {

SourcedValue money(const SourcedValue& v, Currency from, Currency to) {
  SourcedValue out = v;
  if (from != to) {
    out.value = convert(v.value, from, to);
    out.converted_from = from;
  }
  return out;
}

void take(SourcedValue* v, const std::optional<double>& given) {
  if (given) *v = SourcedValue{*given, "", "yours", {}};
}

}  // namespace

void validate_ownership(const OwnershipInputs& in) {
  require_range(in.server_price_per_node.value, 1, 1e12, "--own-server-price", "a positive purchase price per node", "正的每节点采购价");
  require_range(in.network_per_node.value, 0, 1e12, "--own-network-per-node", "a non-negative network cost per node", "非负的每节点网络成本");
  require_range(in.life_years.value, 0.1, 50, "--own-life-years", "a positive depreciation life in years, at most 50", "正的折旧年限，最多 50 年");
  require_range(in.resale_fraction.value, 0, 1, "--own-resale", "a fraction of the purchase price from 0 to 1", "采购价的 0 到 1 倍");
  require_range(in.node_power_kw.value, 0.01, 1e4, "--own-node-kw", "a positive power per node in kW", "正的每节点功率（kW）");
  require_range(in.pue.value, 1, 5, "--pue", "at least 1 (facility power cannot be below IT power) and at most 5", "1 到 5 之间（机房总功率不会低于 IT 设备功率）");
  require_range(in.electricity_per_kwh.value, 0, 1e3, "--electricity-price", "a non-negative price per kWh", "非负的每 kWh 电价");
  require_range(in.colocation_per_kw_month.value, 0, 1e6, "--colocation-price", "a non-negative price per kW per month", "非负的每 kW 每月托管价");
  require_range(in.staff_cost_per_engineer_year.value, 0, 1e9, "--staff-cost", "a non-negative cost per engineer-year", "非负的每人每年人力成本");
  require_range(in.nodes_per_engineer.value, 0.01, 1e6, "--nodes-per-engineer", "a positive number of nodes one engineer runs", "正数：每名工程师运维的节点数");
  require_range(in.financing_rate.value, 0, 1, "--financing-rate", "a yearly rate from 0 to 1 (0.05 = 5%)", "0 到 1 之间的年利率（0.05 即 5%）");
  require_range(in.fleet_utilisation.value, 0.01, 1, "--fleet-utilisation", "a fraction above 0 and at most 1 (0.6 = busy 60% of the hours)", "大于 0、不超过 1 的比例（0.6 即 60% 的时间在用）");
}

OwnershipInputs resolve_ownership(const GpuSpec& gpu, int gpus_per_node, Market market, Currency currency,
                                  const OwnershipOverrides& o) {
  const OwnershipDefaults& d = ownership_defaults(market);
  OwnershipInputs in;
  in.market = market;
  in.currency = currency;
  in.gpus_per_node = gpus_per_node;
  if (const ServerListing* s = server_listing(gpu.id, market); s && gpus_per_node == gpu.gpus_per_node) {
    in.server_price_per_node = money(SourcedValue{s->price_per_node, s->date, s->source, {}}, s->currency, currency);
  } else if (!o.server_price_per_node) {
    throw InputError("--own-server-price", fmt::format("--own-server-price is required: the catalog has no published {}-GPU {} server price in the {} "
                                                       "market; give the price of one node in {}.",
                                                       gpus_per_node, gpu.id, market_code(market), currency_code(currency)),
                     fmt::format("缺少 --own-server-price：目录里没有{}市场 {} 卡 {} 服务器的公开价格；请以 {} 给出一台节点的价格。",
                                 market == Market::kCn ? "国内" : "美国", gpus_per_node, gpu.id, currency_code(currency)));
  }
  in.network_per_node = money(d.network_per_node, d.currency, currency);
  in.life_years = d.life_years;
  in.resale_fraction = d.resale_fraction;
  // IT load at training: the GPUs at their TDP plus the host.
  NodePowerSum sum{gpu.id, gpu.tdp_w, true, "", d.host_power_w};
  if (sum.gpu_w <= 0) {
    if (auto p = ownership_gpu_power_w(gpu.id)) {
      sum.gpu_w = p->value;
      sum.gpu_w_is_tdp = false;
      sum.gpu_w_source = p->source;
    }
  }
  const double gpu_w = sum.gpu_w;
  if (gpu_w <= 0 && !o.node_power_kw) {
    throw InputError("--own-node-kw", fmt::format("--own-node-kw is required: no power draw is known for {}; give one node's kW at training load.", gpu.id),
                     fmt::format("缺少 --own-node-kw：不知道 {} 的功耗；请给出一台节点训练满载时的 kW 数。", gpu.id));
  }
  in.node_power_kw = SourcedValue{(gpus_per_node * gpu_w + d.host_power_w.value) / 1000.0, d.host_power_w.date, "", {}};
  in.node_power_sum = sum;
  in.pue = d.pue;
  in.electricity_per_kwh = money(d.electricity_per_kwh, d.currency, currency);
  in.colocation_per_kw_month = money(d.colocation_per_kw_month, d.currency, currency);
  in.staff_cost_per_engineer_year = money(d.staff_cost_per_engineer_year, d.currency, currency);
  in.nodes_per_engineer = d.nodes_per_engineer;
  in.financing_rate = d.financing_rate;
  in.fleet_utilisation = d.fleet_utilisation;
  take(&in.server_price_per_node, o.server_price_per_node);
  take(&in.network_per_node, o.network_per_node);
  take(&in.life_years, o.life_years);
  take(&in.resale_fraction, o.resale_fraction);
  take(&in.node_power_kw, o.node_power_kw);
  if (o.node_power_kw) in.node_power_sum.reset();
  take(&in.pue, o.pue);
  take(&in.electricity_per_kwh, o.electricity_per_kwh);
  take(&in.colocation_per_kw_month, o.colocation_per_kw_month);
  take(&in.staff_cost_per_engineer_year, o.staff_cost_per_engineer_year);
  take(&in.nodes_per_engineer, o.nodes_per_engineer);
  take(&in.financing_rate, o.financing_rate);
  take(&in.fleet_utilisation, o.fleet_utilisation);
  in.lead_time = lead_time(gpu.id);
  validate_ownership(in);
  return in;
}

OwnedNodeCost owned_node_cost(const OwnershipInputs& in) {
  OwnedNodeCost c;
  const double r = in.resale_fraction.value;
  c.capital = in.server_price_per_node.value + in.network_per_node.value;
  c.depreciation_per_year = c.capital * (1 - r) / in.life_years.value;
  // Straight-line book value falls from capital to r·capital; the average is capital·(1 + r)/2.
  c.financing_per_year = in.financing_rate.value * c.capital * (1 + r) / 2;
  c.colocation_per_year = in.node_power_kw.value * in.colocation_per_kw_month.value * 12;
  c.staff_per_year = in.staff_cost_per_engineer_year.value / in.nodes_per_engineer.value;
  c.fixed_per_year = c.depreciation_per_year + c.financing_per_year + c.colocation_per_year + c.staff_per_year;
  c.fixed_per_hour = c.fixed_per_year / kHoursPerYear;
  c.energy_per_busy_hour = in.node_power_kw.value * in.pue.value * in.electricity_per_kwh.value;
  return c;
}

std::optional<double> break_even_utilisation(const OwnedNodeCost& c, double rent_per_node_hour) {
  const double margin = rent_per_node_hour - c.energy_per_busy_hour;
  if (margin <= 0) return std::nullopt;
  const double u = c.fixed_per_hour / margin;
  if (u > 1) return std::nullopt;
  return u;
}

std::optional<double> payback_months(const OwnedNodeCost& c, double rent_per_node_hour, double utilisation) {
  const double saved_per_month = utilisation * kHoursPerMonth * (rent_per_node_hour - c.energy_per_busy_hour) -
                                 (c.financing_per_year + c.colocation_per_year + c.staff_per_year) / 12;
  if (saved_per_month <= 0) return std::nullopt;
  return c.capital / saved_per_month;
}

}  // namespace gpuplan
