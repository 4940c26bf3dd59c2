// The echo of typed inputs (gpuplan/typed_inputs.hpp) as a report section,
// shown first by train and finetune.
#pragma once
#include <optional>
#include <vector>

#include "report/report.hpp"
#include "gpuplan/typed_inputs.hpp"

namespace gpuplan {

// "Inputs as read" / "输入解析": one row per echoed input; nothing when empty.
std::optional<Section> typed_inputs_section(const std::vector<TypedInput>& echo);

}  // namespace gpuplan
