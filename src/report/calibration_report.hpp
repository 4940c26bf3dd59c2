// `gpuplan calibrate`'s report (src/report/calibration_report.cpp).
#pragma once
#include <string>

#include "commands/calibrate.hpp"
#include "report/report.hpp"

namespace gpuplan {

// The trial run predicted against measured and the fitted factors; with a
// full run, its sections ("full_run_<key>"), assumptions and warnings after them.
Report calibration_report(const CalibrationRun& run);
// The sentence a report ends with once the factors are saved to `path`.
void add_saved_note(Report* report, const std::string& path);

}  // namespace gpuplan
