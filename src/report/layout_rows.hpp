// A parallel layout as report rows for programs: each degree and setting its
// own field (tp, pp, dp, ...), where people read the layout in words.
// Shared by the planner's and the training report (src/report, internal).
#pragma once
#include <string>
#include <vector>

#include "gpuplan/layout.hpp"
#include "report/report.hpp"

namespace gpuplan {

// tp, pp, dp, cp, ep, vp, micro_batch, global_batch, zero, recompute,
// sequence_parallel and, where set, first_stage_layers / last_stage_layers;
// Audience::kPrograms (JSON and CSV), so a table keeps its one line of words.
std::vector<Row> layout_rows(const Layout& l);

// A layout's degrees and recipe in Chinese words, as the tables show them:
// "TP 8 × PP 1 × DP 256 × CP 1"; "微批 4 × 1 个微批，全局批 1024，ZeRO 2，不重计算，序列并行".
std::string degrees_zh(const Layout& l);
std::string recompute_zh(Recompute r);
std::string optimizer_zh(Optimizer o);
std::string recipe_zh(const Layout& l);

}  // namespace gpuplan
