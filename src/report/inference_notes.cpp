// The sentences of the serving estimators' reason codes (issue 31): what
// plan_serving, max_throughput_run and engine_defaults return as codes and
// values, said in English and Chinese.
#include "report/inference_notes.hpp"

#include <fmt/format.h>

#include "gpuplan/units.hpp"

namespace gpuplan {

Bilingual infer_refusal_text(const InferRefusalReason& r) {
  // An offline run names its TP degree; a serving layout's row shows its own.
  const std::string at_tp = r.tp > 0 ? fmt::format(" at TP {}", r.tp) : std::string();
  const std::string at_tp_zh = r.tp > 0 ? fmt::format("TP {} 时", r.tp) : std::string();
  switch (r.code) {
    case InferRefusal::kNone: return {};
    case InferRefusal::kInvalidLayout: return r.error;
    case InferRefusal::kWeightsDoNotFit:
      return {fmt::format("weights and runtime ({:.1f} GiB per GPU) do not fit {}{}", r.weights_bytes / kGiB, r.gpu_id, at_tp),
              fmt::format("{}权重与运行时（每卡 {:.1f} GiB）放不进 {}", at_tp_zh, r.weights_bytes / kGiB, r.gpu_id)};
    case InferRefusal::kSequenceKvDoesNotFit:
      return {fmt::format("the KV cache of one {}-token sequence does not fit next to the weights{}", r.context_tokens, at_tp),
              fmt::format("{}放下权重后，连一条 {} token 序列的 KV 缓存也放不下", at_tp_zh, r.context_tokens)};
    case InferRefusal::kBatchKvDoesNotFit: {
      const auto needed = static_cast<int64_t>(static_cast<double>(r.batch) * static_cast<double>(r.context_tokens));
      return {fmt::format("--batch {} needs {} cached tokens; {} fit", r.batch, needed, r.cached_tokens),
              fmt::format("--batch {} 需要缓存 {} 个 token，只放得下 {} 个", r.batch, needed, r.cached_tokens)};
    }
    case InferRefusal::kPromptOverStepBudget:
      return {fmt::format("a {}-token prompt exceeds max_num_tokens {} and the engine does not chunk prefills", r.input_tokens, r.max_num_tokens),
              fmt::format("{} token 的提示超过 max_num_tokens {}，且该引擎不分块预填充", r.input_tokens, r.max_num_tokens)};
    case InferRefusal::kTpotOverTarget:
      return {fmt::format("even one sequence takes {:.1f} ms per output token, above the {:.1f} ms target", 1e3 * r.took_s, 1e3 * r.target_s),
              fmt::format("即使只有一条序列，每输出 token 也要 {:.1f} 毫秒，超过目标 {:.1f} 毫秒", 1e3 * r.took_s, 1e3 * r.target_s)};
    case InferRefusal::kTtftOverTarget:
      return {fmt::format("one prompt's first token takes {:.1f} ms, above the {:.1f} ms first-token target", 1e3 * r.took_s, 1e3 * r.target_s),
              fmt::format("单个提示词的首 token 需要 {:.1f} 毫秒，超过首 token 目标 {:.1f} 毫秒", 1e3 * r.took_s, 1e3 * r.target_s)};
  }
  return {};
}

Bilingual serving_why_not(const ServingPlan& p) {
  if (!p.no_layout) return infer_refusal_text(p.refusal);
  const NoServingLayout& n = *p.no_layout;
  const Bilingual why = infer_refusal_text(n.why);
  const std::string last = n.tried_any ? fmt::format("TP {} × PP {} × EP {}", n.tp, n.pp, n.ep) : std::string();
  const bool target = n.tpot_target_s > 0;
  return {fmt::format("no layout of up to {} GPUs per replica serves {} on {}{}: the last layout tried ({}) fails because {}",
                      n.max_gpus_per_replica, n.model, n.gpu, target ? fmt::format(" within {:.0f} ms per output token", 1e3 * n.tpot_target_s) : "",
                      n.tried_any ? last : "none", why.en),
          fmt::format("每副本最多 {} 张卡的布局都无法{}在 {} 上服务 {}：最后尝试的布局（{}）不可行，原因是{}", n.max_gpus_per_replica,
                      target ? fmt::format("在每输出 token {:.0f} 毫秒内", 1e3 * n.tpot_target_s) : "", n.gpu, n.model, n.tried_any ? last : "无",
                      why.zh.empty() ? why.en : why.zh)};
}

std::vector<Bilingual> serving_assumptions(const ServingPlan& p) {
  std::vector<Bilingual> out;
  if (p.engine.static_batching) {
    out.push_back({"Static batching: a replica prefills one batch, then decodes it to the end before the next batch starts; no prefill runs between its decode steps.",
                   "静态批处理：每个副本先为一批请求预填充，再把这批解码到底，下一批才开始；解码步之间不插入预填充。"});
  } else {
    out.push_back({"Continuous batching: requests join and leave the running batch each step; each step prefills the new requests in the same forward pass as the decoding ones.",
                   "连续批处理：请求每步加入或离开运行中的批；每步在同一次前向中为新请求做预填充、为其余请求解码。"});
  }
  out.push_back({"Decode step at the mean context (input + output/2); TTFT excludes queueing.",
                 "解码步按平均上下文（输入 + 输出/2）计算；首 token 延迟不含排队。"});
  if (p.pp > 1) {
    out.push_back({"Pipeline parallelism: pp micro-batches in flight; a round gives every sequence one token and lasts one micro-batch's pass through all stages plus pp hops.",
                   "流水线并行：同时有 PP 个微批在途；每轮每条序列得到一个 token，用时为一个微批穿过所有级的时间加 PP 次级间传输。"});
  }
  if (p.ep > 1) {
    out.push_back({"Expert parallelism: each GPU of a stage holds routed_experts/EP whole experts; per MoE layer an FP8 dispatch and a BF16 combine all-to-all at DeepEP's measured rates, not overlapped with compute.",
                   "专家并行：每级每张卡持有 routed_experts/EP 个完整专家；每个 MoE 层一次 FP8 分发和一次 BF16 合并 all-to-all，按 DeepEP 实测速率计算，不与计算重叠。"});
  }
  if (p.dp_attention > 1) {
    out.push_back({"DP attention: each attention rank holds whole attention weights (at its TP) and the KV cache of its own share of the sequences.",
                   "注意力数据并行：每个注意力组持有完整的注意力权重（按其 TP 切分）以及自己那部分序列的 KV 缓存。"});
  }
  if (p.disaggregated) {
    out.push_back({"Prefill/decode disaggregation: separate prefill and decode pools of the same layout; decode steps carry no prefills; each prompt's KV cache crosses the NICs once.",
                   "预填充/解码分离：预填充池与解码池分开部署、布局相同；解码步不含预填充；每个请求的 KV 缓存经网卡传输一次。"});
  }
  return out;
}

std::string engine_display_name(const EngineDefaults& e) {
  if (e.engine_name.empty() || e.version.empty()) return e.engine_name + e.version;
  return e.engine_name + " " + e.version;
}

std::vector<Bilingual> engine_choice_notes(const EngineDefaults& e) {
  std::vector<Bilingual> out;
  const EngineFallbackReason& f = e.fallback;
  // e.profile is the profile the defaults were read from: vLLM's, in every fallback.
  switch (f.reason) {
    case EngineFallback::kNone: break;
    case EngineFallback::kNotNamed:
      out.push_back({fmt::format("engine not named: {}'s defaults assumed", e.profile), fmt::format("未指定推理引擎：按 {} 的默认值计", e.profile)});
      break;
    case EngineFallback::kNoProfile:
      out.push_back({fmt::format("engine '{}' has no profile: {}'s defaults assumed", f.asked, e.profile),
                     fmt::format("推理引擎“{}”没有配置：按 {} 的默认值计", f.asked, e.profile)});
      break;
    case EngineFallback::kNotOnVendor:
      out.push_back({fmt::format("engine '{}': {} does not run on {} GPUs ({}) and the engine used there has no profile: {}'s defaults assumed",
                                 f.asked, f.asked_profile, f.gpu_vendor, f.gpu_id, e.profile),
                     fmt::format("推理引擎“{}”：{} 不支持 {} GPU（{}），该平台所用引擎没有配置：按 {} 的默认值计", f.asked, f.asked_profile, f.gpu_vendor,
                                 f.gpu_id, e.profile)});
      break;
  }
  out.insert(out.end(), e.notes.begin(), e.notes.end());
  return out;
}

std::vector<Bilingual> engine_rule_notes(const EngineDefaults& e) {
  std::vector<Bilingual> out;
  if (const auto& s = e.sglang_mem_fraction) {
    out.push_back({fmt::format("mem_fraction_static {:.3f} of the device for weights + KV pool: reserved_mem {:.0f} MiB on {:.0f} GiB at TP {} "
                               "(chunked_prefill_size {}, cuda_graph_max_bs {}{})",
                               s->fraction, s->reserved_mib, s->gpu_mib / 1024, s->tp, s->chunked_prefill_size, s->cuda_graph_max_bs,
                               s->floor_above_60_gib ? ", at least 10 GiB above 60 GiB" : ""),
                   fmt::format("整卡显存的 {:.3f} 用于权重与 KV 缓存池（mem_fraction_static）：{:.0f} GiB、TP {} 时 reserved_mem {:.0f} MiB"
                               "（chunked_prefill_size {}，cuda_graph_max_bs {}{}）",
                               s->fraction, s->gpu_mib / 1024, s->tp, s->reserved_mib, s->chunked_prefill_size, s->cuda_graph_max_bs,
                               s->floor_above_60_gib ? "，显存大于 60 GiB 时至少 10 GiB" : "")});
  }
  if (const auto& t = e.trtllm_bench_sizing) {
    out.push_back({fmt::format("max_batch_size {}, max_num_tokens {}: sized from the model, the lengths {}/{} and the memory", t->max_batch_size,
                               t->max_num_tokens, t->input_len, t->output_len),
                   fmt::format("max_batch_size {}，max_num_tokens {}：按模型、长度 {}/{} 与显存估算", t->max_batch_size, t->max_num_tokens, t->input_len,
                               t->output_len)});
  }
  if (const auto& s = e.sglang_running_requests) {
    const bool known = s->context_len > 0;
    out.push_back({fmt::format("max_running_requests {}: min(KV pool // 2, the request pool) with {:.0f} KV tokens and context_len {}", s->max_running_requests,
                               s->kv_tokens, known ? std::to_string(s->context_len) : std::string("unknown")),
                   fmt::format("最多 {} 条并发请求（max_running_requests）：min(KV 池 // 2, 请求池)，KV 池 {:.0f} 个 token，context_len {}", s->max_running_requests,
                               s->kv_tokens, known ? std::to_string(s->context_len) : std::string("未知"))});
  }
  return out;
}

}  // namespace gpuplan
