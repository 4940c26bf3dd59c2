// Reports for `gpuplan infer` and `gpuplan finetune` (sections, en + zh labels).
#pragma once
#include <string>

#include "gpuplan/cost.hpp"
#include "gpuplan/finetune.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/report.hpp"

namespace gpuplan {

Report inference_report(const ModelSpec& model, const GpuSpec& gpu, const InferenceOptions& options,
                        const ServingTarget& target, const ServingPlan& plan, const Price& price);

Report finetune_report(const ModelSpec& model, const GpuSpec& gpu, const FinetuneEstimate& estimate,
                       int64_t smallest_gpus, const std::vector<GpuChoice>& cheapest, const Price& price);

}  // namespace gpuplan
