// Rental prices and the exchange rate (data/prices.json).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "data/embedded_data.hpp"
#include "gpuplan/error.hpp"
#include "units/text_match.hpp"
#include "gpuplan/hardware.hpp"
#include "units/json_input.hpp"

namespace gpuplan {
namespace {

struct PriceData {
  std::vector<PriceQuote> quotes;
  ExchangeRate rate;
  ReservedDiscount reserved_us, reserved_cn;
};


// "YYYY", "YYYY-MM" or "YYYY-MM-DD" as the last day of that period (a
// listing dated "2024" is given the benefit of the doubt); nullopt otherwise.
std::optional<std::chrono::sys_days> period_end(const std::string& date) {
  using namespace std::chrono;
  int y = 0;
  unsigned m = 0, d = 0;
  const int n = std::sscanf(date.c_str(), "%4d-%2u-%2u", &y, &m, &d);
  if (n < 1 || y < 1900 || y > 9999) return std::nullopt;
  if (n == 1) return sys_days{year{y} / December / 31};
  if (m < 1 || m > 12) return std::nullopt;
  if (n == 2) return sys_days{year{y} / month{m} / last};
  const year_month_day ymd{year{y}, month{m}, day{d}};
  if (!ymd.ok()) return std::nullopt;
  return sys_days{ymd};
}

std::chrono::sys_days today_days() {
  if (const char* t = std::getenv("GPUPLAN_TODAY")) {
    int y = 0;
    unsigned m = 0, d = 0;
    char rest = 0;
    if (std::sscanf(t, "%4d-%2u-%2u%c", &y, &m, &d, &rest) == 3 && y >= 1900) {
      const std::chrono::year_month_day ymd{std::chrono::year{y}, std::chrono::month{m}, std::chrono::day{d}};
      if (ymd.ok()) return std::chrono::sys_days{ymd};
    }
    const std::string shown = std::string(t).substr(0, 40);
    throw InputError("GPUPLAN_TODAY", fmt::format("GPUPLAN_TODAY must be a date as YYYY-MM-DD (got '{}'), or unset to use the clock.", shown),
                     fmt::format("GPUPLAN_TODAY 须为 YYYY-MM-DD 格式的日期（当前为“{}”），或不设置以使用系统时钟。", shown));
  }
  return std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
}

// Marks each listing stale or current and picks each GPU's default in each
// market: the median listing by USD price of the current ones (issue 30: the
// US H100 default was a $4.76 list among current listings of $1.65–6.88).
void choose_defaults(PriceData& d) {
  const std::chrono::sys_days cutoff = today_days() - std::chrono::days{365};
  for (PriceQuote& q : d.quotes) {
    const auto end = period_end(q.date);
    q.stale = !end || *end < cutoff;
    q.is_default = false;
  }
  auto usd = [&](const PriceQuote& q) { return q.currency == "CNY" ? q.on_demand_per_gpu_hour / d.rate.cny_per_usd : q.on_demand_per_gpu_hour; };
  std::map<std::pair<std::string, Market>, std::vector<PriceQuote*>> groups;
  for (PriceQuote& q : d.quotes) {
    if (q.on_demand_per_gpu_hour > 0) groups[{q.gpu, q.market}].push_back(&q);
  }
  for (auto& [key, all] : groups) {
    std::vector<PriceQuote*> pool;
    for (PriceQuote* q : all) {
      if (!q->stale) pool.push_back(q);
    }
    const bool current = !pool.empty();
    if (!current) pool = all;
    std::stable_sort(pool.begin(), pool.end(), [&](const PriceQuote* a, const PriceQuote* b) { return usd(*a) < usd(*b); });
    PriceQuote& m = *pool[(pool.size() - 1) / 2];
    m.is_default = true;
    m.median_of = static_cast<int>(pool.size());
    m.median_of_current = current;
    const double to_own = m.currency == "CNY" ? d.rate.cny_per_usd : 1.0;
    m.median_low = usd(*pool.front()) * to_own;
    m.median_high = usd(*pool.back()) * to_own;
  }
}

const PriceData& price_data() {
  static const PriceData data = [] {
    PriceData d;
    for (const auto& f : embedded_files()) {
      if (f.path != "prices.json") continue;
      const auto doc = nlohmann::json::parse(f.content);
      for (const auto& r : doc.value("exchange_rates", nlohmann::json::array())) {
        if (json_string_or(r, "from") == "USD" && json_string_or(r, "to") == "CNY") {
          d.rate.cny_per_usd = r.contains("rate") && r["rate"].is_number() ? r["rate"].get<double>() : 0.0;
          d.rate.date = json_string_or(r, "date");
          d.rate.source = json_string_or(r, "source");
          d.rate.source_zh = json_string_or(r, "source_zh");
        }
      }
      for (const auto& p : doc.value("prices", nlohmann::json::array())) {
        PriceQuote q;
        q.gpu = json_string_or(p, "gpu");
        q.provider = json_string_or(p, "provider");
        q.provider_zh = json_string_or(p, "provider_zh");
        q.market = json_string_or(p, "market") == "cn" ? Market::kCn : Market::kUs;
        q.currency = json_string_or(p, "currency").empty() ? "USD" : json_string_or(p, "currency");
        auto num = [&](const char* k) {
          return p.contains(k) && p[k].is_number() ? p[k].get<double>() : 0.0;
        };
        q.on_demand_per_gpu_hour = num("on_demand_per_gpu_hour");
        q.spot_per_gpu_hour = num("spot_per_gpu_hour");
        q.date = json_string_or(p, "date");
        q.source = json_string_or(p, "source");
        q.source_zh = json_string_or(p, "source_zh");
        q.confidence = json_string_or(p, "confidence");
        d.quotes.push_back(q);
      }
      for (const auto& r : doc.value("reserved_discounts", nlohmann::json::array())) {
        ReservedDiscount rd;
        rd.fraction = r.contains("fraction_off_on_demand") && r["fraction_off_on_demand"].is_number() ? r["fraction_off_on_demand"].get<double>() : 0.0;
        rd.date = json_string_or(r, "date");
        rd.source = json_string_or(r, "source");
        (json_string_or(r, "market") == "cn" ? d.reserved_cn : d.reserved_us) = rd;
      }
    }
    if (d.rate.cny_per_usd <= 0) d.rate = {7.2, "", "fallback: no exchange rate in data/prices.json", "备用值：data/prices.json 中没有汇率"};
    choose_defaults(d);
    return d;
  }();
  return data;
}

}  // namespace

const std::vector<PriceQuote>& price_catalog() { return price_data().quotes; }

std::string price_catalog_today() {
  const std::chrono::year_month_day t{today_days()};
  return fmt::format("{:04d}-{:02d}-{:02d}", static_cast<int>(t.year()), static_cast<unsigned>(t.month()), static_cast<unsigned>(t.day()));
}

const PriceQuote* default_price(const std::string& gpu_id, Market market) {
  for (const auto& q : price_catalog()) {
    if (q.gpu == gpu_id && q.is_default && q.market == market) return &q;
  }
  return nullptr;
}

const PriceQuote* default_price(const std::string& gpu_id) {
  if (const PriceQuote* q = default_price(gpu_id, Market::kUs)) return q;
  return default_price(gpu_id, Market::kCn);
}

std::vector<const PriceQuote*> prices_for(const std::string& gpu_id) {
  std::vector<const PriceQuote*> out;
  for (const auto& q : price_catalog()) {
    if (q.gpu == gpu_id) out.push_back(&q);
  }
  return out;
}


const PriceQuote& find_price(const std::string& gpu_id, Market market, const std::string& provider) {
  const std::string want = ascii_lower(provider);
  std::string names;
  for (const PriceQuote* q : prices_for(gpu_id)) {
    if (q->market != market) continue;
    if (!want.empty() && ascii_lower(q->provider).find(want) != std::string::npos) return *q;
    names += (names.empty() ? "" : "; ") + q->provider;
  }
  const char* market_zh = market == Market::kCn ? "国内" : "美国";
  throw InputError("--provider", names.empty()
      ? fmt::format("--provider: the catalog has no {} listing for {} in the {} market; give --price instead.", provider, gpu_id, market_code(market))
      : fmt::format("--provider '{}' has no {} listing in the {} market; listed there: {}.", provider, gpu_id, market_code(market), names),
      names.empty()
      ? fmt::format("--provider：价格目录里没有 {} 在{}市场上 {} 的报价；请改用 --price 直接给价格。", gpu_id, market_zh, provider)
      : fmt::format("--provider '{}' 在{}市场上没有 {} 的报价；该市场有报价的是：{}。", provider, market_zh, gpu_id, names));
}

const ReservedDiscount& reserved_discount(Market market) {
  return market == Market::kCn ? price_data().reserved_cn : price_data().reserved_us;
}

const ExchangeRate& exchange_rate() { return price_data().rate; }

}  // namespace gpuplan
