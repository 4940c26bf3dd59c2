// Sizing a serving deployment under continuous batching (Yu et al. 2022,
// "Orca"; vLLM, Kwon et al. 2023), searched over replica layouts.
//
// One replica is tp × dp_attention × pp GPUs: TP inside a node, pipeline
// stages across nodes, and for MoE models expert parallelism over every GPU of
// a stage, optionally with DeepSeek-style data-parallel attention
// (DeepSeek-V3 report arXiv:2412.19437 §3.4.2: decode with attention DP and
// EP 320 over 40 nodes; SGLang --enable-dp-attention --enable-deepep-moe).
// It holds B concurrent sequences in the steady state of
// continuous_batching_steady_state (inference_batching.cpp): each step
// prefills B/O new sequences alongside the B·(O − 1)/O decoding ones and
// yields B tokens, so a replica completes r = B / (O · step) requests per
// second and every sequence gets one token per step (time per output token =
// step). Replicas = ⌈R / r⌉; the layout with the fewest GPUs wins, ties going
// to the lower time per output token.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuplan/error.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/step_time.hpp"
#include "estimate/inference/inference_internal.hpp"

namespace gpuplan {
namespace {

struct ReplicaLayout {
  int tp = 1, pp = 1, ep = 1, dp = 1;
  int64_t gpus() const { return static_cast<int64_t>(tp) * dp * pp; }
};

constexpr int64_t kMaxReplicaGpus = 512;  // 64 nodes of 8: past DeepSeek's 320-GPU decode unit

std::vector<ReplicaLayout> layouts_to_try(const ModelSpec& m, const GpuSpec& g, const ServingTarget& t) {
  const int node = std::max(g.gpus_per_node, g.nvlink_domain_gpus);
  std::vector<int> tps, pps;
  if (t.tp > 0) tps.push_back(t.tp);
  else for (int tp = 1; tp <= std::min(node, 8); tp *= 2) if (m.heads % tp == 0) tps.push_back(tp);
  if (t.pp > 0) pps.push_back(t.pp);
  else for (int pp = 1; pp <= 8 && pp <= m.layers; pp *= 2) pps.push_back(pp);
  std::vector<ReplicaLayout> out;
  for (int pp : pps) {
    for (int tp : tps) {
      if (t.ep <= 1 || !m.moe) out.push_back(ReplicaLayout{tp, pp, 1, 1});
      if (!m.moe || t.ep == 1) continue;
      std::vector<int> eps;
      if (t.ep > 1) eps.push_back(t.ep);
      else for (int ep : {2, 4, 8, 16, 32, 64, 128, 256}) eps.push_back(ep);
      for (int ep : eps) {
        if (ep < tp || ep % tp != 0 || m.moe->routed_experts % ep != 0) continue;
        const ReplicaLayout l{tp, pp, ep, ep / tp};
        if (l.gpus() <= kMaxReplicaGpus) out.push_back(l);
      }
    }
  }
  return out;
}

// A layout refused because a latency (time per output token, or to the first token) exceeds its target.
void refuse_over_target(ServingPlan& p, InferRefusal code, double took_s, double target_s) {
  p.refusal.code = code;
  p.refusal.took_s = took_s;
  p.refusal.target_s = target_s;
}

ServingPlan plan_for_layout(const ModelSpec& m, const GpuSpec& g, InferenceOptions o, const ServingTarget& t, const ReplicaLayout& l) {
  ServingPlan p;
  o.tp = l.tp;
  o.pp = l.pp;
  o.ep = l.ep;
  o.dp_attention = l.dp;
  p.tp = l.tp;
  p.pp = l.pp;
  p.ep = l.ep;
  p.dp_attention = l.dp;
  p.gpus_per_replica = l.gpus();
  p.nodes_per_replica = (p.gpus_per_replica + g.gpus_per_node - 1) / std::max(1, g.gpus_per_node);
  p.tpot_target_s = t.tpot_target_s;
  p.disaggregated = t.disaggregate;
  // The engine's KV-pool rule (inference_engines.cpp), as max_throughput_run
  // applies it; an unnamed engine keeps vLLM's with --memory-utilization.
  p.engine = engine_defaults(t.engine.empty() ? "vllm" : t.engine, m, g, o, t.input_len, t.output_len);
  if (!t.engine.empty()) inference_detail::apply_engine_memory_rule(o, p.engine);
  try {
    validate_inference(m, g, o);
  } catch (const InputError& e) {
    p.refusal.code = InferRefusal::kInvalidLayout;
    p.refusal.error = Bilingual{e.what(), e.zh()};
    return p;
  }
  p.memory = inference_memory(m, g, o);
  const double ctx = static_cast<double>(t.input_len + t.output_len);
  if (!p.memory.weights_fit) {
    p.refusal.code = InferRefusal::kWeightsDoNotFit;
    p.refusal.weights_bytes = p.memory.weights_bytes;
    p.refusal.gpu_id = g.id;
    return p;
  }
  p.max_batch_memory = static_cast<int64_t>(std::floor(p.memory.max_cached_tokens / ctx));
  if (p.max_batch_memory < 1) {
    p.refusal.code = InferRefusal::kSequenceKvDoesNotFit;
    p.refusal.context_tokens = t.input_len + t.output_len;
    return p;
  }
  if (t.batch > p.max_batch_memory) {
    p.refusal.code = InferRefusal::kBatchKvDoesNotFit;
    p.refusal.batch = t.batch;
    p.refusal.context_tokens = t.input_len + t.output_len;
    p.refusal.cached_tokens = static_cast<int64_t>(p.memory.max_cached_tokens);
    return p;
  }
  // The engine runs at most max_num_seqs sequences per scheduler (per attention
  // rank, per pipeline micro-batch): its default (inference_engines.cpp).
  const int64_t engine_cap = p.engine.max_batch_size * l.dp * l.pp;
  int64_t B = t.batch > 0 ? t.batch : std::min(p.max_batch_memory, engine_cap);
  const double mid = static_cast<double>(t.input_len) + 0.5 * static_cast<double>(t.output_len);
  // Time to first token: one request's prefill at full input length. With DP
  // attention a request lives on one attention rank, which runs all its tokens;
  // the other ranks are taken to be prefilling one request each at the same
  // time (their tokens meet in the expert layers).
  // An engine that samples the first token in the next decode step
  // (first_token_from_decode) prefills all prompt tokens but the last.
  p.prefill = prefill_time(m, g, o, l.dp, std::max<int64_t>(1, inference_detail::prefilled_tokens(o, t.input_len)));
  struct Eval {
    PassTime decode;
    double rate = 0, fraction = 0, tpot = 0;
  };
  auto evaluate = [&](int64_t b) {
    Eval v;
    v.decode = decode_step_time(m, g, o, b, mid);
    if (t.disaggregate) {
      // Decode-only steps: the prefill pool produced the first token.
      v.tpot = v.decode.total_s;
      v.rate = static_cast<double>(b) / (static_cast<double>(std::max<int64_t>(1, t.output_len - 1)) * v.tpot);
      return v;
    }
    if (p.engine.static_batching) {
      // One static batch at a time (HF generate(), llama.cpp, TensorRT-LLM's
      // GptSession before in-flight batching): it prefills, then decodes its
      // output_len − 1 steps with no prefill of another request between them;
      // the replica serves b requests per run.
      const BatchRun r = static_batch_run(m, g, o, b, t.input_len, t.output_len);
      v.tpot = r.tpot_s > 0 ? r.tpot_s : v.decode.total_s;
      v.rate = static_cast<double>(b) / r.total_s;
      v.fraction = r.ttft_s / r.total_s;
      return v;
    }
    const BatchingSteadyState s = continuous_batching_steady_state(m, g, o, static_cast<double>(b), t.input_len, t.output_len);
    v.rate = s.requests_per_s;
    v.fraction = s.prefill_fraction;
    v.tpot = s.step_s;
    return v;
  };
  if (t.tpot_target_s > 0) {
    // Largest batch whose time per output token meets the target (bisection:
    // the time per token grows with the batch).
    int64_t lo = 0, hi = B;
    while (lo < hi) {
      const int64_t mid_b = (lo + hi + 1) / 2;
      if (evaluate(mid_b).tpot <= t.tpot_target_s) lo = mid_b;
      else hi = mid_b - 1;
    }
    if (lo == 0) {
      refuse_over_target(p, InferRefusal::kTpotOverTarget, evaluate(1).tpot, t.tpot_target_s);
      return p;
    }
    B = lo;
  }
  const Eval v = evaluate(B);
  p.batch = B;
  p.decode = v.decode;
  p.decode_step_s = v.decode.total_s;
  p.tpot_s = v.tpot;
  p.ttft_s = p.prefill.total_s + (o.first_token_from_decode ? v.decode.total_s : 0.0);
  p.prefill_fraction = v.fraction;
  p.replica_requests_per_s = v.rate;
  p.replica_output_tokens_per_s = v.rate * static_cast<double>(t.output_len);
  // The rate the replicas must sustain: the target with its margin (ServingTarget::rate_margin).
  const double margin = std::isfinite(t.rate_margin) ? std::max(1.0, t.rate_margin) : 1.0;
  p.replicas = t.requests_per_s > 0 ? static_cast<int64_t>(std::ceil(t.requests_per_s * margin / v.rate - 1e-9)) : 1;
  p.replicas = std::max<int64_t>(1, p.replicas);
  p.gpus = p.replicas * p.gpus_per_replica;
  const double rate = t.requests_per_s > 0 ? t.requests_per_s * margin : v.rate * static_cast<double>(p.replicas);
  if (t.disaggregate) {
    // Prefill pool, same replica layout: each replica prefills whole prompts in
    // steps of the engine's max_num_batched_tokens (at least one prompt).
    // Each attention rank's scheduler fills its own step budget.
    const double seqs = l.dp * std::max(1.0, std::floor(static_cast<double>(p.engine.max_num_tokens) / static_cast<double>(t.input_len)));
    const PassTime chunk = prefill_time(m, g, o, static_cast<int64_t>(seqs), t.input_len);
    p.prefill_replica_tokens_per_s = seqs * static_cast<double>(t.input_len) / chunk.total_s;
    p.prefill_replicas = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(rate * static_cast<double>(t.input_len) / p.prefill_replica_tokens_per_s - 1e-9)));
    p.prefill_gpus = p.prefill_replicas * p.gpus_per_replica;
    // One prompt's KV cache (all layers) leaves the prefill replica over the
    // NICs of its GPUs (Mooncake/NIXL RDMA transfer engines), each at the
    // step-time model's achieved share of the NIC rate.
    const StepTimeOptions so;
    const double nic = g.scaleout_bytes_per_s > 0 ? g.scaleout_bytes_per_s : 25e9;
    const double bytes = static_cast<double>(t.input_len) * p.memory.kv_bytes_per_token;
    p.kv_transfer_s = bytes / (static_cast<double>(p.gpus_per_replica) * nic * so.scaleout_efficiency) + so.inter_latency_s;
    p.ttft_s += p.kv_transfer_s;
    p.gpus += p.prefill_gpus;
  }
  if (t.ttft_target_s > 0 && p.ttft_s > t.ttft_target_s) {
    refuse_over_target(p, InferRefusal::kTtftOverTarget, p.ttft_s, t.ttft_target_s);
    return p;
  }
  p.output_tokens_per_s_per_gpu = p.replica_output_tokens_per_s * static_cast<double>(p.replicas) / static_cast<double>(p.gpus);
  if (t.requests_per_s > 0) {
    p.output_tokens_per_s = t.requests_per_s * static_cast<double>(t.output_len);
    p.utilisation = t.requests_per_s / (v.rate * static_cast<double>(p.replicas));
  } else {
    p.output_tokens_per_s = p.replica_output_tokens_per_s;
    p.utilisation = 1;
  }
  p.feasible = true;
  return p;
}

