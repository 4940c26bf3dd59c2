// One transformer layer's cost for one micro-batch on one rank: every GEMM of
// the layer's matmul list (layer_ops.hpp) at its TP/EP-split shape, attention,
// element-wise work, the exposed TP/CP/EP collectives and the host floor.
// docs/step-time.md states each formula with its source.
#include <algorithm>
#include <cmath>

#include "estimate/kernels/attention_kernels.hpp"
#include "estimate/finetune/lora_adapters.hpp"
#include "model/layer_ops.hpp"
#include "estimate/step_time/step_time_internal.hpp"

namespace gpuplan::step_detail {

GemmPassTimes add_gemm(const Ctx& c, LayerCost& lc, double m, double n, double k, double count, bool weight_grad) {
  return add_gemm_at(c, lc, c.gemm_p, m, n, k, count, weight_grad);
}

GemmPassTimes add_gemm_at(const Ctx& c, LayerCost& lc, Precision p, double m, double n, double k, double count, bool weight_grad) {
  GemmPassTimes t;
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0) return t;
  // `count` same-shape products run as one batched or grouped kernel.
  t.fwd_s = gemm_time_s(c.g, p, m, n, k, c.o, count);
  // Backward: dX = dY·Wᵀ (m×k output, reduce over n) and dW = Xᵀ·dY (k×n output, reduce over m).
  t.dgrad_s = gemm_time_s(c.g, p, m, k, n, c.o, count);
  t.wgrad_s = weight_grad ? gemm_time_s(c.g, p, k, n, m, c.o, count) : 0.0;
  lc.gemm_f += t.fwd_s;
  lc.kernels_f += 1;
  lc.gemm_b += t.dgrad_s + t.wgrad_s;
  const double flop = 2.0 * m * n * k * count;
  lc.gemm_flop += flop;
  // Against the step's GEMM peak: a 16-bit GEMM in an FP8 run counts at its lower rate.
  lc.gemm_flop_over_eff += flop / gemm_efficiency(c.g, p, m, n, k, c.ceiling, count) * (c.g.peak(c.gemm_p) / c.g.peak(p));
  return t;
}

double stream_s(const Ctx& c, double bytes, double kernels) { return bytes / c.hbm + kernels * c.o.kernel_overhead_s; }

