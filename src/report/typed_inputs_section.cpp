// The section echoing typed inputs as they were read (report/typed_inputs_section.hpp).
#include "report/typed_inputs_section.hpp"
#include "units/quantity_text.hpp"

#include <fmt/format.h>

#include "gpuplan/units.hpp"

namespace gpuplan {

std::optional<Section> typed_inputs_section(const std::vector<TypedInput>& echo) {
  if (echo.empty()) return std::nullopt;
  Section s{"inputs_as_read", "Inputs as read", "输入解析", {}, {}, {}};
  for (const TypedInput& t : echo) {
    // The key names the flag and the unit (tokens_as_read, deadline_as_read_s);
    // the label shows the text exactly as typed.
    std::string key = t.flag.substr(t.flag.find_first_not_of('-'));
    for (char& c : key) if (c == '-') c = '_';
    key += t.unit == Unit::kSeconds ? "_as_read_s" : "_as_read";
    const std::string label = t.typed.empty() ? t.flag : fmt::format("{} {}", t.flag, t.typed);
    // Counts show their digits (unambiguous in either language); durations
    // days or hours and the exact seconds; a default why it was taken.
    Row r{key, label, label, t.value, t.unit,
          !t.note.empty() ? t.note : t.unit == Unit::kSeconds ? fmt::format("(= {} s)", format_thousands(t.value, 0)) : ""};
    if (!t.note_zh.empty()) r.text_zh = t.note_zh;
    s.rows.push_back(r);
  }
  return s;
}

}  // namespace gpuplan
