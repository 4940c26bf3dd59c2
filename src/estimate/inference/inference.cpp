// Inference time for one replica: a step's passes, prefill, decode and a
// static batch. docs/inference.md has every formula with its source; the
// memory side is in inference_memory.cpp.
//
// Time: every kernel is its own roofline, max(FLOPs / (peak · efficiency),
// bytes / achieved HBM bandwidth) plus a launch overhead, and kernels run one
// after another (Williams et al. 2009, "Roofline"). GEMM efficiency at each
// shape and the collective costs come from the step-time model
// (gemm_efficiency.cpp, collectives.cpp); FLOP counts from flops.cpp.
#include <algorithm>
#include <cmath>
#include <string_view>

#include "gpuplan/flops.hpp"
#include "gpuplan/inference.hpp"
#include "model/layer_ops.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/units.hpp"
#include "estimate/kernels/inference_gemm.hpp"
#include "estimate/inference/inference_internal.hpp"

namespace gpuplan {

using inference_detail::ffn_width;
using inference_detail::kv_elem_bytes;
using inference_detail::kv_heads_per_gpu;
using inference_detail::kv_token_bytes_all_layers;
using inference_detail::prefilled_tokens;

namespace {

// FlashAttention-2's forward pass reaches ~0.8 of the large-GEMM ceiling
// (Dao 2023, figs. 4–6: 230 of 312 TFLOP/s on A100 at head dim 128); the same
// factor the training step-time model uses for the attention core.
constexpr double kAttentionShare = 0.80;

struct Machine {
  const GpuSpec& g;
  Precision gemm_p = Precision::kFp16;
  double peak_attn = 0;
  double ceiling = 0.8;
  double hbm = 0;
  double overhead = 4e-6;
  double wbytes = 2;     // bytes per weight of the dense layer matrices (WeightBytes::layers)
  double expert_wbytes = 2;  // of the routed experts
  double head_wbytes = 2;    // of the LM head
  bool dequantise_per_call = false;  // WeightBytes::dequantise_per_call (bitsandbytes)
  bool nccl = false;                 // TP all-reduce through NCCL at every size (InferenceOptions::tp_allreduce_nccl)
  double act = 2;        // bytes per activation element read by a GEMM
  Link link;
  int tp = 1;
  int ep = 1;             // expert ranks of a stage (1: experts split by TP)
  double dp = 1;          // attention data-parallel ranks of a stage
  double ep_bytes_per_s = 0;  // achieved per-GPU all-to-all rate (dispatch), see ep_all_to_all_s
  double ep_combine_bytes_per_s = 0;
  double ep_latency_s = 0;
  // FP8 GEMMs with more token rows than blas_above run the vendor BLAS and
  // stream their weights at blas_hbm (GpuSpec::blas_fp8_decode_hbm_efficiency);
  // blas_hbm 0: every GEMM streams at hbm.
  double blas_hbm = 0;
  double blas_above = 0;
};

// Expert all-to-all rates, from DeepEP's published kernel measurements
// (github.com/deepseek-ai/DeepEP README, H800 with one CX7 400 Gb/s NIC per GPU,
// DeepSeek-V3 shapes: h 7168, top-8, FP8 dispatch, BF16 combine):
//   inside a node (normal kernels over NVLink): 153 GB/s dispatch, 158 GB/s
//   combine of H800's ~160 GB/s → 0.96 of the per-GPU NVLink rate the kernel sees;
//   the catalog's one-direction NVLink figure is used at that share, capped at 0.77
//   of it (153 of H800's 200 GB/s one-direction);
//   across nodes (low-latency kernels, pure RDMA, 128 tokens per rank):
//   dispatch 63 / 48 / 43 / 39 GB/s and combine 74 / 53 / 46 / 40 GB/s at EP
//   16 / 32 / 64 / ≥128 of a ~50 GB/s NIC, so per-NIC shares 1.26/0.96/0.86/0.78
//   (dispatch) and 1.48/1.06/0.92/0.80 (combine); above 1 at EP 16 because half
//   the destinations share the node. Scaled by this GPU's NIC over 50 GB/s.
// The smallest measured latency, EP 8 dispatch of 128 tokens (77 µs at 98 GB/s,
// 7.3 MB), is nearly all bandwidth; a fixed 2 × the inter-node α of the
// step-time model (StepTimeOptions::inter_latency_s) is the floor per transfer.
void set_ep_links(Machine& c, const GpuSpec& g, const StepTimeOptions& so) {
  const int node = std::max(1, g.gpus_per_node);
  if (c.ep <= 1) return;
  if (c.ep <= node || g.scaleout_bytes_per_s <= 0) {
    const double nv = g.intra_bytes_per_s > 0 ? g.intra_bytes_per_s : 31e9;
    c.ep_bytes_per_s = 0.765 * nv;           // 153 / 200
    c.ep_combine_bytes_per_s = 0.79 * nv;    // 158 / 200
    c.ep_latency_s = 2 * so.intra_latency_s;
    return;
  }
  const double nic = g.scaleout_bytes_per_s / 50e9;
  const double d = c.ep <= 16 ? 63e9 : c.ep <= 32 ? 48e9 : c.ep <= 64 ? 43e9 : 39e9;
  const double k = c.ep <= 16 ? 74e9 : c.ep <= 32 ? 53e9 : c.ep <= 64 ? 46e9 : 40e9;
  c.ep_bytes_per_s = d * nic;
  c.ep_combine_bytes_per_s = k * nic;
  c.ep_latency_s = 2 * so.inter_latency_s;
}

}  // namespace

double fp8_blas_hbm_efficiency(const GpuSpec& g, WeightFormat weights, int64_t above_tokens) {
  const bool fp8_gemms = weights == WeightFormat::kFp8 && g.has(Precision::kFp8);
  return above_tokens >= 0 && fp8_gemms ? g.blas_fp8_decode_hbm_efficiency : 0.0;
}

namespace {

Machine machine(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o) {
  const StepTimeOptions so;
  Machine c{g, Precision::kFp16, 0, 0.8, 0, 4e-6, 2, 2, 2, false, false, 2, Link{}, 1, 1, 1, 0, 0, 0};
  const Precision half = g.has(Precision::kBf16) ? Precision::kBf16 : Precision::kFp16;
  switch (o.weights) {
    case WeightFormat::kFp16: c.gemm_p = g.has(Precision::kFp16) ? Precision::kFp16 : half; break;
    case WeightFormat::kBf16: c.gemm_p = half; break;
    // FP8 GEMMs where the part has FP8 tensor cores; otherwise the weights are
    // dequantised into 16-bit GEMMs (vLLM's FP8 Marlin path on Ampere).
    case WeightFormat::kFp8: c.gemm_p = g.has(Precision::kFp8) ? Precision::kFp8 : half; break;
    // Weight-only formats multiply in 16 bits after dequantising in the kernel.
    case WeightFormat::kInt8:
    case WeightFormat::kInt4: c.gemm_p = g.has(Precision::kFp16) ? Precision::kFp16 : half; break;
  }
  c.peak_attn = g.peak(g.has(Precision::kFp16) ? Precision::kFp16 : half);
  c.ceiling = burst_gemm_ceiling(g, c.gemm_p);
  c.hbm = g.hbm_bytes_per_s * o.hbm_efficiency.value_or(so.hbm_efficiency);
  c.overhead = so.kernel_overhead_s;
  const WeightBytes wb = weight_bytes(m, o);
  c.wbytes = wb.layers;
  c.expert_wbytes = wb.experts;
  c.head_wbytes = wb.lm_head;
  c.dequantise_per_call = wb.dequantise_per_call;
  c.nccl = o.tp_allreduce_nccl;
  c.act = c.gemm_p == Precision::kFp8 ? 1.0 : 2.0;
  // The link a TP all-reduce uses: measured all-reduce bus bandwidth where the
  // catalog has it, else 80% of NVLink; PCIe-only parts go through PCIe
  // (x16 per direction: Gen3 16, Gen4 31, Gen5 63 GB/s, hardware_facts §2a) at 80%.
  double bw = g.allreduce_busbw_bytes_per_s > 0 ? g.allreduce_busbw_bytes_per_s : 0.80 * g.intra_bytes_per_s;
  if (bw <= 0) bw = 0.80 * (g.pcie_gen >= 5 ? 63e9 : g.pcie_gen == 4 ? 31e9 : g.pcie_gen == 3 ? 16e9 : 31e9);
  c.link = Link{bw, so.intra_latency_s};
  c.tp = o.tp;
  c.ep = std::max(1, o.ep);
  c.dp = std::max(1, o.dp_attention);
  set_ep_links(c, g, so);
  if (const double blas = fp8_blas_hbm_efficiency(g, o.weights, o.fp8_blas_above_tokens); blas > 0) {
    c.blas_hbm = g.hbm_bytes_per_s * blas;
    c.blas_above = static_cast<double>(o.fp8_blas_above_tokens);
  }
  return c;
}

// One GEMM [m×k]·[k×n] with quantised weights: its roofline time, no launch overhead.
// bitsandbytes' 4-bit path for more than one row first dequantises the whole
// weight into a 16-bit buffer (a streaming kernel: its bytes read, 2 written)
// and then runs the 16-bit GEMM on it (bitsandbytes/autograd/_functions.py
// matmul_4bit; data/weight_quant.json nf4).
double gemm_core_s(const Machine& c, double m, double n, double k, PassTime& t, double groups = 1) {
  if (m <= 0 || n <= 0 || k <= 0 || groups <= 0) return 0;
  double dequantise_s = 0;
  double wbytes = c.wbytes;
  if (c.dequantise_per_call && m > 1) {
    const double weights = n * k * groups;
    dequantise_s = weights * (c.wbytes + 2) / c.hbm + c.overhead;
    t.weight_bytes += weights * (c.wbytes + 2);
    wbytes = 2;
  }
  // The engine's own skinny kernel streams at the GPU's streaming rate; the
  // vendor BLAS, where the engine hands it the GEMM, at its measured one.
  const double hbm = c.blas_hbm > 0 && c.gemm_p == Precision::kFp8 && m > c.blas_above ? c.blas_hbm : c.hbm;
  const GemmRoofline r = inference_gemm_roofline(c.g, c.gemm_p, m, n, k, c.ceiling, hbm, wbytes, c.act, groups);
  t.flop += r.flop;
  t.weight_bytes += r.weight_bytes;
  t.gemm_compute_s += r.compute_s;
  t.gemm_memory_s += r.memory_s + dequantise_s;
  return r.time_s() + dequantise_s;
}

double gemm_s(const Machine& c, double m, double n, double k, PassTime& t) {
  return gemm_core_s(c, m, n, k, t) + c.overhead;
}

// TP all-reduce of `bytes` per rank. Messages up to 8 MiB use the serving
// engines' one-/two-shot custom all-reduce over NVLink (vLLM
// custom_all_reduce.cuh, max_size 8 MiB; TensorRT-LLM's custom all-reduce):
// the bandwidth term of a ring plus two synchronisation hops. Larger ones use
// NCCL's ring (collectives.cpp).
double tp_allreduce_s(const Machine& c, double bytes) {
  if (c.tp <= 1 || bytes <= 0) return 0;
  // An engine without a custom all-reduce (TGI; TensorRT-LLM built without
  // --use_custom_all_reduce) calls NCCL at every size: its measured time where
  // the catalog has the GPU's nccl-tests curve, else its ring with α per step.
  if (c.nccl) return measured_allreduce_s(c.g, bytes, c.tp).value_or(ring_allreduce_s(bytes, c.tp, c.link));
  if (bytes <= 8.0 * 1024 * 1024 && c.g.intra_bytes_per_s > 0) {
    return ring_allreduce_s(bytes, c.tp, Link{c.link.bytes_per_s, 0}) + 2 * c.link.latency_s;
  }
  return ring_allreduce_s(bytes, c.tp, c.link);
}

// Distinct experts a batch of M tokens routes to, of E with top-k routing
// each: with uniform, independent routing an expert is missed by one token
// with probability 1 − k/E, so E·(1 − (1 − k/E)^M) experts are touched
// (the expected number of occupied bins). 1 token: exactly k; many: all E.
double experts_touched(double experts, double top_k, double tokens) {
  if (experts <= 0 || tokens <= 0) return 0;
  return experts * (1 - std::pow(1 - top_k / experts, tokens));
}

// All the layers' GEMMs of one GPU for M tokens of its stage (M = batch for a
// decode step), folding over the layer's matmuls (layer_ops.hpp) as TP splits
// them. With DP attention every attention rank sees M/dp tokens in its dense
// matmuls; the routed experts see all M tokens of the stage, spread over the
// ep expert ranks.
void layers_gemm(const ModelSpec& m, const Machine& c, double M, PassTime& t) {
  const double tp = c.tp;
  const double Ma = M / c.dp;  // tokens of one attention rank
  const LayerMatmuls dense = layer_matmuls(m, false);
  const LayerMatmuls moe = m.moe ? layer_matmuls(m, true) : dense;
  for (int64_t layer = 0; layer < m.layers; ++layer) {
    const bool moe_layer = m.is_moe_layer(layer);
    double s = 0;
    double routed_in = 0;  // the routed experts' input matrix width (per GPU), met below with their output matrix
    for (const LayerMatmul& x : moe_layer ? moe : dense) {
      // Expert-parallel experts are whole on their rank; TP-split ones are cut like the dense MLP.
      const bool split = x.experts <= 0 || c.ep <= 1;
      double n = split && x.tp_column ? x.n / tp : x.n;
      const double k = split && x.tp_row ? x.k / tp : x.k;
      if (x.name == std::string_view("qkv")) {
        // K and V heads are replicated when TP exceeds their count.
        n = x.part[0] / tp + 2 * kv_heads_per_gpu(m, c.tp) * static_cast<double>(m.head_dim);
      }
      const std::string_view name = x.name;
      if (name == "mlp_in" || name == "shared_in") {
        s += gemm_core_s(c, Ma, n, k, t);
      } else if (name == "mlp_out" || name == "shared_out") {
        // The MLP's two GEMMs and their two kernel launches.
        s += gemm_core_s(c, Ma, n, k, t) + 2 * c.overhead;
      } else if (x.experts > 0) {
        if (name == "experts_in") {
          routed_in = n;
          continue;
        }
        // Only the experts the step's tokens route to are read, each once, in
        // one grouped GEMM per matrix (vLLM fused_moe / CUTLASS grouped GEMM,
        // DeepGEMM's m-grouped layout): the touched experts' tiles share the
        // SMs' waves, each expert's M·k/touched tokens padded to its tile
        // (inference_gemm_efficiency). With EP each rank holds E/ep of them.
        const double E = x.experts;
        const double top = static_cast<double>(m.moe->experts_per_token);
        const double touched = experts_touched(E, top, M);
        const double per_expert = M * top / touched;
        const double local = touched / c.ep;
        t.experts_touched = local;
        Machine ce = c;
        ce.wbytes = c.expert_wbytes;
        ce.blas_hbm = 0;  // a fused MoE kernel (vLLM fused_moe), not the vendor BLAS
        s += gemm_core_s(ce, per_expert, routed_in, x.n, t, local) + gemm_core_s(ce, per_expert, n, k, t, local) + 2 * c.overhead;
      } else {
        s += gemm_s(c, Ma, n, k, t);
      }
    }
    t.gemm_s += s;
  }
}

// DeepSeek-style expert parallelism: per MoE layer each GPU dispatches its
// tokens' hidden states to the top-k experts' ranks in FP8 (1 byte per element)
// and gathers the weighted results back in BF16 (2 bytes): DeepEP's
// low-latency decode path and normal prefill path (rates in set_ep_links).
double ep_all_to_all_s(const ModelSpec& m, const Machine& c, double M) {
  if (c.ep <= 1 || !m.moe || M <= 0) return 0;
  const double tokens = M / c.ep;  // the stage's tokens are spread evenly over its GPUs
  const double elems = tokens * static_cast<double>(m.moe->experts_per_token) * static_cast<double>(m.hidden);
  const double per_layer = elems * 1.0 / c.ep_bytes_per_s + elems * 2.0 / c.ep_combine_bytes_per_s + 2 * c.ep_latency_s;
  double layers = 0;
  for (int64_t l = 0; l < m.layers; ++l) layers += m.is_moe_layer(l) ? 1 : 0;
  return layers * per_layer;
}

// Element-wise work per layer for M tokens: two norms, two residual adds,
// rotary embedding of q and k, the MLP activation; ~4 fused kernels.
double elementwise_s(const ModelSpec& m, const Machine& c, double M) {
  const double tp = c.tp;
  const double h = static_cast<double>(m.hidden);
  const double qk = (static_cast<double>(m.q_width()) + static_cast<double>(m.kv_width())) / tp;
  const double bytes = 2.0 * (M / c.dp) * (10 * h + 2 * qk + 3 * ffn_width(m) / tp);
  return static_cast<double>(m.layers) * (bytes / c.hbm + 4 * c.overhead);
}

double lm_head_s(const ModelSpec& m, const Machine& c, double rows, PassTime& t) {
  // The LM head at the bytes the quantisation method leaves it (16-bit unless
  // the method quantises it, as llama.cpp's GGUF recipes do), multiplied in 16 bits.
  Machine h16 = c;
  h16.wbytes = c.head_wbytes;
  h16.dequantise_per_call = false;
  h16.act = 2;
  h16.gemm_p = c.g.has(Precision::kFp16) ? Precision::kFp16 : Precision::kBf16;
  return gemm_s(h16, rows, static_cast<double>(m.vocab) / c.tp, static_cast<double>(m.hidden), t);
}

// The pass on the GPU is its kernels one after another; run eagerly, the GPU
// also waits whenever the host has not yet launched the next kernel, so the
// pass takes the longer of the two, then the host's own per-step work.
void finish(PassTime& t) {
  const double gpu_s = t.gemm_s + t.attention_s + t.elementwise_s + t.tp_comm_s + t.lm_head_s + t.ep_comm_s + t.pp_comm_s + t.sampling_s;
  t.total_s = std::max(gpu_s, t.host_launch_s) + t.host_step_s;
  t.compute_bound = t.gemm_compute_s > t.gemm_memory_s;
}

// Attention FLOPs of one query over `keys` keys in every layer, no causal
// skipping (flops.cpp's attention core at that length).
double full_attention_flop_per_token(const ModelSpec& m, double keys) {
  FlopOptions fo;
  fo.seq_len = std::max<int64_t>(1, static_cast<int64_t>(std::llround(keys)));
  fo.causal_half = false;
  return flops_per_token(m, fo).forward_attention_flop;
}

// Scores written to memory by an unfused attention (llama.cpp without flash
// attention, src/llama.cpp llm_build_kqv @b3600 / @b4747: kq = ggml_mul_mat(k, q)
// in F32, ggml_soft_max_ext, kqv = ggml_mul_mat(v, kq)): `queries` rows of
// `keys` scores per head of the GPU in every layer, each 4 bytes written by
// KQ, read and written by the softmax and read by KQV: 16 bytes.
double materialised_score_bytes(const ModelSpec& m, const Machine& c, double queries, double keys) {
  const double heads = static_cast<double>(m.heads) / c.tp;
  return queries * keys * heads * static_cast<double>(m.layers) * 16.0;
}

// Decode attention rates of the published kernels (per GPU):
// MLA (DeepSeek): FlashMLA reaches 3000 GB/s memory-bound and 580 TFLOP/s
// compute-bound on H800 SXM5 (3.35 TB/s, 990 dense BF16 TFLOP/s;
// github.com/deepseek-ai/FlashMLA README @b31bfe7, CUDA 12.8): 0.90 of HBM and
// 0.59 of dense peak. With absorbed projections a query head attends over the
// compressed latent directly, 2·(r_kv + d_rope) + 2·r_kv FLOPs per head per
// cached token (FlashMLA deep-dive, docs/20250422-new-kernel-deep-dive.md:
// 2·h_q·s_k·(d_k + d_v)), and each rank reads the whole latent cache.
// MHA/GQA (paged FlashAttention / FlashInfer / XQA decode): the KV read at the
// project's streaming efficiency (StepTimeOptions::hbm_efficiency).
constexpr double kFlashMlaBandwidthShare = 3000.0 / 3350.0;
constexpr double kFlashMlaComputeShare = 580.0 / 990.0;

PassTime one_stage_pass(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, const StepMix& mix) {
  const Machine c = machine(m, g, o);
  PassTime t;
  const double pb = std::max(0.0, mix.prefill_seqs), pl = static_cast<double>(std::max<int64_t>(0, mix.prefill_len));
  const double db = std::max(0.0, mix.decode_seqs);
  const double prefill_tokens = pb * pl;
  // One forward pass over every token of the step: the GEMMs, element-wise
  // kernels and TP all-reduces see all of them at once (the weights are read
  // once per step however the tokens are split between prefill and decode;
  // Orca's selective batching, Yu et al. 2022 §4.2).
  const double M = prefill_tokens + db;
  if (M <= 0) return t;
  layers_gemm(m, c, M, t);
  const double kv_token_bytes = kv_token_bytes_all_layers(m, o);
  const double attn_peak = c.peak_attn * c.ceiling * kAttentionShare;
  // Attention runs per phase, one kernel each (TensorRT-LLM's context FMHA and
  // generation XQA/MMHA; vLLM's FlashAttention varlen with prefill and decode
  // rows): each is its own roofline. With DP attention a rank runs 1/dp of the sequences.
  if (prefill_tokens > 0) {
    // Causal attention core (FlashAttention computes the lower triangle only),
    // plus every key an earlier pass of the same prompt cached (prefill_prefix);
    // the new K and V are written to the cache.
    const double prefix = std::max(0.0, mix.prefill_prefix);
    FlopOptions fo;
    fo.seq_len = mix.prefill_len;
    fo.causal_half = true;
    double attn_flop = prefill_tokens / c.dp * flops_per_token(m, fo).forward_attention_flop / c.tp;
    if (prefix > 0) attn_flop += prefill_tokens / c.dp * full_attention_flop_per_token(m, prefix) / c.tp;
    const double kv_write = prefill_tokens / c.dp * kv_token_bytes;
    if (o.attention_scores_materialised) {
      // The KQ product spans every key of the cache after this pass, the masked
      // future ones included (ggml_mul_mat(k, q), then ggml_soft_max_ext with the
      // mask): its GEMMs, then the scores' 16 bytes each through memory, as
      // separate kernels one after another (KQ, softmax, KQV).
      const double keys = prefix + pl;
      attn_flop = prefill_tokens / c.dp * full_attention_flop_per_token(m, keys) / c.tp;
      const double score_bytes = materialised_score_bytes(m, c, prefill_tokens / c.dp, keys);
      t.kv_bytes += score_bytes;
      t.attention_s += attn_flop / attn_peak + (kv_write + score_bytes) / c.hbm + 3.0 * static_cast<double>(m.layers) * c.overhead;
    } else {
      t.attention_s += std::max(attn_flop / attn_peak, kv_write / c.hbm) + static_cast<double>(m.layers) * c.overhead;
    }
    t.flop += attn_flop;
    t.kv_bytes += kv_write;
  }
  if (db > 0) {
    // Each sequence's new query attends to its `context` cached tokens: the whole
    // KV cache of the rank's sequences is read once per step.
    const double seqs = db / c.dp;
    double kv_read = seqs * mix.decode_context * kv_token_bytes;
    // TensorRT-LLM's masked MHA before XQA: one thread block per (sequence,
    // query head), each loading its KV head's cache (`hi_kv = hi / qhead_per_kv`,
    // decoderMaskedMultiheadAttentionTemplate.h @v0.5.0-v0.7.1): a GQA group's
    // cache is loaded once per query head.
    if (o.kv_read_per_query_head && !m.mla && m.kv_heads > 0) kv_read *= static_cast<double>(m.heads) / static_cast<double>(m.kv_heads);
    double attn_flop = 0, compute_rate = attn_peak, read_rate = c.hbm;
    if (m.mla) {
      const double r = static_cast<double>(m.mla->kv_lora_rank), rope = static_cast<double>(m.mla->qk_rope_head_dim);
      const double heads = static_cast<double>(m.heads) / c.tp;
      attn_flop = seqs * mix.decode_context * static_cast<double>(m.layers) * heads * (2 * (r + rope) + 2 * r);
      compute_rate = c.peak_attn * kFlashMlaComputeShare;
      read_rate = g.hbm_bytes_per_s * kFlashMlaBandwidthShare;
    } else {
      FlopOptions fo;
      fo.seq_len = std::max<int64_t>(1, static_cast<int64_t>(std::llround(mix.decode_context)));
      fo.causal_half = false;
      attn_flop = seqs * flops_per_token(m, fo).forward_attention_flop / c.tp;
    }
    t.flop += attn_flop;
    t.kv_bytes += kv_read;
    t.attention_s += std::max(attn_flop / compute_rate, kv_read / read_rate) + static_cast<double>(m.layers) * c.overhead;
    if (o.attention_scores_materialised && !m.mla) {
      // One row of scores per sequence and head, through memory between the
      // KQ, softmax and KQV kernels.
      const double score_bytes = materialised_score_bytes(m, c, seqs, mix.decode_context);
      t.kv_bytes += score_bytes;
      t.attention_s += score_bytes / c.hbm + 2.0 * static_cast<double>(m.layers) * c.overhead;
    }
    // A cache grown by concatenation (HF DynamicLayer: torch.cat([keys, new])) is
    // read and written whole once more every step, one copy kernel per K and V.
    if (o.kv_concat_copy) t.attention_s += 2 * kv_read / c.hbm + 2 * static_cast<double>(m.layers) * c.overhead;
  }
  t.elementwise_s = elementwise_s(m, c, M);
  t.tp_comm_s = static_cast<double>(m.layers) * 2 * tp_allreduce_s(c, M / c.dp * static_cast<double>(m.hidden) * 2);
  t.ep_comm_s = ep_all_to_all_s(m, c, M);
  // Logits of the last position of each prefilled sequence and of every decoding one.
  const double rows = (pb + db) / c.dp;
  t.lm_head_s = lm_head_s(m, c, rows, t);
  // The sampler reads each row's fp32 logits once (FlashInfer's sorting-free
  // top-k/top-p sampling kernels, Ye et al. 2025, arXiv:2501.01005 §4; vLLM and
  // SGLang sample on the GPU with them): one streaming kernel.
  t.sampling_s = rows * static_cast<double>(m.vocab) * 4 / c.hbm + c.overhead;
  t.host_launch_s = o.cuda_graphs ? 0 : static_cast<double>(m.layers) * o.eager_layer_s;
  t.host_step_s = o.host_step_s;
  finish(t);
  return t;
}

}  // namespace

// A pass of the replica. With PP the sequences are cut into pp micro-batches
// that follow one another through the stages (vLLM/SGLang pipeline
// parallelism keep pp micro-batches in flight); in one round every micro-batch
// crosses every stage once, so every sequence gets one token per round and the
// round lasts the pass of one micro-batch through all the layers (the sum of
// the stage times) plus pp hops of its hidden states (the last carries the
// sampled tokens back to the first stage). Stages sit on different nodes when
// a stage fills one: the hops then cross the NIC (StepTimeOptions'
// scaleout_efficiency and inter-node α), else NVLink.
PassTime step_time(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, const StepMix& mix) {
  const int pp = std::max(1, o.pp);
  if (pp == 1) return one_stage_pass(m, g, o, mix);
  // A micro-batch holds whole sequences: with fewer sequences than stages only
  // that many micro-batches are in flight, and one request alone crosses every
  // stage in turn, so PP never shortens a single request's first token or
  // step (vLLM's and SGLang's PP schedulers split the running batch into at
  // most pp micro-batches of whole requests).
  const double seqs = mix.prefill_seqs + mix.decode_seqs;
  const double micro_batches = std::clamp(std::floor(seqs), 1.0, static_cast<double>(pp));
  StepMix micro = mix;
  micro.prefill_seqs = mix.prefill_seqs / micro_batches;
  micro.decode_seqs = mix.decode_seqs / micro_batches;
  InferenceOptions stage = o;
  stage.pp = 1;
  PassTime t = one_stage_pass(m, g, stage, micro);
  const StepTimeOptions so;
  const int stage_gpus = o.tp * std::max(1, o.dp_attention);
  const bool across_nodes = stage_gpus * 2 > std::max(1, g.gpus_per_node);
  const double bw = across_nodes && g.scaleout_bytes_per_s > 0 ? g.scaleout_bytes_per_s * so.scaleout_efficiency
                                                               : std::max(1e9, 0.8 * g.intra_bytes_per_s);
  const double alpha = across_nodes ? so.inter_latency_s : so.intra_latency_s;
  const double tokens = (micro.prefill_seqs * static_cast<double>(std::max<int64_t>(0, micro.prefill_len)) + micro.decode_seqs) /
                        std::max(1, o.dp_attention) / o.tp;  // each TP rank sends its slice
  t.pp_comm_s = pp * (alpha + tokens * static_cast<double>(m.hidden) * 2 / bw);
  finish(t);
  return t;
}

// With prefill_ubatch_tokens U (llama.cpp's n_ubatch), the prompts go through
// in passes of at most U tokens (llama_decode splits its batch with
// split_simple(n_ubatch), src/llama.cpp @b4747): a prompt longer than U in
// ceil(len/U) passes, each attending to the passes before it; shorter prompts
// floor(U/len) whole ones a pass. The passes' times add up.
PassTime prefill_time(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, int64_t batch, int64_t input_len) {
  StepMix mix;
  mix.prefill_seqs = static_cast<double>(batch);
  mix.prefill_len = input_len;
  const int64_t U = o.prefill_ubatch_tokens;
  if (U <= 0 || batch * input_len <= U) return step_time(m, g, o, mix);
  PassTime sum;
  auto add = [&sum](const PassTime& p, double times) {
    sum.total_s += times * p.total_s;
    sum.gemm_s += times * p.gemm_s;
    sum.attention_s += times * p.attention_s;
    sum.elementwise_s += times * p.elementwise_s;
    sum.tp_comm_s += times * p.tp_comm_s;
    sum.lm_head_s += times * p.lm_head_s;
    sum.ep_comm_s += times * p.ep_comm_s;
    sum.pp_comm_s += times * p.pp_comm_s;
    sum.sampling_s += times * p.sampling_s;
    sum.flop += times * p.flop;
    sum.weight_bytes += times * p.weight_bytes;
    sum.kv_bytes += times * p.kv_bytes;
    sum.gemm_compute_s += times * p.gemm_compute_s;
    sum.gemm_memory_s += times * p.gemm_memory_s;
    sum.host_launch_s += times * p.host_launch_s;
    sum.host_step_s += times * p.host_step_s;
    sum.experts_touched = std::max(sum.experts_touched, p.experts_touched);
    sum.compute_bound = sum.gemm_compute_s > sum.gemm_memory_s;
  };
  if (input_len >= U) {
    mix.prefill_seqs = 1;
    for (int64_t done = 0; done < input_len; done += U) {
      mix.prefill_len = std::min(U, input_len - done);
      mix.prefill_prefix = static_cast<double>(done);
      add(step_time(m, g, o, mix), static_cast<double>(batch));
    }
    return sum;
  }
  const int64_t per_pass = U / input_len;
  const int64_t full = batch / per_pass, rest = batch % per_pass;
  mix.prefill_seqs = static_cast<double>(per_pass);
  add(step_time(m, g, o, mix), static_cast<double>(full));
  if (rest > 0) {
    mix.prefill_seqs = static_cast<double>(rest);
    add(step_time(m, g, o, mix), 1);
  }
  return sum;
}

PassTime decode_step_time(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, int64_t batch, double context) {
  StepMix mix;
  mix.decode_seqs = static_cast<double>(batch);
  mix.decode_context = context;
  return step_time(m, g, o, mix);
}

BatchRun static_batch_run(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, int64_t batch,
                          int64_t input_len, int64_t output_len) {
  BatchRun r;
  // An engine whose prefill stops one token short (first_token_from_decode)
  // samples the first output token in the decode step that follows, over the
  // whole prompt; the output_len − 1 steps after it are the same either way.
  const int64_t prefilled = prefilled_tokens(o, input_len);
  if (prefilled > 0) r.prefill = prefill_time(m, g, o, batch, prefilled);
  r.ttft_s = r.prefill.total_s;
  if (o.first_token_from_decode) r.ttft_s += decode_step_time(m, g, o, batch, static_cast<double>(input_len)).total_s;
  const int64_t steps = std::max<int64_t>(0, output_len - 1);
  double decode = 0;
  if (steps > 0) {
    // The step time is linear in the context except where a kernel changes from
    // memory- to compute-bound; Simpson's rule over the steps is exact for the
    // linear part and close for the rest.
    const double c0 = static_cast<double>(input_len) + 1;
    const double c1 = static_cast<double>(input_len + steps);
    const PassTime a = decode_step_time(m, g, o, batch, c0);
    r.decode_mid = decode_step_time(m, g, o, batch, 0.5 * (c0 + c1));
    const PassTime z = decode_step_time(m, g, o, batch, c1);
    r.tpot_s = (a.total_s + 4 * r.decode_mid.total_s + z.total_s) / 6;
    decode = r.tpot_s * static_cast<double>(steps);
  }
  r.total_s = r.ttft_s + decode;
  r.output_tokens_per_s = static_cast<double>(batch * output_len) / r.total_s;
  r.output_tokens_per_s_per_gpu = r.output_tokens_per_s / o.tp;
  return r;
}

}  // namespace gpuplan
