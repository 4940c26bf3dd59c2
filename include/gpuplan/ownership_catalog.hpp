// Defaults of the ownership model per market (data/ownership.json): what a
// server costs, how long it lasts, power, machine room, staff, financing and
// resale, each a dated, sourced figure in the market's currency.
#pragma once
#include <optional>
#include <string>

#include "gpuplan/market.hpp"

namespace gpuplan {

struct SourcedValue {
  double value = 0;
  std::string date;
  std::string source;
  // Money the catalog states in another currency, converted at its rate
  // (data/prices.json) into the one asked for: the catalog's currency.
  std::optional<Currency> converted_from;
};

struct OwnershipDefaults {
  Market market = Market::kUs;
  Currency currency = Currency::kUsd;
  SourcedValue life_years;                    // straight-line depreciation life
  SourcedValue resale_fraction;               // of the purchase price, at the end of life
  SourcedValue host_power_w;                  // per node beyond the GPUs: CPUs, memory, NICs, fans
  SourcedValue pue;                           // facility power / IT power
  SourcedValue electricity_per_kwh;
  SourcedValue colocation_per_kw_month;       // machine room per kW of IT load
  SourcedValue staff_cost_per_engineer_year;  // fully loaded
  SourcedValue nodes_per_engineer;
  SourcedValue financing_rate;                // per year
  SourcedValue network_per_node;              // switches and cables per node
  SourcedValue fleet_utilisation;             // busy share of the owned fleet's hours
};
const OwnershipDefaults& ownership_defaults(Market market);

// A published purchase price of one server (node) of a GPU in a market.
struct ServerListing {
  std::string gpu;
  Market market = Market::kUs;
  Currency currency = Currency::kUsd;
  double price_per_node = 0;
  std::string date;
  std::string source;
};
const ServerListing* server_listing(const std::string& gpu_id, Market market);

// A GPU's draw where the GPU catalog has no TDP (e.g. H800), with its source.
std::optional<SourcedValue> ownership_gpu_power_w(const std::string& gpu_id);

// How long buying the hardware takes, where a source states it.
struct LeadTime {
  double weeks_low = 0, weeks_high = 0;
  std::string date;
  std::string source;
};
std::optional<LeadTime> lead_time(const std::string& gpu_id);

}  // namespace gpuplan
