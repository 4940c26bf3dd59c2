// A calibration's file format (gpuplan calibrate --out, --calibration FILE):
// JSON, read and written by the library; not in the installed headers, which
// need no JSON library (issue 31).
#pragma once
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "gpuplan/calibration.hpp"

namespace gpuplan {

nlohmann::json calibration_to_json(const Calibration& c);
Calibration calibration_from_json(const nlohmann::json& j, const std::string& origin);  // throws InputError

}  // namespace gpuplan
