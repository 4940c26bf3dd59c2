// The planner's result as a Report (src/report/plan_report.cpp): per GPU type
// and count, the ranked layouts, the winner's breakdown and the comparison.
// Kept apart from plan.hpp so the planner does not depend on reports.
#pragma once
#include "gpuplan/plan.hpp"
#include "report/report.hpp"

namespace gpuplan {

Report plan_report(const PlanRequest& request, const PlanResult& result);

}  // namespace gpuplan
