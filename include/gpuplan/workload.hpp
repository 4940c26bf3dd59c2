// What is trained: tokens, sequences, epochs and optimizer steps.
#pragma once
#include <cstdint>
#include <optional>

namespace gpuplan {

struct WorkloadInput {
  std::optional<double> tokens;             // tokens per epoch
  std::optional<double> samples;            // sequences or images per epoch
  std::optional<double> tokens_per_sample;  // defaults to seq_len for text
  std::optional<double> dataset_bytes;      // raw text; tokens = bytes / bytes_per_token
  double bytes_per_token = 4.0;             // BPE on English text averages ~4 bytes per token
  double epochs = 1;
  int64_t seq_len = 0;  // 0: default_seq_len(model) (inference.hpp), resolved by estimate_train
  std::optional<double> global_batch_seqs;
  std::optional<double> global_batch_tokens;
};

struct Workload {
  double tokens_per_epoch = 0;
  double epochs = 1;
  double total_tokens = 0;
  int64_t seq_len = 0;
  double batch_tokens = 0;     // tokens per optimizer step (0 = not given)
  double steps_per_epoch = 0;  // ceil(tokens_per_epoch / batch_tokens)
  double total_steps = 0;
  const char* tokens_from = "";  // which input the token count came from
};

// Throws InputError when no token source is given or two conflict.
Workload make_workload(const WorkloadInput& in);

}  // namespace gpuplan
