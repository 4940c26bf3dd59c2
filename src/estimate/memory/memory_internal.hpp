// Pieces of the memory estimator shared by memory*.cpp; not a public header.
#pragma once
#include <cstdint>
#include <vector>

#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan::memory_detail {

// Parameters one GPU of pipeline stage `stage` holds, after TP and EP (before ZeRO).
struct StageParams {
  const std::vector<LayerRange>* ranges = nullptr;  // the stage's chunks (stage_split); none for a bare count
  int64_t layers = 0;
  double layer_dense = 0;     // attention, norms, dense MLPs, shared experts, routers of the stage's layers
  double layer_expert = 0;    // routed experts (÷ tp·ep)
  double embedding = 0;       // token (+ position) embedding on the first stage, LM head on the last
  double adapters = 0;        // LoRA/QLoRA adapter parameters (trainable)
  double largest_layer = 0;   // one layer's parameters (÷ tp, experts ÷ ep): ZeRO-3 gathers it whole
  bool has_lm_head = false;
  double dense() const { return layer_dense + embedding; }
  double total() const { return layer_dense + layer_expert + embedding + adapters; }
};

// `split` is stage_split(m, l), computed once per layout by the caller.
StageParams stage_params(const ModelSpec& m, const Layout& l, const StageSplit& split, int stage);

// Calls f(layer index) for every transformer layer of the stage, in model order.
template <class F>
void for_each_layer(const StageParams& p, F&& f) {
  if (!p.ranges) return;
  for (const LayerRange& r : *p.ranges) {
    for (int64_t layer = r.first; layer < r.first + r.count; ++layer) f(layer);
  }
}

// Bytes per parameter of a recipe, before any sharding.
struct StateBytes {
  double weight = 2;     // the copy the GEMMs read (bf16/fp16; fp32 for fp32 training)
  double fp8_cache = 0;  // fp8 weight + transposed fp8 copy cached by TransformerEngine
  double grad = 2;
  double optimizer = 12; // fp32 master + moments
  bool paged = false;    // bitsandbytes paged optimizer (unified memory)
};
StateBytes state_bytes(const Layout& l, const MemoryOptions& o);
// Optimizer state bytes per trained parameter beside any master copy: AdamW's
// two moments of `moment` bytes each, SGD's one, or bitsandbytes' two 1-byte
// blockwise states.
double moment_bytes(Optimizer o, double moment);

// Peak bytes per logit entry of the logits and the loss: the option when set,
// else the run's (framework profile's) Layout::loss_bytes_per_logit.
double loss_bytes_per_logit(const Layout& l, const MemoryOptions& o);
// The last stage's LM-head logits and loss copies for one micro-batch.
double logits_bytes(const ModelSpec& m, const Layout& l, const MemoryOptions& o);
// Bytes kept per layer for one micro-batch under full recompute: the layer's input.
double checkpoint_bytes_per_layer(const ModelSpec& m, const Layout& l);
// Extra activations on the first and last stages that are not in any layer.
double embedding_activation_bytes(const ModelSpec& m, const Layout& l, const MemoryOptions& o);
double head_activation_bytes(const ModelSpec& m, const Layout& l);

}  // namespace gpuplan::memory_detail
