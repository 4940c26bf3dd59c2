// data/ownership.json: the ownership model's per-market defaults.
#include "gpuplan/ownership_catalog.hpp"

#include <nlohmann/json.hpp>

#include <vector>

#include "data/embedded_data.hpp"
#include "units/json_input.hpp"

namespace gpuplan {
namespace {

struct OwnershipData {
  OwnershipDefaults us, cn;
  std::vector<ServerListing> servers;
  std::vector<std::pair<std::string, SourcedValue>> gpu_power;
  std::vector<std::pair<std::string, LeadTime>> lead_times;
};

SourcedValue sourced(const nlohmann::json& block, const char* key) {
  SourcedValue v;
  if (!block.contains(key) || !block[key].is_object()) return v;
  const auto& j = block[key];
  v.value = json_number_or(j, "value");
  v.date = json_string_or(j, "date");
  v.source = json_string_or(j, "source");
  return v;
}
Market market_of(const nlohmann::json& j) { return json_string_or(j, "market") == "cn" ? Market::kCn : Market::kUs; }
Currency currency_in(const nlohmann::json& j) { return json_string_or(j, "currency") == "CNY" ? Currency::kCny : Currency::kUsd; }

const OwnershipData& data() {
  static const OwnershipData d = [] {
    OwnershipData out;
    out.cn.market = Market::kCn;
    out.cn.currency = Currency::kCny;
    for (const auto& f : embedded_files()) {
      if (f.path != "ownership.json") continue;
      const auto doc = nlohmann::json::parse(f.content);
      for (const auto& m : doc.value("markets", nlohmann::json::array())) {
        OwnershipDefaults o;
        o.market = market_of(m);
        o.currency = currency_in(m);
        o.life_years = sourced(m, "depreciation_life_years");
        o.resale_fraction = sourced(m, "resale_fraction");
        o.host_power_w = sourced(m, "host_power_w");
        o.pue = sourced(m, "pue");
        o.electricity_per_kwh = sourced(m, "electricity_per_kwh");
        o.colocation_per_kw_month = sourced(m, "colocation_per_kw_month");
        o.staff_cost_per_engineer_year = sourced(m, "staff_cost_per_engineer_year");
        o.nodes_per_engineer = sourced(m, "nodes_per_engineer");
        o.financing_rate = sourced(m, "financing_rate");
        o.network_per_node = sourced(m, "network_per_node");
        o.fleet_utilisation = sourced(m, "fleet_utilisation");
        (o.market == Market::kCn ? out.cn : out.us) = o;
      }
      for (const auto& s : doc.value("servers", nlohmann::json::array())) {
        out.servers.push_back(ServerListing{json_string_or(s, "gpu"), market_of(s), currency_in(s), json_number_or(s, "price_per_node"), json_string_or(s, "date"), json_string_or(s, "source")});
      }
      for (const auto& g : doc.value("gpu_power_w", nlohmann::json::array())) {
        out.gpu_power.emplace_back(json_string_or(g, "gpu"), SourcedValue{json_number_or(g, "value"), json_string_or(g, "date"), json_string_or(g, "source"), {}});
      }
      for (const auto& l : doc.value("lead_times", nlohmann::json::array())) {
        out.lead_times.emplace_back(json_string_or(l, "gpu"), LeadTime{json_number_or(l, "weeks_low"), json_number_or(l, "weeks_high"), json_string_or(l, "date"), json_string_or(l, "source")});
      }
    }
    return out;
  }();
  return d;
}

}  // namespace

const OwnershipDefaults& ownership_defaults(Market market) { return market == Market::kCn ? data().cn : data().us; }

const ServerListing* server_listing(const std::string& gpu_id, Market market) {
  for (const auto& s : data().servers) {
    if (s.gpu == gpu_id && s.market == market) return &s;
  }
  return nullptr;
}

std::optional<SourcedValue> ownership_gpu_power_w(const std::string& gpu_id) {
  for (const auto& [id, v] : data().gpu_power) {
    if (id == gpu_id) return v;
  }
  return std::nullopt;
}

std::optional<LeadTime> lead_time(const std::string& gpu_id) {
  for (const auto& [id, l] : data().lead_times) {
    if (id == gpu_id) return l;
  }
  return std::nullopt;
}

}  // namespace gpuplan
