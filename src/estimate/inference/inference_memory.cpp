// Inference memory for one replica, and the checks on a serving request.
// docs/inference.md has every formula with its source.
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
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "data/embedded_data.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/flops.hpp"
#include "gpuplan/inference.hpp"
#include "model/layer_ops.hpp"
#include "gpuplan/units.hpp"
#include "estimate/inference/inference_internal.hpp"
#include "estimate/memory/runtime_reserve.hpp"
#include "units/quantity_text.hpp"

namespace gpuplan {

using inference_detail::ffn_width;
using inference_detail::kv_elem_bytes;
using inference_detail::kv_heads_per_gpu;
using inference_detail::kv_token_bytes_all_layers;

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

constexpr double kGraphsGiB = 0.5;     // CUDA graphs captured for decode batch sizes (vLLM logs 0.3–1 GiB)

// Routed experts' parameters, all layers (the part EP spreads instead of TP).
double routed_expert_params(const ModelSpec& m) {
  if (!m.moe) return 0;
  double per_layer = 0;
  for (const LayerMatmul& x : layer_matmuls(m, true)) {
    if (x.experts > 0) per_layer += x.weights();
  }
  double layers = 0;
  for (int64_t l = 0; l < m.layers; ++l) layers += m.is_moe_layer(l) ? 1 : 0;
  return per_layer * layers;
}

}  // namespace

namespace inference_detail {

// KV bytes per token one GPU holds over all layers at TP `tp` (before the PP split).
double kv_token_bytes_all_layers(const ModelSpec& m, const InferenceOptions& o) {
  const double kvb = kv_elem_bytes(o.kv);
  return m.mla ? kv_bytes_per_token(m, kvb)
               : 2.0 * static_cast<double>(m.layers) * kv_heads_per_gpu(m, o.tp) * static_cast<double>(m.head_dim) * kvb;
}

}  // namespace inference_detail

int64_t default_seq_len(const ModelSpec& m) {
  const int64_t ctx = model_max_context(m);
  return ctx > 0 && ctx < kDefaultSeqLen ? ctx : kDefaultSeqLen;
}

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

void require_supported_context(const ModelSpec& m, int64_t tokens, bool force, const std::string& field) {
  const int64_t max_ctx = model_max_context(m);
  if (force || max_ctx <= 0 || tokens <= max_ctx) return;
  throw InputError(field, fmt::format("{} {} exceeds the {} tokens {} supports (max_position_embeddings); add --force to plan it anyway.",
                                      field, format_thousands(static_cast<double>(tokens)), format_thousands(static_cast<double>(max_ctx)), m.name),
                   fmt::format("{} {} 超出 {} 支持的 {} 个 token（max_position_embeddings）；如仍要估算，请加 --force。", field,
                               format_thousands(static_cast<double>(tokens)), m.name, format_thousands(static_cast<double>(max_ctx))));
}

