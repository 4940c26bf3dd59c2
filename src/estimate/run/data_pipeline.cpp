#include "estimate/run/data_pipeline.hpp"

namespace gpuplan {

DataPipelineEstimate estimate_data_pipeline(const DataPipelineInput& in) {
  DataPipelineEstimate e;
  const double bytes_per_token = in.tokenize_on_the_fly ? in.raw_bytes_per_token : in.bytes_per_token_stored;
  e.dataset_bytes = in.unique_tokens * bytes_per_token;
  // Seed 004 writes the rate as "batch × sequence length × step time"; the
  // dimensions need a division: tokens per step / seconds per step = tokens/s,
  // and × bytes per token gives the bytes/s storage must deliver.
  e.read_bytes_per_s = in.tokens_per_s * bytes_per_token;
  e.cpu_cores = in.tokenize_on_the_fly && in.tokens_per_s_per_core > 0 ? in.tokens_per_s / in.tokens_per_s_per_core : 0;
  if (in.wan_bytes_per_s > 0) e.transfer_s = e.dataset_bytes / (in.wan_bytes_per_s * in.wan_efficiency);
  return e;
}

}  // namespace gpuplan
