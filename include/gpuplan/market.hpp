// Markets: where a GPU is rented or bought. Prices, rankings and ownership
// defaults are chosen within one market (data/prices.json, data/ownership.json).
#pragma once
#include <string>

namespace gpuplan {

enum class Market { kCn, kUs };
enum class Currency { kUsd, kCny };

const char* market_code(Market m);      // "cn", "us"
const char* currency_code(Currency c);  // "USD", "CNY"
// The currency a market quotes in.
Currency market_currency(Market m);

}  // namespace gpuplan
