// Inference memory and time for one replica. docs/inference.md has every
// formula with its source; the constants are in InferenceOptions and below.
//
// Memory (per GPU of a TP group):
//   weights   layer GEMM weights in the chosen format (bytes_per_weight), the
//             embedding, LM head and norms in 16 bits (AWQ/GPTQ and TensorRT-LLM's
//             quantisers leave them unquantised), all split t ways;
//   KV cache  MHA/GQA/MQA: 2·L·g·d·bytes per token (K and V for every KV head),
//             split over TP by heads (replicated when t > g); MLA: L·(r_kv + d_rope)·bytes,
//             the compressed latent and the shared RoPE key (DeepSeek-V2 report,
//             arXiv:2405.04434 §2.1.2), not split by TP;
//   activations of one prefill chunk, the logits, the CUDA context, and the
//             share vLLM leaves free (1 − gpu_memory_utilization).
//
// Time: every kernel is its own roofline, max(FLOPs / (peak · efficiency),
// bytes / achieved HBM bandwidth) plus a launch overhead, and kernels run one
// after another (Williams et al. 2009, "Roofline"). GEMM efficiency at each
// shape and the collective costs come from the step-time model
// (gemm_efficiency.cpp, collectives.cpp); FLOP counts from flops.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpuplan/embedded_data.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/flops.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/layer_ops.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {

const char* weight_format_name(WeightFormat f) {
  switch (f) {
    case WeightFormat::kFp16: return "fp16";
    case WeightFormat::kBf16: return "bf16";
    case WeightFormat::kFp8: return "fp8";
    case WeightFormat::kInt8: return "int8";
    case WeightFormat::kInt4: return "int4";
  }
  return "?";
}

WeightFormat parse_weight_format(const std::string& text, const std::string& field) {
  if (text == "fp16" || text == "float16" || text == "half") return WeightFormat::kFp16;
  if (text == "bf16" || text == "bfloat16") return WeightFormat::kBf16;
  if (text == "fp8" || text == "float8" || text == "e4m3") return WeightFormat::kFp8;
  if (text == "int8" || text == "w8a16" || text == "w8") return WeightFormat::kInt8;
  if (text == "int4" || text == "w4a16" || text == "w4" || text == "awq" || text == "gptq") return WeightFormat::kInt4;
  throw InputError(field, fmt::format("{} must be one of fp16, bf16, fp8, int8, int4 (got '{}').", field, text));
}

double bytes_per_weight(WeightFormat f, int64_t group_size) {
  switch (f) {
    case WeightFormat::kFp16:
    case WeightFormat::kBf16: return 2;
    case WeightFormat::kFp8: return 1;   // one fp32 scale per tensor: negligible
    case WeightFormat::kInt8: return 1;  // one fp16 scale per output row of ≥ 1k weights: < 0.2%
    case WeightFormat::kInt4:
      // AWQ (Lin et al. 2023) and GPTQ (Frantar et al. 2022) store 4-bit weights
      // with an fp16 scale and an fp16 (or packed) zero point per group:
      // 32 bits per group, 0.25 bits per weight at the usual group of 128.
      return 0.5 + 4.0 / static_cast<double>(std::max<int64_t>(1, group_size));
  }
  return 2;
}

double kv_bytes_per_token(const ModelSpec& m, double bytes, double context_tokens) {
  double L = static_cast<double>(m.layers);
  if (m.mla) return L * static_cast<double>(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) * bytes;
  // A sliding-window layer holds min(context, window) tokens (vLLM and HF's
  // sliding-window caches evict the rest), so per token of a longer sequence it
  // costs window/context of a global layer.
  const double window = static_cast<double>(m.sliding_window);
  if (context_tokens > window && window > 0) {
    const double local = static_cast<double>(m.sliding_layer_count());
    L = (L - local) + local * window / context_tokens;
  }
  return 2.0 * L * static_cast<double>(m.kv_heads) * static_cast<double>(m.head_dim) * bytes;
}