void validate_inference(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o) {
  if (m.count_only) {
    throw InputError("--model", "--model must be an architecture (catalog id or config.json) for inference; a bare parameter count has no KV-cache shape.",
                     "--model：推理需要模型结构（模型目录中的 id 或 config.json）；只给参数量无法确定 KV 缓存的形状。");
  }
  if (o.tp < 1 || o.tp > 64) throw InputError("--tp", fmt::format("--tp must be 1 to 64 (got {}).", o.tp), fmt::format("--tp 须在 1 到 64 之间（输入为 {}）。", o.tp));
  // A weight format whose kernels the GPU lacks is refused: bf16 on V100 (its
  // tensor cores run fp16); FP8 without FP8 tensor cores, except on Ampere,
  // where the weight-only FP8 Marlin GEMM runs it (vLLM Fp8LinearMethod below
  // capability 8.9; Fp8Config.get_min_capability() is 80,
  // vllm/model_executor/layers/quantization/fp8.py): Volta, Turing, CDNA2 and
  // Ascend 910B run no FP8 checkpoint.
  const bool no_bf16 = o.weights == WeightFormat::kBf16 && !g.has(Precision::kBf16);
  const bool no_fp8 = o.weights == WeightFormat::kFp8 && !g.has(Precision::kFp8) && !(g.vendor == "nvidia" && g.architecture == "ampere");
  if (no_bf16 || no_fp8) {
    const char* why = no_bf16 ? "has no bf16 (its tensor cores run fp16)" : "has no FP8 tensor cores and no FP8 weight-only kernel (FP8 needs Ampere or newer)";
    const char* why_zh = no_bf16 ? "不支持 bf16（其张量核心只跑 fp16）" : "既无 FP8 张量核心，也没有 FP8 仅权重量化内核（FP8 需要 Ampere 或更新的架构）";
    const char* use = no_bf16 ? "fp16" : "fp16, int8 or int4";
    const char* use_zh = no_bf16 ? "fp16" : "fp16、int8 或 int4";
    throw InputError("--precision", fmt::format("--precision: {} {}; use --precision {}.", g.id, why, use),
                     fmt::format("--precision：{} {}；请用 --precision {}。", g.id, why_zh, use_zh));
  }
  if (o.kv == Precision::kBf16 && !g.has(Precision::kBf16)) {
    throw InputError("--kv-precision", fmt::format("--kv-precision: {} has no bf16; use fp16.", g.id),
                     fmt::format("--kv-precision：{} 不支持 bf16；请用 fp16。", g.id));
  }
  if (m.heads % o.tp != 0) {
    throw InputError("--tp", fmt::format("--tp {} does not divide the {} attention heads of {}.", o.tp, m.heads, m.name),
                     fmt::format("--tp {} 不能整除 {} 的 {} 个注意力头。", o.tp, m.name, m.heads));
  }
  const int node = std::max(g.gpus_per_node, g.nvlink_domain_gpus);
  if (o.tp > node) {
    throw InputError("--tp", fmt::format("--tp {} spans more than one {}-GPU node of {}; use at most {}.", o.tp, node, g.id, node),
                     fmt::format("--tp {} 跨出了一台 {} 节点（每节点 {} 张卡）；最多用 {}。", o.tp, g.id, node, node));
  }
  if (o.pp < 1 || o.pp > m.layers) {
    throw InputError("--pp", fmt::format("--pp must be 1 to the model's {} layers (got {}).", m.layers, o.pp),
                     fmt::format("--pp 须在 1 到模型层数 {} 之间（输入为 {}）。", m.layers, o.pp));
  }
  // DP attention has no flag of its own: it is EP / TP (ServingTarget::ep).
  if (o.dp_attention < 1 || o.dp_attention > 1024) {
    throw InputError("--ep", fmt::format("--ep / --tp must give 1 to 1,024 attention ranks (got {}).", o.dp_attention),
                     fmt::format("--ep / --tp 得出的注意力数据并行副本数须在 1 到 1,024 之间（输入为 {}）。", o.dp_attention));
  }
  if (o.ep != 1) {
    if (!m.moe) throw InputError("--ep", fmt::format("--ep needs a mixture-of-experts model; {} is dense.", m.name), fmt::format("--ep 只适用于 MoE 模型；{} 是稠密模型。", m.name));
    if (o.ep != o.tp * o.dp_attention) {
      throw InputError("--ep", fmt::format("--ep must equal TP × attention ranks = {} (every GPU of a stage holds experts; got {}).", o.tp * o.dp_attention, o.ep),
                       fmt::format("--ep 须等于 TP × 注意力副本数 = {}（每段的每张卡都放专家；输入为 {}）。", o.tp * o.dp_attention, o.ep));
    }
    if (m.moe->routed_experts % o.ep != 0) {
      throw InputError("--ep", fmt::format("--ep {} does not divide the {} routed experts of {}.", o.ep, m.moe->routed_experts, m.name),
                       fmt::format("--ep {} 不能整除 {} 的 {} 个路由专家。", o.ep, m.name, m.moe->routed_experts));
    }
  } else if (o.dp_attention > 1) {
    throw InputError("--ep", "Data-parallel attention ranks come with expert parallelism: --ep = --tp × ranks.",
                     "注意力数据并行须搭配专家并行：--ep = --tp × 副本数。");
  }
  if (o.kv != Precision::kFp16 && o.kv != Precision::kBf16 && o.kv != Precision::kFp8) {
    throw InputError("--kv-precision", "--kv-precision must be fp16, bf16 or fp8.", "--kv-precision 须为 fp16、bf16 或 fp8。");
  }
  if (o.weights == WeightFormat::kInt4 && !o.int4_supported) {
    throw InputError("--precision", fmt::format("--precision int4 needs a 4-bit kernel, and {} was marked as lacking one (--no-int4).", g.id),
                     fmt::format("--precision int4 需要 4 比特算子，而 {} 已标记为没有（--no-int4）。", g.id));
  }
  if (!o.weight_quant.empty()) {
    (void)weight_bytes(m, o);  // an unknown method is refused there, naming weight_quant
    const WeightQuant& q = *find_weight_quant(o.weight_quant);
    const bool agree = q.format == o.weights || (q.format == WeightFormat::kFp16 && o.weights == WeightFormat::kBf16);
    if (!agree) {
      throw InputError("weight_quant", "weight_quant " + q.id + " stores " + weight_format_name(q.format) + " weights, not " + weight_format_name(o.weights) + ".",
                       "weight_quant " + q.id + " 存的是 " + weight_format_name(q.format) + " 权重，不是 " + weight_format_name(o.weights) + "。");
    }
    if (q.experts_only && !m.moe) {
      throw InputError("weight_quant", "weight_quant " + q.id + " quantises only the routed experts, and " + m.name + " has none.",
                       "weight_quant " + q.id + " 只量化路由专家，而 " + m.name + " 没有路由专家。");
    }
  }
  if (o.group_size < 1) throw InputError("--group-size", "--group-size must be a positive number of weights.", "--group-size 须为正的权重个数。");
  require_range(o.memory_utilization, 0.1, 1.0, "--memory-utilization", "a fraction between 0.1 and 1", "0.1 到 1 之间的比例");
}
InferenceMemory inference_memory(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o) {
  InferenceMemory r;
  const ParamCounts p = count_params(m);
  const double tp = o.tp;
  const double pp = std::max(1, o.pp);
  r.weights_fp16_params = p.embedding + p.norms;
  r.weights_quantised_params = p.total - r.weights_fp16_params;
  // Per GPU: layers split over PP stages; inside a stage the dense part over TP
  // (each DP-attention rank keeps a whole copy) and the routed experts over EP
  // (whole experts) or over TP. The embedding sits on the first stage and the
  // LM head on the last, so with PP a stage holds at most one of them.
  const double routed = routed_expert_params(m);
  const WeightBytes wb = weight_bytes(m, o);
  const double layer_bytes = (r.weights_quantised_params - routed) * wb.layers / tp + routed * wb.experts / (o.ep > 1 ? o.ep : tp);
  // The token embedding and the LM head at the method's widths; a tied matrix
  // serves as the LM head and is stored at its width (llama.cpp's recipes give
  // the tied token_embd the output's Q6_K). With PP they sit on different
  // stages (position embeddings, where a model has them, count with the token embedding).
  const double head_bytes = p.lm_head * wb.lm_head;
  const double token_bytes = (p.embedding - p.lm_head) * (m.tied_embeddings ? wb.lm_head : wb.embedding);
  const double embed_bytes = (token_bytes + head_bytes) / tp / (pp > 1 ? 2.0 : 1.0);
  r.weights_bytes = layer_bytes / pp + embed_bytes + p.norms * 2 / tp / pp;
  const double kvb = kv_elem_bytes(o.kv);
  // Every layer's KV is counted over the whole context, sliding-window layers
  // included (kv_bytes_per_token without a context): an upper bound for
  // gpt-oss and Gemma 3, whose local layers keep only `sliding_window` tokens.
  r.kv_bytes_per_token = kv_bytes_per_token(m, kvb);
  // A GPU holds its stage's layers of the sequences its attention rank serves.
  r.kv_bytes_per_token_per_gpu = kv_token_bytes_all_layers(m, o) / pp;
  // Activations of one prefill chunk: residual and normed input (2h), q, k, v
  // and the attention output, the MLP's gate, up and activated outputs, at 2 bytes;
  // one layer at a time (nothing is kept for a backward pass). Logits in fp32
  // for the last token of each sequence of the step.
  const double T = static_cast<double>(o.prefill_chunk_tokens);
  const double h = static_cast<double>(m.hidden);
  const double per_token = 2.0 * (2 * h + (2.0 * m.q_width() + 2.0 * m.kv_width()) / tp + 3 * ffn_width(m) / tp);
  const double logit_rows = std::min(T, static_cast<double>(std::max<int64_t>(1, o.max_seqs_per_step)));
  r.activation_bytes = T * per_token + logit_rows * static_cast<double>(m.vocab) / tp * 4;
  const double context = o.cuda_context_bytes.value_or((kCudaContextGiB + (o.tp > 1 ? kNcclBuffersGiB : 0.0)) * kGiB);
  r.runtime_bytes = context + kGraphsGiB * kGiB;
  if (o.kv_share_of == KvShareOf::kDeviceTotalForPool) {
    // TurboMind before v0.2.2: the block manager may hold cache_max_entry_count
    // of the device's total memory in KV blocks (BlockManager::GetBlockCount:
    // total * ratio / block_size, @v0.1.0a1), whatever the weights take; the
    // memory actually free after weights, activations and runtime bounds it.
    const double free_bytes = g.memory_bytes - r.weights_bytes - r.activation_bytes - r.runtime_bytes;
    r.kv_budget_bytes = std::min(o.memory_utilization * g.memory_bytes, free_bytes);
    r.reserved_bytes = std::max(0.0, free_bytes - r.kv_budget_bytes);
  } else if (o.kv_sized_before_buffers) {
    // The pool is sized before the activation workspace and CUDA graphs exist;
    // those then come out of what is left (reserved_bytes is what stays free
    // after them, 0 when they overrun it).
    const double before_weights = g.memory_bytes - context;
    r.kv_budget_bytes = o.kv_share_of == KvShareOf::kFreeAfterWeights
                            // LMDeploy TurboMind: cache_max_entry_count of the memory cudaMemGetInfo reports
                            // free once the weights are loaded (src/turbomind/turbomind.cc CreateEngine, v0.16.0).
                            ? o.memory_utilization * (before_weights - r.weights_bytes)
                            // SGLang: mem_fraction_static of the memory free before the weights holds weights
                            // + KV pool (model_runner.py profile_max_num_token: available − total·(1 − fraction)).
                            : o.memory_utilization * before_weights - r.weights_bytes;
    r.reserved_bytes = std::max(0.0, g.memory_bytes - r.weights_bytes - r.kv_budget_bytes - r.activation_bytes - r.runtime_bytes);
  } else if (o.kv_share_of == KvShareOf::kFreeAfterWeights) {
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
  // Tokens of the whole replica: each DP-attention rank caches its own sequences.
  r.max_cached_tokens = r.weights_fit ? std::floor(r.kv_budget_bytes / r.kv_bytes_per_token_per_gpu) * std::max(1, o.dp_attention) : 0;
  return r;
}
}  // namespace gpuplan
