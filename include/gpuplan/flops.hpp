// Training compute: FLOPs per token from the architecture, and the 6·N rule.
#pragma once
#include <cstdint>
#include <string>

#include "gpuplan/model.hpp"

namespace gpuplan {

enum class Recompute { kNone, kSelective, kFull };
const char* recompute_name(Recompute r);

struct FlopOptions {
  int64_t seq_len = 2048;
  // false: attention scores and context counted over the full s×s matrix, the
  // convention of Narayanan et al. 2021 (eq. 3), Korthikanti et al. 2022 and
  // PaLM (Chowdhery et al. 2022, appendix B), so MFU compares with theirs.
  // true: only the causal half that FlashAttention-style kernels compute.
  bool causal_half = false;
  Recompute recompute = Recompute::kNone;
};

struct FlopsPerToken {
  // Forward pass, per token, split by where the work is.
  double forward_linear_flop = 0;     // every weight matmul in the layers (active experts only)
  double forward_attention_flop = 0;  // Q·Kᵀ and softmax·V
  double forward_lm_head_flop = 0;    // logits: 2·h·V
  double forward_router_flop = 0;     // MoE gating: 2·h·E per MoE layer
  double forward_flop = 0;            // sum of the above
  double backward_flop = 0;           // 2× forward (gradients w.r.t. inputs and weights)
  double recompute_flop = 0;          // extra forward from activation recomputation
  double model_flop = 0;              // forward + backward: what MFU counts
  double hardware_flop = 0;           // model + recompute: what HFU counts
  double six_n_flop = 0;              // 6·N with N = active parameters (Kaplan et al. 2020, eq. 2.1)
  bool exact = true;                  // false for a bare parameter count (6·N only)
};

FlopsPerToken flops_per_token(const ModelSpec& model, const FlopOptions& options);

}  // namespace gpuplan
