// Quantities as people write them: text read into numbers (counts with SI or
// Chinese multipliers, byte sizes, durations, fractions) and numbers written
// for people ("315 ZFLOP", "93,483", "12.3 days"). The text -> request step
// and the reports use them; the library's requests and results hold numbers
// (issue 31: no text parsers or formatters in the installed headers).
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "gpuplan/units.hpp"

namespace gpuplan {

// Parses a positive count with an optional SI suffix: "7e9", "70B", "15T",
// "1.5M", "300k", "2,048". B means billion (1e9), as parameter counts use it.
// Chinese multipliers work too and stack: "1万亿" = 1e12, "2000亿" = 2e11.
// Throws InputError naming `field` on anything else, NaN, inf or <= 0.
double parse_count(std::string_view text, const std::string& field);
// The same for an optional input: nothing when it was not given.
std::optional<double> parse_optional_count(const std::optional<std::string>& text, const std::string& field);
// A size in bytes as people write it: a count as parse_count reads it ("1T",
// "5e11"), or with a byte unit, decimal "500GB", "1TB", "2PB" (1e9, 1e12,
// 1e15 bytes) or binary "1TiB", "64GiB" (2^40, 2^30). Throws InputError naming `field`.
double parse_bytes(std::string_view text, const std::string& field);

// Parses a duration: "90d", "12h", "30min", "2w", "1month", "3600s", and in
// Chinese "30天", "2周", "1个月", "36小时", "90分钟"; a plain number = days.
double parse_duration_s(std::string_view text, const std::string& field);

// True for digits with at most dots, commas and spaces ("2048", "0.4"): text
// that reads the same to everyone, so a report need not echo how it was read.
bool is_plain_number(std::string_view text);

// Parses a fraction in (0, 1]; accepts "0.4" or "40%".
double parse_fraction(std::string_view text, const std::string& field);

// Formatting for people: "315 ZFLOP", "93,483", "12.3 days", "1.40 M".
std::string format_si(double value, const std::string& unit, int significant = 3);
std::string format_thousands(double value, int decimals = 0);
std::string format_duration(double seconds);
// The same as a Chinese engineer writes it: "0 秒", "84.6 分钟", "4.75 小时", "61.1 天".
std::string format_duration_zh(double seconds);
std::string format_sig(double value, int significant = 3);

}  // namespace gpuplan
