// What a selective-recompute policy keeps and re-runs, for the memory and the
// step-time models alike (one place, so they cannot disagree).
#pragma once
#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

// torchtitan's op-level policy (pytorch/torchtitan, torchtitan/parallelisms/
// parallelize_llama.py, _apply_ac_to_transformer_block at 2024-12: every op
// in _save_list — aten.mm, the SDPA flash/efficient kernels, reduce_scatter —
// is MUST_SAVE "except every second mm"; everything else PREFER_RECOMPUTE).
// The matmuls of a block run in its modules' order: wq, wk, wv, wo, then
// w1, w3, w2 (gated; w1, w2 plain), so the 2nd, 4th and 6th are recomputed:
// wk, wo and w3 for a Llama block. The attention output is saved, the block
// input is the checkpoint, and norms, rotary and activations are recomputed.
struct OpPolicySplit {
  double recomputed_gemm_flop = 0;  // forward GEMM FLOPs per token re-run (whole layer, before TP)
  double gemm_flop = 0;             // all forward GEMM FLOPs per token of the layer
  double saved_tp_elems = 0;        // saved mm outputs per token that TP splits (q, v, w1 outputs...)
  double saved_rep_elems = 0;       // saved mm outputs per token that TP leaves whole (wo, w2 outputs; split by SP)
  double recomputed_row_share = 0;  // named policies: share of row-parallel matmuls re-run (their collectives with them)
};
OpPolicySplit op_policy_split(const ModelSpec& model, bool moe_layer);

// MaxText's named-save remat policies (kSaveDots, kSaveDotExceptMlp,
// kSaveQkvProj; AI-Hypercomputer/maxtext src/MaxText/layers/decoders.py
// get_remat_policy / minimal_policy at maxtext-v0.1.0, MaxText/layers/models.py
// at 2024-06): the outputs tagged query_proj/key_proj/value_proj/qkv_proj,
// out_proj, mlpwi(_0/_1) and mlpwo that the policy names are saved, every
// other matmul output is re-run. The attention projections are the qkv group
// (MLA: the up-projected q, k, v are the tagged ones, its down-projections are
// not); the MLP group covers dense, shared-expert and routed-expert matrices
// (moe.py tags the expert GEMM outputs mlpwi_0/_1 and mlpwo); the router is
// never tagged. `recomputed_row_share` is the share of the block's row-parallel
// matmuls (attention out, MLP out) re-run: their TP collectives run again.
// Any other policy: everything saved, nothing recomputed (not a named policy).
OpPolicySplit named_policy_split(const ModelSpec& model, bool moe_layer, SelectiveRecompute policy);
bool is_named_save_policy(SelectiveRecompute policy);

// DeepSeek-V3's policy (SelectiveRecompute::kNormMlaUp, arXiv:2412.19437
// §3.2.3): the share of the layer's forward GEMM FLOPs re-run, MLA's query and
// key/value up-projections (q_up, kv_up); 0 for a model without MLA.
double norm_mla_up_gemm_share(const ModelSpec& model, bool moe_layer);

// torchtitan's every-N-th-layer policy: the share of a stage's `layers`
// blocks that are checkpointed (block indices divisible by N).
double layer_policy_share(int64_t layers, int every);

}  // namespace gpuplan
