// One transformer layer's matrix multiplications, as the architecture defines
// them: the only place their shapes are written. Parameter counts, FLOPs,
// training step time, recompute policies and inference fold over this list
// (each adds what is its own: biases and norms, the TP/CP/EP split, kernels).
#pragma once
#include <array>
#include <cstddef>

#include "gpuplan/model.hpp"

namespace gpuplan {

// A weight matrix applied to every token that reaches it: [tokens × k]·[k × n].
struct LayerMatmul {
  const char* name;       // "qkv", "attn_out", "mlp_in", "mlp_out", "router", "experts_in", ...
  double n = 0;           // output width per token
  double k = 0;           // reduction (input) width
  // How Megatron-style tensor parallelism splits it (Shoeybi et al. 2019):
  // column-parallel splits n, row-parallel splits k, neither is replicated.
  bool tp_column = false;
  bool tp_row = false;
  // Routed experts: `experts` copies of the matrix, each applied to the tokens
  // routed to it (top-k of the tokens over the experts).
  double experts = 0;     // 0: not routed
  // The separate matrices a fused one stands for, in module order (q, k, v of
  // "qkv"; gate, up of a gated "mlp_in"): their output widths, summing to n.
  // Fixed storage: estimators fold over these lists in the planner's inner loop.
  std::array<double, 3> part{};
  int parts = 1;

  double weights() const { return n * k * (experts > 0 ? experts : 1); }
  const double* parts_begin() const { return part.data(); }
  const double* parts_end() const { return part.data() + parts; }
};

// A layer's matmuls in forward order (at most 10: MLA's five projections, a
// router, a shared expert's two and the routed experts' two).
struct LayerMatmuls {
  std::array<LayerMatmul, 10> items{};
  size_t count = 0;
  void push_back(const LayerMatmul& x) { items[count++] = x; }
  const LayerMatmul* begin() const { return items.data(); }
  const LayerMatmul* end() const { return items.data() + count; }
  size_t size() const { return count; }
  const LayerMatmul& operator[](size_t i) const { return items[i]; }
};

// The matmuls of layer kind `moe_layer` (a dense layer when false), in forward order:
// attention projections (fused QKV, or MLA's down/up projections), the output
// projection, then the MLP, or the router, the shared experts and the routed experts.
LayerMatmuls layer_matmuls(const ModelSpec& model, bool moe_layer);

}  // namespace gpuplan

namespace gpuplan {

// The two (plain) or three (gated: gate and up fused as one "in" matrix) matrices
// of one MLP of width `width`: "<prefix>_in" (column-parallel) then
// "<prefix>_out" (row-parallel); `experts` > 0 marks routed-expert copies.
std::array<LayerMatmul, 2> mlp_matmuls(const ModelSpec& model, int64_t width, const char* in_name, const char* out_name,
                                       double experts = 0);

}  // namespace gpuplan