namespace {

// A collective over `n` ranks of a group: ring inside one node, hierarchical
// (intra-node reduce-scatter, inter-node all-reduce of 1/local, intra-node
// all-gather) when the group spans nodes (TP = 16 on 8-GPU nodes).
double group_allreduce_s(const Ctx& c, double bytes, int64_t stride, int64_t n) {
  if (stride * n <= c.node) return ring_allreduce_s(bytes, static_cast<int>(n), c.intra);
  const int64_t local = std::max<int64_t>(1, std::min<int64_t>(n, c.node / std::max<int64_t>(1, stride)));
  return hierarchical_allreduce_s(bytes, static_cast<int>(local), static_cast<int>(n / local), c.intra, c.inter);
}
double group_rs_ag_s(const Ctx& c, double bytes, int64_t stride, int64_t n) {
  if (stride * n <= c.node) return 2 * ring_reduce_scatter_s(bytes, static_cast<int>(n), c.intra);
  const int64_t local = std::max<int64_t>(1, std::min<int64_t>(n, c.node / std::max<int64_t>(1, stride)));
  return 2 * hierarchical_reduce_scatter_s(bytes, static_cast<int>(local), static_cast<int>(n / local), c.intra, c.inter);
}

// What a KV transfer of ring attention can hide behind: the causal diagonal
// step's share of each pass and one unmasked backward step.
struct CpOverlap {
  double diag_f = 0, diag_b = 0, step_b = 0;
};

// The attention core in a fused kernel (FlashAttention-2/3, cuDNN, SDPA), with
// ring attention's or Ulysses's split of it and PyTorch's ring glue.
CpOverlap add_fused_attention(const Ctx& c, LayerCost& lc, double qk_dim, double v_dim) {
  const ModelSpec& m = c.m;
  const Layout& l = c.l;
  const double tp = l.tp;
  const double b = static_cast<double>(l.micro_batch);
  const double s = static_cast<double>(l.seq_len);
  const double heads_local = static_cast<double>(m.heads) / tp;
  const double q_rows = s / l.cp;
  const bool ulysses = l.cp > 1 && cp_is_ulysses(l.cp_exchange);
  CpOverlap ov;
  // A fused kernel (FlashAttention-2/3, cuDNN, SDPA) skips fully masked
  // blocks: the causal half is computed (Dao 2023, FlashAttention-2 §3.1).
  // Its rate is the measured one for that kernel, pass, mask, head dim and
  // key length (attention_kernels.cpp, data/kernels/attention.json); the
  // backward counts 2.5 forward FLOPs (five matmuls, one recomputing QKᵀ),
  // as the kernel papers count it.
  //
  // Context parallelism (ring attention, Liu et al. 2023) with causal load
  // balancing as PyTorch's context_parallel and TransformerEngine's ring lay
  // it out (torch/distributed/tensor/experimental/_attention.py
  // _templated_ring_attention, round-robin balance on by default;
  // TransformerEngine v1.11 transformer_engine/pytorch/attention.py
  // AttnFuncWithCPAndKVP2P, l.1711): the sequence is cut into 2·cp chunks and
  // rank r holds chunks r and 2cp−1−r, s/cp queries. Of its cp steps one is
  // the causal diagonal (its own s/cp keys); in each of the cp − 1 others the
  // rank either runs all its queries against the first half of the arriving
  // keys (a step i ≤ r: s/cp × s/(2cp)) or the second half of its queries
  // against all of them (i > r: s/(2cp) × s/cp), unmasked. Every step is 1/cp
  // of the rank's FLOPs; rank cp−1 runs only the first shape and rank 0 only
  // the second, and the next layer waits for the slowest rank, so each
  // unmasked step costs the slower of the two.
  const double keys = (s + 1) / 2;
  const double flop = 2.0 * b * q_rows * keys * heads_local * (qk_dim + v_dim);
  const double diag = 1.0 / l.cp;
  const double hd = 0.5 * (qk_dim + v_dim);
  // Thread blocks and waves of one call: the forward runs one thread block per
  // 128 query rows of each (sequence, head) pair and loops over the keys
  // (FlashAttention-2's forward tile, Dao 2023 §3.2); the backward runs one
  // per 128 key columns and loops over the queries (Dao-AILab/flash-attention
  // csrc/flash_attn/src/flash_bwd_launch_template.h @073afd5
  // run_mha_bwd_hdim128: Flash_bwd_kernel_traits<128, 64, 128, …>, a grid of
  // ⌈seqlen_k/128⌉ × batch × heads). The tables were measured at a fixed grid
  // (batch·seq = 16k, FA3 Fig. 5–6) with the loop length as their `seq`, so a
  // call's rate is read at the length its blocks loop over. That grid's own
  // last wave was 97% full on the H100 it ran on, a loss the measured rate
  // already holds: it is divided out and the call's own fill applied.
  const double units = c.g.compute_units;
  auto wave_util = [&](double heads, double tiled_len) {
    const double blocks = b * heads * std::ceil(tiled_len / 128.0);
    return blocks / (std::ceil(blocks / units) * units);
  };
  // One call of `q` queries against `k` keys over `heads` heads per sequence,
  // carrying `share` of the pass's FLOPs.
  auto call_s = [&](AttentionPass pass, bool masked, double share, double f, double q, double k, double heads) {
    const bool fwd = pass == AttentionPass::kForward;
    const double loop = fwd ? k : q;
    const double rate = attention_training_rate_flop_per_s(c.g, l.attention, pass, masked, hd, loop);
    return f * share / rate / wave_util(heads, fwd ? q : k) * attention_table_wave_fill(c.g, l.attention, pass, hd, loop);
  };
  // A pass's time on the causal diagonal step and on the cp − 1 unmasked ones.
  struct PassSplit { double diagonal_s, rest_s; };
  auto pass_s = [&](AttentionPass pass, double f) {
    if (ulysses) {
      // Ulysses (Jacobs et al. 2023 §3.1): after the all-to-alls each rank
      // holds all s tokens of heads/(tp·cp) heads and runs the framework's
      // ordinary causal kernel once per pass, no load imbalance: the whole
      // pass's FLOPs in one call of s queries against s keys. Same FLOPs as
      // the ring's s/cp × (s+1)/2 over heads/tp.
      return PassSplit{call_s(pass, true, 1.0, f, s, s, heads_local / l.cp), 0.0};
    }
    PassSplit p{call_s(pass, true, diag, f, q_rows, q_rows, heads_local), 0.0};
    if (l.cp > 1) {
      const double half = q_rows / 2;
      p.rest_s = (l.cp - 1) * std::max(call_s(pass, false, diag, f, q_rows, half, heads_local),
                                       call_s(pass, false, diag, f, half, q_rows, heads_local));
    }
    return p;
  };
  const double steps = ulysses ? 1 : l.cp;
  const PassSplit fwd = pass_s(AttentionPass::kForward, flop);
  const PassSplit bwd = pass_s(AttentionPass::kBackward, 2.5 * flop);
  lc.attn_f += fwd.diagonal_s + fwd.rest_s + steps * c.o.kernel_overhead_s;
  lc.attn_b += bwd.diagonal_s + bwd.rest_s + 2 * steps * c.o.kernel_overhead_s;
  if (l.cp > 1 && !ulysses) {
    // The diagonal step's share of the pass, and one unmasked step's: what a
    // KV transfer waited for before or after that step can hide behind.
    ov.diag_f = fwd.diagonal_s;
    ov.diag_b = bwd.diagonal_s;
    ov.step_b = (lc.attn_b - ov.diag_b) / (l.cp - 1);
  }
  if (l.cp > 1 && l.cp_exchange == CpExchange::kPytorchAllGather) {
    // PyTorch's ring (torch/distributed/tensor/experimental/_attention.py at
    // torch 1963fc8, torchtitan's 2024-12 benchmark), eager ops around the
    // kernels, bytes per element (E: this rank's output elements, KV: its K
    // and V elements after torchtitan's repeat_kv):
    //  forward, each step after the first: the step's output to fp32 (2+4),
    //   _SDPAMerger's out − sigmoid(lse_b − lse)·(out − out_b): a subtract
    //   (4+4+4), the product (4+4) and the subtract (4+4+4) = 38 B over E
    //   (the slowest rank merges whole blocks), and torch.cat of K and V for
    //   the rotater (2+2 over KV, issued every step although only the first
    //   all-gathers); the first step's output to fp32 (6) and the result back
    //   to bf16 (6): 12 B over E;
    //  backward: fp32 zeros for dQ, dK, dV (4 B); each step dQ += (4+2+4) and
    //   dK, dV += (10) then torch.cat for the all-to-all (4+4); after the first
    //   step _partial_update's chunk add (10 over half) and torch.cat (4+4):
    //   21 B over KV; K, V cat (4) as forward; dQ and dK, dV back to bf16 (6).
    const double E = b * q_rows * heads_local * v_dim;
    const double KV = b * q_rows * heads_local * (qk_dim + v_dim);
    const double n = l.cp;
    const double fwd_bytes = (n - 1) * (38.0 * E + 4.0 * KV) + 12.0 * E;
    const double bwd_bytes = 4.0 * (E + KV) + n * 10.0 * E + 18.0 * KV + (n - 1) * (21.0 + 4.0) * KV + 6.0 * (E + KV);
    lc.attn_f += stream_s(c, fwd_bytes, 5 * (n - 1) + 2);
    lc.attn_b += stream_s(c, bwd_bytes, 6 * n + 4);
  }
  return ov;
}

// Context parallelism: ring exchange of K and V chunks (cp−1 steps),
// overlapped with the attention blocks it feeds (Liu et al. 2023, Ring
// Attention); backward sends K, V and their gradients. Or Ulysses's
// all-to-alls, which nothing hides.
void add_cp_exchange(const Ctx& c, LayerCost& lc, double qk_dim, double v_dim, const CpOverlap& ov) {
  const ModelSpec& m = c.m;
  const Layout& l = c.l;
  const double tp = l.tp;
  const double M = c.tokens;
  const double act_bytes = 2.0;
  const double heads_local = static_cast<double>(m.heads) / tp;
  const bool ulysses = l.cp > 1 && cp_is_ulysses(l.cp_exchange);
  if (l.cp > 1 && l.cp_exchange == CpExchange::kPytorchAllGather && !keeps_attention_scores(l)) {
    // PyTorch's context_parallel with torchtitan's default rotate method
    // "allgather" (torchtitan@3f20451 config_manager.py
    // --experimental.context_parallel_rotate_method; _attention.py
    // _AllGatherRotater: "Only one communication will be done"): the
    // all-gather of every rank's K and V (repeated to all heads by torchtitan's
    // repeat_kv) is issued before the first step and waited for before the
    // second, so only the diagonal step hides it. The backward all-gathers K
    // and V again the same way and passes the fp32 dK, dV accumulators to the
    // next rank by one all-to-all per step (_AllToAllRotater, permute_tensor),
    // each waited for after the next step; the last is waited for at the end.
    const Link link = group_link(c, l.tp, l.cp);
    const double kv_bytes = M * heads_local * (qk_dim + v_dim) * act_bytes;
    const double ag = ring_allgather_s(l.cp * kv_bytes, l.cp, link);
    const double pass_on = 2.0 * kv_bytes / link.bytes_per_s + link.latency_s;  // fp32 dK, dV to one peer
    const double hide = c.o.overlap_efficiency;
    lc.cp_f += std::max(0.0, ag - hide * ov.diag_f);
    lc.cp_b += std::max(0.0, ag - hide * ov.diag_b) + (l.cp - 1) * std::max(0.0, pass_on - hide * ov.step_b) + pass_on;
    lc.comm_raw += 2 * ag + l.cp * pass_on;
  } else if (ulysses) {
    // DeepSpeed-Ulysses (Jacobs et al. 2023 §3.1; DeepSpeed v0.10.2
    // deepspeed/sequence/layer.py DistributedAttention.forward): an all-to-all
    // over the cp group for each of Q, K and V (scatter the heads, gather the
    // sequence) and one for the output (back); the backward runs the conjugate
    // all-to-all of each one's gradient (_SeqAllToAll.backward): four each way,
    // each moving (cp−1)/cp of this rank's tensor (all_to_all_s). K and V carry
    // the key/value heads the framework moves (ulysses_kv_heads_per_tp_rank:
    // GQA's own, or the query heads where MindSpeed-LLM repeats them). None is
    // overlapped with compute: each is a blocking dist.all_to_all /
    // all_to_all_single at the profiles' versions (DeepSpeed v0.10.2 and
    // v0.16.4, whose sp_stream overlap of #5691 is off unless the caller passes
    // a stream, which Megatron-DeepSpeed @f4157bea does not; MindSpeed
    // @2c085cc9 ulysses_context_parallel.py; Colossal-AI v0.4.9
    // shardformer/layer/_operation.py _AllToAll).
    const Link link = group_link(c, l.tp, l.cp);
    const double kv_heads = ulysses_kv_heads_per_tp_rank(m, l.tp, l.cp_exchange);
    const double q_elems = M * heads_local * qk_dim, o_elems = M * heads_local * v_dim;
    const double k_elems = M * kv_heads * qk_dim, v_elems = M * kv_heads * v_dim;
    const double one_way = all_to_all_s(q_elems * act_bytes, l.cp, link) + all_to_all_s(k_elems * act_bytes, l.cp, link) +
                           all_to_all_s(v_elems * act_bytes, l.cp, link) + all_to_all_s(o_elems * act_bytes, l.cp, link);
    lc.cp_f += one_way;
    lc.cp_b += one_way;
    lc.comm_raw += 2 * one_way;
    // Each all-to-all first copies its tensor with the scattered dimension
    // outermost (.contiguous(), 2 B read + 2 B written per element): DeepSpeed
    // v0.10.2 tensor_split(...).contiguous() chunks, v0.16.4 pre_all2all_fun,
    // MindSpeed single_all_to_all and Colossal-AI _all_to_all_single
    // reshape/transpose(...).contiguous(). The copies some of them make after
    // it differ by framework and direction and are not counted.
    double copy_bytes = 2 * act_bytes * (q_elems + k_elems + v_elems + o_elems), copy_kernels = 4;
    const double own_kv_heads = m.mla ? heads_local : static_cast<double>(m.kv_heads) / tp;
    if (kv_heads > own_kv_heads) {
      // MindSpeed-LLM's repeat_interleave of K and V to the query heads
      // (ulysses_context_parallel_forward_wrapper): reads them at their own
      // heads, writes them at the query heads; its backward sums the gradient's
      // groups back, the same bytes.
      copy_bytes += act_bytes * M * (own_kv_heads + kv_heads) * (qk_dim + v_dim);
      copy_kernels += 2;
    }
    lc.attn_f += stream_s(c, copy_bytes, copy_kernels);
    lc.attn_b += stream_s(c, copy_bytes, copy_kernels);
    lc.kernels_f += copy_kernels + 4;  // the copies and four all-to-all launches
  } else if (l.cp > 1) {
    const Link link = group_link(c, l.tp, l.cp);
    const double kv = M * 2.0 * (m.mla ? (m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) : static_cast<double>(m.kv_width()) / tp) * act_bytes;
    const double tf = (l.cp - 1) * (kv / link.bytes_per_s + link.latency_s);
    const double tb = 2 * tf;
    lc.cp_f += std::max(0.0, tf - c.o.overlap_efficiency * lc.attn_f);
    lc.cp_b += std::max(0.0, tb - c.o.overlap_efficiency * lc.attn_b);
    lc.comm_raw += tf + tb;
  }
}

// Element-wise work. Per token: two norms (read and write h), two fused
// bias-dropout-residual adds (read 2h, write h, mask) ≈ 11h elements,
// replicated on every TP rank unless sequence parallelism splits them; the
// activation function and rotary embedding on the TP-split widths.
// act_elems: activation-function elements per token on this rank; mlp_mats: matrices on the MLP's input side.
void add_elementwise(const Ctx& c, LayerCost& lc, double act_elems, double mlp_mats) {
  const ModelSpec& m = c.m;
  const Layout& l = c.l;
  const double tp = l.tp;
  const double M = c.tokens;
  const double h = static_cast<double>(m.hidden);
  const double act_bytes = 2.0;
  const double sp_div = l.sequence_parallel ? tp : 1.0;
  const bool rotary = m.learned_positions == 0 && !m.mla;
  double elem_bytes = 0, elem_kernels = 0;  // per token, forward
  if (!l.eager) {
    double elems = 11.0 * h / sp_div + act_elems;
    if (rotary) elems += 2.0 * (m.q_width() + m.kv_width()) / tp;
    elem_bytes = elems * act_bytes;
    elem_kernels = 10;
  } else {
    // Eager PyTorch runs each operator as its own kernel, and every one reads
    // and writes HBM. Bytes per element, forward, from the operators of the
    // reference implementations (Hugging Face Llama, torchtune):
    //   RMSNorm: to(fp32) 2+4, pow 4+4, mean 4, x·rsqrt 4+4, to(bf16) 4+2,
    //            ·weight 2+2 = 36 B over h (7 kernels); LayerNorm is one native
    //            kernel, 2+2 = 4 B;
    //   residual add 2+2+2 = 6 B over h, twice;
    //   SwiGLU: silu 2+2, ·up 2+2+2 = 10 B over f (2 kernels); GELU 2+2 = 4 B;
    //   rotary on q and k: x·cos 4, rotate_half (neg 2, cat 4), ·sin 4, add 6
    //            = 20 B over q+kv (6 kernels per tensor);
    //   attention glue: the output transposed back to contiguous 2+2 over q,
    //            and grouped-query K and V repeated to all heads (read kv, write q, each).
    // Backward costs twice the forward's bytes and kernels, as for the fused ops.
    const bool rms = m.norm == NormKind::kRms;
    const double norms = static_cast<double>(m.norms_per_layer);
    elem_bytes += norms * (rms ? 36.0 : 4.0) * h / sp_div + 2 * 6.0 * h / sp_div;
    elem_kernels += norms * (rms ? 7 : 1) + 2;
    const double width = act_elems / (mlp_mats + 1);  // f per rank (k·f for MoE)
    elem_bytes += (m.mlp == MlpKind::kGated ? 10.0 : 4.0) * width;
    elem_kernels += m.mlp == MlpKind::kGated ? 2 : 1;
    if (rotary) {
      elem_bytes += 20.0 * (m.q_width() + m.kv_width()) / tp;
      elem_kernels += 12;
    }
    elem_bytes += 4.0 * m.q_width() / tp;
    elem_kernels += 1;
    if (!m.mla && m.kv_heads < m.heads) {
      elem_bytes += 2 * 2.0 * (m.kv_width() + m.q_width()) / tp;
      elem_kernels += 2;
    }
  }
  lc.kernels_f += elem_kernels + (keeps_attention_scores(l) ? 4 : 1);
  lc.elem_f += stream_s(c, elem_bytes * M, elem_kernels);
  lc.elem_b += stream_s(c, 2.0 * elem_bytes * M, 2 * elem_kernels);
}


// QLoRA over a GPTQ Int4 checkpoint (Qwen's Q-LoRA recipe: finetune.py loads
// the -Int4 model with GPTQConfig(bits=4, disable_exllama=True), QwenLM/Qwen
// 2df8e8a l.313-316). transformers/optimum then pick AutoGPTQ's
// qlinear_cuda_old QuantLinear for a checkpoint without act-order
// (auto_gptq/utils/import_utils.py dynamically_import_QuantLinear, v0.5.1
// l.61-75; Qwen's Int4 checkpoints: quantize_config.json bits 4, group_size
// 128, desc_act false, huggingface.co/Qwen/Qwen-7B-Chat-Int4 and
// Qwen-14B-Chat-Int4), whose forward (qlinear_cuda_old.py v0.5.1 l.197-276) runs its CUDA
// kernel only below kernel_switch_threshold = 128 rows; a training micro-batch
// has more, so every forward rebuilds the fp16 weight with PyTorch ops:
//   shift of the expanded int32 words (reads 0.5 B, writes 4 B per weight),
//   .to(int8) (reads 4, writes 1), bitwise_and (1, 1), weight - zeros (1, 1),
//   scales * (...) (1, 2): 16.5 B of traffic per weight in 5 kernels, plus 4
//   small kernels on the zero points; then torch.matmul(x, weight).
// 21 Python-level torch calls per linear besides the matmul (l.200-275:
// reshapes, expands, shifts, casts, the bias add). No weight gradient flows
// (qweight is an integer buffer), and autograd keeps the rebuilt fp16 weight
// for the input gradient, so the backward pays no second dequantisation; a
// recomputed forward pays it again (the recompute share re-runs elem_f).
void add_gptq_dequant(const Ctx& c, LayerCost& lc, bool moe_layer, double local_experts) {
  const Layout& l = c.l;
  constexpr double kBytesPerWeight = 16.5, kWeightKernels = 5, kZeroKernels = 4, kHostCalls = 21;
  for (const LayerMatmul& x : layer_matmuls(c.m, moe_layer)) {
    const bool routed = x.experts > 0;
    const double split = routed ? l.expert_tp() : l.tp;
    const double copies = routed ? local_experts : 1.0;
    const double weights = x.n * x.k / ((x.tp_column || x.tp_row) ? split : 1.0) * copies;
    lc.elem_f += stream_s(c, kBytesPerWeight * weights, kWeightKernels * copies);
    lc.elem_f += stream_s(c, 0.0, kZeroKernels * copies);
    lc.kernels_f += (kWeightKernels + kZeroKernels) * copies;
    lc.adapter_calls_f += kHostCalls * copies;
    lc.forward_only_kernels_f += (kWeightKernels + kZeroKernels) * copies;
    lc.forward_only_calls_f += kHostCalls * copies;
  }
}

// LoRA (Hu et al. 2021) as PEFT runs it: each adapted frozen matrix W gets
// result = x·W + (x·A)·B·scale (peft/tuners/lora/layer.py Linear.forward:
// `result + lora_B(lora_A(dropout(x))) * scaling`). A and B are trainable, so
// both skinny GEMMs have their input and weight gradients; the scale and the
// sum are one element-wise kernel each way over the output, and the backward
// adds the adapter path's input gradient to the frozen one's. Under TP the
// adapter follows its matrix (Megatron/NeMo ParallelLinearAdapter): A whole
// and B split for a column-parallel matrix, A split and B whole for a
// row-parallel one. Adapters run in the 16-bit compute dtype, never FP8.
//
// QLoRA (Dettmers et al. 2023) stores W in NF4; bitsandbytes dequantises it to
// the compute dtype before each matmul that reads it (MatMul4Bit.forward:
// `F.dequantize_4bit(B, quant_state).to(A.dtype)`, and again in its backward for
// the input gradient; bitsandbytes/autograd/_functions.py, 0.41): per use one
// kernel reading 0.5 B and writing 2 B per weight, forward and backward (a
// recomputed forward pays it once more, as the recompute share re-runs elem_f).
void add_lora(const Ctx& c, LayerCost& lc, bool moe_layer, double tokens_per_expert, double local_experts) {
  const Layout& l = c.l;
  const double M = c.tokens, tp = l.tp, etp = l.expert_tp();
  const double r = static_cast<double>(lora_rank_or_default(l));
  for (const LoraAdapter& a : lora_adapters(c.m, moe_layer, lora_modules_or_default(l))) {
    const double split = a.experts ? etp : tp;
    const double rows = a.experts ? tokens_per_expert : M;
    const double count = a.experts ? local_experts : 1.0;
    const double in = a.tp_row ? a.in / split : a.in, out = a.tp_column ? a.out / split : a.out;
    add_gemm_at(c, lc, c.act_p, rows, r, in, count);   // x·A
    add_gemm_at(c, lc, c.act_p, rows, out, r, count);  // (x·A)·B
    // Forward: `* scaling` (read 1, write 1) and the sum (read 2, write 1), of
    // rows×out; backward: the mul's gradient (read 1, write 1 of rows×out) and
    // the two input gradients summed (read 2, write 1 of rows×in). 2 B each.
    lc.elem_f += stream_s(c, count * 2.0 * 5 * rows * out, 2);
    lc.elem_b += stream_s(c, count * 2.0 * (2 * rows * out + 3 * rows * in), 2);
    lc.kernels_f += 2;
    // Host calls PEFT's wrapper adds beside the frozen linear's own: x.to,
    // dropout, lora_A, lora_B, `* scaling`, `+=` and result.to, 7 per adapted
    // matrix (peft v0.7.1 src/peft/tuners/lora/layer.py Linear.forward,
    // l.354-376; the casts return their input in a bf16 model but are still
    // dispatched). They count against the host floor where the profile counts
    // the layer's calls (host_calls_per_layer).
    lc.adapter_calls_f += 7 * count;
  }
  if (l.finetune != FineTune::kQlora) return;
  if (l.qlora_base == QloraBase::kGptqInt4) {
    add_gptq_dequant(c, lc, moe_layer, local_experts);
    return;
  }
  for (const LayerMatmul& x : layer_matmuls(c.m, moe_layer)) {
    const bool routed = x.experts > 0;
    const double split = routed ? etp : tp;
    const double weights = x.n * x.k / ((x.tp_column || x.tp_row) ? split : 1.0) * (routed ? local_experts : 1.0);
    lc.elem_f += stream_s(c, 2.5 * weights, routed ? local_experts : 1.0);
    lc.elem_b += stream_s(c, 2.5 * weights, routed ? local_experts : 1.0);
    lc.kernels_f += routed ? local_experts : 1.0;
  }
}

// The local experts' copies of one matrix, as the framework launches them
// (profile expert_gemms):
//  grouped: one kernel whose grid holds every expert's tiles (grouped_gemm's
//   CUTLASS kernel, torch._grouped_mm), waves counted over all of them;
//  multi_stream: TransformerEngine's GroupedLinear runs one cuBLAS GEMM per
//   expert, expert i on compute stream i % 4 (transformer_engine/common/gemm/
//   cublaslt_gemm.cu multi_stream_cublas_gemm, v2.9 l.924-976, reached from
//   te_general_grouped_gemm through nvte_multi_tensor_gemm, which takes the
//   CUTLASS grouped kernel only on Hopper with NVTE_USE_CUTLASS_GROUPED_GEMM set,
//   l.1013-1026; still so at v2.14; util/multi_stream.cpp:
//   num_compute_streams = 4): at most four experts' GEMMs share the GPU, and
//   each is its own launch;
//  sequential: Megatron's SequentialMLP loops over its local experts in Python,
//   each running its own linears (megatron/core/transformer/moe/experts.py;
//   chosen whenever moe_grouped_gemm is off, its default): one GEMM at a time.
// Each launch is a kernel the host issues (the host floor counts them).
void add_expert_gemms(const Ctx& c, LayerCost& lc, Precision p, double rows, double n, double k, double local, bool weight_grad) {
  if (c.l.expert_gemms == ExpertGemms::kGrouped || local <= 1) {
    add_gemm_at(c, lc, p, rows, n, k, local, weight_grad);
    return;
  }
  constexpr double kTeComputeStreams = 4;
  const double together = c.l.expert_gemms == ExpertGemms::kMultiStream ? std::min(kTeComputeStreams, local) : 1.0;
  const double rounds = local / together;
  LayerCost one;
  add_gemm_at(c, one, p, rows, n, k, together, weight_grad);
  lc.gemm_f += rounds * one.gemm_f;
  lc.gemm_b += rounds * one.gemm_b;
  lc.gemm_flop += rounds * one.gemm_flop;
  lc.gemm_flop_over_eff += rounds * one.gemm_flop_over_eff;
  lc.kernels_f += local;
}

// Element-wise work Megatron-Core runs around its experts in Python, over
// the `rows` routed rows a rank holds across its `local_experts`.
void add_expert_python_ops(const Ctx& c, LayerCost& lc, double rows, double local_experts) {
  const ModelSpec& m = c.m;
  const Layout& l = c.l;
  const MoeSpec& e = *m.moe;
  const double h = static_cast<double>(m.hidden), etp = l.expert_tp(), act_bytes = 2.0;
  if (m.mlp_bias && l.expert_gemms == ExpertGemms::kMultiStream) {
    // Megatron-Core's TEGroupedMLP adds the second expert linear's bias in
    // Python (TEGroupedMLP._apply_bias, megatron/core/transformer/moe/experts.py
    // at 0d8e0714 l.843-860, d7288711 l.251-266, cd4afffa l.304-319): per
    // local expert `t + b * p` over its rows, then torch.cat. In hidden vectors
    // per routed row (bf16 router probabilities: moe_utils.py compute_topk
    // .type_as(logits)): forward b·p written (1), the add (read 2, write 1),
    // the cat (read 1, write 1): 6; backward the two gradients of the
    // multiply, each a product and a sum (3 + 3), and the split's
    // concatenated gradient (2): 8. Two kernels per local expert and the cat
    // forward, four per expert backward.
    lc.elem_f += stream_s(c, 6.0 * rows * h * act_bytes, 2 * local_experts + 1);
    lc.elem_b += stream_s(c, 8.0 * rows * h * act_bytes, 4 * local_experts + 1);
    lc.kernels_f += 2 * local_experts + 1;
  }
  if (m.swiglu_limit > 0 && l.clamp_outside_activation) {
    // Megatron-Core's clamped SwiGLU (weighted_bias_quick_geglu_impl,
    // megatron/core/fusions/fused_bias_geglu.py at 0d8e0714, the 25.11
    // container's core, l.424-432): chunk the fc1 output [rows, 2f] (views),
    // clamp each half (read f, write f each) and torch.cat them (read 2f,
    // write 2f) before the fused kernel: 8·f elements per routed row forward,
    // 3 kernels. Backward: each clamp's gradient masks the incoming one
    // (read grad and input, write: 3·f each) and the chunk's gradient
    // concatenates the halves (read 2f, write 2f): 10·f elements, 3 kernels.
    const double f = static_cast<double>(e.expert_intermediate) / etp;
    lc.elem_f += stream_s(c, 8.0 * rows * f * act_bytes, 3);
    lc.elem_b += stream_s(c, 10.0 * rows * f * act_bytes, 3);
    lc.kernels_f += 3;
  }
}

// The MoE layer's dispatch and combine all-to-alls of the `rows` tokens this
// rank routes k ways, forward and backward.
void add_expert_all_to_all(const Ctx& c, LayerCost& lc, double rows, double k) {
  const Layout& l = c.l;
  const MoeSpec& e = *c.m.moe;
  const double h = static_cast<double>(c.m.hidden), act_bytes = 2.0;
  // Dispatch and combine all-to-alls of k copies of each token, forward and backward.
  // The EP group's ranks sit tp·cp apart when they come from the data-parallel
  // ranks, etp apart when folded over TP (Megatron-Core parallel_state.py
  // expert RankGenerator order tp-ep-dp-pp); each rank sends its own tokens.
  const int64_t stride = l.expert_tp() == l.tp ? static_cast<int64_t>(l.tp) * l.cp : l.expert_tp();
  // Ranks of the group that share a node: node / stride of them when the
  // stride fits in a node, else one.
  const int local = stride < c.node ? static_cast<int>(std::min<int64_t>(l.ep, c.node / stride)) : 1;
  // Dispatch at the stack's dispatch width (FP8 where it quantises before
  // dispatching), combine in bf16; the backward sends the output gradients
  // to the experts at the dispatch width and their input gradients back in
  // bf16 (DeepSeek-V3 §3.3.3), so both directions cost the same.
  double t = 0;
  if (l.moe_dispatch_per_node && local < l.ep) {
    // One network copy per destination node, forwarded over NVLink there;
    // group-limited routing whose groups sit on whole nodes caps the nodes
    // a token reaches at topk_group (DeepSeek-V3's node-limited routing).
    const int nodes = static_cast<int>((l.ep + local - 1) / local);
    const bool groups_on_nodes = e.router_groups > 0 && e.router_group_topk > 0 && e.router_groups % nodes == 0;
    const double remote = remote_nodes_per_token(nodes, k, groups_on_nodes ? static_cast<int>(e.router_group_topk) : 0);
    // The remote copies move at the dispatch kernels' measured rate (DeepEP's
    // or HybridEP's), not the NIC's: the dispatch, then the combine.
    const DispatchNetworkRates r = per_node_dispatch_rates(l.moe_dispatch_hybridep, static_cast<int>(l.ep), nodes, c.g.scaleout_bytes_per_s);
    Link dispatch = c.inter, combine = c.inter;
    if (r.dispatch_bytes_per_s > 0) {
      dispatch.bytes_per_s = r.dispatch_bytes_per_s;
      combine.bytes_per_s = r.combine_bytes_per_s;
    }
    t += per_node_all_to_all_s(rows * h * l.moe_dispatch_bytes, remote, k, static_cast<int>(l.ep), local, c.intra, dispatch);
    t += per_node_all_to_all_s(rows * h * act_bytes, remote, k, static_cast<int>(l.ep), local, c.intra, combine);
  } else {
    for (const double width : {l.moe_dispatch_bytes, act_bytes}) {
      t += hierarchical_all_to_all_s(rows * k * h * width, l.ep, local, c.intra, c.inter);
    }
  }
  lc.ep_f += t;
  lc.ep_b += t;
  lc.comm_raw += 2 * t;
}

// Host floor: the CPU must issue every kernel; when kernels are tiny the GPU
// waits for the host (eager PyTorch dispatch costs ~10–20 µs per operator).
// Each phase takes at least its kernels × host_dispatch_s; the shortfall is
// booked as element-wise time (it is time the GPU spends idle between kernels).
// A framework whose layer issues more host calls than kernels (views,
// autograd Functions, RNG swaps: profile host_calls_per_layer, counted from its
// code) pays for those; the backward issues about twice the forward's, less
// the forward's own work that has no backward (AutoGPTQ's weight rebuild).
void add_host_floor(const Ctx& c, LayerCost& lc) {
  const Layout& l = c.l;
  const double calls_f = std::max(lc.kernels_f, l.host_calls_per_layer > 0 ? l.host_calls_per_layer + lc.adapter_calls_f : 0.0);
  const double calls_b = 2 * std::max(lc.kernels_f - lc.forward_only_kernels_f,
                                      l.host_calls_per_layer > 0 ? l.host_calls_per_layer + lc.adapter_calls_f - lc.forward_only_calls_f : 0.0);
  const double host_f = calls_f * c.o.host_dispatch_s, host_b = calls_b * c.o.host_dispatch_s;
  lc.elem_f += std::max(0.0, host_f - lc.fwd());
  lc.elem_b += std::max(0.0, host_b - lc.bwd());
}

}  // namespace

