// Sizing a serving deployment under continuous batching (Yu et al. 2022,
// "Orca"; vLLM, Kwon et al. 2023). One replica is a TP group holding B
// concurrent sequences in the steady state of continuous_batching_steady_state
// (inference_batching.cpp, shared with the max-throughput run): each step
// prefills B/O new sequences alongside the B·(O − 1)/O decoding ones in one
// forward pass and yields B tokens, so a replica completes
//     r = B / (O · step)   requests per second,
// every sequence gets one token per step (time per output token = step), and
// the prefills' share of the step is 1 − decode-alone / step. Replicas = ⌈R / r⌉.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuplan/error.hpp"
#include "gpuplan/inference.hpp"

namespace gpuplan {
namespace {

ServingPlan plan_for_tp(const ModelSpec& m, const GpuSpec& g, InferenceOptions o, const ServingTarget& t, int tp) {
  ServingPlan p;
  o.tp = tp;
  p.tp = tp;
  p.memory = inference_memory(m, g, o);
  const double ctx = static_cast<double>(t.input_len + t.output_len);
  if (!p.memory.weights_fit) {
    p.why_not = fmt::format("weights and runtime ({:.1f} GiB per GPU) do not fit {} at TP {}", p.memory.weights_bytes / (1024.0 * 1024 * 1024), g.id, tp);
    return p;
  }
  p.max_batch_memory = static_cast<int64_t>(std::floor(p.memory.max_cached_tokens / ctx));
  if (p.max_batch_memory < 1) {
    p.why_not = fmt::format("the KV cache of one {}-token sequence does not fit next to the weights at TP {}", static_cast<int64_t>(ctx), tp);
    return p;
  }
  int64_t B = t.batch > 0 ? std::min(t.batch, p.max_batch_memory) : p.max_batch_memory;
  if (t.batch > p.max_batch_memory) {
    p.why_not = fmt::format("--batch {} needs {} cached tokens per GPU; {} fit at TP {}", t.batch,
                            static_cast<int64_t>(static_cast<double>(t.batch) * ctx), static_cast<int64_t>(p.memory.max_cached_tokens), tp);
    return p;
  }
  const double mid = static_cast<double>(t.input_len) + 0.5 * static_cast<double>(t.output_len);
  // Time to first token: one request's prefill (a single request at full input length).
  p.prefill = prefill_time(m, g, o, 1, t.input_len);
  const double pre = p.prefill.total_s;
  auto evaluate = [&](int64_t b) {
    const PassTime d = decode_step_time(m, g, o, b, mid);
    const BatchingSteadyState s = continuous_batching_steady_state(m, g, o, static_cast<double>(b), t.input_len, t.output_len);
    return std::make_tuple(d, s.requests_per_s, s.prefill_fraction, s.step_s);
  };
  if (t.tpot_target_s > 0) {
    // Largest batch whose stretched time per output token meets the target (bisection:
    // the time per token grows with the batch).
    int64_t lo = 0, hi = B;
    while (lo < hi) {
      const int64_t mid_b = (lo + hi + 1) / 2;
      if (std::get<3>(evaluate(mid_b)) <= t.tpot_target_s) lo = mid_b;
      else hi = mid_b - 1;
    }
    if (lo == 0) {
      p.why_not = fmt::format("even one sequence takes {:.1f} ms per output token at TP {}, above the {:.1f} ms target",
                              1e3 * std::get<3>(evaluate(1)), tp, 1e3 * t.tpot_target_s);
      return p;
    }
    B = lo;
  }
  const auto [d, rate, f, tpot] = evaluate(B);
  p.batch = B;
  p.decode = d;
  p.decode_step_s = d.total_s;
  p.tpot_s = tpot;
  p.ttft_s = pre;
  p.prefill_fraction = f;
  p.replica_requests_per_s = rate;
  p.replica_output_tokens_per_s = rate * static_cast<double>(t.output_len);
  p.replicas = t.requests_per_s > 0 ? static_cast<int64_t>(std::ceil(t.requests_per_s / rate - 1e-9)) : 1;
  p.replicas = std::max<int64_t>(1, p.replicas);
  p.gpus = p.replicas * tp;
  p.output_tokens_per_s_per_gpu = p.replica_output_tokens_per_s / tp;
  if (t.requests_per_s > 0) {
    p.output_tokens_per_s = t.requests_per_s * static_cast<double>(t.output_len);
    p.utilisation = t.requests_per_s / (rate * static_cast<double>(p.replicas));
  } else {
    p.output_tokens_per_s = p.replica_output_tokens_per_s;
    p.utilisation = 1;
  }
  p.feasible = true;
  return p;
}

}  // namespace

ServingPlan plan_serving(const ModelSpec& m, const GpuSpec& g, InferenceOptions o, const ServingTarget& t) {
  if (t.input_len < 1) throw InputError("--input", "--input must be at least 1 token.");
  if (t.output_len < 1) throw InputError("--output", "--output must be at least 1 token.");
  if (t.requests_per_s < 0 || !std::isfinite(t.requests_per_s)) throw InputError("--rps", "--rps must be a positive request rate.");
  if (t.batch < 0) throw InputError("--batch", "--batch must be a positive number of sequences.");
  std::vector<int> tps;
  if (t.tp > 0) {
    tps.push_back(t.tp);
  } else {
    const int node = std::max(g.gpus_per_node, g.nvlink_domain_gpus);
    for (int tp = 1; tp <= std::min(node, 8); tp *= 2) {
      if (m.heads % tp == 0) tps.push_back(tp);
    }
  }
  ServingPlan best;
  std::string reasons;
  for (int tp : tps) {
    o.tp = tp;
    validate_inference(m, g, o);
    ServingPlan p = plan_for_tp(m, g, o, t, tp);
    if (!p.feasible) {
      reasons += (reasons.empty() ? "" : "; ") + p.why_not;
      if (!best.feasible) best = p;
      continue;
    }
    // Fewest GPUs; among equals, the lower time per output token.
    if (!best.feasible || p.gpus < best.gpus || (p.gpus == best.gpus && p.tpot_s < best.tpot_s)) best = p;
  }
  if (!best.feasible) best.why_not = reasons;
  best.assumptions.push_back("Continuous batching: requests join and leave the running batch each step; each step prefills the new requests in the same forward pass as the decoding ones.");
  best.assumptions.push_back("Decode step at the mean context (input + output/2); TTFT excludes queueing.");
  return best;
}

}  // namespace gpuplan
