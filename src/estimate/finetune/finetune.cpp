// Fine-tuning: trainable-parameter counts, FLOPs, memory, time and cost for
// full fine-tuning, LoRA and QLoRA. docs/finetune.md has every formula with
// its source. Memory is the training memory model's (memory*.cpp); time is the
// training step-time model's (step_time.cpp), which times the adapters and
// leaves out what frozen weights do not need (Layout::finetune).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuplan/error.hpp"
#include "gpuplan/finetune.hpp"
#include "gpuplan/flops.hpp"
#include "estimate/finetune/lora_adapters.hpp"
#include "units/text_match.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {


namespace {

// The job's unstated choices: the named stack's defaults (its LoRA rank and
// targets, its optimizer; data/frameworks), else gpuplan's: rank 8 on q,k,v,o
// for LoRA, rank 64 on every linear layer with paged 8-bit AdamW for QLoRA
// (Dettmers et al. 2023, §4 and qlora.py).
FinetuneJob with_defaults(const ModelSpec& m, FinetuneJob j) {
  if (j.method == FineTune::kNone) j.method = FineTune::kFull;
  if (!j.qlora_base) j.qlora_base = default_qlora_base(m);
  const FrameworkProfile* fw = j.framework && j.framework->id != "generic" ? j.framework : nullptr;
  const bool lora = j.method == FineTune::kLora || j.method == FineTune::kQlora;
  if (lora && j.lora_rank <= 0) {
    j.lora_rank = fw && fw->lora_rank_default > 0 ? fw->lora_rank_default : j.method == FineTune::kQlora ? 64 : 8;
  }
  if (lora && j.modules.empty()) {
    if (fw && !fw->lora_targets_default.empty()) j.modules = fw->lora_targets_default;
    // QLoRA's recipe adapts every linear layer (Dettmers et al. 2023, qlora.py);
    // PEFT's LoRA examples the attention's four.
    else if (j.method == FineTune::kQlora) j.modules = {LoraModule::kQ, LoraModule::kK, LoraModule::kV, LoraModule::kO, LoraModule::kGate, LoraModule::kUp, LoraModule::kDown};
    else j.modules = {LoraModule::kQ, LoraModule::kK, LoraModule::kV, LoraModule::kO};
  }
  if (!j.optimizer) {
    if (fw && fw->optimizer_default) j.optimizer = *fw->optimizer_default;
    else if (fw) j.optimizer = Optimizer::kAdamW;
    else j.optimizer = j.method == FineTune::kQlora ? Optimizer::kPagedAdamW8bit : Optimizer::kAdamW;
  }
  return j;
}

Layout job_layout(const FinetuneJob& j, int64_t gpus) {
  Layout l;
  l.dp = static_cast<int>(gpus);
  l.micro_batch = j.micro_batch;
  l.global_batch = j.global_batch > 0 ? j.global_batch : j.micro_batch * gpus;
  l.seq_len = j.seq_len;
  // Unstated: ZeRO-3 / FSDP full sharding on more than one GPU, or the highest
  // stage the named stack offers below it; on one GPU no sharding, or the
  // stack's own default where it offers no plain run (torchtune is FSDP-only;
  // sharding over one rank changes nothing).
  int zero = gpus > 1 ? 3 : 0;
  if (j.framework && !j.framework->supports_zero(zero)) {
    zero = j.framework->zero_default;
    if (gpus > 1) {
      zero = 3;
      while (zero > 0 && !j.framework->supports_zero(zero)) --zero;
    }
  }
  l.zero_stage = j.zero_stage.value_or(zero);
  l.recompute = j.gradient_checkpointing ? Recompute::kFull : Recompute::kNone;
  l.precision = j.precision;
  l.optimizer = *j.optimizer;
  l.finetune = j.method;
  l.lora_rank = j.lora_rank;
  l.lora_modules = j.modules;
  l.qlora_base = j.qlora_base.value_or(QloraBase::kNf4);
  l.pure_bf16 = j.pure_bf16;
  l.offload_optimizer = j.offload_optimizer;
  l.offload_params = j.offload_params;
  l.offload_activations = j.offload_activations;
  // The framework's software defaults (one place: apply_framework); an
  // explicit pure bf16 stays.
  static const FrameworkProfile& generic = find_framework("generic");
  apply_framework(j.framework ? *j.framework : generic, j.settings, l);
  if (j.pure_bf16) l.pure_bf16 = true;
  return l;
}

}  // namespace

