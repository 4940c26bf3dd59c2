// JSON read from a user (config files, request bodies, GPU and case files):
// parsed with a bound on nesting, so that no input can make the reader or a
// later copy of the document recurse without limit (issue 30: an array
// nested 90,000 deep, a 180 KB file, crashed the CLI, the web server and
// Python). Real inputs nest a handful of levels (a Hugging Face config with
// text_config and rope_scaling: 3).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace gpuplan {

inline constexpr int kMaxJsonDepth = 64;

// Parses `text`; throws InputError naming `field` with one sentence for text
// that nests deeper than kMaxJsonDepth (`what` names the input in it:
// "--gpu-file: gpus.json", "the request body"). Text that is not JSON throws
// nlohmann::json::parse_error, for the caller's own sentence.
nlohmann::json parse_json_input(const std::string& text, const std::string& field, const std::string& what);

// Lenient readers for the built-in catalogs (data/*.json, checked by their
// tests): `key`'s string or number in object `j`, or `fallback` where it is
// absent or of another type.
std::string json_string_or(const nlohmann::json& j, const char* key, const std::string& fallback = "");
double json_number_or(const nlohmann::json& j, const char* key, double fallback = 0.0);

}  // namespace gpuplan
