// Model states: which parameters a GPU holds, and how many bytes each costs.
//
// Bytes per parameter (Rajbhandari et al. 2020, "ZeRO", section 3.1, and the
// Megatron-LM distributed-optimizer notes, docs/source/distrib_optimizer.md):
//
//   recipe                           weights  grads  optimizer            total
//   bf16/fp16 mixed precision AdamW     2       2    4 master + 4 m + 4 v   16
//   pure bf16 AdamW (torchtune)         2       2    2 m + 2 v               8
//   fp8 GEMMs (TransformerEngine)       2 (+2)  2    12                 16 (+2)
//     under Megatron (fp32 main_grad)   2 (+2)  4    12                 18 (+2)
//   8-bit AdamW (bitsandbytes), mixed   2       2    4 master + 1 m + 1 v   10
//   8-bit AdamW, pure bf16              2       2    1 m + 1 v               6
//   SGD with momentum, mixed            2       2    4 master + 4 m          12
//   fp32 AdamW                          4       4    4 m + 4 v               16
//
// The seed article's "14 bytes per parameter" (seed 004: optimizer 8Ψ + grads
// 4Ψ + weights 2Ψ) is wrong: it counts fp32 gradients but no fp32 master copy.
// Mixed-precision Adam keeps the bf16/fp16 weights the GEMMs read (2), their
// gradients (2), and an fp32 master copy with two fp32 moments (4 + 4 + 4) —
// 16Ψ in ZeRO's own accounting ("2Ψ + 2Ψ + KΨ with K = 12").
#include <algorithm>
#include <cmath>

#include "estimate/memory/memory_internal.hpp"
#include "estimate/finetune/lora_adapters.hpp"

namespace gpuplan::memory_detail {

double moment_bytes(Optimizer o, double moment) {
  // bitsandbytes 8-bit optimizers keep each state in 1 byte, blockwise quantised
  // with one fp32 absmax per 2048 values (Dettmers et al. 2022, arXiv:2110.02861).
  constexpr double q8 = 1 + 4.0 / 2048;
  switch (o) {
    case Optimizer::kAdamW: return 2 * moment;  // momentum and variance
    case Optimizer::kAdamW8bit:
    case Optimizer::kPagedAdamW8bit: return 2 * q8;
    case Optimizer::kSgdMomentum: return moment;  // momentum only
  }
  return 2 * moment;
}

StateBytes state_bytes(const Layout& l, const MemoryOptions&) {
  StateBytes b;
  const bool fp32 = l.precision == Precision::kFp32 || l.precision == Precision::kTf32;
  const bool master = !fp32 && !l.pure_bf16;  // a separate fp32 master copy exists
  b.weight = fp32 ? 4 : 2;
  b.grad = fp32 ? 4 : 2;
  // Megatron accumulates main_grad in fp32 (--accumulate-allreduce-grads-in-fp32,
  // the default for bf16): 4 bytes per parameter instead of 2.
  if (l.fp32_grad_accum && !fp32) b.grad = 4;
  // FP8 training (TransformerEngine): weights stay bf16 with an fp32 master; the
  // GEMMs read an fp8 cast of each weight and, for the backward pass on Hopper, an
  // fp8 transposed copy, both cached between micro-batches (TransformerEngine
  // issues #1261, #1764): +2 bytes per GEMM parameter.
  if (l.precision == Precision::kFp8 || l.precision == Precision::kInt8) b.fp8_cache = 2;
  // Bytes of one Adam moment: fp32, or bf16 under pure bf16 and where the
  // stack keeps its moments in bf16 beside an fp32 master (DeepSeek-V3 §3.3.3
  // "Low-Precision Optimizer States"; profile optimizer_moments).
  const double state = fp32 ? 4 : (l.pure_bf16 || l.bf16_moments ? 2 : 4);
  const double master_bytes = master ? 4 : 0;
  b.optimizer = master_bytes + moment_bytes(l.optimizer, state);
  b.paged = l.optimizer == Optimizer::kPagedAdamW8bit;
  return b;
}

StageParams stage_params(const ModelSpec& m, const Layout& l, const StageSplit& split, int stage) {
  StageParams p;
  const double tp = l.tp;
  if (m.count_only) {
    // No architecture: the count is spread evenly over the stages.
    p.layer_dense = m.count_only_params / (tp * l.pp);
    p.layers = 0;
    p.has_lm_head = stage == l.pp - 1;
    return p;
  }
  // The stage's layers as Megatron places them (stage_split: even, or the
  // first and last stages lighter), chunk by chunk with interleaving.
  p.ranges = &split.chunks[static_cast<size_t>(stage)];
  p.layers = split.layers(stage);
  const double h = static_cast<double>(m.hidden);
  const double attention = attention_params_per_layer(m) + m.norms_per_layer * norm_params(m, m.hidden);
  const int64_t r = lora_rank_or_default(l);
  const bool lora = is_lora(l);
  // LoRA adapters (Hu et al. 2021) on the adapted modules: A is in×r, B r×out,
  // one per routed expert where the experts' matrices are adapted.
  const std::vector<LoraModule> modules = lora ? lora_modules_or_default(l) : std::vector<LoraModule>{};
  double adapter_kind[2] = {-1, -1};
  // A layer's parameters depend only on whether it is a MoE layer: each kind is
  // computed once, then added in layer order (the same sums, bit for bit).
  double kind_dense[2] = {-1, -1}, kind_expert[2] = {0, 0};
  for_each_layer(p, [&](int64_t layer) {
    const int kind = m.is_moe_layer(layer) ? 1 : 0;
    if (kind_dense[kind] < 0) {
      double dense = attention;
      double expert = 0;
      if (kind == 1) {
        const MoeSpec& e = *m.moe;
        expert = e.routed_experts * dense_mlp_params(m, e.expert_intermediate);
        dense += (e.shared_intermediate > 0 ? dense_mlp_params(m, e.shared_intermediate) : 0) + h * e.routed_experts;
      } else {
        dense += dense_mlp_params(m, m.intermediate);
      }
      kind_dense[kind] = dense;
      kind_expert[kind] = expert;
    }
    const double dense = kind_dense[kind], expert = kind_expert[kind];
    // Tensor parallelism splits every weight matrix t ways (Shoeybi et al. 2019);
    // the norms are replicated but small, and are divided too.
    p.layer_dense += dense / tp;
    // The routed experts split over expert TP × EP (etp = tp unless folded).
    const double etp = l.expert_tp();
    p.layer_expert += expert / (etp * l.ep);
    if (lora && adapter_kind[kind] < 0) adapter_kind[kind] = lora_layer_params(m, kind == 1, r, modules);
    if (lora) p.adapters += adapter_kind[kind] / tp;
    p.largest_layer = std::max(p.largest_layer, dense / tp + expert / (etp * l.ep));
  });
  const double vocab_table = static_cast<double>(m.vocab) * h / tp;  // vocab-parallel embedding
  if (stage == 0) p.embedding += vocab_table + static_cast<double>(m.learned_positions) * h / tp;
  if (stage == l.pp - 1) {
    p.has_lm_head = true;
    p.embedding += norm_params(m, m.hidden) / tp;  // final norm
    // An untied LM head is its own matrix. A tied one is the embedding itself
    // when one stage holds both; with pp > 1 Megatron keeps a copy on the last
    // stage and all-reduces their gradients, so the last stage holds V·h too.
    if (!m.tied_embeddings || l.pp > 1) p.embedding += vocab_table;
  }
  return p;
}

}  // namespace gpuplan::memory_detail
