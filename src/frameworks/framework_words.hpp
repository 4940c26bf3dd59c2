// The words profiles, cases and users write for kernels and recompute
// policies, read into the library's values, and the profile and engine file
// readers (their formats: data/frameworks/README.md, data/engines/README.md).
// Internal: the installed headers hold the values only (issue 31).
#pragma once
#include <string>
#include <vector>

#include "gpuplan/engine.hpp"
#include "gpuplan/framework.hpp"

namespace gpuplan {

AttentionKernel parse_attention_kernel(const std::string& text, const std::string& field);

LossKernel parse_loss_kernel(const std::string& text, const std::string& field);

SelectiveRecompute parse_selective_recompute(const std::string& text, const std::string& field);

// Loads one profile file's text (for tests and --framework-file); throws InputError naming `origin`.
FrameworkFamily parse_framework_family(const std::string& json_text, const std::string& origin);

// Parses one engine file (the format in data/engines/README.md); `origin`
// names it in errors. Exposed for tests of the format.
EngineFamily parse_engine_family(const std::string& text, const std::string& origin);

}  // namespace gpuplan
