#include "units/text_match.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace gpuplan {

std::string ascii_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string normalize_name(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '_' || c == ' ') out.push_back('-');
    else out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::vector<std::string> closest_names(const std::string& typed, const std::vector<std::string>& names,
                                       size_t limit) {
  const std::string t = normalize_name(typed);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& n : names) {
    const bool sub = !t.empty() && n.find(t) != std::string::npos;
    scored.emplace_back(sub ? 0 : 1 + edit_distance(t, n), n);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (const auto& [score, n] : scored) {
    if (out.size() >= limit) break;
    if (score > 1 + std::max<size_t>(3, t.size() / 2)) break;
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) { return join(items, sep, sep); }

std::string join(const std::vector<std::string>& items, const std::string& sep, const std::string& last_sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? last_sep : sep) + items[i];
  return out;
}

std::string cited_addresses(const std::string& source) {
  std::string out, token;
  for (char c : source + " ") {
    if (c == ' ' || c == ',' || c == ';' || c == '(' || c == ')') {
      while (!token.empty() && (token.back() == '.' || token.back() == ':')) token.pop_back();
      if (token.find('.') != std::string::npos && token.find('/') != std::string::npos) out += (out.empty() ? "" : "，") + token;
      token.clear();
    } else {
      token += c;
    }
  }
  return out;
}

std::string source_zh(const std::string& source, const std::string& fallback) {
  const std::string a = cited_addresses(source);
  return "来源：" + (a.empty() ? "见 " + fallback : a);
}

}  // namespace gpuplan
