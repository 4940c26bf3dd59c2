// One optimizer step of a parallel layout, from physics. docs/step-time.md
// states each formula with its source; the constants are in StepTimeOptions.
//
// Structure. For one micro-batch on one pipeline stage we time, per layer:
// every GEMM at its shape after the TP/CP/EP split (gemm_efficiency.cpp),
// attention (FlashAttention-style or the materialised s×s softmax), the
// memory-bound element-wise kernels, and the exposed TP/CP/EP collectives
// (collectives.cpp). Backward GEMMs are the two products of the forward one
// (input gradient and weight gradient) at their own shapes. Recomputation adds
// a forward (full) or the attention core (selective) to the backward. The
// pipeline runs m micro-batches on the slowest stage plus a (p−1)/v bubble of
// the mean stage (Narayanan et al. 2021, §2.2). Data-parallel reduction,
// ZeRO traffic and the optimizer step follow.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "gpuplan/flops.hpp"
#include "gpuplan/layer_ops.hpp"
#include "gpuplan/recompute_policy.hpp"
#include "gpuplan/step_time.hpp"

namespace gpuplan {
namespace {

struct LayerCost {
  double gemm_f = 0, gemm_b = 0;
  double attn_f = 0, attn_b = 0;
  double elem_f = 0, elem_b = 0;
  double tp_f = 0, tp_b = 0;       // exposed TP collectives
  double cp_f = 0, cp_b = 0;       // exposed CP exchange
  double ep_f = 0, ep_b = 0;       // exposed expert all-to-all
  double comm_raw = 0;             // all communication of the layer, forward + backward, hidden or not
  double kernels_f = 0;            // kernels launched in the forward (the backward launches about twice as many)
  double gemm_flop = 0;            // forward GEMM FLOPs
  double gemm_flop_over_eff = 0;   // Σ flop/eff, for the mean efficiency
  double fwd() const { return gemm_f + attn_f + elem_f + tp_f + cp_f + ep_f; }
  double bwd() const { return gemm_b + attn_b + elem_b + tp_b + cp_b + ep_b; }
};

struct Ctx {
  const ModelSpec& m;
  const Layout& l;
  const GpuSpec& g;
  const StepTimeOptions& o;
  Precision gemm_p;      // GEMM precision the GPU supports
  Precision act_p;       // attention / element-wise precision (bf16 or fp16)
  double ceiling = 0.8;
  double hbm = 0;        // achieved bytes/s
  int node = 8;          // GPUs sharing the fast link
  Link intra, inter;
  double tokens = 0;     // tokens of one micro-batch on one rank: b·s/cp
};

void add_gemm(const Ctx& c, LayerCost& lc, double m, double n, double k, double count = 1) {
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0) return;
  // `count` same-shape products run as one batched or grouped kernel.
  const double f = gemm_time_s(c.g, c.gemm_p, m, n, k, c.o, count);
  // Backward: dX = dY·Wᵀ (m×k output, reduce over n) and dW = Xᵀ·dY (k×n output, reduce over m).
  const double b = gemm_time_s(c.g, c.gemm_p, m, k, n, c.o, count) + gemm_time_s(c.g, c.gemm_p, k, n, m, c.o, count);
  lc.gemm_f += f;
  lc.kernels_f += 1;
  lc.gemm_b += b;
  const double flop = 2.0 * m * n * k * count;
  lc.gemm_flop += flop;
  lc.gemm_flop_over_eff += flop / gemm_efficiency(c.g, c.gemm_p, m, n, k, c.ceiling, count);
}

double stream_s(const Ctx& c, double bytes, double kernels) { return bytes / c.hbm + kernels * c.o.kernel_overhead_s; }

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

// The link a group of `n` ranks spaced `stride` apart uses.
Link group_link(const Ctx& c, int64_t stride, int64_t n) { return stride * n <= c.node ? c.intra : c.inter; }

LayerCost layer_cost(const Ctx& c, bool moe_layer) {
  const ModelSpec& m = c.m;
  const Layout& l = c.l;
  LayerCost lc;
  const double tp = l.tp;
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
    tokens_per_expert = M * k * l.ep / E;  // balanced routing
  }
  for (const LayerMatmul& x : layer_matmuls(m, moe_layer)) {
    const double n = x.tp_column ? x.n / tp : x.n;
    const double k = x.tp_row ? x.k / tp : x.k;
    if (x.experts > 0) add_gemm(c, lc, tokens_per_expert, n, k, local_experts);  // one grouped GEMM over the local experts
    else add_gemm(c, lc, M, n, k);
  }

