// Markets: where a GPU is rented or bought. Prices, rankings and ownership
// defaults are chosen within one market (data/prices.json, data/ownership.json).
#pragma once
#include <string>

namespace gpuplan {

enum class Market { kCn, kUs };
enum class Currency { kUsd, kCny };

const char* market_code(Market m);      // "cn", "us"
const char* currency_code(Currency c);  // "USD", "CNY"
// "cn" / "china" / "中国" → kCn, "us" / "usa" → kUs; InputError naming `field` otherwise.
Market parse_market(const std::string& text, const std::string& field);
// "usd" / "$" → kUsd, "cny" / "rmb" / "元" / "¥" → kCny; InputError naming `field` otherwise.
Currency parse_currency(const std::string& text, const std::string& field);
// The currency a market quotes in.
Currency market_currency(Market m);
// The market a user of this interface language most likely rents in: zh → cn, anything else → us.
Market default_market_for_lang(const std::string& lang);

}  // namespace gpuplan
