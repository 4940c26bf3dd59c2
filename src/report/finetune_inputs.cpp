// `gpuplan finetune` and POST /api/finetune: the checks of the inputs and the
// estimate both front ends share (finetune_inputs.hpp).
#include "gpuplan/finetune_inputs.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "gpuplan/cost.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/finetune.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/inference.hpp"
#include "report/inference_report.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/market.hpp"
#include "gpuplan/typed_inputs.hpp"
#include "gpuplan/units.hpp"
#include "report/typed_inputs_section.hpp"

namespace gpuplan {
namespace {

// The search's ceiling (smallest_fitting_gpus' default): what the sentences name.
constexpr int64_t kMaxGpus = 1024;

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
    case FineTune::kNone: break;  // not a fine-tune (finetune_report_for never sets it)
  }
  return "";
}

std::string days_or_hours(double s, Lang lang) {
  Row r{"t", "", "", s, Unit::kSeconds, ""};
  return format_value(r, lang);
}

}  // namespace

Report finetune_report_for(const FinetuneInputs& f) {
  if (f.model.empty() && !f.model_spec) {
    throw InputError("--model", "--model is required (a catalog id such as llama-2-7b, or a config.json).",
                     "缺少 --model：请给出模型目录中的 id（如 llama-2-7b）或一个 config.json。");
  }
  if (f.gpu.empty()) throw InputError("--gpu", "--gpu is required (e.g. a100-80g, 4090).", "缺少 --gpu（如 a100-80g、4090）。");
  const ModelSpec m = f.model_spec ? *f.model_spec : find_model(f.model);
  const GpuSpec& g = find_gpu(f.gpu);
  FinetuneJob j;
  if (f.method == "full") j.method = FineTune::kFull;
  else if (f.method == "lora") j.method = FineTune::kLora;
  else if (f.method == "qlora") j.method = FineTune::kQlora;
  else {
    throw InputError("--method", fmt::format("--method must be full, lora or qlora (got '{}').", f.method),
                     fmt::format("--method 须为 full（全参数）、lora 或 qlora（输入为 '{}'）。", f.method));
  }
  if (f.rank && *f.rank == 0) throw InputError("--rank", "--rank must be at least 1 (rank 0 adapts nothing).", "--rank 至少为 1（秩为 0 等于什么都不训练）。");
  if (f.rank && *f.rank < 0) throw InputError("--rank", "--rank must be a positive integer.", "--rank 须为正整数。");
  j.lora_rank = f.rank.value_or(0);
  if (!f.modules.empty()) j.modules = parse_lora_modules(f.modules, "--modules");
  if (f.seq_len < 1 || f.seq_len > (int64_t{1} << 24)) {
    throw InputError("--seq-len", "--seq-len must be between 1 and 16,777,216 tokens.", "--seq-len 须在 1 到 16,777,216 个 token 之间。");
  }
  j.seq_len = f.seq_len;
  const int64_t max_ctx = model_max_context(m);
  if (max_ctx > 0 && f.seq_len > max_ctx && !f.force) {
    throw InputError("--seq-len", fmt::format("--seq-len {} exceeds the {} tokens {} supports (max_position_embeddings); add --force to plan it anyway.", f.seq_len, max_ctx, m.name),
                     fmt::format("--seq-len {} 超出 {} 支持的 {} 个 token（max_position_embeddings）；如仍要估算，请加 --force。", f.seq_len, m.name, max_ctx));
  }
  j.micro_batch = f.micro_batch;
  j.global_batch = f.global_batch;
  std::vector<TypedInput> echo;
  if (f.samples && f.tokens) {
    throw InputError("--tokens", "--samples and --tokens both size the dataset; give only one of them.",
                     "--samples 和 --tokens 都是在给数据集大小，只能给其中一个。");
  }
  if (f.tokens) {
    // A dataset given in tokens is that many samples of --seq-len tokens each
    // (packed sequences, as fine-tuning recipes pack them).
    const double tokens = *parse_count_echoed(f.tokens, "--tokens", &echo);
    if (!(tokens >= 1) || !std::isfinite(tokens)) {
      throw InputError("--tokens", "--tokens must be a positive token count (e.g. 100M, 1亿).", "--tokens 须为正的 token 数（如 100M、1亿）。");
    }
    // The same bound as training's (train_estimate.cpp): 1e18 tokens is 50,000
    // times Llama 3's 15.6T; beyond it the FLOPs leave every printable unit.
    require_range(tokens, 1, 1e18, "--tokens", "a positive token count up to 1e18", "不超过 1e18 的正 token 数");
    j.samples = std::ceil(tokens / static_cast<double>(f.seq_len));
  } else {
    j.samples = parse_count_echoed(f.samples, "--samples", &echo).value_or(1000);
  }
  require_range(j.samples, 1, 1e18, "--samples", "a positive sample count up to 1e18", "不超过 1e18 的正样本数");
  j.epochs = f.epochs;
  if (!f.optimizer.empty()) j.optimizer = parse_optimizer(f.optimizer, "--optimizer");
  if (f.precision) {
    j.precision = parse_precision(*f.precision, "--precision");
    if (j.precision != Precision::kBf16 && j.precision != Precision::kFp16) {
      throw InputError("--precision", fmt::format("--precision must be bf16 or fp16 for fine-tuning (got '{}').", *f.precision),
                       fmt::format("微调时 --precision 须为 bf16 或 fp16（输入为 '{}'）。", *f.precision));
    }
  }
  j.precision = training_precision(f.precision, g);  // refuses bf16 on V100
  j.gradient_checkpointing = !f.no_checkpointing;
  if (f.zero) j.zero_stage = *f.zero;
  j.framework = &resolve_framework(f.software);
  j.settings = make_run_settings(f.software);
  validate_finetune(m, j);
  if (f.gpus && (*f.gpus < 1 || *f.gpus > 100000)) throw InputError("--gpus", "--gpus must be between 1 and 100,000.", "--gpus 须在 1 到 100,000 之间。");
  const std::optional<double> deadline_s = parse_duration_echoed(f.deadline, "--deadline", &echo);
  if (deadline_s && !(*deadline_s > 0)) {
    throw InputError("--deadline", "--deadline must be a positive duration (e.g. 3d, 12h, 1周).", "--deadline 须为正的时长（如 3天、12小时、1周）。");
  }
  const int64_t smallest = smallest_fitting_gpus(m, g, j, kMaxGpus);
  if (smallest == 0 && !f.gpus) {
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
                                          f.method, m.name, g.id, format_sig(g.memory_bytes / kGiB, 3), change),
                     fmt::format("--gpu：{} 的{}微调在 1,024 张以内任何数量的 {} 上都放不下（每张 {} GiB，ZeRO-3）；{}。", m.name,
                                 method_zh(j.method), g.id, format_sig(g.memory_bytes / kGiB, 3), change_zh));
  }
  int64_t n = f.gpus ? *f.gpus : smallest;
  FinetuneJob jn = j;  // as given (a --gpus count or the smallest that fits)
  if (deadline_s && !f.gpus) {
    // The fewest GPUs (the counts smallest_fitting_gpus tries, from the
    // smallest that fits) that finish by the deadline.
    bool met = false;
    double fastest_s = 0;
    int64_t fastest_n = smallest;
    for (int64_t k = smallest; k <= kMaxGpus; k *= 2) {
      const FinetuneEstimate e = estimate_finetune(m, g, job_on(j, k), k);
      if (!e.fits) continue;
      if (fastest_s == 0 || e.wall_s < fastest_s) {
        fastest_s = e.wall_s;
        fastest_n = k;
      }
      if (e.wall_s <= *deadline_s) {
        n = k;
        met = true;
        break;
      }
    }
    if (!met) {
      throw InputError("--deadline", fmt::format("--deadline {}: {} fine-tuning of {} takes at least {} on {} (on {} GPUs); "
                                                 "give a longer deadline, fewer samples or epochs, or a faster GPU.",
                                                 *f.deadline, f.method, m.name, days_or_hours(fastest_s, Lang::kEn), g.id,
                                                 format_thousands(static_cast<double>(fastest_n), 0)),
                       fmt::format("--deadline {}：{} 的{}微调用 {} 张 {} 也至少要 {}；请放宽期限、减少样本或轮数，或换更快的 GPU。",
                                   *f.deadline, m.name, method_zh(j.method), format_thousands(static_cast<double>(fastest_n), 0), g.id,
                                   days_or_hours(fastest_s, Lang::kZh)));
    }
    jn = job_on(j, n);
  }
  const FinetuneEstimate e = estimate_finetune(m, g, jn, n);
  PriceInput pi;
  pi.text = f.price;
  pi.market = f.market ? parse_market(*f.market, "--market") : default_market_for_lang(f.lang);
  if (f.provider && !f.provider->empty()) pi.provider = f.provider;
  if (f.currency) pi.currency = parse_currency(*f.currency, "--currency");
  std::vector<GpuChoice> ranking;
  if (!f.no_ranking) ranking = rank_gpus_for_finetune(m, j, kMaxGpus, pi.market);
  const Price price = resolve_price(g.id, pi);
  Report rep = finetune_report(m, g, e, smallest, ranking, price);
  if (deadline_s) {
    rep.inputs["deadline_s"] = *deadline_s;
    for (Section& s : rep.sections) {
      if (s.key != "time") continue;
      s.rows.push_back(Row{"deadline_s", "Deadline", "工期", *deadline_s, Unit::kSeconds, ""});
      s.rows.push_back(Row{"deadline_met", "Finishes by the deadline", "工期内完成", e.wall_s <= *deadline_s ? 1.0 : 0.0, Unit::kFlag, ""});
    }
    if (e.wall_s > *deadline_s) {
      rep.warnings.push_back(Note{fmt::format("Misses the deadline of {}: {} on {} × {}.", days_or_hours(*deadline_s, Lang::kEn),
                                              days_or_hours(e.wall_s, Lang::kEn), n, g.id),
                                  fmt::format("赶不上 {} 的工期：{} 张 {} 需 {}。", days_or_hours(*deadline_s, Lang::kZh), n, g.id,
                                              days_or_hours(e.wall_s, Lang::kZh))});
    }
  }
  if (auto s = typed_inputs_section(echo)) rep.sections.insert(rep.sections.begin(), *s);
  return rep;
}

}  // namespace gpuplan
