// Rental prices and the exchange rate (data/prices.json).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

#include "data/embedded_data.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/hardware.hpp"

namespace gpuplan {
namespace {

struct PriceData {
  std::vector<PriceQuote> quotes;
  ExchangeRate rate;
  ReservedDiscount reserved_us, reserved_cn;
};

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const PriceData& price_data() {
  static const PriceData data = [] {
    PriceData d;
    for (const auto& f : embedded_files()) {
      if (f.path != "prices.json") continue;
      const auto doc = nlohmann::json::parse(f.content);
      for (const auto& r : doc.value("exchange_rates", nlohmann::json::array())) {
        if (str(r, "from") == "USD" && str(r, "to") == "CNY") {
          d.rate.cny_per_usd = r.contains("rate") && r["rate"].is_number() ? r["rate"].get<double>() : 0.0;
          d.rate.date = str(r, "date");
          d.rate.source = str(r, "source");
          d.rate.source_zh = str(r, "source_zh");
        }
      }
      for (const auto& p : doc.value("prices", nlohmann::json::array())) {
        PriceQuote q;
        q.gpu = str(p, "gpu");
        q.provider = str(p, "provider");
        q.provider_zh = str(p, "provider_zh");
        q.market = str(p, "market") == "cn" ? Market::kCn : Market::kUs;
        q.currency = str(p, "currency").empty() ? "USD" : str(p, "currency");
        auto num = [&](const char* k) {
          return p.contains(k) && p[k].is_number() ? p[k].get<double>() : 0.0;
        };
        q.on_demand_per_gpu_hour = num("on_demand_per_gpu_hour");
        q.spot_per_gpu_hour = num("spot_per_gpu_hour");
        q.date = str(p, "date");
        q.source = str(p, "source");
        q.source_zh = str(p, "source_zh");
        q.confidence = str(p, "confidence");
        q.is_default = p.contains("default") && p["default"].is_boolean() && p["default"].get<bool>();
        d.quotes.push_back(q);
      }
      for (const auto& r : doc.value("reserved_discounts", nlohmann::json::array())) {
        ReservedDiscount rd;
        rd.fraction = r.contains("fraction_off_on_demand") && r["fraction_off_on_demand"].is_number() ? r["fraction_off_on_demand"].get<double>() : 0.0;
        rd.date = str(r, "date");
        rd.source = str(r, "source");
        (str(r, "market") == "cn" ? d.reserved_cn : d.reserved_us) = rd;
      }
    }
    if (d.rate.cny_per_usd <= 0) d.rate = {7.2, "", "fallback: no exchange rate in data/prices.json", "备用值：data/prices.json 中没有汇率"};
    return d;
  }();
  return data;
}

}  // namespace

const std::vector<PriceQuote>& price_catalog() { return price_data().quotes; }

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

namespace {
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}
}  // namespace

const PriceQuote& find_price(const std::string& gpu_id, Market market, const std::string& provider) {
  const std::string want = lower(provider);
  std::string names;
  for (const PriceQuote* q : prices_for(gpu_id)) {
    if (q->market != market) continue;
    if (!want.empty() && lower(q->provider).find(want) != std::string::npos) return *q;
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
