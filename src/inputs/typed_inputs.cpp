// Parsers that record how a typed input was read (gpuplan/typed_inputs.hpp).
#include "gpuplan/typed_inputs.hpp"
#include "units/quantity_text.hpp"

#include "gpuplan/units.hpp"
#include "inputs/echoed_parse.hpp"

namespace gpuplan {

std::optional<double> parse_count_echoed(const std::optional<std::string>& text, const std::string& flag,
                                         std::vector<TypedInput>* echo) {
  if (!text) return std::nullopt;
  const double v = parse_count(*text, flag);
  if (echo && !is_plain_number(*text)) echo->push_back({flag, *text, v, Unit::kCount, "", ""});
  return v;
}

std::optional<double> parse_duration_echoed(const std::optional<std::string>& text, const std::string& flag,
                                            std::vector<TypedInput>* echo) {
  if (!text) return std::nullopt;
  const double v = parse_duration_s(*text, flag);
  if (echo) echo->push_back({flag, *text, v, Unit::kSeconds, "", ""});
  return v;
}

}  // namespace gpuplan
