// A layout's parts in words: the adapted matrices as a list, a pipeline
// split's rule and recompute in Chinese. The reports and the framework notes
// use them; the installed headers hold the values only (issue 31).
#pragma once
#include <string>
#include <vector>

#include "gpuplan/flops.hpp"
#include "gpuplan/layout.hpp"

namespace gpuplan {

// "q, k, v, o" (or "q、k、v、o"): the modules by their short names.
std::string lora_modules_text(const std::vector<LoraModule>& modules, const char* separator = ", ");

const char* stage_split_rule_name(StageSplitRule r);
const char* stage_split_rule_name_zh(StageSplitRule r);

// The same as a Chinese engineer says it: 不重计算, 选择性重计算, 完全重计算.
const char* recompute_name_zh(Recompute r);

}  // namespace gpuplan
