#include "gpuplan/market.hpp"
#include "hardware/hardware_words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "gpuplan/error.hpp"
#include "units/text_match.hpp"

namespace gpuplan {

const char* market_code(Market m) { return m == Market::kCn ? "cn" : "us"; }
const char* currency_code(Currency c) { return c == Currency::kUsd ? "USD" : "CNY"; }
Currency market_currency(Market m) { return m == Market::kCn ? Currency::kCny : Currency::kUsd; }


Market parse_market(const std::string& text, const std::string& field) {
  const std::string s = ascii_lower(text);
  if (s == "cn" || s == "china" || s == "zh" || s == "中国" || s == "国内") return Market::kCn;
  if (s == "us" || s == "usa" || s == "en" || s == "美国") return Market::kUs;
  throw InputError(field, fmt::format("{} must be cn (China: CNY listings) or us (US: USD listings) (got '{}').", field, text),
                   fmt::format("{} 须为 cn（国内，人民币报价）或 us（美国，美元报价）（输入为 '{}'）。", field, text));
}

Currency parse_currency(const std::string& text, const std::string& field) {
  const std::string s = ascii_lower(text);
  if (s == "usd" || s == "$" || s == "us$" || s == "美元") return Currency::kUsd;
  if (s == "cny" || s == "rmb" || s == "¥" || s == "元" || s == "人民币") return Currency::kCny;
  throw InputError(field, fmt::format("{} must be usd or cny (got '{}').", field, text), fmt::format("{} 须为 usd（美元）或 cny（人民币）（输入为 '{}'）。", field, text));
}

Market default_market_for_lang(const std::string& lang) {
  const std::string s = ascii_lower(lang);
  return s.rfind("zh", 0) == 0 ? Market::kCn : Market::kUs;
}

}  // namespace gpuplan
