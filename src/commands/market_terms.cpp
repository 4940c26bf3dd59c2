// The market, provider and currency of a command (market_terms.hpp).
#include "commands/market_terms.hpp"
#include "hardware/hardware_words.hpp"

#include "gpuplan/market.hpp"

namespace gpuplan {

void apply_market_terms(PriceInput* price, const std::optional<std::string>& market, const std::optional<std::string>& provider,
                        const std::optional<std::string>& currency, const std::string& lang) {
  price->market = market ? parse_market(*market, "--market") : default_market_for_lang(lang);
  if (provider && !provider->empty()) price->provider = provider;
  if (currency) price->currency = parse_currency(*currency, "--currency");
}

}  // namespace gpuplan
