// `gpuplan finetune`'s inputs as the front ends collect them (finetune_inputs.hpp)
// turned into a FinetuneRequest: each value parsed and checked, the InputError
// naming its flag.
#include "inputs/choice_words.hpp"
#include "inputs/finetune_inputs.hpp"
#include "hardware/hardware_words.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "gpuplan/error.hpp"
#include "gpuplan/finetune.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/typed_inputs.hpp"
#include "gpuplan/units.hpp"
#include "units/text_match.hpp"
#include "inputs/echoed_parse.hpp"

namespace gpuplan {

namespace {

// --base-weights: QLoRA's frozen weights.
QloraBase parse_base_weights(const std::string& text) {
  const std::string t = normalize_name(text);
  if (t == "nf4" || t == "bnb" || t == "bitsandbytes" || t == "bnb-nf4") return QloraBase::kNf4;
  if (t == "gptq" || t == "gptq-int4" || t == "autogptq") return QloraBase::kGptqInt4;
  throw InputError("--base-weights", fmt::format("--base-weights must be nf4 (bitsandbytes) or gptq-int4 (a GPTQ checkpoint through AutoGPTQ) (got '{}').", text),
                   fmt::format("--base-weights 须为 nf4（bitsandbytes）或 gptq-int4（经 AutoGPTQ 加载的 GPTQ 权重）（输入为 '{}'）。", text));
}

}  // namespace

FinetuneRequest make_finetune_request(const FinetuneInputs& f) {
  if (f.model.empty() && !f.model_spec) {
    throw InputError("--model", "--model is required (a catalog id such as llama-2-7b, or a config.json).",
                     "缺少 --model：请给出模型目录中的 id（如 llama-2-7b）或一个 config.json。");
  }
  if (f.gpu.empty()) throw InputError("--gpu", "--gpu is required (e.g. a100-80g, 4090).", "缺少 --gpu（如 a100-80g、4090）。");
  FinetuneRequest q;
  q.model = f.model_spec ? *f.model_spec : find_model(f.model);
  q.gpu = find_gpu(f.gpu);
  const ModelSpec& m = q.model;
  const GpuSpec& g = q.gpu;
  FinetuneJob& j = q.job;
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
  if (f.base_weights) {
    if (j.method != FineTune::kQlora) {
      throw InputError("--base-weights", "--base-weights applies to --method qlora only (full and LoRA fine-tuning keep 16-bit base weights).",
                       "--base-weights 只适用于 --method qlora（全参数与 LoRA 微调的基座权重是 16 位）。");
    }
    j.qlora_base = parse_base_weights(*f.base_weights);
  }
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
  std::vector<TypedInput>& echo = q.typed_inputs;
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
  if (f.mean_len) {
    if (!(*f.mean_len >= 1) || *f.mean_len > static_cast<double>(f.seq_len)) {
      throw InputError("--mean-len", fmt::format("--mean-len must be between 1 and --seq-len ({}) tokens.", f.seq_len),
                       fmt::format("--mean-len 须在 1 到 --seq-len（{}）个 token 之间。", f.seq_len));
    }
    j.mean_sample_tokens = *f.mean_len;
  }
  j.packing = f.packing;
  if (!f.optimizer.empty()) j.optimizer = parse_optimizer(f.optimizer, "--optimizer");
  if (f.precision) {
    j.precision = parse_precision(*f.precision, "--precision");
    if (j.precision != Precision::kBf16 && j.precision != Precision::kFp16) {
      throw InputError("--precision", fmt::format("--precision must be bf16 or fp16 for fine-tuning (got '{}').", *f.precision),
                       fmt::format("微调时 --precision 须为 bf16 或 fp16（输入为 '{}'）。", *f.precision));
    }
  }
  j.precision = training_precision(f.precision, g);  // refuses bf16 on V100
  if (f.zero) j.zero_stage = *f.zero;
  j.framework = &resolve_framework(f.software);
  j.settings = make_run_settings(f.software);
  // Gradient checkpointing: off when asked, else the named stack's default
  // (a stack that ships it off, as the HF Trainer does, runs without it),
  // on for the generic profile (every fine-tuning recipe of the seeds uses it).
  j.gradient_checkpointing = !f.no_checkpointing && (j.framework->id == "generic" || j.framework->recompute_default != Recompute::kNone);
  j.pure_bf16 = f.pure_bf16;
  if (f.pure_bf16) j.settings.pure_bf16 = true;
  if (f.optimizer_in_backward) j.settings.optimizer_in_backward = true;
  if (f.offload) {
    std::string item;
    auto take = [&] {
      const std::string w = normalize_name(item);
      item.clear();
      if (w.empty()) return;
      if (w == "optimizer" || w == "gradients") j.offload_optimizer = true;
      else if (w == "parameters" || w == "params") j.offload_params = true;
      else if (w == "activations") j.offload_activations = true;
      else {
        throw InputError("--offload", fmt::format("--offload may list optimizer, parameters and activations (got '{}').", w),
                         fmt::format("--offload 只能列出 optimizer、parameters、activations（输入为 '{}'）。", w));
      }
    };
    for (char ch : *f.offload) {
      if (ch == ',') take();
      else item += ch;
    }
    take();
  }
  validate_finetune(m, j);
  if (f.gpus && (*f.gpus < 1 || *f.gpus > 100000)) throw InputError("--gpus", "--gpus must be between 1 and 100,000.", "--gpus 须在 1 到 100,000 之间。");
  q.deadline_s = parse_duration_echoed(f.deadline, "--deadline", &echo);
  if (q.deadline_s && !(*q.deadline_s > 0)) {
    throw InputError("--deadline", "--deadline must be a positive duration (e.g. 3d, 12h, 1周).", "--deadline 须为正的时长（如 3天、12小时、1周）。");
  }
  q.method_name = f.method;
  q.gpus = f.gpus;
  q.deadline_text = f.deadline.value_or("");
  q.price_text = f.price;
  q.market_text = f.market;
  q.provider = f.provider;
  q.currency_text = f.currency;
  q.lang = f.lang;
  q.rank_gpus = !f.no_ranking;
  return q;
}

}  // namespace gpuplan
