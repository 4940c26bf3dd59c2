// A parallel layout as report rows for programs: each degree and setting its
// own field (tp, pp, dp, ...), where people read the layout in words.
// Shared by the planner's and the training report (src/report, internal).
#pragma once
#include <vector>

#include "gpuplan/layout.hpp"
#include "gpuplan/report.hpp"

namespace gpuplan {

// tp, pp, dp, cp, ep, vp, micro_batch, global_batch, zero, recompute,
// sequence_parallel and, where set, first_stage_layers / last_stage_layers;
// Audience::kPrograms (JSON and CSV), so a table keeps its one line of words.
std::vector<Row> layout_rows(const Layout& l);

}  // namespace gpuplan
