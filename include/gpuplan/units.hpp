// Units of quantities, and the range check every input passes.
//
// Quantities crossing module boundaries are doubles whose names end in their
// unit (_flop, _s, _bytes, _flop_per_s, _gib); the constants here convert.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace gpuplan {

// Reading quantities from text and writing them for people (parse_count,
// format_si, ...) is the front ends' business: src/units/quantity_text.hpp.

// The unit of a reported quantity: how a report row (report.hpp) and an input
// echo (typed_inputs.hpp) show and key a number.
enum class Unit {
  kText,       // value is in `text`
  kFlop,       // FLOP
  kFlopPerS,   // FLOP/s
  kSeconds,    // s
  kGpuHours,   // GPU-hours
  kGpuDays,    // GPU-days ("card-days")
  kCount,      // a plain number (a whole one is a JSON integer)
  kParams,     // parameters
  kGpus,       // GPUs
  kFraction,   // 0..1, shown as %
  kBytes,      // bytes, shown in GiB
  kBytesPerS,  // bytes/s
  kUsd,        // US dollars
  kCny,        // Chinese yuan
  kFlag,       // true/false in `value` (1/0)
};

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;  // bytes
inline constexpr double kGB = 1e9;                        // bytes
inline constexpr double kTera = 1e12;
inline constexpr double kSecondsPerHour = 3600.0;
inline constexpr double kSecondsPerDay = 86400.0;
// A month in a duration ("1个月", "1month") is 30 days: what monthly GPU
// rentals (包月) run for, and what "30天" and "1个月" should agree on.
inline constexpr double kSecondsPerMonth = 30 * kSecondsPerDay;

// Checks that a number is finite and inside [lo, hi]; throws InputError otherwise,
// saying what is allowed in English (`allowed_en`, "a fraction from 0 to 1") and
// in Chinese (`allowed_zh`, "0 到 1 之间的比例"): "--x must be <allowed> (got 7)."
void require_range(double value, double lo, double hi, const std::string& field,
                   const std::string& allowed_en, const std::string& allowed_zh);
// English only (the Chinese sentence repeats it): for sites not yet translated.
void require_range(double value, double lo, double hi, const std::string& field,
                   const std::string& allowed);

}  // namespace gpuplan
