// Inputs echoed as gpuplan read them: "--tokens 1万亿" → 1,000,000,000,000
// tokens, "--deadline 1个月" → 30 days. A report shows them first so a user
// sees how a suffix, a Chinese multiplier or a bare number was understood.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/units.hpp"  // Unit

namespace gpuplan {

struct TypedInput {
  std::string flag;   // "--tokens"
  std::string typed;  // what the user wrote: "1万亿"
  double value = 0;   // what it was read as, in `unit`
  Unit unit = Unit::kCount;
  std::string note;     // why a value no one typed was taken (a default), shown beside it
  std::string note_zh;
};


}  // namespace gpuplan