  // ---- MLP activations, expert permutation and all-to-all.
  double act_elems = 0;  // activation-function elements per token (input side), per rank
  if (moe_layer) {
    const MoeSpec& e = *m.moe;
    const double k = static_cast<double>(e.experts_per_token);
    act_elems += k * (mlp_mats + 1) * static_cast<double>(e.expert_intermediate) / tp;
    if (e.shared_intermediate > 0) act_elems += (mlp_mats + 1) * static_cast<double>(e.shared_intermediate) / tp;
    // Token permutation before and after the experts (read and write k copies).
    lc.elem_f += stream_s(c, 4.0 * M * k * h * act_bytes, 4);
    lc.elem_b += stream_s(c, 4.0 * M * k * h * act_bytes, 4);
    if (l.ep > 1) {
      // Dispatch and combine all-to-alls of k copies of each token, forward and backward.
      const Link link = group_link(c, static_cast<int64_t>(l.tp) * l.cp, l.ep);
      const double t = all_to_all_s(M * k * h * act_bytes, l.ep, link);
      lc.ep_f += 2 * t;
      lc.ep_b += 2 * t;
      lc.comm_raw += 4 * t;
    }
  } else {
    act_elems += (mlp_mats + 1) * static_cast<double>(m.intermediate) / tp;
  }

  // ---- Attention core. Queries of this rank's sequence chunk against all keys.
  const double heads_local = static_cast<double>(m.heads) / tp;
  const double q_rows = s / l.cp;
  if (l.flash_attention) {
    // FlashAttention skips fully masked blocks: the causal half is computed
    // (Dao 2023, FlashAttention-2 §3.1). FA2 reaches 50–73% of A100 peak
    // forward and ~63% backward at head dim 128 and long sequences (Dao 2023,
    // Fig. 4–6): forward at 0.80 and backward at 0.65 of the GEMM ceiling,
    // backward counting 2.5 forward FLOPs (its five matmuls, one recomputing
    // QKᵀ). Head dim 64 and short sequences run lower.
    const double keys = (s + 1) / 2;
    const double flop = 2.0 * b * q_rows * keys * heads_local * (qk_dim + v_dim);
    const double d = qk_dim;
    const double dfac = std::min(1.0, (d / (d + 32)) / (128.0 / 160.0));
    const double sfac = keys / (keys + 128);
    const Precision ap = c.g.has(c.act_p) ? c.act_p : Precision::kFp16;
    const double peak = c.g.peak(ap);
    lc.attn_f += flop / (peak * c.ceiling * 0.80 * dfac * sfac) + c.o.kernel_overhead_s;
    lc.attn_b += 2.5 * flop / (peak * c.ceiling * 0.65 * dfac * sfac) + 2 * c.o.kernel_overhead_s;
  } else {
    // Materialised scores: batched GEMMs over the full s×s matrix (the mask is
    // applied after), then a fused scale-mask-softmax and dropout that stream
    // the score matrix through HBM (Korthikanti et al. 2022, §4.2): ~8 bytes
    // per score forward (read, write, dropout mask and output) and ~12 backward.
    const double batch = b * heads_local;
    LayerCost tmp;
    add_gemm(c, tmp, q_rows, s, qk_dim, batch);
    add_gemm(c, tmp, q_rows, v_dim, s, batch);
    lc.attn_f += tmp.gemm_f;
    lc.attn_b += tmp.gemm_b;
    const double scores = batch * q_rows * s;
    lc.attn_f += stream_s(c, 8.0 * scores, 2);
    lc.attn_b += stream_s(c, 12.0 * scores, 2);
  }

  // ---- Element-wise work. Per token: two norms (read and write h), two fused
  // bias-dropout-residual adds (read 2h, write h, mask) ≈ 11h elements,
  // replicated on every TP rank unless sequence parallelism splits them; the
  // activation function and rotary embedding on the TP-split widths.
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
  lc.kernels_f += elem_kernels + (l.flash_attention ? 1 : 4);
  lc.elem_f += stream_s(c, elem_bytes * M, elem_kernels);
  lc.elem_b += stream_s(c, 2.0 * elem_bytes * M, 2 * elem_kernels);

  // ---- Tensor-parallel collectives: two all-reduces forward and two backward
  // of the b·s·h activation (Shoeybi et al. 2019, Fig. 4), or as many
  // reduce-scatter + all-gather pairs with sequence parallelism (same bytes;
  // Korthikanti et al. 2022, §4.2.2). MoE layers with EP add their all-to-alls above.
  if (l.tp > 1) {
    const double bytes = M * h * act_bytes;
    const double one = l.sequence_parallel ? group_rs_ag_s(c, bytes, 1, l.tp) : group_allreduce_s(c, bytes, 1, l.tp);
    lc.kernels_f += l.sequence_parallel ? 4 : 2;
    const double hide = l.tp_comm_overlap ? c.o.overlap_efficiency : 0.0;
    lc.tp_f += 2 * one * (1 - hide);
    lc.tp_b += 2 * one * (1 - hide);
    lc.comm_raw += 4 * one;
  }