Link group_link(const Ctx& c, int64_t stride, int64_t n) { return stride * n <= c.node ? c.intra : c.inter; }

LayerCost layer_cost(const Ctx& c, bool moe_layer) {
  const ModelSpec& m = c.m;
  const Layout& l = c.l;
  LayerCost lc;
  const double tp = l.tp;
  const double etp = l.expert_tp();  // the routed experts' own TP degree
  const double M = c.tokens;
  const double h = static_cast<double>(m.hidden);
  const double b = static_cast<double>(l.micro_batch);
  const double s = static_cast<double>(l.seq_len);
  const double act_bytes = 2.0;

  // ---- The layer's matmuls (layer_ops.hpp, the one list of their shapes),
  // as TP splits them (column-parallel: the output width; row-parallel: the
  // reduction) and EP spreads the routed experts.
  double qk_dim = static_cast<double>(m.head_dim), v_dim = qk_dim;
  if (m.mla) {
    qk_dim = static_cast<double>(m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim);
    v_dim = static_cast<double>(m.mla->v_head_dim);
  }
  const double mlp_mats = m.mlp == MlpKind::kGated ? 2.0 : 1.0;  // matrices on the input side
  double tokens_per_expert = 0, local_experts = 0;
  if (moe_layer) {
    const MoeSpec& e = *m.moe;
    const double E = static_cast<double>(e.routed_experts), k = static_cast<double>(e.experts_per_token);
    local_experts = E / l.ep;
    // Balanced routing. Each rank dispatches its share of the TP group's M
    // tokens: all of them when the experts are split tp ways too, 1/(tp/etp)
    // of them (its sequence-parallel slice) when expert TP is narrower (MoE
    // parallel folding): either way a rank's expert FLOPs are M·k/tp of full width.
    tokens_per_expert = M * k * l.ep / E * etp / tp;
  }
  // FP8 operand casts, bytes per element of each operand (x: M×K input,
  // W: K×N weight, g: M×N output gradient) and kernels per GEMM:
  //  delayed (TransformerEngine, v1.11 module/linear.py: fp8_cast_transpose_fused
  //   reads the bf16 tensor once and writes fp8 and its transpose, 2+1+1 B, for
  //   the input, the weight and in the backward the output gradient; scales from
  //   the amax history, so no separate amax pass);
  //  dynamic (torchao/float8_experimental tensorwise, float8_scaling_utils.py
  //   hp_tensor_to_float8_dynamic: tensor_to_amax reads it, 2 B, then the cast
  //   reads and writes, 2+1 B; float8_ops.py makes the second _scaled_mm operand
  //   column-major with t().contiguous().t(), a 1+1 B fp8 copy, for each operand
  //   used transposed in the backward GEMMs): 7 B per element of x, W and g.
  const bool fp8 = c.gemm_p == Precision::kFp8;
  const bool dynamic = l.fp8_scaling == Fp8Scaling::kDynamic;
  const double cast_b = dynamic ? 7.0 : 4.0;
  double cast_f_bytes = 0, cast_b_bytes = 0, cast_kernels = 0;
  auto add_casts = [&](double rows, double n, double k, double count) {
    // Forward: input and weight cast; backward: the output gradient, and for
    // dynamic scaling the transposed copies of the saved fp8 input and weight.
    cast_f_bytes += count * (dynamic ? 5.0 : 4.0) * (rows * k + k * n);
    cast_b_bytes += count * (cast_b * rows * n + (dynamic ? 2.0 : 0.0) * (rows * k + k * n));
    cast_kernels += dynamic ? 4 : 2;
  };
  // The column-parallel linears' two backward products, as add_gemm timed
  // them: the framework may run a TP collective under each (tp_grad_comm_async below).
  double col_dgrad_s = 0, col_wgrad_s = 0;
  const bool frozen = is_lora(l);  // LoRA/QLoRA: the layer's own weights get no gradient
  for (const LayerMatmul& x : layer_matmuls(m, moe_layer)) {
    const double split = x.experts > 0 ? etp : tp;
    const double n = x.tp_column ? x.n / split : x.n;
    const double k = x.tp_row ? x.k / split : x.k;
    // FP8 recipes run the transformer's linears in FP8, routed experts only where
    // the framework's recipe covers them (profile fp8_gemms).
    if (x.experts > 0) {
      add_expert_gemms(c, lc, c.l.fp8_experts ? c.gemm_p : c.act_p, tokens_per_expert, n, k, local_experts, !frozen);
      if (fp8 && c.l.fp8_experts) add_casts(tokens_per_expert, n, k, local_experts);
    } else {
      const GemmPassTimes t = add_gemm(c, lc, M, n, k, 1, !frozen);
      if (x.tp_column) {
        col_dgrad_s += t.dgrad_s;
        col_wgrad_s += t.wgrad_s;
      }
      if (fp8) add_casts(M, n, k, 1);
    }
  }
  if (fp8) {
    lc.elem_f += stream_s(c, cast_f_bytes, cast_kernels);
    lc.elem_b += stream_s(c, cast_b_bytes, cast_kernels);
    lc.kernels_f += cast_kernels;
  }
  if (frozen) add_lora(c, lc, moe_layer, tokens_per_expert, local_experts);

  // ---- MLP activations, expert permutation and all-to-all.
  double act_elems = 0;  // activation-function elements per token (input side), per rank
  if (moe_layer) {
    const MoeSpec& e = *m.moe;
    const double k = static_cast<double>(e.experts_per_token);
    act_elems += k * (mlp_mats + 1) * static_cast<double>(e.expert_intermediate) / tp;
    if (e.shared_intermediate > 0) act_elems += (mlp_mats + 1) * static_cast<double>(e.shared_intermediate) / tp;
    // Token permutation before and after the experts: by default a read and a
    // write of the k copies each way; a framework's own count where its profile
    // has one (moe_permute_traffic: units of one routed row's hidden vector).
    lc.elem_f += stream_s(c, l.moe_permute_units_f * M * k * h * act_bytes, 4);
    lc.elem_b += stream_s(c, l.moe_permute_units_b * M * k * h * act_bytes, 4);
    add_expert_python_ops(c, lc, tokens_per_expert * local_experts, local_experts);
    if (l.ep > 1) add_expert_all_to_all(c, lc, M * (etp / tp), k);
  } else {
    act_elems += (mlp_mats + 1) * static_cast<double>(m.intermediate) / tp;
  }

  // ---- Attention core. Queries of this rank's sequence chunk against all keys,
  // or, under Ulysses, all queries of the rank's 1/cp of its TP rank's heads.
  const double heads_local = static_cast<double>(m.heads) / tp;
  const double q_rows = s / l.cp;
  const bool ulysses = l.cp > 1 && cp_is_ulysses(l.cp_exchange);
  CpOverlap ov;  // ring attention: the diagonal step, one other backward step
  if (!keeps_attention_scores(l)) {
    ov = add_fused_attention(c, lc, qk_dim, v_dim);
  } else {
    // Materialised scores: batched GEMMs over the full s×s matrix (the mask is
    // applied after), then a fused scale-mask-softmax and dropout that stream
    // the score matrix through HBM (Korthikanti et al. 2022, §4.2): ~8 bytes
    // per score forward (read, write, dropout mask and output) and ~12 backward.
    // Under Ulysses each rank runs all s queries of 1/cp of the heads.
    const double batch = ulysses ? b * heads_local / l.cp : b * heads_local;
    const double rows = ulysses ? s : q_rows;
    LayerCost tmp;
    // Attention's batched products stay in 16 bits under FP8 recipes.
    add_gemm_at(c, tmp, c.act_p, rows, s, qk_dim, batch);
    add_gemm_at(c, tmp, c.act_p, rows, v_dim, s, batch);
    lc.attn_f += tmp.gemm_f;
    lc.attn_b += tmp.gemm_b;
    const double scores = batch * rows * s;
    lc.attn_f += stream_s(c, 8.0 * scores, 2);
    lc.attn_b += stream_s(c, 12.0 * scores, 2);
  }

  // ---- Element-wise work: norms, residual adds, activation, rotary (add_elementwise).
  add_elementwise(c, lc, act_elems, mlp_mats);

  // ---- Tensor-parallel collectives: two all-reduces forward and two backward
  // of the b·s·h activation (Shoeybi et al. 2019, Fig. 4), or as many
  // reduce-scatter + all-gather pairs with sequence parallelism (same bytes;
  // Korthikanti et al. 2022, §4.2.2). MoE layers with EP add their all-to-alls above.
  //
  // Asynchronous backward collectives (profile tp_grad_comm_async; Megatron-LM
  // from 6e1bde1e, 2021-09-02, megatron/mpu/layers.py
  // LinearWithGradAccumulationAndAsyncCommunication.backward at 748a9a7d,
  // 2022-07, and megatron/core/tensor_parallel/layers.py at core_v0.8.0): the
  // column-parallel linear (QKV, MLP input) computes its input gradient, issues
  // that gradient's all-reduce with async_op=True (reduce-scatter with SP) and
  // computes its weight gradient while it runs; with SP the input that forward
  // gathered is gathered again (async) while the input-gradient GEMM runs. The
  // row-parallel side has no backward collective without SP (the forward
  // all-reduce's conjugate is the identity, mpu/mappings.py
  // _ReduceFromModelParallelRegion) and a synchronous all-gather with it
  // (_ReduceScatterToSequenceParallelRegion.backward). A hidden transfer hides
  // overlap_efficiency of the part the GEMM under it covers.
  if (l.tp > 1) {
    const double bytes = M * h * act_bytes;
    const double one = l.sequence_parallel ? group_rs_ag_s(c, bytes, 1, l.tp) : group_allreduce_s(c, bytes, 1, l.tp);
    lc.kernels_f += l.sequence_parallel ? 4 : 2;
    if (l.tp_grad_comm_async && !l.tp_comm_overlap) {
      const double eta = c.o.overlap_efficiency;
      auto exposed = [&](double comm, double under) { return comm - eta * std::min(comm, under); };
      lc.tp_f += 2 * one;
      if (!l.sequence_parallel) {
        lc.tp_b += exposed(2 * one, col_wgrad_s);  // two input-gradient all-reduces
        lc.comm_raw += 4 * one;
      } else {
        const double single = one / 2;  // one reduce-scatter or one all-gather
        lc.tp_b += 2 * single                                 // row-parallel output gradient all-gathers
                   + exposed(2 * single, col_wgrad_s)         // input-gradient reduce-scatters
                   + exposed(2 * single, col_dgrad_s);        // input re-gathers
        lc.comm_raw += 5 * one;
      }
    } else {
      const double hide = l.tp_comm_overlap ? c.o.overlap_efficiency : 0.0;
      lc.tp_f += 2 * one * (1 - hide);
      lc.tp_b += 2 * one * (1 - hide);
      lc.comm_raw += 4 * one;
    }
  }

  // ---- Context parallelism: K and V exchange (ring, all-gather or Ulysses all-to-alls).
  add_cp_exchange(c, lc, qk_dim, v_dim, ov);
  add_host_floor(c, lc);
  return lc;
}

}  // namespace gpuplan::step_detail
