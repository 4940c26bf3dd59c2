// The framework profiles as reports: `gpuplan frameworks [NAME[@VERSION]]` and
// docs/frameworks.md (one table, framework × property, every cell with its source).
#pragma once
#include <string>

#include "report/report.hpp"

namespace gpuplan {

// No name: every profile with its versions; a name: each property of that
// version with its value and source.
Report frameworks_report(const std::string& name_at_version);

// docs/frameworks.md, generated from data/frameworks/*.json (tests compare the
// committed page with this text; `gpuplan frameworks --docs > docs/frameworks.md` renews it).
std::string frameworks_markdown();

}  // namespace gpuplan
