// The report sections that compare ways of paying for a run: renting it
// on-demand, reserved or spot (money and days side by side), and owning its
// nodes at a stated fleet utilisation (train --compare-own).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "gpuplan/cost.hpp"
#include "gpuplan/ownership.hpp"
#include "report/report.hpp"

namespace gpuplan {

// RentOptions: ownership.hpp.

// "Renting: on-demand, reserved, spot": price, GPU-hours, days and cost of each.
Section rent_options_section(const RentOptions& rent, double run_gpu_hours, double wall_s);

// "Rent or own": the owned cost of the run at the fleet utilisation, against
// each rental; break-even utilisation and months; lead time. Adds the curve of
// cost against utilisation (section own_vs_utilisation, for the web chart) and
// one assumption per input with its source.
void add_rent_vs_own(Report* report, const OwnershipInputs& own, const RentOptions& rent, double run_gpu_hours, int64_t nodes);

}  // namespace gpuplan
