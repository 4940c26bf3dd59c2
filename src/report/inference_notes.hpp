// The sentences of the serving estimators' reason codes, in English and
// Chinese (issue 31: plan_serving, max_throughput_run and engine_defaults
// return codes and values; the words are made here). Shared by the infer
// reports, run_infer's refusal and validate's flags, so each says the same.
#pragma once
#include <string>
#include <vector>

#include "gpuplan/bilingual.hpp"
#include "gpuplan/inference.hpp"

namespace gpuplan {

// Why one run or replica layout is infeasible ("weights and runtime (… GiB per
// GPU) do not fit h100"); empty for InferRefusal::kNone.
Bilingual infer_refusal_text(const InferRefusalReason& why);
// Why a serving plan is infeasible: where no layout served, the search's
// bounds and the last layout tried with its refusal; else the layout's own.
Bilingual serving_why_not(const ServingPlan& plan);
// What the plan's sizing assumes of its batching and parallelism, in the
// order the report lists them.
std::vector<Bilingual> serving_assumptions(const ServingPlan& plan);

// The engine and version the defaults are read from ("vLLM 0.10.2").
std::string engine_display_name(const EngineDefaults& engine);
// How the profile was chosen: the fallback first (an engine not named, without
// a profile, or not running on the GPU), then the profile's own notes.
std::vector<Bilingual> engine_choice_notes(const EngineDefaults& engine);
// One line per limit an engine's own sizing rule set (SGLang's
// mem_fraction_static and max_running_requests, trtllm-bench's limits).
std::vector<Bilingual> engine_rule_notes(const EngineDefaults& engine);

}  // namespace gpuplan
