// The flags that describe one training layout (model, GPU, degrees, batch,
// recipe), shared by `gpuplan memory` and `gpuplan calibrate`. They fill a
// LayoutInputs; gpuplan::resolve_layout checks them and builds the layout.
#pragma once
#include <CLI/CLI.hpp>

#include "gpuplan/command_inputs.hpp"

namespace gpuplan::cli {

void add_layout_flags(CLI::App* cmd, LayoutInputs* f);

// Recipe switches `gpuplan plan` offers too, registered the same way there.
void add_eager_flag(CLI::App* cmd, bool* eager);
void add_zero3_per_module_flag(CLI::App* cmd, bool* per_module);
// --framework, --attention, --loss, --compile, --tp-comm-overlap, --dp-comm-overlap.
void add_framework_flags(CLI::App* cmd, FrameworkInputs* f);

}  // namespace gpuplan::cli