double lora_params(const ModelSpec& m, int64_t rank, const std::vector<LoraModule>& modules) {
  double n = 0;
  for (int64_t layer = 0; layer < m.layers; ++layer) n += lora_layer_params(m, m.is_moe_layer(layer), rank, modules);
  return n;
}

void validate_finetune(const ModelSpec& m, const FinetuneJob& j) {
  if (m.count_only) {
    throw InputError("--model", "--model must be an architecture (catalog id or config.json) for fine-tuning.",
                     "--model：微调需要模型结构（模型目录中的 id 或 config.json）。");
  }
  const bool lora = j.method == FineTune::kLora || j.method == FineTune::kQlora;
  if (lora && j.lora_rank < 0) throw InputError("--rank", "--rank must be a positive integer.", "--rank 须为正整数。");
  if (lora && j.lora_rank > std::min<int64_t>(m.hidden, 4096)) {
    throw InputError("--rank", fmt::format("--rank {} exceeds the hidden size {} (a LoRA rank is at most min(d_in, d_out)).", j.lora_rank, m.hidden),
                     fmt::format("--rank {} 超过了隐藏层宽度 {}（LoRA 的秩最多为 min(d_in, d_out)）。", j.lora_rank, m.hidden));
  }
  if (j.seq_len < 1 || j.seq_len > (1 << 22)) {
    throw InputError("--seq-len", "--seq-len must be between 1 and 4,194,304 tokens.", "--seq-len 须在 1 到 4,194,304 个 token 之间。");
  }
  if (j.micro_batch < 1 || j.micro_batch > 65536) {
    throw InputError("--micro-batch", "--micro-batch must be between 1 and 65,536.", "--micro-batch 须在 1 到 65,536 之间。");
  }
  if (j.global_batch < 0) throw InputError("--global-batch", "--global-batch must be positive.", "--global-batch 须为正数。");
  require_range(j.epochs, 1e-6, 1e6, "--epochs", "a positive number of epochs", "正的轮数（epoch）");
  if (j.samples < 0 || !std::isfinite(j.samples)) throw InputError("--samples", "--samples must be a positive count.", "--samples 须为正数。");
  if (j.mean_sample_tokens < 0 || j.mean_sample_tokens > static_cast<double>(j.seq_len) || !std::isfinite(j.mean_sample_tokens)) {
    // A C++ caller's struct field (the front ends check their own input first).
    throw InputError("mean_sample_tokens", "mean_sample_tokens must be a positive number of tokens no longer than seq_len.",
                     "mean_sample_tokens 须为不超过 seq_len 的正 token 数。");
  }
  if (j.zero_stage && (*j.zero_stage < 0 || *j.zero_stage > 3)) throw InputError("--zero", "--zero must be 0, 1, 2 or 3.", "--zero 须为 0、1、2 或 3。");
}

FinetuneFlops finetune_flops(const ModelSpec& m, const FinetuneJob& job0) {
  const FinetuneJob j = with_defaults(m, job0);
  FinetuneFlops f;
  FlopOptions fo;
  fo.seq_len = j.seq_len;
  fo.recompute = j.gradient_checkpointing ? Recompute::kFull : Recompute::kNone;
  const FlopsPerToken base = flops_per_token(m, fo);
  f.recompute_flop = base.recompute_flop;
  if (j.method == FineTune::kFull) {
    f.forward_flop = base.forward_flop;
    f.backward_flop = base.backward_flop;
  } else {
    // Frozen weights need gradients with respect to their inputs (to reach the
    // adapters below them) but none with respect to themselves: one matmul per
    // weight in the backward pass instead of two. The attention core has no
    // weights; its backward (dQ, dK, dV) stays 2× its forward. Each adapter
    // costs 2·A forward and 4·A backward (Hu et al. 2021; Dettmers et al. 2023).
    f.adapter_params = lora_params(m, j.lora_rank, j.modules);
    const double A = f.adapter_params;
    f.forward_flop = base.forward_flop + 2 * A;
    f.backward_flop = base.forward_linear_flop + base.forward_lm_head_flop + base.forward_router_flop +
                      2 * base.forward_attention_flop + 4 * A;
    if (j.gradient_checkpointing) f.recompute_flop += 2 * A;
  }
  f.total_flop = f.forward_flop + f.backward_flop + f.recompute_flop;
  f.ratio_to_6n = (f.forward_flop + f.backward_flop) / base.six_n_flop;
  return f;
}

