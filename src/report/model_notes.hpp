// What a report must say about the model it was given before any number:
// parts of the config.json that gpuplan read past.
#pragma once
#include "gpuplan/model.hpp"
#include "report/report.hpp"

namespace gpuplan {

// A multimodal config's vision tower (vision_config) is not in the ModelSpec:
// every command plans the language model only, and says so first (Report::blocking, issue 30).
void add_model_scope_warning(Report& rep, const ModelSpec& m);

}  // namespace gpuplan
