#include "gpuplan/units.hpp"
#include "units/quantity_text.hpp"

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

// Chinese number multipliers, as counts are written in Chinese: 1万 = 1e4,
// 1亿 = 1e8, and they stack: 1万亿 = 1e12 (a trillion), 2000亿 = 2e11,
// 3千亿 = 3e11. Returns the product of the leading multipliers of `suffix`
// and strips them; 1 when there are none.
double take_chinese_multipliers(std::string* suffix) {
  static const struct { const char* text; double scale; } kUnits[] = {
      {"十", 1e1}, {"百", 1e2}, {"千", 1e3}, {"万", 1e4}, {"亿", 1e8}};
  double scale = 1;
  for (bool found = true; found && !suffix->empty();) {
    found = false;
    for (const auto& u : kUnits) {
      const std::string t = u.text;
      if (suffix->compare(0, t.size(), t) == 0) {
        scale *= u.scale;
        suffix->erase(0, t.size());
        found = true;
        break;
      }
    }
  }
  return scale;
}

// One sentence for text a parser could not read, in both languages: the field,
// what it accepts, and what was typed.
[[noreturn]] void refuse_text(const std::string& field, const std::string& allowed_en, const std::string& allowed_zh,
                              std::string_view text) {
  throw InputError(field, fmt::format("{} must be {} (got '{}').", field, allowed_en, text),
                   fmt::format("{} 应为{}（输入为 '{}'）。", field, allowed_zh, text));
}

}  // namespace

void require_range(double value, double lo, double hi, const std::string& field,
                   const std::string& allowed_en, const std::string& allowed_zh) {
  if (!std::isfinite(value) || value < lo || value > hi) {
    const std::string got = !std::isfinite(value)       ? std::string()
                            : std::fabs(value) >= 1e15 ? fmt::format("{:.6g}", value)  // 1e+30, not 31 digits
                                                       : format_sig(value, 6);
    throw InputError(field, fmt::format("{} must be {} (got {}).", field, allowed_en, got.empty() ? "a non-finite value" : got),
                     fmt::format("{} 应为{}（输入为{}）。", field, allowed_zh, got.empty() ? "非有限值" : " " + got));
  }
}

void require_range(double value, double lo, double hi, const std::string& field, const std::string& allowed) {
  require_range(value, lo, hi, field, allowed, allowed);
}

double parse_count(std::string_view text, const std::string& field) {
  const std::string s = trim_lower(text);
  double number = 0;
  std::string suffix;
  const std::string allowed =
      "a positive number, optionally with a suffix k, M, B (or G), T, P or 万, 亿 (e.g. 7e9, 70B, 15T, 1万亿, 2000亿)";
  const std::string allowed_zh = "正数，可带后缀 k、M、B（或 G）、T、P 或 万、亿（如 7e9、70B、15T、1万亿、2000亿）";
  if (!split_number(s, &number, &suffix)) {
    refuse_text(field, allowed, allowed_zh, text);
  }
  double scale = take_chinese_multipliers(&suffix);
  if (suffix.empty()) {
  } else if (scale == 1 && suffix == "k") scale = 1e3;
  else if (scale == 1 && suffix == "m") scale = 1e6;
  else if (scale == 1 && (suffix == "b" || suffix == "g")) scale = 1e9;
  else if (scale == 1 && suffix == "t") scale = 1e12;
  else if (scale == 1 && suffix == "p") scale = 1e15;
  else refuse_text(field, allowed, allowed_zh, text);
  const double value = number * scale;
  if (!std::isfinite(value) || value <= 0) {
    refuse_text(field, allowed, allowed_zh, text);
  }
  return value;
}