ServingLayoutTried tried_row(const ServingPlan& p) {
  ServingLayoutTried r;
  r.tp = p.tp;
  r.pp = p.pp;
  r.ep = p.ep;
  r.dp_attention = p.dp_attention;
  r.gpus_per_replica = p.gpus_per_replica;
  r.feasible = p.feasible;
  r.refusal = p.refusal;
  if (p.feasible) {
    r.batch = p.batch;
    r.tpot_s = p.tpot_s;
    r.replica_requests_per_s = p.replica_requests_per_s;
    r.replicas = p.replicas;
    r.gpus = p.gpus;
  }
  return r;
}

}  // namespace

ServingPlan plan_serving(const ModelSpec& m, const GpuSpec& g, InferenceOptions o, const ServingTarget& t) {
  if (t.input_len < 1) throw InputError("--input", "--input must be at least 1 token.", "--input 至少为 1 个 token。");
  if (t.output_len < 1) throw InputError("--output", "--output must be at least 1 token.", "--output 至少为 1 个 token。");
  if (t.requests_per_s < 0 || !std::isfinite(t.requests_per_s)) throw InputError("--rps", "--rps must be a positive request rate.", "--rps 须为正的每秒请求数。");
  if (t.tpot_target_s < 0 || !std::isfinite(t.tpot_target_s)) {
    throw InputError("--latency-target-ms", "--latency-target-ms must be a positive time per output token.", "--latency-target-ms 须为正的每个输出 token 的时延。");
  }
  if (t.batch < 0) throw InputError("--batch", "--batch must be a positive number of sequences.", "--batch 须为正的序列条数。");
  if (t.pp < 0) throw InputError("--pp", "--pp must be a positive number of pipeline stages.", "--pp 须为正的流水线段数。");
  if (t.ep < 0) throw InputError("--ep", "--ep must be a positive expert-parallel degree.", "--ep 须为正的专家并行度。");
  if (t.ep > 1 && !m.moe) throw InputError("--ep", fmt::format("--ep needs a mixture-of-experts model; {} is dense.", m.name), fmt::format("--ep 只适用于 MoE 模型；{} 是稠密模型。", m.name));
  if (t.ep > 1 && m.moe->routed_experts % t.ep != 0) {
    throw InputError("--ep", fmt::format("--ep {} does not divide the {} routed experts of {}.", t.ep, m.moe->routed_experts, m.name),
                     fmt::format("--ep {} 不能整除 {} 的 {} 个路由专家。", t.ep, m.name, m.moe->routed_experts));
  }
  if (t.ep > 1 && t.tp > 0 && t.ep % t.tp != 0) {
    throw InputError("--ep", fmt::format("--ep {} must be a multiple of --tp {} (EP = TP × DP-attention ranks).", t.ep, t.tp),
                     fmt::format("--ep {} 须为 --tp {} 的整数倍（EP = TP × 注意力数据并行副本数）。", t.ep, t.tp));
  }
  if (t.pp > m.layers) {
    throw InputError("--pp", fmt::format("--pp must be 1 to the model's {} layers (got {}).", m.layers, t.pp),
                     fmt::format("--pp 须在 1 到模型层数 {} 之间（输入为 {}）。", m.layers, t.pp));
  }
  if (t.tp > 0) {
    // A TP the user names must be valid on its own (heads, node size); other
    // layout errors are reported per layout.
    InferenceOptions check = o;
    check.tp = t.tp;
    validate_inference(m, g, check);
  } else {
    validate_inference(m, g, o);
  }
  ServingPlan best;
  std::vector<ServingLayoutTried> tried;
  for (const ReplicaLayout& l : layouts_to_try(m, g, t)) {
    ServingPlan p = plan_for_layout(m, g, o, t, l);
    tried.push_back(tried_row(p));
    if (!p.feasible) {
      if (!best.feasible && best.refusal.code == InferRefusal::kNone) best = p;
      continue;
    }
    // Fewest GPUs; among equals, the lower time per output token.
    if (!best.feasible || p.gpus < best.gpus || (p.gpus == best.gpus && p.tpot_s < best.tpot_s - 1e-12)) best = p;
  }
  best.layouts = std::move(tried);
  if (!best.feasible) {
    // The search's bounds and the last (largest) layout tried, with its reason.
    NoServingLayout n;
    n.model = m.name;
    n.gpu = g.name;
    n.max_gpus_per_replica = kMaxReplicaGpus;
    n.tpot_target_s = t.tpot_target_s;
    n.tried_any = !best.layouts.empty();
    if (n.tried_any) {
      n.tp = best.layouts.back().tp;
      n.pp = best.layouts.back().pp;
      n.ep = best.layouts.back().ep;
    }
    for (const ServingLayoutTried& r : best.layouts) {
      if (r.refusal.code != InferRefusal::kNone) n.why = r.refusal;
    }
    best.no_layout = std::move(n);
  }
  return best;
}

}  // namespace gpuplan
