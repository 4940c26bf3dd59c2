// The data a run reads: size on disk, read rate, CPU cores to prepare it, and
// the time to move it to the cluster.
#pragma once

namespace gpuplan {

struct DataPipelineInput {
  double total_tokens = 0;           // tokens read over the whole run (all epochs)
  double unique_tokens = 0;          // tokens in the dataset (one epoch)
  double tokens_per_s = 0;           // the run's training throughput, whole cluster
  double bytes_per_token_stored = 4; // tokenised shards: uint32 ids (2 with a < 65,536 vocabulary)
  double raw_bytes_per_token = 4;    // raw text per token, when tokenising on the fly
  bool tokenize_on_the_fly = false;
  double tokens_per_s_per_core = 1e6;  // tokeniser throughput per CPU core (measure yours)
  double wan_bytes_per_s = 0;        // link to move the dataset to the cluster; 0 = not asked
  double wan_efficiency = 0.8;       // TCP/transfer-tool efficiency over a long link
};

struct DataPipelineEstimate {
  double dataset_bytes = 0;          // on disk, tokenised (or raw when tokenising on the fly)
  double read_bytes_per_s = 0;       // what storage must sustain
  double cpu_cores = 0;              // for tokenisation on the fly
  double transfer_s = 0;             // moving the dataset over the WAN link
};

DataPipelineEstimate estimate_data_pipeline(const DataPipelineInput& in);

}  // namespace gpuplan
