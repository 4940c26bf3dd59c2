// The catalogs as reports: the built-in models, and the GPUs with a market's
// prices (gpuplan models, gpuplan gpus).
#pragma once
#include <string>

#include "gpuplan/market.hpp"
#include "report/report.hpp"

namespace gpuplan {

// Every model, or one (an id, alias or config.json path) described.
Report models_report(const std::string& show);
// Every GPU with its dense peaks and `market`'s default price in `shown`, or one
// GPU with its sources and every listing.
Report gpus_report(const std::string& show, Market market, Currency shown);

}  // namespace gpuplan
