// Continuous (in-flight) batching in steady state, and the max-throughput
// (offline) run built on it. docs/inference.md "Continuous batching" and
// "Max-throughput runs" give every formula and source.
//
// Steady state (Orca, Yu et al. 2022, OSDI, iteration-level scheduling; vLLM,
// Kwon et al. 2023; TensorRT-LLM in-flight batching). B sequences are running,
// each of I prompt and O output tokens. A sequence lives O steps: the step that
// prefills its prompt also yields its first token, then O − 1 decode steps
// yield the rest. With every slot refilled as soon as a sequence finishes, each
// step holds
//     B/O            sequences being prefilled (I tokens each),
//     B·(O − 1)/O    sequences decoding, at the mean context I + O/2,
// so a step processes B·(I + O − 1)/O tokens and yields B output tokens. The
// step is one forward pass over all of them (step_time: the weights are read
// once, the GEMMs see M = all tokens); every running sequence gets one token
// per step, so the step time is also the time per output token.
#include <algorithm>
#include <cmath>

#include "gpuplan/error.hpp"
#include "gpuplan/inference.hpp"
#include "estimate/inference/inference_internal.hpp"

namespace gpuplan {

BatchingSteadyState continuous_batching_steady_state(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o,
                                                     double batch, int64_t input_len, int64_t output_len) {
  BatchingSteadyState s;
  const double B = std::max(0.0, batch);
  const double I = static_cast<double>(std::max<int64_t>(1, input_len));
  const double O = static_cast<double>(std::max<int64_t>(1, output_len));
  s.batch = B;
  if (B <= 0) return s;
  s.mix.prefill_seqs = B / O;
  s.mix.prefill_len = std::max<int64_t>(1, input_len);
  s.mix.decode_seqs = B * (O - 1) / O;
  s.mix.decode_context = I + 0.5 * O;
  s.tokens_per_step = s.mix.prefill_seqs * I + s.mix.decode_seqs;
  s.step = step_time(m, g, o, s.mix);
  s.step_s = s.step.total_s;
  StepMix alone;
  alone.decode_seqs = B;
  alone.decode_context = s.mix.decode_context;
  s.decode_only_step_s = step_time(m, g, o, alone).total_s;
  s.output_tokens_per_s = B / s.step_s;
  s.requests_per_s = s.output_tokens_per_s / O;
  s.prefill_fraction = std::clamp(1 - s.decode_only_step_s / s.step_s, 0.0, 1.0);
  return s;
}

MaxThroughputRun max_throughput_run(const ModelSpec& m, const GpuSpec& g, InferenceOptions o, const EngineDefaults& e,
                                    int64_t input_len, int64_t output_len) {
  if (input_len < 1) throw InputError("--input", "--input must be at least 1 token.", "--input 至少为 1 个 token。");
  if (output_len < 1) throw InputError("--output", "--output must be at least 1 token.", "--output 至少为 1 个 token。");
  if (e.max_batch_size < 1) throw InputError("max_batch_size", "the engine's max_batch_size must be at least 1.", "推理引擎的 max_batch_size 至少为 1。");
  if (e.max_num_tokens < 1) throw InputError("max_num_tokens", "the engine's max_num_tokens must be at least 1.", "推理引擎的 max_num_tokens 至少为 1。");
  if (e.tokens_per_block < 1) throw InputError("tokens_per_block", "the engine's KV block must hold at least 1 token.", "推理引擎的 KV 块至少要放 1 个 token。");
  MaxThroughputRun r;
  r.engine = e;
  inference_detail::apply_engine_memory_rule(o, e);
  validate_inference(m, g, o);
  r.memory = inference_memory(m, g, o);
  // A refusal names the TP degree it was refused at (run_infer tries several).
  r.refusal.tp = o.tp;
  if (!r.memory.weights_fit) {
    r.refusal.code = InferRefusal::kWeightsDoNotFit;
    r.refusal.weights_bytes = r.memory.weights_bytes;
    r.refusal.gpu_id = g.id;
    return r;
  }
  const double I = static_cast<double>(input_len), O = static_cast<double>(output_len);

  // KV limit. Paged KV cache: the pool is cut into blocks of tokens_per_block
  // tokens (Kwon et al. 2023, §4.1). An engine that guarantees no eviction
  // admits a sequence only when blocks for its whole input + output are free
  // (TensorRT-LLM GUARANTEED_NO_EVICT); one that allocates as tokens are
  // generated (vLLM) holds on average the blocks of the mean context I + O/2.
  const double block_bytes = static_cast<double>(e.tokens_per_block) * r.memory.kv_bytes_per_token_per_gpu;
  r.kv_blocks = std::floor(r.memory.kv_budget_bytes / block_bytes);
  const double held_tokens = e.reserve_whole_sequence ? I + O : I + 0.5 * O;
  const double blocks_per_seq = std::ceil(held_tokens / static_cast<double>(e.tokens_per_block));
  r.batch_kv_limit = static_cast<int64_t>(std::floor(r.kv_blocks / blocks_per_seq));
  // Scheduler limits: at most max_batch_size sequences, and at most
  // max_num_tokens tokens per step, B·(I + O − 1)/O in the steady state. An
  // engine that runs prefill batches as steps of their own (SGLang) spends its
  // token budget on those alone: it bounds no decoding batch. A cap on the
  // context the step's prefills hold (TurboMind max_context_token_num) allows
  // B·I/O ≤ cap, the B/O sequences prefilled per step holding I tokens each.
  r.batch_engine_limit = e.max_batch_size;
  r.batch_token_limit = e.mixed_prefill_decode ? static_cast<int64_t>(std::floor(static_cast<double>(e.max_num_tokens) * O / (I + O - 1)))
                                               : e.max_batch_size;
  if (e.max_prefill_context_tokens) {
    r.batch_token_limit = std::min(r.batch_token_limit, static_cast<int64_t>(std::floor(static_cast<double>(*e.max_prefill_context_tokens) * O / I)));
  }
  if (!e.chunked_prefill && input_len > e.max_num_tokens) {
    r.refusal.code = InferRefusal::kPromptOverStepBudget;
    r.refusal.input_tokens = input_len;
    r.refusal.max_num_tokens = e.max_num_tokens;
    return r;
  }
  r.batch = std::min({r.batch_kv_limit, r.batch_engine_limit, std::max<int64_t>(1, r.batch_token_limit)});
  r.limited_by = r.batch == r.batch_kv_limit ? "kv_cache" : r.batch == r.batch_engine_limit ? "max_batch_size" : "max_num_tokens";
  if (r.batch < 1) {
    r.refusal.code = InferRefusal::kSequenceKvDoesNotFit;
    r.refusal.context_tokens = input_len + output_len;
    return r;
  }
  const BatchingSteadyState s = continuous_batching_steady_state(m, g, o, static_cast<double>(r.batch), input_len, output_len);
  r.tokens_per_step = s.tokens_per_step;
  r.step = s.step;
  r.step_s = s.step_s;
  r.tpot_s = s.step_s;
  r.requests_per_s = s.requests_per_s;
  r.output_tokens_per_s = s.output_tokens_per_s;
  r.output_tokens_per_s_per_gpu = s.output_tokens_per_s / o.tp;
  r.prefill_fraction = s.prefill_fraction;
  r.feasible = true;
  return r;
}

}  // namespace gpuplan
