// Helpers for matching what a user typed against catalog ids and aliases.
#pragma once
#include <string>
#include <vector>

namespace gpuplan {

// ASCII lower-case (catalog ids, market and language codes, provider names).
std::string ascii_lower(std::string s);

// Lower-case, with '_' and ' ' read as '-'.
std::string normalize_name(const std::string& s);

// Up to `limit` entries of `names` closest to `typed` (substring matches
// first, then by edit distance), for "did you mean" messages.
std::vector<std::string> closest_names(const std::string& typed, const std::vector<std::string>& names,
                                       size_t limit = 5);

std::string join(const std::vector<std::string>& items, const std::string& sep);
// The same with its own separator before the last item: "a, b or c" (", ", " or ").
std::string join(const std::vector<std::string>& items, const std::string& sep, const std::string& last_sep);

// The web addresses a source text cites ("zhitaoyun.cn/2153110.html"), joined
// with "，": what a Chinese report shows of an English source. Empty when it cites none.
std::string cited_addresses(const std::string& source);
// "来源：<addresses>", or "来源：见 <fallback>" for a source that cites no address.
std::string source_zh(const std::string& source, const std::string& fallback);

}  // namespace gpuplan
