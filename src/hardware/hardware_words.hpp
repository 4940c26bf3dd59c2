// The words people type for a GPU's number format, a market and a currency,
// read into the library's values, and a GPU class as Chinese readers name it:
// the text -> request step and the reports use them; the installed headers
// hold the values only (issue 31).
#pragma once
#include <string>
#include <vector>

#include "gpuplan/hardware.hpp"
#include "gpuplan/market.hpp"
#include "gpuplan/published_mfu.hpp"

namespace gpuplan {

Precision parse_precision(const std::string& text, const std::string& field);

// "cn" / "china" / "中国" → kCn, "us" / "usa" → kUs; InputError naming `field` otherwise.
Market parse_market(const std::string& text, const std::string& field);

// "usd" / "$" → kUsd, "cny" / "rmb" / "元" / "¥" → kCny; InputError naming `field` otherwise.
Currency parse_currency(const std::string& text, const std::string& field);

// The market a user of this interface language most likely rents in: zh → cn, anything else → us.
Market default_market_for_lang(const std::string& lang);

// A class as a Chinese engineer names it: "Hopper 架构", "昇腾", "TPU".
std::string gpu_class_zh(const std::string& gpu_class);

}  // namespace gpuplan
