// Rent or buy: what owning the nodes of a run would cost against renting them
// (docs/rent-or-buy.md has every formula and source).
//
// Per node and year, owning costs straight-line depreciation of the capital
// (server + its share of the fabric) down to its resale value, interest on the
// capital, the machine room per kW and the staff share; each hour the node is
// busy it also burns power at training load × PUE. A fleet busy a fraction u of
// its hours spreads the yearly costs over u·8760 busy hours.
#pragma once
#include <optional>
#include <string>

#include "gpuplan/hardware.hpp"
#include "gpuplan/market.hpp"
#include "gpuplan/ownership_catalog.hpp"

namespace gpuplan {

inline constexpr double kHoursPerYear = 8760;
inline constexpr double kHoursPerMonth = kHoursPerYear / 12;

// What the user states over the market's defaults (CLI flags, web keys); money in the result currency.
struct OwnershipOverrides {
  std::optional<double> server_price_per_node;   // --own-server-price
  std::optional<double> network_per_node;        // --own-network-per-node
  std::optional<double> life_years;              // --own-life-years
  std::optional<double> resale_fraction;         // --own-resale
  std::optional<double> node_power_kw;           // --own-node-kw (IT load at training)
  std::optional<double> pue;                     // --pue
  std::optional<double> electricity_per_kwh;     // --electricity-price
  std::optional<double> colocation_per_kw_month; // --colocation-price
  std::optional<double> staff_cost_per_engineer_year;  // --staff-cost
  std::optional<double> nodes_per_engineer;      // --nodes-per-engineer
  std::optional<double> financing_rate;          // --financing-rate
  std::optional<double> fleet_utilisation;       // --fleet-utilisation
};

// How a node's IT power at training load was summed when the user did not
// give it: the GPUs at gpu_w each plus the host.
struct NodePowerSum {
  std::string gpu_id;
  double gpu_w = 0;
  bool gpu_w_is_tdp = true;     // the GPU's TDP (data/gpus.json); else gpu_w_source (data/ownership.json)
  std::string gpu_w_source;
  SourcedValue host_w;          // the host's draw (data/ownership.json)
};

// Every input of the model, resolved and checked, money in `currency`.
struct OwnershipInputs {
  Market market = Market::kUs;
  Currency currency = Currency::kUsd;
  int gpus_per_node = 8;
  SourcedValue server_price_per_node, network_per_node, life_years, resale_fraction, node_power_kw, pue,
      electricity_per_kwh, colocation_per_kw_month, staff_cost_per_engineer_year, nodes_per_engineer, financing_rate,
      fleet_utilisation;
  std::optional<NodePowerSum> node_power_sum;  // unset: node_power_kw is the user's
  std::optional<LeadTime> lead_time;
};

// Defaults for the GPU in the market, converted to `currency`, with the
// overrides on top. Throws InputError naming the flag for a value out of range
// (negative life, PUE below 1, utilisation above 1, …) or a server price the
// catalog lacks (--own-server-price).
OwnershipInputs resolve_ownership(const GpuSpec& gpu, int gpus_per_node, Market market, Currency currency,
                                  const OwnershipOverrides& overrides);
void validate_ownership(const OwnershipInputs& in);  // InputError naming the flag

// The cost of one owned node, per year and per hour.
struct OwnedNodeCost {
  double capital = 0;                 // server + network share
  double depreciation_per_year = 0;   // capital × (1 − resale) / life
  double financing_per_year = 0;      // rate × capital × (1 + resale) / 2: interest on the average book value
  double colocation_per_year = 0;     // kW × price per kW-month × 12
  double staff_per_year = 0;          // staff cost per engineer-year / nodes per engineer
  double fixed_per_year = 0;          // the four above
  double fixed_per_hour = 0;          // fixed_per_year / 8760: paid whether the node is busy or not
  double energy_per_busy_hour = 0;    // kW × PUE × electricity price
  // Cost of one busy node-hour when the fleet is busy a fraction u of its hours.
  double per_busy_hour(double utilisation) const { return fixed_per_hour / utilisation + energy_per_busy_hour; }
};
OwnedNodeCost owned_node_cost(const OwnershipInputs& in);

// The fleet utilisation at which owning costs what renting does at
// `rent_per_node_hour`: fixed / (rent − energy). Unset when renting is cheaper
// even at 100% (or cheaper than the power alone).
std::optional<double> break_even_utilisation(const OwnedNodeCost& c, double rent_per_node_hour);

// Months of running at `utilisation` after which the rent saved has paid for
// the capital: capital / (u·730·(rent − energy) − (financing + colocation + staff)/12).
// Unset when owning never pays back.
std::optional<double> payback_months(const OwnedNodeCost& c, double rent_per_node_hour, double utilisation);

// What renting the run costs per GPU-hour each way, in one currency.
struct RentOptions {
  Currency currency = Currency::kUsd;
  std::optional<double> on_demand_per_gpu_hour;  // unset: only a spot price is known
  std::optional<double> reserved_per_gpu_hour;   // on-demand less the market's reserved discount
  std::string reserved_source;
  std::optional<double> spot_per_gpu_hour;       // unset: preemptions would stall the run (overhead beyond 10×)
  double spot_overhead = 0;                      // extra GPU-hours (and wall-clock) lost to preemptions
};

}  // namespace gpuplan
