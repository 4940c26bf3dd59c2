// Text read into counts and durations with the reading recorded for the
// report's echo (TypedInput, gpuplan/typed_inputs.hpp). Text parsing belongs to
// the inputs layer, not the installed headers (issue 31).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/typed_inputs.hpp"

namespace gpuplan {

// Parses with parse_count and, unless the text is a plain number, records it in `echo`.
std::optional<double> parse_count_echoed(const std::optional<std::string>& text, const std::string& flag,
                                         std::vector<TypedInput>* echo);
// Parses with parse_duration_s and records it (a bare number is days, worth showing).
std::optional<double> parse_duration_echoed(const std::optional<std::string>& text, const std::string& flag,
                                            std::vector<TypedInput>* echo);

}  // namespace gpuplan
