// Where prices come from, as every command reads it (train, plan, infer,
// finetune, gpus; the CLI, the web API and Python alike): one rule, one place.
#pragma once
#include <optional>
#include <string>

#include "gpuplan/cost.hpp"

namespace gpuplan {

// The market given (cn, us) or the language's default (zh: cn), a named
// provider of that market, and a currency that overrides the market's. Bad
// text throws InputError naming --market or --currency.
void apply_market_terms(PriceInput* price, const std::optional<std::string>& market, const std::optional<std::string>& provider,
                        const std::optional<std::string>& currency, const std::string& lang);

}  // namespace gpuplan
