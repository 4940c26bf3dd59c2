// The words a user types for a request's choices, read into the library's
// values: the text → request step of every front end (CLI flags, web keys,
// Python keywords, validation cases' fields). The estimators take the values;
// each parser names the field in its one sentence on a word it does not know.
#pragma once
#include <string>
#include <vector>

#include "gpuplan/cost.hpp"       // Phase
#include "gpuplan/flops.hpp"      // Recompute
#include "gpuplan/inference.hpp"  // WeightFormat
#include "gpuplan/layout.hpp"     // Optimizer, LoraModule

namespace gpuplan {

// adamw, adamw8bit, paged_adamw8bit, sgd (and their spellings).
Optimizer parse_optimizer(const std::string& text, const std::string& field);
// none, selective, full (on/off, yes/no).
Recompute parse_recompute(const std::string& text, const std::string& field);
// fp16, bf16, fp8, int8, int4 and the quantisers' names for them (awq, gptq, w8a16 ...).
WeightFormat parse_weight_format(const std::string& text, const std::string& field);
// "q,k,v,o", "all", "attn", "mlp", PEFT's and Meta's matrix names: the adapted matrices, each once, in order.
std::vector<LoraModule> parse_lora_modules(const std::string& text, const std::string& field);
// "NAME:GPU:COUNT:DURATION[:PRICE]", e.g. "debug:a100-80g:10:72h:12cny" (--phase).
Phase parse_phase(const std::string& text);

}  // namespace gpuplan