// QLoRA's own recipe (bf16 adapters, paged optimizer) without a named stack;
// a named stack runs PEFT's adapters, fp32 on a 16-bit base since PEFT 0.12
// (get_peft_model autocast_adapter_dtype=True), LLaMA-Factory and Unsloth
// casting them to fp32 themselves.
bool uses_qlora_recipe(const FinetuneJob& job) {
  return job.method == FineTune::kQlora && (!job.framework || job.framework->id == "generic");
}

FinetuneEstimate estimate_finetune(const ModelSpec& m, const GpuSpec& g, FinetuneJob job, int64_t gpus) {
  FinetuneEstimate e;
  job = with_defaults(m, job);
  validate_finetune(m, job);
  e.job = job;
  const bool lora = job.method != FineTune::kFull;
  const bool qlora_recipe = uses_qlora_recipe(job);
  e.layout = job_layout(job, gpus);
  e.flops = finetune_flops(m, job);

  // Memory: the training memory model, with the adapter states scaled from its
  // q,k,v,o adapters to the chosen modules (adapter weights, gradients and
  // AdamW states are 4 + 4 + 8 bytes per parameter there).
  MemoryOptions mo;
  mo.suggest = false;
  mo.scope = job.scope;
  e.memory = estimate_memory(m, e.layout, g, mo);
  if (lora && e.memory.trainable_params_on_gpu > 0) {
    MemoryBreakdown& b = e.memory;
    const double theirs = b.trainable_params_on_gpu;
    const double mine = e.flops.adapter_params / (static_cast<double>(e.layout.tp) * e.layout.pp);
    const double ratio = mine / theirs;
    const double allocated = b.weights_bytes + b.gradients_bytes + b.optimizer_bytes + b.activations_bytes + b.logits_bytes +
                             b.comm_buffers_bytes + b.zero3_gathered_bytes;
    const double frag = allocated > 0 ? b.fragmentation_bytes / allocated : 0;
    // QLoRA's recipe (Dettmers et al. 2023, qlora.py): adapters in the bf16
    // compute dtype (2 + 2 bytes of weight and gradient instead of 4 + 4) and a
    // paged optimizer whose states live in unified memory and are evicted to
    // the host under pressure, so they are not part of the device peak.
    const double scale = qlora_recipe ? ratio * 0.5 : ratio;
    const double d_w = (scale - 1) * b.gradients_bytes;  // adapter weights: same bytes and sharding as their gradients
    const double d_g = (scale - 1) * b.gradients_bytes;
    double d_o = (ratio - 1) * b.optimizer_bytes;
    if (qlora_recipe && *job.optimizer == Optimizer::kPagedAdamW8bit) {
      b.paged_optimizer_bytes += b.optimizer_bytes + d_o;  // two 1-byte states (the memory model sized them so)
      d_o = -b.optimizer_bytes;
    }
    b.weights_bytes += d_w;
    b.gradients_bytes += d_g;
    b.optimizer_bytes += d_o;
    const double d = d_w + d_g + d_o;
    b.fragmentation_bytes += d * frag;
    b.peak_bytes += d * (1 + frag);
    b.headroom_bytes = b.capacity_bytes - b.safety_margin_bytes - b.peak_bytes;
    b.fits = b.headroom_bytes >= 0;
    b.trainable_params_on_gpu = mine;
  }
  e.fits = e.memory.fits;

  // Time: the training step-time model for the layout; with LoRA/QLoRA it
  // times the adapters, skips the frozen weights' gradients, optimizer step and
  // reduction, and for QLoRA the NF4 dequantisation (step_time_layer.cpp).
  // Time at the length a step's sequences run at: packed rows and fixed-length
  // samples fill seq_len; padded samples with micro-batch 1 run at their mean
  // length rounded up to a multiple of 8 (pad_to_multiple_of=8, LLaMA-Factory
  // src/llamafactory/train/sft/workflow.py), the attention's quadratic term
  // taken at that mean.
  const bool padded_short = job.mean_sample_tokens > 0 && !job.packing && job.micro_batch == 1;
  e.step_tokens_per_sequence = padded_short ? std::min<double>(static_cast<double>(job.seq_len), std::ceil(job.mean_sample_tokens / 8) * 8)
                                            : static_cast<double>(job.seq_len);
  Layout timed = e.layout;
  timed.seq_len = static_cast<int64_t>(e.step_tokens_per_sequence);
  e.step = estimate_step_time(m, timed, g);
  e.step_s = e.step.step_s;
  const double gbs = static_cast<double>(e.layout.effective_global_batch());
  const double mean = job.mean_sample_tokens > 0 ? job.mean_sample_tokens : static_cast<double>(job.seq_len);
  e.tokens = job.samples * mean * job.epochs;  // the dataset's own tokens, not the padding
  // Packed: the samples fill rows of seq_len tokens, a step trains gbs rows.
  e.sequences_per_epoch = job.packing && job.mean_sample_tokens > 0 ? std::ceil(job.samples * mean / static_cast<double>(job.seq_len))
                                                                    : job.samples;
  e.steps = std::ceil(e.sequences_per_epoch * job.epochs / gbs);
  e.wall_s = e.steps * e.step_s;
  // A step's own tokens: its sequences' real lengths (a padded sample holds
  // the mean; a packed or fixed-length row seq_len).
  const double real_per_sequence = job.packing || job.mean_sample_tokens <= 0 ? static_cast<double>(job.seq_len) : mean;
  e.tokens_per_s = gbs * real_per_sequence / e.step_s;
  e.gpu_hours = e.wall_s * static_cast<double>(gpus) / kSecondsPerHour;
  return e;
}

