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

// `gpuplan infer --max-throughput`: the batch an offline run reaches and its throughput.
Report max_throughput_report(const ModelSpec& model, const GpuSpec& gpu, const InferenceOptions& options,
                             int64_t input_len, int64_t output_len, const MaxThroughputRun& run);

Report finetune_report(const ModelSpec& model, const GpuSpec& gpu, const FinetuneEstimate& estimate,
                       int64_t smallest_gpus, const std::vector<GpuChoice>& cheapest, const Price& price);

}  // namespace gpuplan
