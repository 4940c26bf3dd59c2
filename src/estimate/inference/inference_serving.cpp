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
#include "gpuplan/units.hpp"
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

// A layout refused because a latency exceeds its target: "{what} 12.3 ms{unit}, above the 10.0 ms {target}".
void refuse_over_target(ServingPlan& p, const Bilingual& what, double took_s, const char* unit_en, double target_s, const Bilingual& target) {
  p.why_not = fmt::format("{} {:.1f} ms{}, above the {:.1f} ms {}", what.en, 1e3 * took_s, unit_en, 1e3 * target_s, target.en);
  p.why_not_zh = fmt::format("{}{:.1f} 毫秒，超过{}{:.1f} 毫秒", what.zh, 1e3 * took_s, target.zh, 1e3 * target_s);
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
    p.why_not = e.what();
    p.why_not_zh = e.zh();
    return p;
  }
  p.memory = inference_memory(m, g, o);
  const double ctx = static_cast<double>(t.input_len + t.output_len);
  if (!p.memory.weights_fit) {
    p.why_not = fmt::format("weights and runtime ({:.1f} GiB per GPU) do not fit {}", p.memory.weights_bytes / kGiB, g.id);
    p.why_not_zh = fmt::format("权重与运行时（每卡 {:.1f} GiB）放不进 {}", p.memory.weights_bytes / kGiB, g.id);
    return p;
  }
  p.max_batch_memory = static_cast<int64_t>(std::floor(p.memory.max_cached_tokens / ctx));
  if (p.max_batch_memory < 1) {
    p.why_not = fmt::format("the KV cache of one {}-token sequence does not fit next to the weights", static_cast<int64_t>(ctx));
    p.why_not_zh = fmt::format("放下权重后，连一条 {} token 序列的 KV 缓存也放不下", static_cast<int64_t>(ctx));
    return p;
  }
  if (t.batch > p.max_batch_memory) {
    p.why_not = fmt::format("--batch {} needs {} cached tokens; {} fit", t.batch,
                            static_cast<int64_t>(static_cast<double>(t.batch) * ctx), static_cast<int64_t>(p.memory.max_cached_tokens));
    p.why_not_zh = fmt::format("--batch {} 需要缓存 {} 个 token，只放得下 {} 个", t.batch,
                               static_cast<int64_t>(static_cast<double>(t.batch) * ctx), static_cast<int64_t>(p.memory.max_cached_tokens));
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
      refuse_over_target(p, {"even one sequence takes", "即使只有一条序列，每输出 token 也要 "}, evaluate(1).tpot, " per output token", t.tpot_target_s,
                         {"target", "目标 "});
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
    refuse_over_target(p, {"one prompt's first token takes", "单个提示词的首 token 需要 "}, p.ttft_s, "", t.ttft_target_s, {"first-token target", "首 token 目标 "});
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
  r.why_not = p.why_not;
  r.why_not_zh = p.why_not_zh;
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
      if (!best.feasible && best.why_not.empty()) best = p;
      continue;
    }
    // Fewest GPUs; among equals, the lower time per output token.
    if (!best.feasible || p.gpus < best.gpus || (p.gpus == best.gpus && p.tpot_s < best.tpot_s - 1e-12)) best = p;
  }
  best.layouts = std::move(tried);
  if (!best.feasible) {
    // The reason of the last (largest) layout tried.
    std::string why, why_zh;
    for (const ServingLayoutTried& r : best.layouts) {
      if (!r.why_not.empty()) {
        why = r.why_not;
        why_zh = r.why_not_zh.empty() ? r.why_not : r.why_not_zh;
      }
    }
    best.why_not = fmt::format("no layout of up to {} GPUs per replica serves {} on {}{}: the last layout tried ({}) fails because {}",
                               kMaxReplicaGpus, m.name, g.name,
                               t.tpot_target_s > 0 ? fmt::format(" within {:.0f} ms per output token", 1e3 * t.tpot_target_s) : "",
                               best.layouts.empty() ? "none" : fmt::format("TP {} × PP {} × EP {}", best.layouts.back().tp, best.layouts.back().pp, best.layouts.back().ep),
                               why);
    best.why_not_zh = fmt::format("每副本最多 {} 张卡的布局都无法{}在 {} 上服务 {}：最后尝试的布局（{}）不可行，原因是{}",
                                  kMaxReplicaGpus, t.tpot_target_s > 0 ? fmt::format("在每输出 token {:.0f} 毫秒内", 1e3 * t.tpot_target_s) : "",
                                  g.name, m.name,
                                  best.layouts.empty() ? "无" : fmt::format("TP {} × PP {} × EP {}", best.layouts.back().tp, best.layouts.back().pp, best.layouts.back().ep),
                                  why_zh);
  }
  auto note = [&](const char* en, const char* zh) { best.assumptions.push_back(ServingPlan::Note{en, zh}); };
  if (best.engine.static_batching) {
    note("Static batching: a replica prefills one batch, then decodes it to the end before the next batch starts; no prefill runs between its decode steps.",
         "静态批处理：每个副本先为一批请求预填充，再把这批解码到底，下一批才开始；解码步之间不插入预填充。");
  } else {
    note("Continuous batching: requests join and leave the running batch each step; each step prefills the new requests in the same forward pass as the decoding ones.",
         "连续批处理：请求每步加入或离开运行中的批；每步在同一次前向中为新请求做预填充、为其余请求解码。");
  }
  note("Decode step at the mean context (input + output/2); TTFT excludes queueing.",
       "解码步按平均上下文（输入 + 输出/2）计算；首 token 延迟不含排队。");
  if (best.pp > 1) {
    note("Pipeline parallelism: pp micro-batches in flight; a round gives every sequence one token and lasts one micro-batch's pass through all stages plus pp hops.",
         "流水线并行：同时有 PP 个微批在途；每轮每条序列得到一个 token，用时为一个微批穿过所有级的时间加 PP 次级间传输。");
  }
  if (best.ep > 1) {
    note("Expert parallelism: each GPU of a stage holds routed_experts/EP whole experts; per MoE layer an FP8 dispatch and a BF16 combine all-to-all at DeepEP's measured rates, not overlapped with compute.",
         "专家并行：每级每张卡持有 routed_experts/EP 个完整专家；每个 MoE 层一次 FP8 分发和一次 BF16 合并 all-to-all，按 DeepEP 实测速率计算，不与计算重叠。");
  }
  if (best.dp_attention > 1) {
    note("DP attention: each attention rank holds whole attention weights (at its TP) and the KV cache of its own share of the sequences.",
         "注意力数据并行：每个注意力组持有完整的注意力权重（按其 TP 切分）以及自己那部分序列的 KV 缓存。");
  }
  if (best.disaggregated) {
    note("Prefill/decode disaggregation: separate prefill and decode pools of the same layout; decode steps carry no prefills; each prompt's KV cache crosses the NICs once.",
         "预填充/解码分离：预填充池与解码池分开部署、布局相同；解码步不含预填充；每个请求的 KV 缓存经网卡传输一次。");
  }
  return best;
}

}  // namespace gpuplan
