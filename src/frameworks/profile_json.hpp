// Reading a profile file's values (data/frameworks/, data/engines/): one
// sentence naming the value's place in the file for anything the format does
// not allow, raised as InputError on `field` ("framework" or "engine").
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/error.hpp"

namespace gpuplan::profile_json {

using nlohmann::json;

template <class E>
E pick(const json& v, const std::string& where, const std::vector<std::pair<const char*, E>>& allowed, const char* field = "framework") {
  if (v.is_string()) {
    for (const auto& [name, e] : allowed) {
      if (v.get<std::string>() == name) return e;
    }
  }
  std::string names;
  for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + std::string(a.first);
  throw InputError(field, fmt::format("{} must be one of {} (got {}).", where, names, v.dump()),
                   fmt::format("{} 须为 {} 之一（输入为 {}）。", where, names, v.dump()));
}

inline bool boolean(const json& v, const std::string& where, const char* field = "framework") {
  if (!v.is_boolean()) throw InputError(field, fmt::format("{} must be true or false (got {}).", where, v.dump()),
                                        fmt::format("{} 须为 true 或 false（输入为 {}）。", where, v.dump()));
  return v.get<bool>();
}

// A list whose every item is one of `allowed` (it may be empty).
inline std::vector<std::string> strings(const json& v, const std::string& where, const std::vector<std::string>& allowed, const char* field = "framework") {
  if (!v.is_array()) throw InputError(field, fmt::format("{} must be a list.", where), fmt::format("{} 须为列表。", where));
  std::vector<std::string> out;
  for (const json& x : v) {
    if (!x.is_string() || std::find(allowed.begin(), allowed.end(), x.get<std::string>()) == allowed.end()) {
      std::string names;
      for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a;
      throw InputError(field, fmt::format("{} may hold only {} (got {}).", where, names, x.dump()),
                       fmt::format("{} 只能包含 {}（输入为 {}）。", where, names, x.dump()));
    }
    out.push_back(x.get<std::string>());
  }
  return out;
}

inline std::string text(const json& j, const char* key, const std::string& where, bool required = true, const char* field = "framework") {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string() || it->get<std::string>().empty()) {
    if (!required) return "";
    throw InputError(field, fmt::format("{}: '{}' must be a non-empty string.", where, key), fmt::format("{}：'{}' 须为非空字符串。", where, key));
  }
  return it->get<std::string>();
}

// YYYY-MM.
inline bool valid_date(const std::string& d) {
  return d.size() == 7 && std::isdigit(static_cast<unsigned char>(d[0])) && d[4] == '-' && d.substr(5) >= "01" && d.substr(5) <= "12";
}

// "0.10.2" → {0, 10, 2}; "b2843" → {2843}; the digits of each dotted part's
// lead. A pre-release suffix right after the numbers (a, alpha, b, beta, rc,
// with its number) adds a negative last part, so that it sorts before the
// release it precedes, as PEP 440 orders them: "0.1.0a1" → {0, 1, 0, -2999}
// < "0.1.0" = {0, 1, 0, 0}; "0.7.0a" → {0, 7, 0, -3000}.
inline std::vector<long> release_parts(const std::string& v) {
  std::vector<long> out;
  size_t i = 0;
  while (i < v.size() && !(v[i] >= '0' && v[i] <= '9')) ++i;
  while (i < v.size()) {
    long n = 0;
    bool any = false;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9' && n < 100000000) n = n * 10 + (v[i++] - '0'), any = true;
    if (!any) break;
    out.push_back(n);
    if (i < v.size() && v[i] == '.') ++i;
    else break;
  }
  if (!out.empty() && i < v.size() && v[i - 1] >= '0' && v[i - 1] <= '9') {
    const std::string rest = v.substr(i);
    long base = 0;
    size_t len = 0;
    for (const auto& [tag, rank] : {std::pair<const char*, long>{"alpha", -3000}, {"beta", -2000}, {"rc", -1000}, {"a", -3000}, {"b", -2000}}) {
      const size_t n = std::char_traits<char>::length(tag);
      if (rest.compare(0, n, tag) == 0) {
        base = rank, len = n;
        break;
      }
    }
    size_t j = len;
    long num = 0;
    while (j < rest.size() && rest[j] >= '0' && rest[j] <= '9' && num < 999) num = num * 10 + (rest[j++] - '0');
    // Only a whole suffix counts ("0.7.0a", "1.0.0rc3"), not a word ("main-…") or a hash.
    if (len > 0 && (j == rest.size() || rest[j] == '-' || rest[j] == '+')) out.push_back(base + num);
  }
  return out;
}

// a ≤ b part by part, missing parts read as 0 ("0.16" = "0.16.0").
inline bool release_at_or_before(std::vector<long> a, std::vector<long> b) {
  const size_t n = std::max(a.size(), b.size());
  a.resize(n, 0);
  b.resize(n, 0);
  return a <= b;
}

// A version asked as a series ("0.10") holds every release of it ("0.10.2").
inline bool in_series(const std::vector<long>& asked, const std::vector<long>& entry) {
  return asked.size() < entry.size() && std::equal(asked.begin(), asked.end(), entry.begin());
}

}  // namespace gpuplan::profile_json
