// Money as report rows (issue 17): an amount's key never names its currency
// ("total", "per_gpu_hour", "cost"); the object or record holding it carries
// "currency" ("USD" or "CNY"), so a script reads the same keys whatever price
// or market was given. Shared by every report that shows money (src/report,
// internal).
#pragma once
#include <string>

#include "gpuplan/cost.hpp"
#include "report/report.hpp"

namespace gpuplan {

Unit money_unit(Currency c);  // Unit::kUsd or Unit::kCny: how people read the amount
// An amount in currency `c` under a key without a currency.
Row money_row(const std::string& key, const std::string& en, const std::string& zh, double amount, Currency c, std::string text = "");
// "currency": "USD" / "CNY", for programs (people read it in every amount).
Row currency_row(Currency c);
// A row only programs read whose value is null (a key always present, e.g.
// "per_gpu_hour_high" when the price is one number).
Row null_row(const std::string& key, Unit unit);
// Where a price came from, in words: the user's --price (and its conversion)
// or the listing's provider, date and citation, the other market's listing
// converted when the asked one had none, and how a spot price was found.
Note price_source_note(const Price& price);
// "Price source": where the price came from, that a default is the median of
// the market's current listings (with their range), and that a listing over
// 12 months old is stale (issue 30).
Row price_source_row(const Price& price);

}  // namespace gpuplan
