#include <fmt/format.h>
#include "gpuplan/workload.hpp"

#include <algorithm>
#include <cmath>

#include "gpuplan/error.hpp"

namespace gpuplan {

Workload make_workload(const WorkloadInput& in) {
  Workload w;
  w.seq_len = in.seq_len;
  w.epochs = in.epochs;
  int sources = (in.tokens ? 1 : 0) + (in.samples ? 1 : 0) + (in.dataset_bytes ? 1 : 0);
  if (sources == 0) {
    throw InputError("--tokens", "--tokens is required: give the token budget (e.g. --tokens 15T), or --samples "
                                 "with --seq-len or --tokens-per-sample, or --dataset-bytes.",
                     "缺少 --tokens：请给出训练 token 总量（如 --tokens 15T 或 --tokens 1万亿），"
                     "或 --samples 加 --seq-len 或 --tokens-per-sample，或 --dataset-bytes。");
  }
  if (sources > 1) {
    throw InputError("--tokens", "--tokens, --samples and --dataset-bytes each give the amount of data; give only one of them.",
                     "--tokens、--samples 和 --dataset-bytes 都是在给数据量，只能给其中一个。");
  }
  if (in.tokens) {
    w.tokens_per_epoch = *in.tokens;
    w.tokens_from = "tokens";
  } else if (in.samples) {
    const double per = in.tokens_per_sample.value_or(static_cast<double>(in.seq_len));
    w.tokens_per_epoch = *in.samples * per;
    w.tokens_from = "samples";
  } else {
    w.tokens_per_epoch = *in.dataset_bytes / in.bytes_per_token;
    w.tokens_from = "dataset_bytes";
  }
  w.total_tokens = w.tokens_per_epoch * w.epochs;
  if (in.global_batch_tokens && in.global_batch_seqs) {
    throw InputError("--batch-tokens", "--batch-tokens and --global-batch both set the batch; give only one of them.",
                     "--batch-tokens 和 --global-batch 都是在设批大小，只能给其中一个。");
  }
  if (in.global_batch_tokens) w.batch_tokens = *in.global_batch_tokens;
  if (in.global_batch_seqs) {
    const double per = in.tokens_per_sample.value_or(static_cast<double>(in.seq_len));
    w.batch_tokens = *in.global_batch_seqs * per;
  }
  const double per_sequence = in.tokens_per_sample.value_or(static_cast<double>(in.seq_len));
  if (w.batch_tokens > 0 && w.tokens_per_epoch < per_sequence && !(w.batch_tokens <= w.tokens_per_epoch)) {
    // Less data than one sequence: no batch can be a whole step of it.
    const std::string field = std::string("--") + (std::string(w.tokens_from) == "dataset_bytes" ? "dataset-bytes" : w.tokens_from);
    throw InputError(field, fmt::format("{}: {:.4g} tokens are fewer than one sequence of {:.4g} tokens (--seq-len).", field, w.tokens_per_epoch, per_sequence),
                     fmt::format("{}：{:.4g} 个 token 还不到一条 {:.4g} token 的序列（--seq-len）。", field, w.tokens_per_epoch, per_sequence));
  }
  if (w.batch_tokens > 0 && !(w.batch_tokens <= w.tokens_per_epoch)) {
    // A step cannot take more tokens than the data holds (1e308 sequences made
    // a run of 0 optimizer steps, issue 30).
    // Said in the unit the batch was given in (1e308 sequences once read "inf tokens").
    const char* field = in.global_batch_seqs ? "--global-batch" : "--batch-tokens";
    if (in.global_batch_seqs) {
      const double most = std::floor(w.tokens_per_epoch / per_sequence);
      throw InputError(field,
                       fmt::format("{}: {:.4g} sequences of {:.4g} tokens exceed the {:.4g} tokens of one epoch; give at most {:.4g} sequences.",
                                   field, *in.global_batch_seqs, per_sequence, w.tokens_per_epoch, most),
                       fmt::format("{}：{:.4g} 条 {:.4g} token 的序列超过了一个 epoch 的 {:.4g} 个 token；最多给 {:.4g} 条序列。",
                                   field, *in.global_batch_seqs, per_sequence, w.tokens_per_epoch, most));
    }
    throw InputError(field, fmt::format("{}: a step of {:.4g} tokens exceeds the {:.4g} tokens of one epoch; give a batch of at most that many tokens.",
                                        field, w.batch_tokens, w.tokens_per_epoch),
                     fmt::format("{}：每步 {:.4g} 个 token，超过了一个 epoch 的 {:.4g} 个 token；批大小最多取这么多 token。", field, w.batch_tokens,
                                 w.tokens_per_epoch));
  }
  if (w.batch_tokens > 0) {
    // A partial last batch is still a step.
    w.steps_per_epoch = std::ceil(w.tokens_per_epoch / w.batch_tokens);
    w.total_steps = w.steps_per_epoch * w.epochs;
  }
  return w;
}

double default_batch_tokens(double compute_flop) {
  // DeepSeek LLM §3.1, eq. (1): B_opt = 0.2920 · C^0.3271 (tokens), C = M·D in FLOPs.
  return compute_flop > 0 ? 0.2920 * std::pow(compute_flop, 0.3271) : 0.0;
}

int64_t default_batch_seqs(double batch_tokens, int64_t seq_len) {
  if (!(batch_tokens > 0) || seq_len <= 0) return 1;
  const double seqs = batch_tokens / static_cast<double>(seq_len);
  const double e = std::round(std::log2(std::max(1.0, seqs)));
  return static_cast<int64_t>(std::ldexp(1.0, static_cast<int>(std::min(e, 30.0))));
}

int64_t default_global_batch_seqs(int64_t seq_len, int64_t unit) {
  // 440 GPUs at seq 2048 in plan: unit 55, 55·32 = 1,760 sequences (what MPT-7B
  // ran on 440 A100s), where a power-of-two batch would admit no layout at all.
  const double target = kDefaultBatchTokensWithoutBudget / static_cast<double>(std::max<int64_t>(1, seq_len));
  int64_t gb = std::max<int64_t>(1, unit);
  while (static_cast<double>(gb) * 2 <= target && gb < (int64_t{1} << 40)) gb *= 2;
  return gb;
}

}  // namespace gpuplan
