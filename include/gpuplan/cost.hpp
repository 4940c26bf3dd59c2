// Rental cost: GPU-hours times a price, in CNY and USD.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/market.hpp"

namespace gpuplan {

struct PriceInput {
  std::optional<std::string> text;  // "2.49", "15cny", "$2.5", "15-30cny" (a range)
  std::optional<Currency> currency; // for a bare number, and the currency the result is shown in
  // The market whose listing is the default (unset: the US listing, else the
  // China one, in the listing's own currency). Its currency is the default
  // result currency; a market without a listing of the GPU falls back to the
  // other market's listing, converted, and says so (Price::asked_market).
  std::optional<Market> market;
  std::optional<std::string> provider;  // a named listing of that market instead of its default
  bool spot = false;
  std::optional<double> spot_discount;  // fraction off on-demand when no spot quote exists
  // Extra GPU-hours lost to preemptions; unset = computed by `gpuplan train` from
  // the preemption rate (reliability model), 10% where nothing computes it.
  std::optional<double> spot_overhead;
};

// How a spot price was found.
//   kNone      on-demand (or a typed price without a discount);
//   kDiscount  on-demand less the user's spot_discount;
//   kQuote     the listing's own spot quote;
//   kAssumed   no spot quote in the catalog: 60% off on-demand (seed 004).
enum class SpotPricing { kNone, kDiscount, kQuote, kAssumed };

// A price per GPU-hour and where it came from, as values: the report words
// its source (report/money_rows.cpp, price_source_note).
struct Price {
  double low_per_gpu_hour = 0;
  double high_per_gpu_hour = 0;     // == low unless a range was given
  Currency currency = Currency::kUsd;
  bool spot = false;
  double spot_overhead = 0;         // fraction of GPU-hours added when spot
  SpotPricing spot_pricing = SpotPricing::kNone;
  double spot_discount = 0;         // with kDiscount: the fraction off on-demand
  // A typed --price given in another currency than --currency: its own
  // (the amounts above are converted).
  std::optional<Currency> typed_currency;
  // The listing used (empty for a typed price): its provider, date and
  // citation as data/prices.json records them.
  std::string date;
  std::string provider;             // empty for a price the user typed
  std::string provider_zh;          // a descriptive provider in Chinese; empty: the name, the same in both
  std::string listing_source;       // the listing's source (addresses or an article)
  std::string listing_source_zh;    // in Chinese where it is no address; empty: its addresses
  std::optional<Market> market;     // the market of the listing used (unset: the user's --price)
  bool from_other_market = false;   // the asked market has no listing; the other's was converted
  std::optional<Market> asked_market;  // with from_other_market: the market that had none
  std::string gpu_id;               // the GPU priced
  bool stale = false;               // the listing is undated or over 12 months old (PriceQuote::stale)
  // The default listing is the median of `median_of` listings (0: a typed
  // price or a named provider), current ones unless !median_of_current, which
  // range over median_low–median_high per GPU-hour in listing_currency.
  int median_of = 0;
  bool median_of_current = false;
  double median_low = 0, median_high = 0;
  Currency listing_currency = Currency::kUsd;
};

// Whether resolve_price finds a default for the GPU without --price in any
// market: a listing in either market will do, the other market's converts.
bool has_default_price(const std::string& gpu_id);

// The user's price, or the catalog default for the GPU (spot quote or a
// discount off on-demand when --spot). Throws InputError on bad text.
Price resolve_price(const std::string& gpu_id, const PriceInput& in);

// The currency results are shown in: --currency, else the market's, else the price's own.
Currency result_currency(const PriceInput& in, Currency price_currency);

double convert(double amount, Currency from, Currency to);  // via data/prices.json's rate

// A phase of a run that is not solved, only priced (e.g. a debugging phase on
// 10 A100s for 72 h), at its own price (no text: the GPU's catalog default).
struct Phase {
  std::string name;
  std::string gpu_id;
  double gpus = 0;
  double hours = 0;
  PriceInput price;
  double gpu_hours() const { return gpus * hours; }
};

}  // namespace gpuplan