namespace {

constexpr double kContextGiB = 0.75;   // CUDA context + cuBLAS workspaces (same default as memory.cpp)
constexpr double kNcclGiB = 0.25;      // NCCL channel buffers once a communicator exists
constexpr double kGraphsGiB = 0.5;     // CUDA graphs captured for decode batch sizes (vLLM logs 0.3–1 GiB)
// FlashAttention-2's forward pass reaches ~0.8 of the large-GEMM ceiling
// (Dao 2023, figs. 4–6: 230 of 312 TFLOP/s on A100 at head dim 128); the same
// factor the training step-time model uses for the attention core.
constexpr double kAttentionShare = 0.80;

double kv_elem_bytes(Precision p) { return p == Precision::kFp8 || p == Precision::kInt8 ? 1.0 : 2.0; }

double kv_heads_per_gpu(const ModelSpec& m, int tp) {
  // Heads are split over TP; with more ranks than KV heads each rank keeps a copy
  // of the head its query heads use (vLLM, TensorRT-LLM).
  return std::ceil(static_cast<double>(m.kv_heads) / tp);
}

double ffn_width(const ModelSpec& m) {
  if (!m.moe) return static_cast<double>(m.intermediate);
  const MoeSpec& e = *m.moe;
  return std::max<double>(static_cast<double>(m.intermediate),
                          static_cast<double>(e.experts_per_token * e.expert_intermediate + e.shared_intermediate));
}

struct Machine {
  const GpuSpec& g;
  Precision gemm_p = Precision::kFp16;
  double peak_attn = 0;
  double ceiling = 0.8;
  double hbm = 0;
  double overhead = 4e-6;
  double wbytes = 2;     // bytes per quantised weight
  double act = 2;        // bytes per activation element read by a GEMM
  Link link;
  int tp = 1;
};

Machine machine(const GpuSpec& g, const InferenceOptions& o) {
  const StepTimeOptions so;
  Machine c{g, Precision::kFp16, 0, 0.8, 0, 4e-6, 2, 2, Link{}, 1};
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
  c.ceiling = burst_gemm_ceiling(g);
  c.hbm = g.hbm_bytes_per_s * o.hbm_efficiency.value_or(so.hbm_efficiency);
  c.overhead = so.kernel_overhead_s;
  c.wbytes = bytes_per_weight(o.weights, o.group_size);
  c.act = c.gemm_p == Precision::kFp8 ? 1.0 : 2.0;
  // The link a TP all-reduce uses: measured all-reduce bus bandwidth where the
  // catalog has it, else 80% of NVLink; PCIe-only parts go through PCIe
  // (x16 per direction: Gen3 16, Gen4 31, Gen5 63 GB/s, hardware_facts §2a) at 80%.
  double bw = g.allreduce_busbw_bytes_per_s > 0 ? g.allreduce_busbw_bytes_per_s : 0.80 * g.intra_bytes_per_s;
  if (bw <= 0) bw = 0.80 * (g.pcie_gen >= 5 ? 63e9 : g.pcie_gen == 4 ? 31e9 : g.pcie_gen == 3 ? 16e9 : 31e9);
  c.link = Link{bw, so.intra_latency_s};
  c.tp = o.tp;
  return c;
}

// One GEMM [m×k]·[k×n] with quantised weights: its roofline time, no launch overhead.
double gemm_core_s(const Machine& c, double m, double n, double k, PassTime& t) {
  if (m <= 0 || n <= 0 || k <= 0) return 0;
  const GemmRoofline r = gemm_roofline(c.g, c.gemm_p, m, n, k, c.ceiling, c.hbm, c.wbytes, c.act);
  t.flop += r.flop;
  t.weight_bytes += r.weight_bytes;
  t.gemm_compute_s += r.compute_s;
  t.gemm_memory_s += r.memory_s;
  return r.time_s();
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
  if (bytes <= 8.0 * 1024 * 1024 && c.g.intra_bytes_per_s > 0) {
    return ring_allreduce_s(bytes, c.tp, Link{c.link.bytes_per_s, 0}) + 2 * c.link.latency_s;
  }
  return ring_allreduce_s(bytes, c.tp, c.link);
}

// All the layers' GEMMs for M tokens (M = batch for a decode step), folding
// over the layer's matmuls (layer_ops.hpp) as TP splits them.
void layers_gemm(const ModelSpec& m, const Machine& c, double M, PassTime& t) {
  const double tp = c.tp;
  const LayerMatmuls dense = layer_matmuls(m, false);
  const LayerMatmuls moe = m.moe ? layer_matmuls(m, true) : dense;
  for (int64_t layer = 0; layer < m.layers; ++layer) {
    const bool moe_layer = m.is_moe_layer(layer);
    double s = 0;
    double routed_in = 0;  // the routed experts' input matrix width (per GPU), met below with their output matrix
    for (const LayerMatmul& x : moe_layer ? moe : dense) {
      double n = x.tp_column ? x.n / tp : x.n;
      const double k = x.tp_row ? x.k / tp : x.k;
      if (x.name == std::string_view("qkv")) {
        // K and V heads are replicated when TP exceeds their count.
        n = x.part[0] / tp + 2 * kv_heads_per_gpu(m, c.tp) * static_cast<double>(m.head_dim);
      }
      const std::string_view name = x.name;
      if (name == "mlp_in" || name == "shared_in") {
        s += gemm_core_s(c, M, n, k, t);
      } else if (name == "mlp_out" || name == "shared_out") {
        // The MLP's two GEMMs and their two kernel launches.
        s += gemm_core_s(c, M, n, k, t) + 2 * c.overhead;
      } else if (x.experts > 0) {
        if (name == "experts_in") {
          routed_in = n;
          continue;
        }
        // With uniform routing, M tokens touch E·(1 − (1 − k/E)^M) distinct
        // experts; each touched expert's weights are read once (grouped GEMM,
        // two kernels).
        const double E = x.experts;
        const double top = static_cast<double>(m.moe->experts_per_token);
        const double touched = E * (1 - std::pow(1 - top / E, M));
        const double per_expert = M * top / touched;
        s += touched * (gemm_core_s(c, per_expert, routed_in, x.n, t) + gemm_core_s(c, per_expert, n, k, t)) + 2 * c.overhead;
      } else {
        s += gemm_s(c, M, n, k, t);
      }
    }
    t.gemm_s += s;
  }
}

// Element-wise work per layer for M tokens: two norms, two residual adds,
// rotary embedding of q and k, the MLP activation; ~4 fused kernels.
double elementwise_s(const ModelSpec& m, const Machine& c, double M) {
  const double tp = c.tp;
  const double h = static_cast<double>(m.hidden);
  const double qk = (static_cast<double>(m.q_width()) + static_cast<double>(m.kv_width())) / tp;
  const double bytes = 2.0 * M * (10 * h + 2 * qk + 3 * ffn_width(m) / tp);
  return static_cast<double>(m.layers) * (bytes / c.hbm + 4 * c.overhead);
}

double lm_head_s(const ModelSpec& m, const Machine& c, double rows, PassTime& t) {
  // The LM head stays 16-bit: read as 2 bytes per weight.
  Machine h16 = c;
  h16.wbytes = 2;
  h16.act = 2;
  h16.gemm_p = c.g.has(Precision::kFp16) ? Precision::kFp16 : Precision::kBf16;
  return gemm_s(h16, rows, static_cast<double>(m.vocab) / c.tp, static_cast<double>(m.hidden), t);
}

void finish(PassTime& t) {
  t.total_s = t.gemm_s + t.attention_s + t.elementwise_s + t.tp_comm_s + t.lm_head_s;
  t.compute_bound = t.gemm_compute_s > t.gemm_memory_s;
}

}  // namespace

