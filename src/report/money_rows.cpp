#include "money_rows.hpp"

#include "gpuplan/hardware.hpp"  // price_catalog_today
#include "units/text_match.hpp"    // source_zh

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

Note price_source_note(const Price& p) {
  Note n;
  if (!p.market) {  // no listing: the user's --price
    n = {"--price (yours)", "--price（你给出的价格）"};
    if (p.typed_currency) {
      n.en += fmt::format(", {} converted to {}", currency_code(*p.typed_currency), currency_code(p.currency));
      n.zh += fmt::format("，由 {} 换算为 {}", currency_code(*p.typed_currency), currency_code(p.currency));
    }
  } else {
    // The listing as data/prices.json cites it; in Chinese its own source text
    // where it has one (an article's title), else its addresses.
    const std::string provider_zh = p.provider_zh.empty() ? p.provider : p.provider_zh;
    const std::string cited_zh = !p.listing_source_zh.empty() ? "来源：" + p.listing_source_zh : source_zh(p.listing_source, "data/prices.json");
    n = {fmt::format("{} ({}, {})", p.provider, p.date.empty() ? "undated" : p.date, p.listing_source),
         fmt::format("{}（{}；{}）", provider_zh, p.date.empty() ? "未注明日期" : p.date, cited_zh)};
    if (p.from_other_market && p.asked_market && p.market) {
      n.en = fmt::format("no {} listing of {}; the {} listing, converted: {}", market_code(*p.asked_market), p.gpu_id, market_code(*p.market), n.en);
      n.zh = fmt::format("{} 市场没有 {} 的报价，按 {} 市场报价换算：{}", market_code(*p.asked_market), p.gpu_id, market_code(*p.market), n.zh);
    }
  }
  switch (p.spot_pricing) {
    case SpotPricing::kNone: break;
    case SpotPricing::kDiscount:
      n.en += fmt::format(", {:.0f}% spot discount", p.spot_discount * 100);
      n.zh += fmt::format("，竞价优惠 {:.0f}%", p.spot_discount * 100);
      break;
    case SpotPricing::kQuote:
      n.en += ", spot quote";
      n.zh += "，竞价报价";
      break;
    case SpotPricing::kAssumed:
      n.en += ", assumed 60% spot discount (no spot quote in the catalog)";
      n.zh += "，按竞价优惠 60% 估算（目录中没有竞价报价）";
      break;
  }
  return n;
}

Row price_source_row(const Price& p) {
  const Note source = price_source_note(p);
  std::string en = source.en, zh = source.zh;
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
