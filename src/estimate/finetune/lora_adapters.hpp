// LoRA adapters on a layer's frozen matrices (Hu et al. 2021): which matrices
// carry one and their shapes, read off the layer's matmul list
// (model/layer_ops.hpp), so parameter counts, memory and step time see the
// same adapters. Internal to the estimators.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

// One adapter: A is in×r, B is r×out, added to a frozen matrix of the layer.
struct LoraAdapter {
  double in = 0, out = 0;      // the adapted matrix's full input and output widths
  bool tp_column = false;      // the adapted matrix's tensor-parallel split:
  bool tp_row = false;         //   column splits `out`, row splits `in`
  double copies = 1;           // routed experts: one adapter per expert (PEFT matches each by name)
  bool experts = false;        // on routed-expert matrices (split by expert TP and EP)
  // Trainable parameters at rank r: r·(in + out) per copy (Hu et al. 2021 §4.1).
  double params(int64_t rank) const { return copies * static_cast<double>(rank) * (in + out); }
};

// The layout's adapted modules, or the default where it names none.
std::vector<LoraModule> lora_modules_or_default(const Layout& l);
bool is_lora(const Layout& l);
int64_t lora_rank_or_default(const Layout& l);  // 8 for LoRA (Hu et al. 2021), 64 for QLoRA (Dettmers et al. 2023)


// The adapters of one layer of kind `moe_layer`, in forward order.
std::vector<LoraAdapter> lora_adapters(const ModelSpec& m, bool moe_layer, const std::vector<LoraModule>& modules);

// Trainable parameters of those adapters (LoraAdapter::params summed).
double lora_layer_params(const ModelSpec& m, bool moe_layer, int64_t rank, const std::vector<LoraModule>& modules);

}  // namespace gpuplan