int64_t model_max_context(const ModelSpec& m) {
  const std::string want = "models/" + m.id + ".json";
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path != want) continue;
    const nlohmann::json j = nlohmann::json::parse(f.content, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return 0;
    for (const char* k : {"max_position_embeddings", "seq_length", "n_positions", "max_sequence_length"}) {
      if (j.contains(k) && j[k].is_number_integer()) return j[k].get<int64_t>();
    }
  }
  return 0;
}

void validate_inference(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o) {
  if (m.count_only) {
    throw InputError("--model", "--model must be an architecture (catalog id or config.json) for inference; a bare parameter count has no KV-cache shape.");
  }
  if (o.tp < 1 || o.tp > 64) throw InputError("--tp", fmt::format("--tp must be 1 to 64 (got {}).", o.tp));
  if (m.heads % o.tp != 0) {
    throw InputError("--tp", fmt::format("--tp {} does not divide the {} attention heads of {}.", o.tp, m.heads, m.name));
  }
  const int node = std::max(g.gpus_per_node, g.nvlink_domain_gpus);
  if (o.tp > node) {
    throw InputError("--tp", fmt::format("--tp {} spans more than one {}-GPU node of {}; use at most {}.", o.tp, node, g.id, node));
  }
  if (o.kv != Precision::kFp16 && o.kv != Precision::kBf16 && o.kv != Precision::kFp8) {
    throw InputError("--kv-precision", "--kv-precision must be fp16, bf16 or fp8.");
  }
  if (o.weights == WeightFormat::kInt4 && !o.int4_supported) {
    throw InputError("--precision", fmt::format("--precision int4 needs a 4-bit kernel, and {} was marked as lacking one (--no-int4).", g.id));
  }
  if (o.group_size < 1) throw InputError("--group-size", "--group-size must be a positive number of weights.");
  require_range(o.memory_utilization, 0.1, 1.0, "--memory-utilization", "a fraction between 0.1 and 1");
}

