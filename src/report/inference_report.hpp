// Reports for `gpuplan infer` and `gpuplan finetune` (sections, en + zh labels).
#pragma once
#include <optional>
#include <string>

#include "gpuplan/cost.hpp"
#include "gpuplan/finetune.hpp"
#include "gpuplan/inference.hpp"
#include "report/report.hpp"

namespace gpuplan {

Report inference_report(const ModelSpec& model, const GpuSpec& gpu, const InferenceOptions& options,
                        const ServingTarget& target, const ServingPlan& plan, const Price& price);

// Issue 15: how run_infer sized the replicas (InferRun::sizing), said in words
// with the counts at the median error and on the model's own throughput.
void add_serving_sizing(Report& report, const ServingSizing& sizing, const ServingPlan& plan, const ServingTarget& target);

// `gpuplan infer --max-throughput`: the batch an offline run reaches and its throughput.
Report max_throughput_report(const ModelSpec& model, const GpuSpec& gpu, const InferenceOptions& options,
                             int64_t input_len, int64_t output_len, const MaxThroughputRun& run);

Report finetune_report(const ModelSpec& model, const GpuSpec& gpu, const FinetuneEstimate& estimate,
                       int64_t smallest_gpus, const std::vector<GpuChoice>& cheapest, const Price& price);
// The report of a sized fine-tuning run: finetune_report's sections, the
// deadline rows where one was given, and how typed inputs were read first.
Report finetune_run_report(const FinetuneRequest& request, const FinetuneRun& run);

}  // namespace gpuplan
