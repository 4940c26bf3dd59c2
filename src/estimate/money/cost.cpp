#include "gpuplan/cost.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "gpuplan/error.hpp"
#include "gpuplan/hardware.hpp"
#include "units/text_match.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {

double convert(double amount, Currency from, Currency to) {
  if (from == to) return amount;
  const double rate = exchange_rate().cny_per_usd;
  return from == Currency::kUsd ? amount * rate : amount / rate;
}

namespace {

Currency currency_of(const std::string& code) { return code == "CNY" ? Currency::kCny : Currency::kUsd; }

// "15-30cny" -> {15, 30, CNY}; "$2.5" -> {2.5, 2.5, USD}.
void parse_price_text(const std::string& raw, const std::string& field, double* low, double* high,
                      std::optional<Currency>* currency) {
  std::string s;
  for (char c : raw) {
    if (!std::isspace(static_cast<unsigned char>(c))) s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  auto strip = [&](const std::string& token, Currency c) {
    const auto pos = s.find(token);
    if (pos != std::string::npos) {
      s.erase(pos, token.size());
      *currency = c;
    }
  };
  strip("cny", Currency::kCny);
  strip("rmb", Currency::kCny);
  strip("元", Currency::kCny);
  strip("¥", Currency::kCny);
  strip("usd", Currency::kUsd);
  strip("$", Currency::kUsd);
  const std::string allowed = "a positive price per GPU-hour such as 2.49, 2.49usd, $2.49, 15cny or a range 15-30cny";
  auto refuse = [&] {
    throw InputError(field, fmt::format("{} must be {} (got '{}').", field, allowed, raw),
                     fmt::format("{} 应为正的每卡时价格，如 2.49、2.49usd、$2.49、15cny、15元，或范围 15-30cny（输入为 '{}'）。", field, raw));
  };
  const char* begin = s.c_str();
  char* end = nullptr;
  *low = std::strtod(begin, &end);
  if (end == begin) refuse();
  *high = *low;
  if (*end == '-') {
    const char* second = end + 1;
    *high = std::strtod(second, &end);
    if (end == second) refuse();
  }
  if (*end != '\0') refuse();
  if (!std::isfinite(*low) || !std::isfinite(*high) || *low <= 0 || *high < *low || *high > 1e5) {
    refuse();
  }
}

}  // namespace

bool has_default_price(const std::string& gpu_id) {
  // The same fallback as resolve_price: one rule for every command (issue 30:
  // train refused an H800 cost under --market us that infer converted).
  return default_price(gpu_id) != nullptr;
}

Price resolve_price(const std::string& gpu_id, const PriceInput& in) {
  Price p;
  p.spot = in.spot;
  if (in.spot) {
    p.spot_overhead = in.spot_overhead.value_or(0.10);
    require_range(p.spot_overhead, 0, 10, "--spot-overhead", "a fraction from 0 to 10", "0 到 10 之间的比例");
  }
  if (in.spot_discount) require_range(*in.spot_discount, 0, 0.99, "--spot-discount", "a fraction between 0 and 0.99", "0 到 0.99 之间的比例");
  if (in.text) {
    // A bare number is in --currency, else the market's currency, else USD.
    std::optional<Currency> cur;
    parse_price_text(*in.text, "--price", &p.low_per_gpu_hour, &p.high_per_gpu_hour, &cur);
    p.currency = cur.value_or(in.currency.value_or(in.market ? market_currency(*in.market) : Currency::kUsd));
    p.gpu_id = gpu_id;
    if (in.currency && *in.currency != p.currency) {
      p.typed_currency = p.currency;
      p.low_per_gpu_hour = convert(p.low_per_gpu_hour, p.currency, *in.currency);
      p.high_per_gpu_hour = convert(p.high_per_gpu_hour, p.currency, *in.currency);
      p.currency = *in.currency;
    }
    if (in.spot && in.spot_discount) {
      p.low_per_gpu_hour *= 1 - *in.spot_discount;
      p.high_per_gpu_hour *= 1 - *in.spot_discount;
      p.spot_pricing = SpotPricing::kDiscount;
      p.spot_discount = *in.spot_discount;
    }
    return p;
  }
  if (in.provider && !in.market) {
    throw InputError("--provider", "--provider needs --market (cn or us): a provider is looked up among that market's listings.",
                     "--provider 需要同时给出 --market（cn 或 us）：云厂商要在该市场的报价里查找。");
  }
  const PriceQuote* q = nullptr;
  if (in.market && in.provider) {
    q = &find_price(gpu_id, *in.market, *in.provider);
  } else if (in.market) {
    q = default_price(gpu_id, *in.market);
    if (!q) {
      q = default_price(gpu_id, *in.market == Market::kCn ? Market::kUs : Market::kCn);
      p.from_other_market = q != nullptr;
    }
  } else {
    q = default_price(gpu_id);
  }
  if (!q) {
    throw InputError("--price", fmt::format("--price is required: the catalog has no rental price for {}.", gpu_id),
                     fmt::format("缺少 --price：价格目录里没有 {} 的租用价格。", gpu_id));
  }
  p.currency = currency_of(q->currency);
  p.date = q->date;
  p.provider = q->provider;
  p.market = q->market;
  p.provider_zh = q->provider_zh;
  p.listing_source = q->source;
  p.listing_source_zh = q->source_zh;
  p.gpu_id = gpu_id;
  // The default is the median of the market's current listings (price_catalog.cpp);
  // the report says so, and says when the listing is stale (money_rows.cpp).
  p.stale = q->stale;
  p.median_of = in.provider ? 0 : q->median_of;
  p.median_of_current = q->median_of_current;
  p.median_low = q->median_low;
  p.median_high = q->median_high;
  p.listing_currency = currency_of(q->currency);
  if (p.from_other_market) p.asked_market = in.market;
  double per = q->on_demand_per_gpu_hour;
  if (in.spot) {
    if (in.spot_discount) {
      per *= 1 - *in.spot_discount;
      p.spot_pricing = SpotPricing::kDiscount;
      p.spot_discount = *in.spot_discount;
    } else if (q->spot_per_gpu_hour > 0) {
      per = q->spot_per_gpu_hour;
      p.spot_pricing = SpotPricing::kQuote;
    } else {
      // Seed 004 says spot cuts cost by "60% or more"; without a quote we assume 60% off.
      per *= 0.4;
      p.spot_pricing = SpotPricing::kAssumed;
    }
  }
  const Currency shown = result_currency(in, p.currency);
  if (shown != p.currency) {
    per = convert(per, p.currency, shown);
    p.currency = shown;
  }
  p.low_per_gpu_hour = p.high_per_gpu_hour = per;
  return p;
}

Currency result_currency(const PriceInput& in, Currency price_currency) {
  if (in.currency) return *in.currency;
  if (in.market) return market_currency(*in.market);
  return price_currency;
}


}  // namespace gpuplan
