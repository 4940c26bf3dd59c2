#include "gpuplan/units.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include "gpuplan/error.hpp"

namespace gpuplan {
namespace {

std::string trim_lower(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == ',' || c == '_' || std::isspace(static_cast<unsigned char>(c))) continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

// Splits "15t" into 15 and "t"; returns false if the leading number is missing.
bool split_number(const std::string& s, double* number, std::string* suffix) {
  if (s.empty()) return false;
  const char* begin = s.c_str();
  char* end = nullptr;
  *number = std::strtod(begin, &end);
  if (end == begin) return false;
  *suffix = std::string(end);
  return true;
}

}  // namespace

void require_range(double value, double lo, double hi, const std::string& field,
                   const std::string& allowed) {
  if (!std::isfinite(value) || value < lo || value > hi) {
    throw InputError(field, fmt::format("{} must be {} (got {}).", field, allowed,
                                        std::isfinite(value) ? format_sig(value, 6)
                                                             : std::string("a non-finite value")));
  }
}

double parse_count(std::string_view text, const std::string& field) {
  const std::string s = trim_lower(text);
  double number = 0;
  std::string suffix;
  const std::string allowed =
      "a positive number, optionally with a suffix k, M, B (or G), T, P (e.g. 7e9, 70B, 15T)";
  if (!split_number(s, &number, &suffix)) {
    throw InputError(field, fmt::format("{} must be {} (got '{}').", field, allowed, text));
  }
  double scale = 1;
  if (suffix.empty()) scale = 1;
  else if (suffix == "k") scale = 1e3;
  else if (suffix == "m") scale = 1e6;
  else if (suffix == "b" || suffix == "g") scale = 1e9;
  else if (suffix == "t") scale = 1e12;
  else if (suffix == "p") scale = 1e15;
  else throw InputError(field, fmt::format("{} must be {} (got '{}').", field, allowed, text));
  const double value = number * scale;
  if (!std::isfinite(value) || value <= 0) {
    throw InputError(field, fmt::format("{} must be {} (got '{}').", field, allowed, text));
  }
  return value;
}

std::optional<double> parse_optional_count(const std::optional<std::string>& text, const std::string& field) {
  if (!text) return std::nullopt;
  return parse_count(*text, field);
}

double parse_duration_s(std::string_view text, const std::string& field) {
  const std::string s = trim_lower(text);
  double number = 0;
  std::string suffix;
  const std::string allowed =
      "a positive duration such as 90d, 12h, 30min, 2w or 3600s (a bare number means days)";
  if (!split_number(s, &number, &suffix)) {
    throw InputError(field, fmt::format("{} must be {} (got '{}').", field, allowed, text));
  }
  double scale = 0;
  if (suffix.empty() || suffix == "d" || suffix == "day" || suffix == "days") scale = kSecondsPerDay;
  else if (suffix == "h" || suffix == "hour" || suffix == "hours") scale = kSecondsPerHour;
  else if (suffix == "min" || suffix == "m") scale = 60;
  else if (suffix == "s") scale = 1;
  else if (suffix == "w" || suffix == "week" || suffix == "weeks") scale = 7 * kSecondsPerDay;
  else throw InputError(field, fmt::format("{} must be {} (got '{}').", field, allowed, text));
  const double value = number * scale;
  if (!std::isfinite(value) || value <= 0) {
    throw InputError(field, fmt::format("{} must be {} (got '{}').", field, allowed, text));
  }
  return value;
}

double parse_fraction(std::string_view text, const std::string& field) {
  std::string s = trim_lower(text);
  bool percent = false;
  if (!s.empty() && s.back() == '%') {
    percent = true;
    s.pop_back();
  }
  double number = 0;
  std::string suffix;
  const std::string allowed = "a fraction greater than 0 and at most 1 (e.g. 0.4 or 40%)";
  if (!split_number(s, &number, &suffix) || !suffix.empty()) {
    throw InputError(field, fmt::format("{} must be {} (got '{}').", field, allowed, text));
  }
  if (percent) number /= 100;
  if (!std::isfinite(number) || number <= 0 || number > 1) {
    throw InputError(field, fmt::format("{} must be {} (got '{}').", field, allowed, text));
  }
  return number;
}

std::string format_sig(double value, int significant) {
  if (!std::isfinite(value)) return "n/a";
  if (value == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const int decimals = std::max(0, significant - 1 - magnitude);
  return fmt::format("{:.{}f}", value, decimals);
}

std::string format_si(double value, const std::string& unit, int significant) {
  static const struct { double scale; const char* prefix; } kPrefixes[] = {
      {1e24, "Y"}, {1e21, "Z"}, {1e18, "E"}, {1e15, "P"}, {1e12, "T"},
      {1e9, "G"},  {1e6, "M"},  {1e3, "k"},  {1, ""}};
  if (!std::isfinite(value)) return "n/a";
  for (const auto& p : kPrefixes) {
    if (std::fabs(value) >= p.scale) {
      return fmt::format("{} {}{}", format_sig(value / p.scale, significant), p.prefix, unit);
    }
  }
  return fmt::format("{} {}", format_sig(value, significant), unit);
}

std::string format_thousands(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  std::string digits = fmt::format("{:.{}f}", std::fabs(value), decimals);
  const auto dot = digits.find('.');
  std::string integer = digits.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? "" : digits.substr(dot);
  std::string grouped;
  for (size_t i = 0; i < integer.size(); ++i) {
    if (i > 0 && (integer.size() - i) % 3 == 0) grouped.push_back(',');
    grouped.push_back(integer[i]);
  }
  return (value < 0 ? "-" : "") + grouped + fraction;
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  if (seconds == 0) return "0 s";
  if (seconds < 1e-3) return fmt::format("{} µs", format_sig(seconds * 1e6));
  if (seconds < 1) return fmt::format("{} ms", format_sig(seconds * 1e3));
  if (seconds < 120) return fmt::format("{} s", format_sig(seconds));
  if (seconds < 2 * kSecondsPerHour) return fmt::format("{} min", format_sig(seconds / 60));
  if (seconds < 2 * kSecondsPerDay) return fmt::format("{} h", format_sig(seconds / kSecondsPerHour));
  const double days = seconds / kSecondsPerDay;
  return fmt::format("{} days", days >= 1e3 ? format_thousands(days) : format_sig(days));
}

}  // namespace gpuplan