InferenceMemory inference_memory(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o) {
  InferenceMemory r;
  const ParamCounts p = count_params(m);
  const double tp = o.tp;
  r.weights_fp16_params = p.embedding + p.norms;
  r.weights_quantised_params = p.total - r.weights_fp16_params;
  r.weights_bytes = (r.weights_quantised_params * bytes_per_weight(o.weights, o.group_size) + r.weights_fp16_params * 2) / tp;
  const double kvb = kv_elem_bytes(o.kv);
  // Every layer's KV is counted over the whole context, sliding-window layers
  // included (kv_bytes_per_token without a context): an upper bound for
  // gpt-oss and Gemma 3, whose local layers keep only `sliding_window` tokens.
  r.kv_bytes_per_token = kv_bytes_per_token(m, kvb);
  r.kv_bytes_per_token_per_gpu =
      m.mla ? r.kv_bytes_per_token
            : 2.0 * static_cast<double>(m.layers) * kv_heads_per_gpu(m, o.tp) * static_cast<double>(m.head_dim) * kvb;
  // Activations of one prefill chunk: residual and normed input (2h), q, k, v
  // and the attention output, the MLP's gate, up and activated outputs, at 2 bytes;
  // one layer at a time (nothing is kept for a backward pass). Logits in fp32
  // for the last token of each sequence of the step.
  const double T = static_cast<double>(o.prefill_chunk_tokens);
  const double h = static_cast<double>(m.hidden);
  const double per_token = 2.0 * (2 * h + (2.0 * m.q_width() + 2.0 * m.kv_width()) / tp + 3 * ffn_width(m) / tp);
  const double logit_rows = std::min(T, static_cast<double>(std::max<int64_t>(1, o.max_seqs_per_step)));
  r.activation_bytes = T * per_token + logit_rows * static_cast<double>(m.vocab) / tp * 4;
  const double context = o.cuda_context_bytes.value_or((kContextGiB + (o.tp > 1 ? kNcclGiB : 0.0)) * kGiB);
  r.runtime_bytes = context + kGraphsGiB * kGiB;
  if (o.kv_share_of_free) {
    // TensorRT-LLM: the KV pool takes free_gpu_memory_fraction of the memory
    // still free after the weights are loaded and a profiling pass at
    // max_num_tokens has run (KvCacheConfig; docs/source/reference/memory.md).
    const double free_bytes = g.memory_bytes - r.weights_bytes - r.activation_bytes - r.runtime_bytes;
    r.reserved_bytes = std::max(0.0, (1 - o.memory_utilization) * free_bytes);
    r.kv_budget_bytes = o.memory_utilization * free_bytes;
  } else {
    // vLLM: the engine may use gpu_memory_utilization of the whole device; the KV
    // cache gets what the weights, activations and runtime leave of that share.
    r.reserved_bytes = (1 - o.memory_utilization) * g.memory_bytes;
    r.kv_budget_bytes = o.memory_utilization * g.memory_bytes - r.weights_bytes - r.activation_bytes - r.runtime_bytes;
  }
  r.weights_fit = r.kv_budget_bytes > 0;
  r.max_cached_tokens = r.weights_fit ? std::floor(r.kv_budget_bytes / r.kv_bytes_per_token_per_gpu) : 0;
  return r;
}