int64_t smallest_fitting_gpus(const ModelSpec& m, const GpuSpec& g, const FinetuneJob& job, int64_t max_gpus) {
  for (int64_t n = 1; n <= max_gpus; n *= 2) {
    FinetuneJob j = job;
    // A fixed global batch that n GPUs cannot split evenly is re-derived as micro × n.
    if (j.global_batch > 0 && j.global_batch % (j.micro_batch * n) != 0) j.global_batch = 0;
    const FinetuneEstimate e = estimate_finetune(m, g, j, n);
    // A count the named stack cannot run (Unsloth 2024.8: one GPU) is no answer.
    if (j.framework && !framework_cannot_run(*j.framework, e.layout).empty()) return 0;
    if (e.fits) return n;
  }
  return 0;
}

std::vector<GpuChoice> rank_gpus_for_finetune(const ModelSpec& m, const FinetuneJob& job, int64_t max_gpus, std::optional<Market> market) {
  std::vector<GpuChoice> out;
  for (const GpuSpec& g : gpu_catalog()) {
    if (market ? !default_price(g.id, *market) : !default_price(g.id)) continue;
    if (!g.has(job.precision) && !g.has(Precision::kFp16)) continue;
    FinetuneJob j = job;
    if (!g.has(j.precision)) j.precision = Precision::kFp16;  // V100: no bf16
    const int64_t n = smallest_fitting_gpus(m, g, j, max_gpus);
    if (n == 0) continue;
    FinetuneJob jj = j;
    if (jj.global_batch > 0 && jj.global_batch % (jj.micro_batch * n) != 0) jj.global_batch = 0;
    const FinetuneEstimate e = estimate_finetune(m, g, jj, n);
    PriceInput pi;
    pi.market = market;
    const Price p = resolve_price(g.id, pi);
    const double per_hour = convert(0.5 * (p.low_per_gpu_hour + p.high_per_gpu_hour), p.currency, Currency::kUsd);
    out.push_back(GpuChoice{g.id, n, e.wall_s, e.gpu_hours, e.gpu_hours * per_hour, per_hour});
  }
  std::sort(out.begin(), out.end(), [](const GpuChoice& a, const GpuChoice& b) { return a.cost_usd < b.cost_usd; });
  return out;
}

}  // namespace gpuplan