  // ---- Context parallelism: ring exchange of K and V chunks (cp−1 steps),
  // overlapped with the attention blocks it feeds (Liu et al. 2023, Ring
  // Attention); backward sends K, V and their gradients.
  if (l.cp > 1) {
    const Link link = group_link(c, l.tp, l.cp);
    const double kv = M * 2.0 * (m.mla ? (m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) : static_cast<double>(m.kv_width()) / tp) * act_bytes;
    const double tf = (l.cp - 1) * (kv / link.bytes_per_s + link.latency_s);
    const double tb = 2 * tf;
    lc.cp_f += std::max(0.0, tf - c.o.overlap_efficiency * lc.attn_f);
    lc.cp_b += std::max(0.0, tb - c.o.overlap_efficiency * lc.attn_b);
    lc.comm_raw += tf + tb;
  }
  // Host floor: the CPU must issue every kernel; when kernels are tiny the GPU
  // waits for the host (eager PyTorch dispatch costs ~10–20 µs per operator).
  // Each phase takes at least its kernels × host_dispatch_s; the shortfall is
  // booked as element-wise time (it is time the GPU spends idle between kernels).
  const double host_f = lc.kernels_f * c.o.host_dispatch_s, host_b = 2 * lc.kernels_f * c.o.host_dispatch_s;
  lc.elem_f += std::max(0.0, host_f - lc.fwd());
  lc.elem_b += std::max(0.0, host_b - lc.bwd());
  return lc;
}

double optimizer_bytes_per_param(Optimizer o) {
  switch (o) {
    // AdamW with fp32 master weights: read grad, m, v, master (16 B), write
    // m, v, master (12 B) and the bf16 copy (2 B), plus grad-norm and zeroing (~6 B).
    case Optimizer::kAdamW: return 36;
    case Optimizer::kAdamW8bit:
    case Optimizer::kPagedAdamW8bit: return 22;  // 1-byte moments
    case Optimizer::kSgdMomentum: return 24;
  }
  return 36;
}

}  // namespace

