// The chains every front end runs for train and memory: the request's result
// computed (src/commands, src/estimate), then its report (src/report), which
// only turns results into rows. infer_report_for and finetune_report_for
// (infer_inputs.hpp, finetune_inputs.hpp) are the same for their commands.
#pragma once
#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/train_estimate.hpp"
#include "report/report.hpp"

namespace gpuplan {

// train_report(request, estimate_train(request)).
Report train_report_for(const TrainRequest& request);

// memory_report over estimate_memory(model, layout, gpu, options).
Report memory_report_for(const ModelSpec& model, const Layout& layout, const GpuSpec& gpu, const MemoryOptions& options,
                         bool batch_defaulted = false);

}  // namespace gpuplan
