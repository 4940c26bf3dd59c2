// A step's timing assumptions (StepTime::basis) in words, in English and in
// Chinese: the step-time model returns the values, the reports say them.
#pragma once
#include <vector>

#include "gpuplan/step_time.hpp"
#include "report/report.hpp"

namespace gpuplan {

// One note per assumption, in the order a report lists them; empty when the
// step was timed without StepTimeOptions::explain.
std::vector<Note> step_time_notes(const StepTimeBasis& basis);

}  // namespace gpuplan
