// What the inference memory and time estimators share (inference_memory.cpp,
// inference.cpp): the KV cache's element size and per-GPU heads, the widest
// MLP a token passes through, and the KV bytes per token one GPU holds.
// Internal to the estimators.
#pragma once
#include <algorithm>
#include <cmath>

#include "gpuplan/inference.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan::inference_detail {

inline double kv_elem_bytes(Precision p) { return p == Precision::kFp8 || p == Precision::kInt8 ? 1.0 : 2.0; }

inline double kv_heads_per_gpu(const ModelSpec& m, int tp) {
  // Heads are split over TP; with more ranks than KV heads each rank keeps a copy
  // of the head its query heads use (vLLM, TensorRT-LLM).
  return std::ceil(static_cast<double>(m.kv_heads) / tp);
}

inline double ffn_width(const ModelSpec& m) {
  if (!m.moe) return static_cast<double>(m.intermediate);
  const MoeSpec& e = *m.moe;
  return std::max<double>(static_cast<double>(m.intermediate),
                          static_cast<double>(e.experts_per_token * e.expert_intermediate + e.shared_intermediate));
}

// KV bytes per token one GPU holds over all layers at TP `tp` (before the PP split).
double kv_token_bytes_all_layers(const ModelSpec& m, const InferenceOptions& o);

// Prompt tokens the prefill pass runs: all of them, or all but the last where
// the engine samples the first token in the decode step after it
// (InferenceOptions::first_token_from_decode).
inline int64_t prefilled_tokens(const InferenceOptions& o, int64_t input_len) {
  return o.first_token_from_decode ? input_len - 1 : input_len;
}

// A replica sized by an engine's rules: its KV-pool rule, and its step budget
// as the activation peak it profiles before sizing the pool (every engine here
// runs a dummy forward pass at max_num_tokens first). The one place an
// engine's defaults become InferenceOptions (max_throughput_run, plan_serving,
// SGLang's own pool size for max_running_requests).
inline void apply_engine_memory_rule(InferenceOptions& o, const EngineDefaults& e) {
  o.memory_utilization = e.kv_memory_fraction;
  o.kv_share_of = e.kv_share_of;
  o.kv_sized_before_buffers = e.kv_sized_before_buffers;
  o.prefill_chunk_tokens = e.max_num_tokens;
  o.max_seqs_per_step = e.max_batch_size;
  apply_engine_host(o, e);
}

}  // namespace gpuplan::inference_detail
