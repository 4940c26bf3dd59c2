// Which of a layer's matrices carry a LoRA adapter (estimate/finetune/lora_adapters.hpp).
// The modules are PEFT's target names mapped onto the matmul list: q, k, v are
// the parts of the fused QKV (MLA: q_a/q_b or q_proj, kv_a_proj_with_mqa,
// kv_b_proj), o the output projection, gate/up the parts of the MLP's input
// matrix, down its output; a MoE layer's shared and routed experts are matched
// by the same names, routed ones once per expert.
#include "estimate/finetune/lora_adapters.hpp"

#include <algorithm>
#include <cstring>

#include "model/layer_ops.hpp"

namespace gpuplan {

namespace {

bool has(const std::vector<LoraModule>& v, LoraModule m) { return std::find(v.begin(), v.end(), m) != v.end(); }

bool named(const LayerMatmul& x, const char* name) { return std::strcmp(x.name, name) == 0; }

}  // namespace

bool is_lora(const Layout& l) { return l.finetune == FineTune::kLora || l.finetune == FineTune::kQlora; }

int64_t lora_rank_or_default(const Layout& l) {
  if (l.lora_rank > 0) return l.lora_rank;
  return l.finetune == FineTune::kQlora ? 64 : 8;
}

std::vector<LoraModule> lora_modules_or_default(const Layout& l) {
  if (!l.lora_modules.empty()) return l.lora_modules;
  // The attention projections, for LoRA and QLoRA alike, as PEFT chooses when
  // a config names no targets: its per-model-type table holds attention
  // projections only (TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING:
  // q_proj, v_proj for Llama; c_attn, the fused QKV, for Qwen-1). `gpuplan
  // finetune` names its modules (all linear layers for QLoRA, QLoRA §4).
  using M = LoraModule;
  return {M::kQ, M::kK, M::kV, M::kO};
}

std::vector<LoraAdapter> lora_adapters(const ModelSpec& m, bool moe_layer, const std::vector<LoraModule>& mods) {
  std::vector<LoraAdapter> out;
  auto add = [&](const LayerMatmul& x, double width) {
    const bool experts = x.experts > 0;
    out.push_back(LoraAdapter{x.k, width, x.tp_column, x.tp_row, experts ? x.experts : 1.0, experts});
  };
  const bool gated = m.mlp == MlpKind::kGated;
  for (const LayerMatmul& x : layer_matmuls(m, moe_layer)) {
    if (named(x, "qkv")) {
      if (has(mods, LoraModule::kQ)) add(x, x.part[0]);
      if (has(mods, LoraModule::kK)) add(x, x.part[1]);
      if (has(mods, LoraModule::kV)) add(x, x.part[2]);
    } else if (named(x, "q") || named(x, "q_down") || named(x, "q_up")) {
      if (has(mods, LoraModule::kQ)) add(x, x.n);
    } else if (named(x, "kv_down")) {
      if (has(mods, LoraModule::kK)) add(x, x.n);
    } else if (named(x, "kv_up")) {
      if (has(mods, LoraModule::kV)) add(x, x.n);
    } else if (named(x, "attn_out")) {
      if (has(mods, LoraModule::kO)) add(x, x.n);
    } else if (named(x, "mlp_in") || named(x, "shared_in") || named(x, "experts_in")) {
      // Gated: gate and up are the two parts; plain: the one matrix is "up".
      if (gated && has(mods, LoraModule::kGate)) add(x, x.part[0]);
      if (has(mods, LoraModule::kUp)) add(x, gated ? x.part[1] : x.n);
    } else if (named(x, "mlp_out") || named(x, "shared_out") || named(x, "experts_out")) {
      if (has(mods, LoraModule::kDown)) add(x, x.n);
    }
    // The router (Hugging Face's mlp.gate, not a gate_proj) stays frozen without an adapter.
  }
  return out;
}

double lora_layer_params(const ModelSpec& m, bool moe_layer, int64_t rank, const std::vector<LoraModule>& modules) {
  double n = 0;
  for (const LoraAdapter& a : lora_adapters(m, moe_layer, modules)) n += a.params(rank);
  return n;
}

}  // namespace gpuplan
