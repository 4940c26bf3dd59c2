#include "money_rows.hpp"

#include "gpuplan/hardware.hpp"  // price_catalog_today

#include <fmt/format.h>

#include <limits>
#include <utility>

namespace gpuplan {

Unit money_unit(Currency c) { return c == Currency::kUsd ? Unit::kUsd : Unit::kCny; }

Row money_row(const std::string& key, const std::string& en, const std::string& zh, double amount, Currency c, std::string text) {
  return Row{key, en, zh, amount, money_unit(c), std::move(text)};
}

Row currency_row(Currency c) { return Row{"currency", "Currency", "币种", 0, Unit::kText, currency_code(c), {}, Audience::kPrograms}; }

Row null_row(const std::string& key, Unit unit) {
  return Row{key, key, key, std::numeric_limits<double>::quiet_NaN(), unit, "", {}, Audience::kPrograms};
}

Row price_source_row(const Price& p) {
  std::string en = p.source, zh = p.source_zh;
  const char* market_en = p.market == Market::kCn ? "cn" : "us";
  const char* market_zh = p.market == Market::kCn ? "国内" : "美国";
  if (p.median_of > 1) {
    const char* sym = p.listing_currency == Currency::kCny ? "¥" : "$";
    en = fmt::format("median of {} {}{} listings ({}{:.2f}–{}{:.2f}/h): {}", p.median_of, p.median_of_current ? "current " : "", market_en, sym,
                     p.median_low, sym, p.median_high, en);
    zh = fmt::format("{}市场 {} 条{}报价的中位数（{}{:.2f}–{}{:.2f}/卡时）：{}", market_zh, p.median_of, p.median_of_current ? "近 12 个月" : "", sym,
                     p.median_low, sym, p.median_high, zh);
  }
  if (p.stale && p.market) {
    en += fmt::format("; stale: {} is more than 12 months before {} and the {} market has no newer listing",
                      p.date.empty() ? "the listing is undated and" : "dated " + p.date, price_catalog_today(), market_en);
    zh += fmt::format("；报价已过时：{}，早于 {} 超过 12 个月，{}市场没有更新的报价", p.date.empty() ? "未注明日期" : "日期为 " + p.date,
                      price_catalog_today(), market_zh);
  }
  Row r{"source", "Price source", "价格来源", 0, Unit::kText, en};
  r.text_zh = zh;
  return r;
}

}  // namespace gpuplan