StepTime estimate_step_time(const ModelSpec& model, const Layout& l, const GpuSpec& g, const StepTimeOptions& o) {
  StepTime r;
  Ctx c{model, l, g, o, l.precision, l.precision == Precision::kFp16 ? Precision::kFp16 : Precision::kBf16, 0.8, 0, 8, Link{}, Link{}, 0};
  if (!g.has(c.gemm_p)) c.gemm_p = g.has(Precision::kFp16) ? Precision::kFp16 : Precision::kBf16;
  if (!g.has(c.act_p)) c.act_p = c.gemm_p == Precision::kFp8 ? Precision::kBf16 : c.gemm_p;
  c.ceiling = o.gemm_ceiling > 0 ? o.gemm_ceiling : training_gemm_ceiling(g);
  c.hbm = g.hbm_bytes_per_s * o.hbm_efficiency;
  c.node = o.gpus_per_node > 0 ? o.gpus_per_node : g.gpus_per_node;
  if (g.nvlink_domain_gpus > c.node) c.node = g.nvlink_domain_gpus;
  // Intra-node: measured all-reduce bus bandwidth (nccl-tests) where the
  // catalog has it, else 80% of the link (A100: 230 of 300; H100: 365 of 450;
  // hardware_facts §2d).
  const double intra_bw = o.intra_busbw_bytes_per_s > 0 ? o.intra_busbw_bytes_per_s
                          : g.allreduce_busbw_bytes_per_s > 0 ? g.allreduce_busbw_bytes_per_s
                                                               : 0.80 * g.intra_bytes_per_s;
  const double nic = o.scaleout_bytes_per_s > 0 ? o.scaleout_bytes_per_s : g.scaleout_bytes_per_s;
  c.intra = Link{intra_bw, o.intra_latency_s};
  c.inter = Link{std::max(nic * o.scaleout_efficiency, 1e6), o.inter_latency_s};
  c.tokens = static_cast<double>(l.micro_batch) * static_cast<double>(l.seq_len) / l.cp;
  r.peak_flop_per_s = g.peak(c.gemm_p);

  const int64_t L = model.layers;
  const int64_t m = std::max<int64_t>(1, l.micro_batches());
  r.micro_batches = m;
  const double p = l.pp, v = l.vp;
  const double h = static_cast<double>(model.hidden);
  const double tp = l.tp;

  // Layer costs, averaged over dense and MoE layers.
  int64_t moe_layers = 0;
  if (model.moe) {
    for (int64_t i = 0; i < L; ++i) moe_layers += model.is_moe_layer(i) ? 1 : 0;
  }
  LayerCost avg;
  {
    // The per-layer costs depend only on the shape of one micro-batch on one
    // rank; the planner asks for thousands of layouts sharing a few shapes, so
    // the last ones are remembered (per thread).
    // Keyed by value: callers reuse one options object (calibration bisects
    // on gemm_ceiling) and build specs in the same stack slot (validation), so
    // addresses alone would return another configuration's costs.
    // The whole ModelSpec is compared (a field left out of a key once made a
    // changed learned_positions return the old costs), the GPU by every
    // number layer_cost reads, and the layout by the fields layer_cost reads.
    struct Key {
      StepTimeOptions opt; std::string gpu_id; std::map<Precision, double> gpu_peaks; double gpu_hbm, gpu_link, gpu_burst, gpu_sustained,
          gpu_busbw, gpu_nic; int gpu_node, gpu_domain;
      int tp, cp, ep; int64_t mb, seq; bool sp, flash, eager, tp_overlap; Precision p; int node;
      bool operator==(const Key&) const = default;
    };
    struct Entry { ModelSpec model; Key key; LayerCost dense, moe; bool used = false; };
    thread_local Entry cache[64];
    const size_t slot = (static_cast<size_t>(l.tp) * 31 + static_cast<size_t>(l.cp) * 7 + static_cast<size_t>(l.ep) * 13 +
                         static_cast<size_t>(l.micro_batch) * 17 + (l.sequence_parallel ? 1 : 0)) % 64;
    Entry& e = cache[slot];
    auto key_matches = [&](const Key& k) {
      return k.opt == o && k.gpu_id == g.id && k.gpu_peaks == g.peak_flop_per_s && k.gpu_hbm == g.hbm_bytes_per_s &&
             k.gpu_link == g.intra_bytes_per_s && k.gpu_burst == g.gemm_efficiency && k.gpu_sustained == g.gemm_sustained_efficiency &&
             k.gpu_busbw == g.allreduce_busbw_bytes_per_s && k.gpu_nic == g.scaleout_bytes_per_s && k.gpu_node == g.gpus_per_node &&
             k.gpu_domain == g.nvlink_domain_gpus && k.tp == l.tp && k.cp == l.cp && k.ep == l.ep && k.mb == l.micro_batch &&
             k.seq == l.seq_len && k.sp == l.sequence_parallel && k.flash == l.flash_attention && k.eager == l.eager &&
             k.tp_overlap == l.tp_comm_overlap && k.p == l.precision && k.node == c.node;
    };
    if (!(e.used && !o.explain && key_matches(e.key) && e.model == model)) {
      e.key = Key{o, g.id, g.peak_flop_per_s, g.hbm_bytes_per_s, g.intra_bytes_per_s, g.gemm_efficiency, g.gemm_sustained_efficiency,
                  g.allreduce_busbw_bytes_per_s, g.scaleout_bytes_per_s, g.gpus_per_node, g.nvlink_domain_gpus,
                  l.tp, l.cp, l.ep, l.micro_batch, l.seq_len, l.sequence_parallel, l.flash_attention, l.eager, l.tp_comm_overlap,
                  l.precision, c.node};
      e.model = model;
      e.used = true;
      e.dense = layer_cost(c, false);
      e.moe = moe_layers > 0 ? layer_cost(c, true) : e.dense;
    }
    const LayerCost dense = e.dense;
    const LayerCost moe = e.moe;
    const double fm = static_cast<double>(moe_layers) / static_cast<double>(L), fd = 1 - fm;
    auto mix = [&](double LayerCost::*f) { avg.*f = fd * dense.*f + fm * moe.*f; };
    for (auto f : {&LayerCost::gemm_f, &LayerCost::gemm_b, &LayerCost::attn_f, &LayerCost::attn_b, &LayerCost::elem_f,
                   &LayerCost::elem_b, &LayerCost::tp_f, &LayerCost::tp_b, &LayerCost::cp_f, &LayerCost::cp_b, &LayerCost::ep_f,
                   &LayerCost::ep_b, &LayerCost::comm_raw, &LayerCost::gemm_flop, &LayerCost::gemm_flop_over_eff}) {
      mix(f);
    }
  }

  // Recompute: the shares of a layer's forward GEMMs, attention, element-wise
  // work and collectives that the backward re-runs. Full: all of it (with its
  // collectives); Megatron's selective: the attention core (Korthikanti 2022,
  // §5); torchtitan's op policy: every second matmul and all element-wise work,
  // attention saved, the all-gathers redone and the reduce-scatters saved
  // (recompute_policy.hpp); every-N-th layer: those blocks fully.
  double rf_gemm = 0, rf_attn = 0, rf_elem = 0, rf_comm = 0;
  if (l.recompute == Recompute::kFull) {
    rf_gemm = rf_attn = rf_elem = rf_comm = 1;
  } else if (l.recompute == Recompute::kSelective) {
    if (l.selective == SelectiveRecompute::kOp) {
      const OpPolicySplit sd = op_policy_split(model, false);
      double share = sd.recomputed_gemm_flop / std::max(1.0, sd.gemm_flop);
      if (moe_layers > 0) {
        const OpPolicySplit sm = op_policy_split(model, true);
        const double fm = static_cast<double>(moe_layers) / static_cast<double>(L);
        share = (1 - fm) * share + fm * sm.recomputed_gemm_flop / std::max(1.0, sm.gemm_flop);
      }
      rf_gemm = share;
      rf_elem = 1;
      rf_comm = 0.5;
    } else if (l.selective == SelectiveRecompute::kLayer) {
      rf_gemm = rf_attn = rf_elem = rf_comm = layer_policy_share(static_cast<int64_t>(std::ceil(static_cast<double>(L) / p)), l.selective_every);
    } else {
      rf_attn = 1;
    }
  }
  const double rc = rf_gemm * avg.gemm_f + rf_attn * avg.attn_f + rf_elem * avg.elem_f + rf_comm * (avg.tp_f + avg.cp_f + avg.ep_f);

  // LM head and loss on the last stage: logits GEMM split over TP, then a
  // vocab-parallel cross-entropy streaming fp32 logits (~14 B per logit
  // forward, ~8 B backward). The embedding lookup on the first stage is a copy.
  LayerCost head;
  add_gemm(c, head, c.tokens, static_cast<double>(model.vocab) / tp, h);
  const double logits = c.tokens * static_cast<double>(model.vocab) / tp;
  // Eager cross-entropy (F.cross_entropy on logits.float()): to(fp32) 2+4,
  // log-softmax max, sum-exp and output 4+4+4+4 = 22 B forward; backward
  // scatter 4, log-softmax 4+4+4, to(bf16) 4+2 = 22 B.
  head.elem_f += stream_s(c, (l.eager ? 22.0 : 14.0) * logits + 4.0 * c.tokens * h, 6);  // + final norm
  head.elem_b += stream_s(c, (l.eager ? 22.0 : 8.0) * logits + 8.0 * c.tokens * h, 6);
  const double embed_s = stream_s(c, 2.0 * c.tokens * h * 2.0, 2);

  // Each stage's time for one micro-batch: its layers (stage_split: Megatron's
  // even or uneven split, docs/step-time.md), the embedding on the first, the
  // LM head and loss on the last. The slowest sets the pace of the pipeline;
  // the bubble is (p−1)/v of the mean stage.
  const StageSplit split = stage_split(model, l);
  const double layer_fb = avg.fwd() + avg.bwd() + rc;
  int slow = 0;
  double t_max = -1, t_sum = 0;
  for (int s = 0; s < l.pp; ++s) {
    const double t = static_cast<double>(split.layers(s)) * layer_fb + (s == 0 ? embed_s : 0.0) +
                     (s == l.pp - 1 ? head.fwd() + head.bwd() : 0.0);
    t_sum += t;
    if (t > t_max) {
      t_max = t;
      slow = s;
    }
  }
  const double t_mean = t_sum / p;
  const double layers_slow = static_cast<double>(split.layers(slow));
  const double head_on = slow == l.pp - 1 ? 1.0 : 0.0, embed_on = slow == 0 ? 1.0 : 0.0;
  // The stage holding the most parameters (its gradients are reduced last).
  const double layers_max = static_cast<double>(split.max_layers());
  r.stage_fwd_s = layers_slow * avg.fwd() + head_on * head.fwd();
  r.stage_bwd_s = layers_slow * (avg.bwd() + rc) + head_on * head.bwd();

  // Pipeline point-to-point: one activation per micro-batch per boundary
  // each way, split over the TP ranks (Narayanan 2021, §4.1 scatter/gather);
  // across nodes unless the whole tp·cp·dp block fits in one.
  double pp_comm = 0, pp_raw = 0;
  if (l.pp > 1) {
    const Link link = group_link(c, static_cast<int64_t>(l.tp) * l.cp * l.dp, 2);
    const double bytes = c.tokens * h * 2.0 / tp;
    const double t = bytes / link.bytes_per_s + link.latency_s;
    pp_comm = 2.0 * (static_cast<double>(m) * v + p - 1) * t;
    pp_raw = 2.0 * static_cast<double>(m) * v * (p - 1) * t;
  }

  // ---- Data parallelism. Parameters on the largest stage per GPU.
  // Parameter counts and FLOPs per token depend on the model (and sequence)
  // only; remembered for the planner's inner loop.
  // Keyed by value: the whole ModelSpec, the sequence and the recompute.
  thread_local ModelSpec mkey_model;
  thread_local int64_t mkey_seq = -1;
  thread_local Recompute mkey_rc = Recompute::kNone;
  thread_local ParamCounts pc_cached;
  thread_local FlopsPerToken f_cached;
  if (o.explain || mkey_seq != l.seq_len || mkey_rc != l.recompute || !(mkey_model == model)) {
    FlopOptions fo;
    fo.seq_len = l.seq_len;
    fo.causal_half = false;
    fo.recompute = l.recompute;
    pc_cached = count_params(model);
    f_cached = flops_per_token(model, fo);
    mkey_model = model;
    mkey_seq = l.seq_len;
    mkey_rc = l.recompute;
  }
  const ParamCounts& pc = pc_cached;
  const double frac = layers_max / static_cast<double>(L);
  const double expert_params = pc.mlp_experts * frac / (tp * l.ep);
  const double stage_extra = l.pp == 1 ? pc.embedding : static_cast<double>(model.vocab) * h;
  const double dense_params = ((pc.attention + pc.mlp_dense + pc.norms) * frac + stage_extra) / tp;
  const int64_t dp_group = static_cast<int64_t>(l.dp) * l.cp;
  const int64_t stride = static_cast<int64_t>(l.tp) * l.cp;  // Megatron order: tp, cp, dp, pp
  int local = 1;
  if (stride < c.node) local = static_cast<int>(std::min<int64_t>(dp_group, c.node / stride));
  const int nodes = static_cast<int>(std::max<int64_t>(1, dp_group / std::max(local, 1)));
  r.dp_nodes = nodes;
  const double gb = o.grad_reduce_bytes > 0 ? o.grad_reduce_bytes : (l.precision == Precision::kFp16 ? 2.0 : 4.0);
  const int ep_group = static_cast<int>(std::max<int64_t>(1, dp_group / l.ep));
  const int ep_local = std::max(1, std::min(local, ep_group));
  const int ep_nodes = std::max(1, ep_group / ep_local);
  auto reduce_all = [&](double bytes_dense, double bytes_expert, bool scatter) {
    auto f = scatter ? hierarchical_reduce_scatter_s : hierarchical_allreduce_s;
    return f(bytes_dense, local, nodes, c.intra, c.inter) + f(bytes_expert, ep_local, ep_nodes, c.intra, c.inter);
  };
  auto gather_all = [&](double bytes_dense, double bytes_expert) {
    // An all-gather costs what a reduce-scatter of the same buffer costs.
    return hierarchical_reduce_scatter_s(bytes_dense, local, nodes, c.intra, c.inter) +
           hierarchical_reduce_scatter_s(bytes_expert, ep_local, ep_nodes, c.intra, c.inter);
  };
  const double eta = o.overlap_efficiency;
  const double bwd_last = r.stage_bwd_s;
  const double fwd_first = r.stage_fwd_s;
  // Overlap with the backward of the last micro-batch, except the last bucket
  // (the first layer's gradients, produced at the very end).
  auto overlapped = [&](double t, double window) {
    if (!l.dp_comm_overlap) return t;
    return std::max(t - eta * window, t / std::max(1.0, layers_max));
  };
  double dp_exposed = 0, dp_raw = 0, z3_exposed = 0, z3_raw = 0;
  const double compute_mb = t_max;  // one micro-batch on the slowest stage
  if (dp_group > 1) {
    if (l.zero_stage == 0) {
      const double t = reduce_all(dense_params * gb, expert_params * gb, false);
      dp_raw = t;
      dp_exposed = overlapped(t, bwd_last);
    } else if (l.zero_stage <= 2) {
      // ZeRO-1 (distributed optimizer): reduce-scatter the gradients, all-gather
      // the updated bf16 parameters. ZeRO-2 reduce-scatters every micro-batch.
      const double rs = reduce_all(dense_params * gb, expert_params * gb, true);
      const double ag = gather_all(dense_params * 2.0, expert_params * 2.0);
      if (l.zero_stage == 1) {
        dp_raw = rs + ag;
        dp_exposed = overlapped(rs, bwd_last) + overlapped(ag, fwd_first);
      } else {
        dp_raw = static_cast<double>(m) * rs + ag;
        const double per_mb = std::max(rs, bwd_last) + (1 - eta) * std::min(rs, bwd_last) - bwd_last;
        dp_exposed = static_cast<double>(m - 1) * per_mb + overlapped(rs, bwd_last) + overlapped(ag, fwd_first);
      }
    } else {
      // ZeRO-3 / FSDP: every micro-batch all-gathers the bf16 parameters for the
      // forward and again for the backward (and for the recompute forward when
      // activations are fully recomputed, since the module's forward runs again),
      // then reduce-scatters the gradients; prefetching overlaps them with compute.
      const int shard = l.shard_group > 0 ? l.shard_group : static_cast<int>(dp_group);
      const int s_local = std::max(1, std::min(local, shard));
      const int s_nodes = std::max(1, shard / s_local);
      // Recomputed blocks run their forward hooks again: one more gather each.
      const double gathers = 2.0 + rf_elem;
      const double ag = hierarchical_reduce_scatter_s((dense_params + expert_params) * 2.0, s_local, s_nodes, c.intra, c.inter);
      const double rs = hierarchical_reduce_scatter_s((dense_params + expert_params) * gb, s_local, s_nodes, c.intra, c.inter);
      // The gathers and reduce-scatters are issued per layer (FSDP's unit is a
      // transformer block; ZeRO-3 fetches module by module), not once for the
      // model, and each call is one ring through every rank of the shard group
      // (ring_gather_latency_s). The hierarchical terms above already hold the
      // latency of one intra-node and one inter-node ring per pass.
      // FSDP wraps each transformer block; DeepSpeed ZeRO-3 hooks every
      // submodule (deepspeed/runtime/zero: _register_hooks_recursively) and its
      // pre-forward hook gathers that module's own parameters: the norms and
      // the linears of a block as Megatron defines them (fused QKV, output,
      // fused gate/up or first MLP linear, second MLP linear).
      const double modules = l.zero3_per_module ? static_cast<double>(model.norms_per_layer) + 4.0 : 1.0;
      const double units = layers_max * modules + 1;  // the layers of the stage plus embedding/head
      const double ring_latency = ring_gather_latency_s(shard, s_nodes, c.intra, c.inter);
      const double counted = ring_gather_latency_s(s_local, 1, c.intra, c.inter) + ring_gather_latency_s(s_nodes, s_nodes, c.intra, c.inter);
      const double latency_per_pass = std::max(0.0, units * ring_latency - counted);
      double comm = gathers * ag + rs + (gathers + 1) * latency_per_pass;
      // A stage kept gathered under pipelining (zero3_keep_gathered: FSDP2 in
      // torch.distributed.pipelining runs every micro-batch but the last with
      // reshard_after_forward/backward off and gradient sync off) gathers once
      // and reduce-scatters once per step: spread over the m micro-batches.
      if (l.zero3_keep_gathered) comm = (ag + rs + 2 * latency_per_pass) / static_cast<double>(m);
      const double per_mb = !l.zero3_prefetch ? comm : std::max(comm, compute_mb) + (1 - eta) * std::min(comm, compute_mb) - compute_mb;
      z3_raw = static_cast<double>(m) * comm;
      z3_exposed = static_cast<double>(m) * per_mb;
      if (shard < dp_group) {
        // HSDP: all-reduce the shard's gradients across the replicas.
        const int replicas = static_cast<int>(dp_group / shard);
        const double t = ring_allreduce_s((dense_params + expert_params) * gb / shard, replicas, c.inter);
        dp_raw = t;
        dp_exposed = overlapped(t, bwd_last);
      }
    }
  }

  // ---- Optimizer step: memory-bound over the parameters this GPU updates.
  double opt_params = dense_params + expert_params;
  if (l.zero_stage >= 1) opt_params = dense_params / dp_group + expert_params / ep_group;
  double opt_s = stream_s(c, opt_params * optimizer_bytes_per_param(l.optimizer), 8);
  if (l.offload_optimizer) {
    // Gradients down and parameters up over PCIe, Adam on the host (~50 GB/s of host memory).
    const double pcie = g.pcie_gen >= 5 ? 50e9 : g.pcie_gen == 4 ? 25e9 : 12e9;
    opt_s = opt_params * (gb + 2.0) / pcie + opt_params * 36.0 / 50e9;
  }

  // ---- Assemble.
  const double md = static_cast<double>(m);
  const double bubble = (p - 1) / v * t_mean;
  r.bubble_s = l.pp > 1 ? bubble : 0;
  const double per_mb_compute = layers_slow * (avg.gemm_f + avg.gemm_b + avg.attn_f + avg.attn_b + avg.elem_f + avg.elem_b) +
                                head_on * (head.gemm_f + head.gemm_b + head.elem_f + head.elem_b) + embed_on * embed_s;
  const double per_mb_rc_compute = layers_slow * (rf_gemm * avg.gemm_f + rf_attn * avg.attn_f + rf_elem * avg.elem_f);
  const double rc_comm_tp = rf_comm * avg.tp_f;
  const double rc_comm_cp = rf_comm * avg.cp_f;
  const double rc_comm_ep = rf_comm * avg.ep_f;
  r.compute_s = md * (per_mb_compute + per_mb_rc_compute);
  r.gemm_s = md * (layers_slow * (avg.gemm_f + avg.gemm_b) + head_on * (head.gemm_f + head.gemm_b));
  r.attention_s = md * layers_slow * (avg.attn_f + avg.attn_b);
  r.elementwise_s = md * (layers_slow * (avg.elem_f + avg.elem_b) + head_on * (head.elem_f + head.elem_b) + embed_on * embed_s);
  r.gemm_s += md * layers_slow * rf_gemm * avg.gemm_f;
  r.attention_s += md * layers_slow * rf_attn * avg.attn_f;
  r.elementwise_s += md * layers_slow * rf_elem * avg.elem_f;
  r.recompute_s = md * per_mb_rc_compute;
  r.tp_comm_s = md * layers_slow * (avg.tp_f + avg.tp_b + rc_comm_tp);
  r.cp_comm_s = md * layers_slow * (avg.cp_f + avg.cp_b + rc_comm_cp);
  r.ep_comm_s = md * layers_slow * (avg.ep_f + avg.ep_b + rc_comm_ep);
  r.pp_comm_s = pp_comm;
  r.dp_comm_s = dp_exposed;
  r.zero3_comm_s = z3_exposed;
  r.optimizer_s = opt_s;
  r.step_s = md * t_max + r.bubble_s + pp_comm + dp_exposed + z3_exposed + opt_s;

  const double rc_raw = 0.25 * rf_comm;  // recompute repeats the forward's 1 of 4 collectives
  r.comm_total_s = md * layers_slow * avg.comm_raw * (1 + rc_raw) + pp_raw + dp_raw + z3_raw;
  r.comm_exposed_s = r.tp_comm_s + r.cp_comm_s + r.ep_comm_s + r.pp_comm_s + r.dp_comm_s + r.zero3_comm_s;
  r.comm_share = r.comm_exposed_s / r.step_s;
  r.bubble_fraction = r.bubble_s / std::max(1e-12, md * t_max + r.bubble_s);
  r.gemm_efficiency_mean = avg.gemm_flop > 0 ? avg.gemm_flop / avg.gemm_flop_over_eff : 0;

  // ---- Rates. MFU counts model FLOPs without recompute and with the full s×s
  // attention matrix (Narayanan 2021 eq. 3; Korthikanti 2022; PaLM appendix B);
  // HFU adds the recompute forward.
  const FlopsPerToken& f = f_cached;
  r.tokens_per_step = static_cast<double>(l.effective_global_batch()) * static_cast<double>(l.seq_len);
  r.tokens_per_s = r.tokens_per_step / r.step_s;
  r.tokens_per_s_per_gpu = r.tokens_per_s / static_cast<double>(l.gpus());
  r.model_flop_per_step = f.model_flop * r.tokens_per_step;
  r.hardware_flop_per_step = f.hardware_flop * r.tokens_per_step;
  const double cluster_peak = r.peak_flop_per_s * static_cast<double>(l.gpus());
  r.mfu = r.model_flop_per_step / (r.step_s * cluster_peak);
  r.hfu = r.hardware_flop_per_step / (r.step_s * cluster_peak);

  if (!o.explain) return r;
  r.assumptions.push_back(fmt::format("GEMM ceiling {:.1f}% of dense {} peak ({})", 100 * c.ceiling, precision_name(c.gemm_p),
                                      o.gemm_ceiling > 0 ? "calibrated or given" : training_gemm_ceiling_basis(g)));
  r.assumptions.push_back(fmt::format("intra-node bus bandwidth {:.0f} GB/s, scale-out {:.1f} GB/s per GPU", intra_bw / 1e9,
                                      c.inter.bytes_per_s / 1e9));
  r.assumptions.push_back(fmt::format("HBM streaming at {:.0f}% of {:.2f} TB/s", 100 * o.hbm_efficiency, g.hbm_bytes_per_s / 1e12));
  r.assumptions.push_back(l.tp_comm_overlap ? "TP collectives overlapped with GEMMs" : "TP collectives exposed (not overlapped)");
  r.assumptions.push_back(fmt::format("DP/ZeRO traffic overlapped with compute at {:.0f}% efficiency", 100 * eta));
  return r;
}

}  // namespace gpuplan
