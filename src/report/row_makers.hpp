// The two row shapes every report builds most (src/report, internal): a number
// with its unit, and words. One definition, so a report's rows are made alike.
#pragma once
#include <string>
#include <utility>

#include "report/report.hpp"

namespace gpuplan {

// A value in `unit`; `text` is an annotation shown after it.
inline Row number_row(const char* key, const char* en, const char* zh, double value, Unit unit, std::string text = "") {
  return Row{key, en, zh, value, unit, std::move(text)};
}
// Words (Unit::kText), for people and programs alike.
inline Row text_row(const char* key, const char* en, const char* zh, std::string text) {
  return Row{key, en, zh, 0, Unit::kText, std::move(text)};
}

}  // namespace gpuplan
