// The interval table's file format (data/intervals.json, written by
// `gpuplan validate --write-intervals`): JSON, read and written by the library;
// not in the installed headers, which need no JSON library (issue 31).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "gpuplan/intervals.hpp"

namespace gpuplan {

nlohmann::json interval_table_to_json(const IntervalTable& table, const std::string& cases_file);
IntervalTable interval_table_from_json(const nlohmann::json& j);  // throws InputError

}  // namespace gpuplan
