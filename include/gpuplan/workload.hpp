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

// The global batch a run takes when none is given (issue 25), in tokens:
// DeepSeek LLM (DeepSeek-AI 2024, arXiv:2401.02954, §3.1 eq. 1) fitted the
// optimal batch B_opt = 0.2920 · C^0.3271 tokens, C = M · D the compute
// budget in FLOPs, M the non-embedding FLOPs per token (attention included),
// D the tokens. It grows with the run: ~19M tokens for a 67B model on 2T
// (DeepSeek LLM 67B ran 18.9M), ~68M for 405B on 15T (Llama 3 405B ended at 16M).
double default_batch_tokens(double compute_flop);
// That batch in whole sequences of `seq_len` tokens, the nearest power of two
// (in log2), so that the data-parallel degrees a layout takes divide it.
int64_t default_batch_seqs(double batch_tokens, int64_t seq_len);

// The global batch of a question that states no token budget (plan, memory,
// calibrate): about 4M tokens per step, as GPT-3 (3.2M), Llama 2 (4M) and the
// early steps of Llama 3 (4M) trained, rounded down to `unit` · 2^k sequences
// (never below `unit`) so that the data-parallel degrees it must admit divide
// it. plan passes the odd part of the GPU count, memory dp × micro-batch.
int64_t default_global_batch_seqs(int64_t seq_len, int64_t unit);
inline constexpr double kDefaultBatchTokensWithoutBudget = 4194304.0;  // 2^22 tokens

}  // namespace gpuplan