double parse_bytes(std::string_view text, const std::string& field) {
  const std::string s = trim_lower(text);
  // Byte units: decimal (SI, as disk and dataset sizes are quoted) and binary (IEC).
  static const std::pair<const char*, double> units[] = {
      {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0}, {"pib", 1125899906842624.0},
      {"kb", 1e3},     {"mb", 1e6},        {"gb", 1e9},           {"tb", 1e12},              {"pb", 1e15}};
  for (const auto& [unit, scale] : units) {
    const size_t n = std::string(unit).size();
    if (s.size() > n && s.compare(s.size() - n, n, unit) == 0) {
      double number = 0;
      std::string rest;
      if (split_number(s.substr(0, s.size() - n), &number, &rest) && rest.empty() && std::isfinite(number * scale) && number > 0) return number * scale;
      break;
    }
  }
  try {
    return parse_count(text, field);
  } catch (const InputError&) {
    throw InputError(field, fmt::format("{} must be a size in bytes such as 500GB, 1TB, 1TiB or 1e12 (got '{}').", field, std::string(text)),
                     fmt::format("{} 须为字节数，如 500GB、1TB、1TiB 或 1e12（输入为 '{}'）。", field, std::string(text)));
  }
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
      "a positive duration such as 90d, 12h, 30min, 2w, 1month, 30天, 2周, 1个月 or 36小时 (a bare number means days)";
  const std::string allowed_zh = "正的时长，如 30天、2周、1个月、36小时、90分钟，或 90d、12h、30min（只写数字按天计）";
  if (!split_number(s, &number, &suffix)) {
    refuse_text(field, allowed, allowed_zh, text);
  }
  // Each unit as English and Chinese engineers write it. A month is 30 days
  // (kSecondsPerMonth), a year 365 days; the report echoes the parsed value.
  static const struct { const char* text; double seconds; } kUnits[] = {
      {"", kSecondsPerDay},        {"d", kSecondsPerDay},      {"day", kSecondsPerDay},  {"days", kSecondsPerDay},
      {"天", kSecondsPerDay},      {"日", kSecondsPerDay},
      {"h", kSecondsPerHour},      {"hr", kSecondsPerHour},    {"hrs", kSecondsPerHour}, {"hour", kSecondsPerHour},
      {"hours", kSecondsPerHour},  {"小时", kSecondsPerHour},  {"个小时", kSecondsPerHour}, {"时", kSecondsPerHour},
      {"min", 60},                 {"mins", 60},               {"m", 60},                {"minute", 60},
      {"minutes", 60},             {"分钟", 60},               {"分", 60},
      {"s", 1},                    {"sec", 1},                 {"secs", 1},              {"second", 1},
      {"seconds", 1},              {"秒", 1},
      {"w", 7 * kSecondsPerDay},   {"wk", 7 * kSecondsPerDay}, {"week", 7 * kSecondsPerDay}, {"weeks", 7 * kSecondsPerDay},
      {"周", 7 * kSecondsPerDay},  {"个星期", 7 * kSecondsPerDay}, {"星期", 7 * kSecondsPerDay},
      {"mo", kSecondsPerMonth},    {"month", kSecondsPerMonth}, {"months", kSecondsPerMonth},
      {"月", kSecondsPerMonth},    {"个月", kSecondsPerMonth},
      {"y", 365 * kSecondsPerDay}, {"yr", 365 * kSecondsPerDay}, {"year", 365 * kSecondsPerDay},
      {"years", 365 * kSecondsPerDay}, {"年", 365 * kSecondsPerDay},
  };
  double scale = 0;
  for (const auto& u : kUnits) {
    if (suffix == u.text) scale = u.seconds;
  }
  if (scale == 0) refuse_text(field, allowed, allowed_zh, text);
  const double value = number * scale;
  if (!std::isfinite(value) || value <= 0) {
    refuse_text(field, allowed, allowed_zh, text);
  }
  return value;
}

bool is_plain_number(std::string_view text) {
  bool digit = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') digit = true;
    else if (c != '.' && c != ',' && c != ' ') return false;
  }
  return digit;
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
  const std::string allowed_zh = "大于 0、不超过 1 的比例（如 0.4 或 40%）";
  if (!split_number(s, &number, &suffix) || !suffix.empty()) {
    refuse_text(field, allowed, allowed_zh, text);
  }
  if (percent) number /= 100;
  if (!std::isfinite(number) || number <= 0 || number > 1) {
    refuse_text(field, allowed, allowed_zh, text);
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

std::string format_duration_zh(double seconds) {
  if (!std::isfinite(seconds)) return "不适用";
  if (seconds == 0) return "0 秒";
  if (seconds < 1e-3) return fmt::format("{} 微秒", format_sig(seconds * 1e6));
  if (seconds < 1) return fmt::format("{} 毫秒", format_sig(seconds * 1e3));
  if (seconds < 120) return fmt::format("{} 秒", format_sig(seconds));
  if (seconds < 2 * kSecondsPerHour) return fmt::format("{} 分钟", format_sig(seconds / 60));
  if (seconds < 2 * kSecondsPerDay) return fmt::format("{} 小时", format_sig(seconds / kSecondsPerHour));
  const double days = seconds / kSecondsPerDay;
  return fmt::format("{} 天", days >= 1e3 ? format_thousands(days) : format_sig(days));
}

}  // namespace gpuplan
