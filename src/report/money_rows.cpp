#include "money_rows.hpp"

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

}  // namespace gpuplan
