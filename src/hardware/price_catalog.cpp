// Rental prices and the exchange rate (data/prices.json).
#include <nlohmann/json.hpp>

#include "gpuplan/embedded_data.hpp"
#include "gpuplan/hardware.hpp"

namespace gpuplan {
namespace {

struct PriceData {
  std::vector<PriceQuote> quotes;
  ExchangeRate rate;
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
        }
      }
      for (const auto& p : doc.value("prices", nlohmann::json::array())) {
        PriceQuote q;
        q.gpu = str(p, "gpu");
        q.provider = str(p, "provider");
        q.currency = str(p, "currency").empty() ? "USD" : str(p, "currency");
        auto num = [&](const char* k) {
          return p.contains(k) && p[k].is_number() ? p[k].get<double>() : 0.0;
        };
        q.on_demand_per_gpu_hour = num("on_demand_per_gpu_hour");
        q.spot_per_gpu_hour = num("spot_per_gpu_hour");
        q.date = str(p, "date");
        q.source = str(p, "source");
        q.confidence = str(p, "confidence");
        q.is_default = p.contains("default") && p["default"].is_boolean() && p["default"].get<bool>();
        d.quotes.push_back(q);
      }
    }
    if (d.rate.cny_per_usd <= 0) d.rate = {7.2, "", "fallback: no exchange rate in data/prices.json"};
    return d;
  }();
  return data;
}

}  // namespace

const std::vector<PriceQuote>& price_catalog() { return price_data().quotes; }

const PriceQuote* default_price(const std::string& gpu_id) {
  for (const auto& q : price_catalog()) {
    if (q.gpu == gpu_id && q.is_default) return &q;
  }
  return nullptr;
}

const ExchangeRate& exchange_rate() { return price_data().rate; }

}  // namespace gpuplan
