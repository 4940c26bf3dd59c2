// `gpuplan finetune` run: the GPU count (given, the smallest that fits, or the
// fewest that meet the deadline), the estimate on it, the price and the
// cheapest GPU types (finetune.hpp run_finetune).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "gpuplan/cost.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/finetune.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/market.hpp"
#include "report/report.hpp"  // format_value: a duration in the sentences, as the report shows it
#include "gpuplan/units.hpp"
#include "commands/market_terms.hpp"
#include "units/quantity_text.hpp"

namespace gpuplan {
namespace {

// The search's ceiling (smallest_fitting_gpus' default): what the sentences name.
constexpr int64_t kFinetuneSearchMaxGpus = 1024;

// A fixed global batch that n GPUs cannot split evenly is re-derived as
// micro-batch × n, as smallest_fitting_gpus does for the counts it tries.
FinetuneJob job_on(FinetuneJob j, int64_t n) {
  if (j.global_batch > 0 && j.global_batch % (j.micro_batch * n) != 0) j.global_batch = 0;
  return j;
}

// The method as a Chinese sentence names it: 全参数 / LoRA / QLoRA (微调 follows).
const char* method_zh(FineTune m) {
  switch (m) {
    case FineTune::kFull: return "全参数";
    case FineTune::kLora: return " LoRA ";
    case FineTune::kQlora: return " QLoRA ";
    case FineTune::kNone: break;  // not a fine-tune (make_finetune_request never sets it)
  }
  return "";
}

// The largest micro-batch (powers of two up to 256) and the longest
// sequence (powers of two from 128 to the model's context) that fit on n GPUs.
void fit_limits(const ModelSpec& m, const GpuSpec& g, const FinetuneJob& j, int64_t n, FinetuneRun& run) {
  for (int64_t mb = 1; mb <= 256; mb *= 2) {
    FinetuneJob k = j;
    k.micro_batch = mb;
    k.global_batch = 0;
    if (!estimate_finetune(m, g, k, n).fits) break;
    run.largest_micro_batch = mb;
  }
  const int64_t context = model_max_context(m) > 0 ? model_max_context(m) : int64_t{1} << 17;
  for (int64_t len = 128; len <= context; len *= 2) {
    FinetuneJob k = j;
    k.seq_len = len;
    k.mean_sample_tokens = std::min(k.mean_sample_tokens, static_cast<double>(len));
    if (!estimate_finetune(m, g, k, n).fits) break;
    run.longest_seq_len = len;
  }
}

// A job that does not fit on the GPUs asked for: each single change that
// makes it fit, fewest GPU-hours first (the cheapest on this GPU type).
std::vector<FinetuneAlternative> fitting_changes(const ModelSpec& m, const GpuSpec& g, const FinetuneJob& j, const FinetuneRun& run) {
  std::vector<FinetuneAlternative> out;
  const int64_t n = run.gpus;
  const FinetuneJob& resolved = run.estimate.job;  // with the stack's defaults filled in
  auto attempt = [&](FinetuneChange change, FinetuneJob k, int64_t gpus, int64_t value) {
    const FinetuneEstimate e = estimate_finetune(m, g, job_on(std::move(k), gpus), gpus);
    if (e.fits) out.push_back(FinetuneAlternative{change, value, gpus, e.memory.peak_bytes, e.wall_s, e.gpu_hours});
  };
  const FrameworkProfile* fw = j.framework;
  const bool full = j.method == FineTune::kFull;
  auto offers = [&](const char* what) {
    return fw && std::find(fw->cpu_offload.begin(), fw->cpu_offload.end(), what) != fw->cpu_offload.end();
  };
  if (!j.gradient_checkpointing) {
    FinetuneJob k = j;
    k.gradient_checkpointing = true;
    attempt(FinetuneChange::kCheckpointing, k, n, 0);
  }
  if (j.micro_batch > 1) {
    FinetuneJob k = j;
    k.micro_batch = 1;
    if (k.global_batch == 0) k.global_batch = j.micro_batch * n;  // the same sequences per step, accumulated
    attempt(FinetuneChange::kMicroBatchOne, k, n, 0);
  }
  if (full && resolved.optimizer && *resolved.optimizer == Optimizer::kAdamW) {
    FinetuneJob k = j;
    k.optimizer = Optimizer::kAdamW8bit;
    attempt(FinetuneChange::kAdamW8bit, k, n, 0);
  }
  if (full && fw && fw->optimizer_in_backward && !j.settings.optimizer_in_backward.value_or(false)) {
    FinetuneJob k = j;
    k.settings.optimizer_in_backward = true;
    attempt(FinetuneChange::kOptimizerInBackward, k, n, 0);
  }
  if (!j.offload_optimizer && offers("optimizer")) {
    FinetuneJob k = j;
    k.offload_optimizer = true;
    attempt(FinetuneChange::kOffloadOptimizer, k, n, 0);
  }
  for (FineTune method : {FineTune::kLora, FineTune::kQlora}) {
    if (static_cast<int>(method) <= static_cast<int>(j.method)) continue;  // only lighter methods
    FinetuneJob k = j;
    k.method = method;
    k.lora_rank = 0;
    k.modules.clear();
    if (full) k.optimizer.reset();
    attempt(method == FineTune::kLora ? FinetuneChange::kLora : FinetuneChange::kQlora, k, n, 0);
  }
  if (run.smallest_gpus > n) attempt(FinetuneChange::kMoreGpus, j, run.smallest_gpus, run.smallest_gpus);
  if (run.longest_seq_len > 0 && run.longest_seq_len < j.seq_len) {
    FinetuneJob k = j;
    k.seq_len = run.longest_seq_len;
    k.mean_sample_tokens = std::min(k.mean_sample_tokens, static_cast<double>(k.seq_len));
    attempt(FinetuneChange::kShorterSequence, k, n, run.longest_seq_len);
  }
  std::stable_sort(out.begin(), out.end(), [](const FinetuneAlternative& a, const FinetuneAlternative& b) { return a.gpu_hours < b.gpu_hours; });
  return out;
}

}  // namespace

FinetuneRun run_finetune(const FinetuneRequest& q) {
  const ModelSpec& m = q.model;
  const GpuSpec& g = q.gpu;
  const FinetuneJob& j = q.job;
  FinetuneRun run;
  const int64_t smallest = smallest_fitting_gpus(m, g, j, kFinetuneSearchMaxGpus);
  if (smallest == 0 && !q.gpus && j.framework && !j.framework->dp) {
    // A single-GPU stack (Unsloth 2024.8): no count to grow to.
    throw InputError("--gpu", fmt::format("--gpu: {} fine-tuning of {} does not fit on one {} ({} GiB), and {} trains on one GPU; use a lighter --method, "
                                          "a GPU with more memory or a shorter --seq-len.",
                                          q.method_name, m.name, g.id, format_sig(g.memory_bytes / kGiB, 3), j.framework->label()),
                     fmt::format("--gpu：{} 的{}微调在一张 {}（{} GiB）上放不下，而 {} 只用单卡训练；请换更轻的 --method、显存更大的 GPU，或缩短 --seq-len。",
                                 m.name, method_zh(j.method), g.id, format_sig(g.memory_bytes / kGiB, 3), j.framework->label()));
  }
  if (smallest == 0 && !q.gpus) {
    // No count up to the search's limit fits: a time and a cost for a run
    // that cannot start would be nonsense, so say what to change instead.
    // What is left to change: a lighter method than the one asked for, else a bigger GPU.
    const char* change = j.method == FineTune::kFull ? "use --method lora or qlora, or a GPU with more memory"
                         : j.method == FineTune::kLora ? "use --method qlora, or a GPU with more memory"
                                                       : "use a GPU with more memory, or a shorter --seq-len";
    const char* change_zh = j.method == FineTune::kFull ? "请改用 --method lora 或 --method qlora，或换显存更大的 GPU"
                            : j.method == FineTune::kLora ? "请改用 --method qlora，或换显存更大的 GPU"
                                                          : "请换显存更大的 GPU，或缩短 --seq-len";
    throw InputError("--gpu", fmt::format("--gpu: {} fine-tuning of {} does not fit on any count of {} up to 1,024 ({} GiB each, ZeRO-3); {}.",
                                          q.method_name, m.name, g.id, format_sig(g.memory_bytes / kGiB, 3), change),
                     fmt::format("--gpu：{} 的{}微调在 1,024 张以内任何数量的 {} 上都放不下（每张 {} GiB，ZeRO-3）；{}。", m.name,
                                 method_zh(j.method), g.id, format_sig(g.memory_bytes / kGiB, 3), change_zh));
  }
  int64_t n = q.gpus ? *q.gpus : smallest;
  FinetuneJob jn = j;  // as given (a --gpus count or the smallest that fits)
  if (q.deadline_s && !q.gpus) {
    // The fewest GPUs (the counts smallest_fitting_gpus tries, from the
    // smallest that fits) that finish by the deadline.
    bool met = false;
    double fastest_s = 0;
    int64_t fastest_n = smallest;
    for (int64_t k = smallest; k <= kFinetuneSearchMaxGpus; k *= 2) {
      const FinetuneEstimate e = estimate_finetune(m, g, job_on(j, k), k);
      if (!e.fits) continue;
      if (fastest_s == 0 || e.wall_s < fastest_s) {
        fastest_s = e.wall_s;
        fastest_n = k;
      }
      if (e.wall_s <= *q.deadline_s) {
        n = k;
        met = true;
        break;
      }
    }
    if (!met) {
      throw InputError("--deadline", fmt::format("--deadline {}: {} fine-tuning of {} takes at least {} on {} (on {} GPUs); "
                                                 "give a longer deadline, fewer samples or epochs, or a faster GPU.",
                                                 q.deadline_text, q.method_name, m.name, format_seconds(fastest_s, Lang::kEn), g.id,
                                                 format_thousands(static_cast<double>(fastest_n), 0)),
                       fmt::format("--deadline {}：{} 的{}微调用 {} 张 {} 也至少要 {}；请放宽期限、减少样本或轮数，或换更快的 GPU。",
                                   q.deadline_text, m.name, method_zh(j.method), format_thousands(static_cast<double>(fastest_n), 0), g.id,
                                   format_seconds(fastest_s, Lang::kZh)));
    }
    jn = job_on(j, n);
  }
  run.estimate = estimate_finetune(m, g, jn, n);
  // A layout the named stack cannot run (a GPU count, a ZeRO stage, an
  // offload or the optimizer in the backward it does not offer): one sentence.
  if (j.framework) {
    const Reason cannot = why_framework_cannot_run(*j.framework, run.estimate.layout);
    if (!cannot.empty()) {
      throw InputError("--framework", fmt::format("--framework {}: {} ({} GPUs).", j.framework->label(), cannot.en, n),
                       fmt::format("--framework {}：{}（{} 张卡）。", j.framework->label(), cannot.zh, n));
    }
  }
  run.gpus = n;
  run.smallest_gpus = smallest;
  fit_limits(m, g, jn, n, run);
  if (!run.estimate.fits) run.alternatives = fitting_changes(m, g, jn, run);
  PriceInput pi;
  pi.text = q.price_text;
  apply_market_terms(&pi, q.market_text, q.provider, q.currency_text, q.lang);
  if (q.rank_gpus) run.ranking = rank_gpus_for_finetune(m, j, kFinetuneSearchMaxGpus, pi.market);
  run.price = resolve_price(g.id, pi);
  return run;
}

}  // namespace gpuplan