PassTime step_time(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, const StepMix& mix) {
  const Machine c = machine(g, o);
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
  const double kv_token_bytes = inference_memory(m, g, o).kv_bytes_per_token_per_gpu;
  const double attn_peak = c.peak_attn * c.ceiling * kAttentionShare;
  // Attention runs per phase, one kernel each (TensorRT-LLM's context FMHA and
  // generation XQA/MMHA; vLLM's FlashAttention varlen with prefill and decode
  // rows): each is its own roofline.
  if (prefill_tokens > 0) {
    // Causal attention core (FlashAttention computes the lower triangle only);
    // the new K and V are written to the cache.
    FlopOptions fo;
    fo.seq_len = mix.prefill_len;
    fo.causal_half = true;
    const double attn_flop = prefill_tokens * flops_per_token(m, fo).forward_attention_flop / c.tp;
    const double kv_write = prefill_tokens * kv_token_bytes;
    t.flop += attn_flop;
    t.kv_bytes += kv_write;
    t.attention_s += std::max(attn_flop / attn_peak, kv_write / c.hbm) + static_cast<double>(m.layers) * c.overhead;
  }
  if (db > 0) {
    // Each sequence's new query attends to its `context` cached tokens: the whole
    // KV cache of the batch is read once per step (memory-bound).
    FlopOptions fo;
    fo.seq_len = std::max<int64_t>(1, static_cast<int64_t>(std::llround(mix.decode_context)));
    fo.causal_half = false;
    const double attn_flop = db * flops_per_token(m, fo).forward_attention_flop / c.tp;
    const double kv_read = db * mix.decode_context * kv_token_bytes;
    t.flop += attn_flop;
    t.kv_bytes += kv_read;
    t.attention_s += std::max(attn_flop / attn_peak, kv_read / c.hbm) + static_cast<double>(m.layers) * c.overhead;
  }
  t.elementwise_s = elementwise_s(m, c, M);
  t.tp_comm_s = static_cast<double>(m.layers) * 2 * tp_allreduce_s(c, M * static_cast<double>(m.hidden) * 2);
  // Logits of the last position of each prefilled sequence and of every decoding one.
  t.lm_head_s = lm_head_s(m, c, pb + db, t);
  finish(t);
  return t;
}

PassTime prefill_time(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, int64_t batch, int64_t input_len) {
  StepMix mix;
  mix.prefill_seqs = static_cast<double>(batch);
  mix.prefill_len = input_len;
  return step_time(m, g, o, mix);
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
  r.prefill = prefill_time(m, g, o, batch, input_len);
  r.ttft_s = r.prefill.total_s;
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
