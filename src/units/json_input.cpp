#include "units/json_input.hpp"

#include <fmt/format.h>

#include "gpuplan/error.hpp"

namespace gpuplan {

namespace {
struct TooDeep {};
}  // namespace

nlohmann::json parse_json_input(const std::string& text, const std::string& field, const std::string& what) {
  // nlohmann's parser keeps its own stack (no recursion); the callback sees
  // every object and array as it opens and stops the parse past the bound.
  const nlohmann::json::parser_callback_t bound = [](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    if ((event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start) && depth >= kMaxJsonDepth) {
      throw TooDeep{};
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, bound);
  } catch (const TooDeep&) {
    throw InputError(field, fmt::format("{} nests objects or arrays more than {} deep; no input gpuplan reads needs more than a few levels.", what, kMaxJsonDepth),
                     fmt::format("{} 的对象或数组嵌套超过 {} 层；gpuplan 读取的输入只需要几层。", what, kMaxJsonDepth));
  }
}

std::string json_string_or(const nlohmann::json& j, const char* key, const std::string& fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

double json_number_or(const nlohmann::json& j, const char* key, double fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace gpuplan
