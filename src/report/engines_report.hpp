// The serving-engine profiles as reports: `gpuplan engines [NAME[@VERSION]]`
// and docs/engines.md (each engine version's properties with their sources).
#pragma once
#include <string>

#include "gpuplan/engine.hpp"
#include "report/report.hpp"

namespace gpuplan {

// No name: every engine with its versions; a name: each property of the
// version it resolves to, with its value and source.
Report engines_report(const std::string& name_at_version);

// docs/engines.md, generated from data/engines/*.json (a test compares the
// committed page with this text; `gpuplan engines --docs > docs/engines.md` renews it).
std::string engines_markdown();

// One fact of the engine profile a run used, as an assumption line in both
// languages (the property and value in Chinese where they are words).
Note engine_fact_note(const std::string& engine_name, const EngineFact& fact);
// The limits a run took from the row of the engine's device table that matched its GPU.
Note engine_limits_note(const std::string& engine_name, const std::string& gpu_id, const EngineDeviceRule& row, long long max_num_seqs,
                        long long tokens_per_step);

}  // namespace gpuplan
