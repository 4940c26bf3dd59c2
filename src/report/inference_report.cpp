// Reports for serving (gpuplan infer) and fine-tuning (gpuplan finetune).
#include "report/inference_report.hpp"
#include "report/inference_notes.hpp"
#include "report/memory_report.hpp"
#include "report/model_notes.hpp"
#include "report/engines_report.hpp"
#include "units/quantity_text.hpp"
#include "execution/layout_words.hpp"

#include "gpuplan/intervals.hpp"
#include "gpuplan/published_mfu.hpp"

#include <fmt/format.h>

#include <cmath>

#include <algorithm>
#include <limits>

#include "gpuplan/units.hpp"
#include "money_rows.hpp"
#include "row_makers.hpp"

namespace gpuplan {
namespace {

// The weights as a title names them: the quantisation method where one is named, else the format.
std::string weights_label(const InferenceOptions& o) { return o.weight_quant.empty() ? weight_format_name(o.weights) : o.weight_quant; }

// What each kind of matrix costs per weight, from the named method where there is one.
Note weights_note(const ModelSpec& m, const InferenceOptions& o) {
  if (o.weight_quant.empty()) {
    return Note{fmt::format("Weights: layer matrices at {:.4g} bytes each ({}), embeddings and LM head 16-bit. Streaming at the step-time model's HBM efficiency; GEMMs at the measured GEMM ceiling and shape efficiency.", bytes_per_weight(o.weights, o.group_size), weight_format_name(o.weights)),
                fmt::format("权重：层内矩阵每参数 {:.4g} 字节（{}），嵌入与输出层 16 位。", bytes_per_weight(o.weights, o.group_size), weight_format_name(o.weights))};
  }
  const WeightBytes b = weight_bytes(m, o);
  const std::string experts = m.moe ? fmt::format(", routed experts {:.4g}", b.experts) : "";
  const std::string experts_zh = m.moe ? fmt::format("，路由专家 {:.4g}", b.experts) : "";
  const std::string dequant = b.dequantise_per_call ? " More than one token row dequantises each matrix to 16 bits before its GEMM (bitsandbytes)." : "";
  const std::string dequant_zh = b.dequantise_per_call ? "多于一行 token 时每个矩阵先反量化成 16 位再做 GEMM（bitsandbytes）。" : "";
  return Note{fmt::format("Weights ({}, computed as {}): bytes per weight: layer matrices {:.4g}{}, embedding {:.4g}, LM head {:.4g}.{} Streaming at the step-time model's HBM efficiency; GEMMs at the measured GEMM ceiling and shape efficiency.",
                          o.weight_quant, weight_format_name(o.weights), b.layers, experts, b.embedding, b.lm_head, dequant),
              fmt::format("权重（{}，按 {} 计算）：每参数字节数：层内矩阵 {:.4g}{}，嵌入 {:.4g}，输出层 {:.4g}。{}", o.weight_quant, weight_format_name(o.weights),
                          b.layers, experts_zh, b.embedding, b.lm_head, dequant_zh)};
}

// The parts of one forward pass (a decode step, or a mixed prefill/decode
// step) as rows keyed `<prefix>_gemm_s` … `<prefix>_lm_head_s`.
void pass_rows(Section& s, const std::string& prefix, const PassTime& t, const char* gemm_en, const char* gemm_zh,
               const char* attention_en, const char* attention_zh) {
  s.rows.push_back(Row{prefix + "_gemm_s", gemm_en, gemm_zh, t.gemm_s, Unit::kSeconds, ""});
  s.rows.push_back(Row{prefix + "_attention_s", attention_en, attention_zh, t.attention_s, Unit::kSeconds, ""});
  s.rows.push_back(Row{prefix + "_elementwise_s", "Element-wise", "逐元素", t.elementwise_s, Unit::kSeconds, ""});
  s.rows.push_back(Row{prefix + "_tp_comm_s", "TP all-reduces (2 per layer)", "TP all-reduce（每层 2 次）", t.tp_comm_s, Unit::kSeconds, ""});
  s.rows.push_back(Row{prefix + "_lm_head_s", "LM head", "输出层", t.lm_head_s, Unit::kSeconds, ""});
  s.rows.push_back(Row{prefix + "_sampling_s", "Sampling (logits read once)", "采样（读取一次 logits）", t.sampling_s, Unit::kSeconds, ""});
  if (t.ep_comm_s > 0) s.rows.push_back(Row{prefix + "_ep_comm_s", "Expert all-to-all (dispatch + combine)", "专家 all-to-all（分发 + 合并）", t.ep_comm_s, Unit::kSeconds, ""});
  if (t.pp_comm_s > 0) s.rows.push_back(Row{prefix + "_pp_comm_s", "Pipeline sends between stages", "流水线级间传输", t.pp_comm_s, Unit::kSeconds, ""});
  if (t.experts_touched > 0) s.rows.push_back(Row{prefix + "_experts_touched", "Routed experts read per MoE layer per GPU", "每卡每 MoE 层读取的路由专家数", t.experts_touched, Unit::kCount, ""});
}

// The engine's part of the assumptions: how its profile was chosen, what its
// sizing rules and device table set, and the facts the run used.
void add_engine_notes(Report& r, const EngineDefaults& e, const GpuSpec& g) {
  const std::string name = engine_display_name(e);
  for (const Bilingual& s : engine_choice_notes(e)) r.assumptions.push_back(Note{s.en, s.zh});
  for (const Bilingual& s : engine_rule_notes(e)) r.assumptions.push_back(Note{name + ": " + s.en, name + "：" + s.zh});
  if (e.device_row) r.assumptions.push_back(engine_limits_note(name, g.id, *e.device_row, e.max_batch_size, e.max_num_tokens));
  for (const EngineFact& f : e.facts) r.assumptions.push_back(engine_fact_note(name, f));
}

}  // namespace

Report inference_report(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, const ServingTarget& t,
                        const ServingPlan& p, const Price& price) {
  Report r;
  add_model_scope_warning(r, m);
  r.command = "infer";
  r.title_en = fmt::format("Serving {} on {} ({} weights, {} KV cache)", m.name, g.name, weights_label(o), precision_name(o.kv));
  r.title_zh = fmt::format("在 {} 上部署 {}（权重 {}，KV 缓存 {}）", g.name, m.name, weights_label(o), precision_name(o.kv));
  r.inputs = {{"model", m.id}, {"gpu", g.id}, {"precision", weight_format_name(o.weights)}, {"kv_precision", precision_name(o.kv)},
              {"input_tokens", t.input_len}, {"output_tokens", t.output_len}, {"requests_per_s", t.requests_per_s},
              {"tpot_target_s", t.tpot_target_s}, {"ttft_target_s", t.ttft_target_s}, {"batch", t.batch}, {"tp", t.tp}, {"pp", t.pp}, {"ep", t.ep},
              {"disaggregate", t.disaggregate}};
  if (!o.weight_quant.empty()) r.inputs["weight_quant"] = o.weight_quant;

  Section d{"deployment", "Deployment", "部署", {}, {}, {}};
  d.rows.push_back(number_row("feasible", "Feasible", "可行", p.feasible ? 1 : 0, Unit::kFlag));
  if (!p.feasible) {
    const Bilingual why = serving_why_not(p);
    d.rows.push_back(text_row("why_not", "Why not", "原因", why.en));
    d.rows.back().text_zh = why.zh;
  }
  d.rows.push_back(number_row("gpus", "GPUs", "GPU 数量", static_cast<double>(p.gpus), Unit::kGpus));
  // Language-neutral notation: replicas × [one replica's degrees].
  // The same in Chinese, where attention data parallelism is 注意力 DP.
  std::string replica = fmt::format("TP {}", p.tp), replica_zh = replica;
  if (p.dp_attention > 1) {
    replica += fmt::format(" × DP-attn {}", p.dp_attention);
    replica_zh += fmt::format(" × 注意力 DP {}", p.dp_attention);
  }
  const std::string rest = (p.pp > 1 ? fmt::format(" × PP {}", p.pp) : "") + (p.ep > 1 ? fmt::format(", EP {}", p.ep) : "");
  replica += rest;
  replica_zh += rest;
  std::string layout = fmt::format("{} × [{}]", p.replicas, replica), layout_zh = fmt::format("{} × [{}]", p.replicas, replica_zh);
  if (p.disaggregated) {  // decode pool + prefill pool
    layout += fmt::format(" + {} × [{}]", p.prefill_replicas, replica);
    layout_zh += fmt::format(" + {} × [{}]", p.prefill_replicas, replica_zh);
  }
  d.rows.push_back(text_row("layout", p.disaggregated ? "Layout (decode + prefill pools)" : "Layout", p.disaggregated ? "布局（解码池 + 预填充池）" : "布局", layout));
  d.rows.back().text_zh = layout_zh;
  d.rows.push_back(number_row("replicas", "Replicas", "副本数", static_cast<double>(p.replicas), Unit::kCount));
  d.rows.push_back(number_row("gpus_per_replica", "GPUs per replica", "每副本 GPU 数", static_cast<double>(p.gpus_per_replica), Unit::kGpus));
  d.rows.push_back(number_row("nodes_per_replica", "Nodes per replica", "每副本节点数", static_cast<double>(p.nodes_per_replica), Unit::kCount));
  d.rows.push_back(number_row("tp", "Tensor parallel", "张量并行", p.tp, Unit::kCount));
  d.rows.push_back(number_row("pp", "Pipeline stages", "流水线级数", p.pp, Unit::kCount));
  d.rows.push_back(number_row("ep", "Expert parallel (1: experts split by TP)", "专家并行（1：专家按 TP 切分）", p.ep, Unit::kCount));
  d.rows.push_back(number_row("dp_attention", "Attention data-parallel ranks per stage", "每级注意力数据并行数", p.dp_attention, Unit::kCount));
  d.rows.push_back(number_row("batch", "Concurrent sequences per replica", "每副本并发序列", static_cast<double>(p.batch), Unit::kCount));
  d.rows.push_back(number_row("max_batch_memory", "Largest batch that fits (input+output context)", "显存可容纳的最大批量（输入+输出上下文）", static_cast<double>(p.max_batch_memory), Unit::kCount));
  d.rows.push_back(number_row("utilisation", "Utilisation at the target rate", "目标请求率下的利用率", p.utilisation, Unit::kFraction));
  if (p.disaggregated) {
    d.rows.push_back(number_row("disaggregated", "Prefill/decode disaggregated", "预填充/解码分离", 1, Unit::kFlag));
    d.rows.push_back(number_row("prefill_replicas", "Prefill replicas", "预填充副本数", static_cast<double>(p.prefill_replicas), Unit::kCount));
    d.rows.push_back(number_row("prefill_gpus", "Prefill GPUs (in the total)", "预填充 GPU（已计入总数）", static_cast<double>(p.prefill_gpus), Unit::kGpus));
    d.rows.push_back(number_row("prefill_replica_tokens_per_s", "Prompt tokens/s per prefill replica", "每个预填充副本的输入 token/s", p.prefill_replica_tokens_per_s, Unit::kCount, "tokens/s"));
    d.rows.push_back(number_row("kv_transfer_s", "KV transfer of one prompt (in TTFT)", "单个请求 KV 传输（计入首 token 延迟）", p.kv_transfer_s, Unit::kSeconds));
  }
  r.sections.push_back(d);

  Section l{"latency", "Latency", "延迟", {}, {}, {}};
  l.rows.push_back(number_row("ttft_s", "Time to first token (prefill, no queueing)", "首 token 延迟（预填充，不含排队）", p.ttft_s, Unit::kSeconds));
  if (p.engine.static_batching) {
    l.rows.push_back(number_row("tpot_s", "Time per output token (a static batch: decode steps only)", "每输出 token 时间（静态批：仅解码步）", p.tpot_s, Unit::kSeconds));
  } else {
    l.rows.push_back(number_row("tpot_s", "Time per output token (with interleaved prefills)", "每输出 token 时间（含穿插预填充）", p.tpot_s, Unit::kSeconds));
  }
  l.rows.push_back(number_row("tpot_target_s", "Time-per-output-token target", "每输出 token 时间目标", p.tpot_target_s, Unit::kSeconds));
  if (t.ttft_target_s > 0) l.rows.push_back(number_row("ttft_target_s", "Time-to-first-token target", "首 token 时间目标", t.ttft_target_s, Unit::kSeconds));
  l.rows.push_back(number_row("decode_step_s", "Decode step alone", "单次解码步", p.decode_step_s, Unit::kSeconds));
  l.rows.push_back(number_row("request_latency_s", "Request latency (TTFT + output × TPOT)", "请求总延迟", p.ttft_s + static_cast<double>(t.output_len) * p.tpot_s, Unit::kSeconds));
  l.rows.push_back(number_row("prefill_fraction", "Replica time in prefill", "副本用于预填充的时间占比", p.prefill_fraction, Unit::kFraction));
  r.sections.push_back(l);

  Section th{"throughput", "Throughput", "吞吐", {}, {}, {}};
  th.rows.push_back(number_row("output_tokens_per_s", "Output tokens/s, deployment", "部署总输出 token/s", p.output_tokens_per_s, Unit::kCount));
  th.rows.push_back(number_row("output_tokens_per_s_per_gpu", "Output tokens/s per GPU at capacity", "满载时每卡输出 token/s", p.output_tokens_per_s_per_gpu, Unit::kCount));
  th.rows.push_back(number_row("replica_requests_per_s", "Requests/s one replica sustains", "单副本可承载请求/s", p.replica_requests_per_s, Unit::kCount));
  r.sections.push_back(th);

  Section mem{"memory", "Memory per GPU", "每卡显存", {}, {}, {}};
  const InferenceMemory& im = p.memory;
  mem.rows.push_back(number_row("capacity_bytes", "Capacity", "容量", g.memory_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("weights_bytes", "Weights", "权重", im.weights_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("kv_bytes_per_token", "KV cache per token (whole model)", "每 token KV 缓存（整个模型）", im.kv_bytes_per_token, Unit::kCount, "bytes"));
  mem.rows.back().text_zh = "字节";
  mem.rows.push_back(number_row("kv_bytes_per_token_per_gpu", "KV cache per token per GPU", "每卡每 token KV 缓存", im.kv_bytes_per_token_per_gpu, Unit::kCount, "bytes"));
  mem.rows.back().text_zh = "字节";
  mem.rows.push_back(number_row("kv_in_use_bytes", "KV cache in use", "已用 KV 缓存", im.kv_bytes_per_token_per_gpu * static_cast<double>(p.batch) / std::max(1, p.dp_attention) * static_cast<double>(t.input_len + t.output_len), Unit::kBytes));
  mem.rows.push_back(number_row("kv_budget_bytes", "KV cache budget", "KV 缓存预算", im.kv_budget_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("max_cached_tokens", "Tokens the KV budget holds", "KV 预算可容纳 token", im.max_cached_tokens, Unit::kCount));
  mem.rows.push_back(number_row("activation_bytes", "Activations (one prefill chunk) and logits", "激活（一个预填充块）与 logits", im.activation_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("runtime_bytes", "CUDA context, NCCL, CUDA graphs", "CUDA 上下文、NCCL、CUDA Graph", im.runtime_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("reserved_bytes", "Left free (1 − memory utilisation)", "预留空闲（1 − 显存利用率）", im.reserved_bytes, Unit::kBytes));
  r.sections.push_back(mem);

  Section c{"cost", "Cost", "成本", {}, {}, {}};
  const double per_hour = 0.5 * (price.low_per_gpu_hour + price.high_per_gpu_hour);
  // One object, its amounts in "currency" (a price range is taken at its midpoint).
  c.rows.push_back(currency_row(price.currency));
  c.rows.push_back(money_row("per_gpu_hour", "Price per GPU-hour", "每卡时价格", per_hour, price.currency));
  c.rows.push_back(money_row("per_hour", "Deployment per hour", "部署每小时", per_hour * static_cast<double>(p.gpus), price.currency));
  const double tok_h = p.output_tokens_per_s * kSecondsPerHour;
  const double all_h = tok_h * static_cast<double>(t.input_len + t.output_len) / static_cast<double>(t.output_len);
  if (tok_h > 0) {
    c.rows.push_back(money_row("per_million_output_tokens", "Per million output tokens", "每百万输出 token", per_hour * static_cast<double>(p.gpus) / tok_h * 1e6, price.currency));
    c.rows.push_back(money_row("per_million_tokens", "Per million tokens (input + output)", "每百万 token（输入+输出）", per_hour * static_cast<double>(p.gpus) / all_h * 1e6, price.currency));
  } else {
    c.rows.push_back(null_row("per_million_output_tokens", money_unit(price.currency)));
    c.rows.push_back(null_row("per_million_tokens", money_unit(price.currency)));
  }
  c.rows.push_back(price_source_row(price));
  if (!price.date.empty()) c.rows.push_back(Row{"date", "Price date", "价格日期", 0, Unit::kText, price.date, {}, Audience::kPrograms});
  r.sections.push_back(c);

  Section b{"step", "Where a decode step goes", "解码步耗时构成", {}, {}, {}};
  pass_rows(b, "decode", p.decode, "GEMMs (weights read)", "矩阵乘（读取权重）", "Attention (KV cache read)", "注意力（读取 KV 缓存）");
  b.rows.push_back(number_row("prefill_s", "Prefill of one request", "单请求预填充", p.prefill.total_s, Unit::kSeconds));
  r.sections.push_back(b);

  Section lt{"layouts", "Layouts tried (fewest GPUs wins, then the lower TPOT)", "尝试过的布局（卡数最少者胜，其次每 token 时间更低）", {},
             {"TP", "PP", "EP", "DP-attn", "GPUs/replica", "batch", "TPOT", "replicas", "GPUs", "feasible", "note"}, {}};
  for (const ServingLayoutTried& x : p.layouts) {
    // An infeasible layout has no batch, TPOT or count: "–" in the table, null in JSON.
    const double na = std::numeric_limits<double>::quiet_NaN();
    auto val = [&](double v) { return x.feasible ? v : na; };
    // Why a layout that works was not chosen (the rule in the section's title).
    const Bilingual refused = infer_refusal_text(x.refusal);
    std::string note = refused.en, note_zh = refused.zh;
    const bool chosen = x.tp == p.tp && x.pp == p.pp && x.ep == p.ep && x.dp_attention == p.dp_attention;
    if (x.feasible && p.feasible && chosen) {
      note = "chosen";
      note_zh = "选用";
    } else if (x.feasible && p.feasible && x.gpus > p.gpus) {
      note = fmt::format("{} GPUs, more than the chosen layout's {}", x.gpus, p.gpus);
      note_zh = fmt::format("需 {} 张卡，多于选用布局的 {} 张", x.gpus, p.gpus);
    } else if (x.feasible && p.feasible) {
      note = fmt::format("as many GPUs as the chosen layout, {} per output token against its {}", format_seconds(x.tpot_s, Lang::kEn), format_seconds(p.tpot_s, Lang::kEn));
      note_zh = fmt::format("卡数与选用布局相同，每输出 token {}，选用布局为 {}", format_seconds(x.tpot_s, Lang::kZh), format_seconds(p.tpot_s, Lang::kZh));
    }
    lt.records.push_back({Row{"tp", "TP", "TP", static_cast<double>(x.tp), Unit::kCount, ""},
                          Row{"pp", "PP", "PP", static_cast<double>(x.pp), Unit::kCount, ""},
                          Row{"ep", "EP", "EP", static_cast<double>(x.ep), Unit::kCount, ""},
                          Row{"dp_attention", "DP-attn", "注意力 DP", static_cast<double>(x.dp_attention), Unit::kCount, ""},
                          Row{"gpus_per_replica", "GPUs/replica", "每副本卡数", static_cast<double>(x.gpus_per_replica), Unit::kGpus, ""},
                          Row{"batch", "batch", "批量", val(static_cast<double>(x.batch)), Unit::kCount, ""},
                          Row{"tpot_s", "TPOT", "每 token 时间", val(x.tpot_s), Unit::kSeconds, ""},
                          Row{"replicas", "replicas", "副本数", val(static_cast<double>(x.replicas)), Unit::kCount, ""},
                          Row{"gpus", "GPUs", "卡数", val(static_cast<double>(x.gpus)), Unit::kGpus, ""},
                          Row{"feasible", "feasible", "可行", x.feasible ? 1.0 : 0.0, Unit::kFlag, ""},
                          Row{"note", "note", "说明", 0, Unit::kText, note, {}, Audience::kAll, note_zh}});
  }
  r.sections.push_back(lt);

  for (const Bilingual& a : serving_assumptions(p)) r.assumptions.push_back(Note{a.en, a.zh});
  if (p.tpot_target_s > 0) {
    r.assumptions.push_back(Note{fmt::format("Time-per-output-token target {:.0f} ms{}: each replica's batch is the largest that meets it.", 1e3 * p.tpot_target_s,
                                             t.tpot_target_s == kDefaultTpotTargetS ? " (default: about 20 tokens/s per user, DeepSeek's reported 20–22 tokens/s for its own V3/R1 service; set --latency-target-ms)" : ""),
                                 fmt::format("每输出 token 时间目标 {:.0f} 毫秒{}：每副本批量取满足目标的最大值。", 1e3 * p.tpot_target_s,
                                             t.tpot_target_s == kDefaultTpotTargetS ? "（默认值：约每用户 20 token/s，参照 DeepSeek 公布的 V3/R1 线上服务 20–22 token/s；可用 --latency-target-ms 修改）" : "")});
  }
  r.assumptions.push_back(weights_note(m, o));
  // FP8 decode GEMMs a named engine's ROCm build hands to hipBLASLt (rocm_skinny_fp8_tokens;
  // plan_serving applies a named engine's host side only).
  const int64_t blas_above = t.engine.empty() ? -1 : p.engine.fp8_blas_above_tokens;
  if (const double blas = fp8_blas_hbm_efficiency(g, o.weights, blas_above); blas > 0) {
    const std::string rows = blas_above == 0 ? std::string("Every FP8 GEMM runs")
                                             : "FP8 GEMMs of more than " + std::to_string(blas_above) + " token row" + (blas_above == 1 ? "" : "s") + " run";
    const std::string rows_zh = blas_above == 0 ? std::string("所有 FP8 GEMM ") : "超过 " + std::to_string(blas_above) + " 行 token 的 FP8 GEMM ";
    r.assumptions.push_back(Note{fmt::format("{} on hipBLASLt ({}'s ROCm build), which streams the weights at {:.1f}% of the HBM bandwidth (measured on {}); {}.",
                                             rows, engine_display_name(p.engine), 100 * blas, g.name,
                                             blas_above == 0 ? "the engine has no skinny FP8 kernel in use" : "fewer rows run the engine's own skinny kernel at the streaming rate"),
                                 fmt::format("{}由 hipBLASLt 执行（{} 的 ROCm 版本），其读取权重的速率为 HBM 带宽的 {:.1f}%（在 {} 上实测）；{}。", rows_zh, engine_display_name(p.engine),
                                             100 * blas, g.name,
                                             blas_above == 0 ? "该引擎未使用专用的窄矩阵 FP8 核" : "行数更少时用引擎自带的窄矩阵核，按流式读取速率计")});
  }
  if (t.engine.empty()) {
    r.assumptions.push_back(Note{fmt::format("The engine uses {:.0f}% of device memory (vLLM's gpu_memory_utilization, --memory-utilization; name the engine with --engine for its own rule).", 100 * o.memory_utilization),
                                 fmt::format("推理引擎使用 {:.0f}% 显存（vLLM 的 gpu_memory_utilization，即 --memory-utilization；用 --engine 指定引擎则按其自身规则）。", 100 * o.memory_utilization)});
  } else {
    // The named engine's rules sized every replica (plan_serving); --memory-utilization does not apply.
    add_engine_notes(r, p.engine, g);
  }
  return r;
}

Report max_throughput_report(const ModelSpec& m, const GpuSpec& g, const InferenceOptions& o, int64_t input_len,
                             int64_t output_len, const MaxThroughputRun& run) {
  Report r;
  add_model_scope_warning(r, m);
  r.command = "infer";
  r.title_en = fmt::format("Max-throughput run of {} on {} × {} (TP {}, {} weights, {} KV cache)", m.name, o.tp, g.name, o.tp,
                           weights_label(o), precision_name(o.kv));
  r.title_zh = fmt::format("{} 在 {} × {} 上的最大吞吐运行（TP {}，权重 {}，KV 缓存 {}）", m.name, o.tp, g.name, o.tp,
                           weights_label(o), precision_name(o.kv));
  r.inputs = {{"model", m.id}, {"gpu", g.id}, {"precision", weight_format_name(o.weights)}, {"kv_precision", precision_name(o.kv)},
              {"input_tokens", input_len}, {"output_tokens", output_len}, {"tp", o.tp}, {"max_throughput", true},
              {"engine", engine_display_name(run.engine)}};
  if (!o.weight_quant.empty()) r.inputs["weight_quant"] = o.weight_quant;

  Section b{"batching", "Batching", "批处理", {}, {}, {}};
  b.rows.push_back(number_row("feasible", "Feasible", "可行", run.feasible ? 1 : 0, Unit::kFlag));
  if (!run.feasible) {
    const Bilingual why = infer_refusal_text(run.refusal);
    b.rows.push_back(text_row("why_not", "Why not", "原因", why.en));
    b.rows.back().text_zh = why.zh;
  }
  b.rows.push_back(number_row("batch", "Concurrent sequences reached", "达到的并发序列数", static_cast<double>(run.batch), Unit::kCount));
  b.rows.push_back(text_row("limited_by", "Limited by", "受限于", run.limited_by));
  b.rows.push_back(number_row("batch_kv_limit", "Sequences the KV cache holds", "KV 缓存可容纳序列数", static_cast<double>(run.batch_kv_limit), Unit::kCount));
  b.rows.push_back(number_row("batch_engine_limit", "Engine max_batch_size", "引擎 max_batch_size", static_cast<double>(run.batch_engine_limit), Unit::kCount));
  b.rows.push_back(number_row("batch_token_limit", "Sequences max_num_tokens allows per step", "max_num_tokens 允许的序列数", static_cast<double>(run.batch_token_limit), Unit::kCount));
  b.rows.push_back(number_row("max_num_tokens", "Engine max_num_tokens per step", "引擎每步 max_num_tokens", static_cast<double>(run.engine.max_num_tokens), Unit::kCount));
  b.rows.push_back(number_row("tokens_per_step", "Tokens per step (prefill + decode)", "每步 token（预填充+解码）", run.tokens_per_step, Unit::kCount));
  b.rows.push_back(number_row("kv_blocks", "KV blocks per GPU", "每卡 KV 块数", run.kv_blocks, Unit::kCount, fmt::format("of {} tokens", run.engine.tokens_per_block)));
  b.rows.back().text_zh = fmt::format("每块 {} 个 token", run.engine.tokens_per_block);
  r.sections.push_back(b);

  Section th{"throughput", "Throughput", "吞吐", {}, {}, {}};
  th.rows.push_back(number_row("output_tokens_per_s", "Output tokens/s, TP group", "TP 组总输出 token/s", run.output_tokens_per_s, Unit::kCount, "tokens/s"));
  th.rows.push_back(number_row("output_tokens_per_s_per_gpu", "Output tokens/s per GPU", "每卡输出 token/s", run.output_tokens_per_s_per_gpu, Unit::kCount, "tokens/s"));
  th.rows.push_back(number_row("requests_per_s", "Requests/s", "请求/s", run.requests_per_s, Unit::kCount, "requests/s"));
  th.rows.back().text_zh = "个请求/s";
  th.rows.push_back(number_row("tpot_s", "Time per output token (one step)", "每输出 token 时间（一步）", run.tpot_s, Unit::kSeconds));
  th.rows.push_back(number_row("prefill_fraction", "Share of the step spent on prefills", "每步中预填充占比", run.prefill_fraction, Unit::kFraction));
  r.sections.push_back(th);

  Section st{"step", "Where a step goes", "单步耗时构成", {}, {}, {}};
  pass_rows(st, "step", run.step, "GEMMs", "矩阵乘", "Attention (prefill and KV cache read)", "注意力（预填充与读取 KV 缓存）");
  st.rows.push_back(number_row("step_compute_bound", "GEMMs compute-bound", "矩阵乘受算力限制", run.step.compute_bound ? 1 : 0, Unit::kFlag));
  r.sections.push_back(st);

  Section mem{"memory", "Memory per GPU", "每卡显存", {}, {}, {}};
  const InferenceMemory& im = run.memory;
  mem.rows.push_back(number_row("capacity_bytes", "Capacity", "容量", g.memory_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("weights_bytes", "Weights", "权重", im.weights_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("activation_bytes", "Activations (one max_num_tokens step) and logits", "激活（一步 max_num_tokens）与 logits", im.activation_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("runtime_bytes", "CUDA context, NCCL, CUDA graphs", "CUDA 上下文、NCCL、CUDA Graph", im.runtime_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("kv_budget_bytes", "KV cache pool", "KV 缓存池", im.kv_budget_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("kv_bytes_per_token_per_gpu", "KV cache per token per GPU", "每卡每 token KV 缓存", im.kv_bytes_per_token_per_gpu, Unit::kCount, "bytes"));
  mem.rows.back().text_zh = "字节";
  mem.rows.push_back(number_row("reserved_bytes", "Left free", "预留空闲", im.reserved_bytes, Unit::kBytes));
  r.sections.push_back(mem);

  r.assumptions.push_back(Note{"Offline max-throughput run: every request queued at once; the steady state of continuous batching (each step prefills batch/output new sequences beside the decoding ones).",
                               "离线最大吞吐：所有请求同时排队；按连续批处理稳态计算（每步在解码序列旁预填充 批量/输出长度 条新序列）。"});
  add_engine_notes(r, run.engine, g);
  return r;
}

// How QLoRA's frozen 4-bit base is read back for each matmul (the step-time
// model times it: step_time_layer.cpp).
static Note dequantisation_note(const FinetuneJob& job) {
  if (*job.qlora_base == QloraBase::kGptqInt4) {
    return {"QLoRA over a GPTQ Int4 checkpoint: AutoGPTQ rebuilds each fp16 weight with PyTorch ops in every forward (16.5 bytes of traffic per weight, 9 kernels per linear; its CUDA kernel serves fewer than 128 rows only), and autograd keeps the rebuilt weight for the backward.",
            "基于 GPTQ Int4 权重的 QLoRA：AutoGPTQ 在每次前向中用 PyTorch 算子重建 fp16 权重（每个权重 16.5 字节访存，每个线性层 9 个 kernel；其 CUDA kernel 只处理少于 128 行的输入），反向沿用 autograd 保存的重建权重。"};
  }
  return {"QLoRA: each NF4 weight is dequantised to bf16 before every matmul that reads it (bitsandbytes), 2.5 bytes of traffic per weight per use.",
          "QLoRA：每个 NF4 权重在每次被矩阵乘读取前先反量化为 bf16（bitsandbytes），每个权重每次使用产生 2.5 字节访存。"};
}

// The adapters a LoRA/QLoRA estimate trains: rank, matrices, trainable
// parameters (Hu et al. 2021: r·(d_in + d_out) per matrix), the precision of
// their states and of the frozen base (Dettmers et al. 2023 for NF4; AutoGPTQ
// for GPTQ Int4).
static Note adapters_note(const FinetuneEstimate& e) {
  const FinetuneJob& job = e.job;
  std::string modules_zh;  // the MLP's matrices by their Chinese names
  for (auto x : job.modules) {
    if (!modules_zh.empty()) modules_zh += "、";
    modules_zh += x == LoraModule::kGate ? "门控投影" : x == LoraModule::kUp ? "上投影" : x == LoraModule::kDown ? "下投影" : lora_module_name(x);
  }
  const bool qlora = job.method == FineTune::kQlora, qlora_recipe = uses_qlora_recipe(job);
  const bool adam8 = *job.optimizer == Optimizer::kAdamW8bit || *job.optimizer == Optimizer::kPagedAdamW8bit;
  const bool gptq = qlora && *job.qlora_base == QloraBase::kGptqInt4;
  const std::string params = format_si(e.flops.adapter_params, "", 3);
  return {fmt::format("LoRA rank {} on {} ({} trainable parameters, r·(d_in + d_out) per matrix); adapter states {}; base weights frozen{}.", job.lora_rank,
                      lora_modules_text(job.modules, ","), params,
                      qlora_recipe ? "bf16 weights and gradients with a paged optimizer (QLoRA recipe)"
                      : adam8      ? "fp32 weights and gradients, 8-bit AdamW moments (10 B/param)"
                                   : "fp32 weights, gradients and AdamW moments (16 B/param, PEFT default)",
                      !qlora ? "" : gptq ? ", GPTQ Int4 with an fp16 scale and 4-bit zero per 128 weights (4.16 bits)" : ", NF4 with double-quantised constants (4.127 bits)"),
          fmt::format("LoRA 秩 {}，作用于 {}（可训练参数 {}，每个矩阵 r·(d_in + d_out)）；适配器状态{}；基座权重冻结{}。", job.lora_rank, modules_zh, params,
                      qlora_recipe ? "：bf16 权重与梯度，分页优化器（QLoRA 做法）"
                      : adam8      ? "：fp32 权重与梯度，8 位 AdamW 动量（每参数 10 字节）"
                                   : "：fp32 权重、梯度与 AdamW 两个动量（每参数 16 字节，PEFT 默认）",
                      !qlora ? "" : gptq ? "，GPTQ Int4，每 128 个权重一个 fp16 缩放与 4 位零点（4.16 位）" : "，NF4 量化，量化常数二次量化（4.127 位）")};
}

Report finetune_report(const ModelSpec& m, const GpuSpec& g, const FinetuneEstimate& e, int64_t smallest,
                       const std::vector<GpuChoice>& cheapest, const Price& price) {
  Report r;
  add_model_scope_warning(r, m);
  const char* method = e.job.method == FineTune::kFull ? "full" : e.job.method == FineTune::kLora ? "LoRA" : "QLoRA";
  r.command = "finetune";
  r.title_en = fmt::format("{} fine-tuning of {} on {} × {}", method, m.name, e.layout.gpus(), g.name);
  const char* method_zh = e.job.method == FineTune::kFull ? "全参数" : method;
  r.title_zh = fmt::format("{} 微调 {}，{} × {}", method_zh, m.name, e.layout.gpus(), g.name);
  r.inputs = {{"model", m.id}, {"gpu", g.id}, {"method", method}, {"gpus", e.layout.gpus()}, {"seq_len", e.job.seq_len},
              {"micro_batch", e.job.micro_batch}, {"samples", e.job.samples}, {"epochs", e.job.epochs},
              {"lora_rank", e.job.lora_rank}, {"gradient_checkpointing", e.job.gradient_checkpointing}};
  const MemoryBreakdown& b = e.memory;
  Section mem{"memory", "Memory per GPU", "每卡显存", {}, {}, {}};
  mem.rows.push_back(number_row("fits", "Fits (with safety margin)", "可放下（含安全余量）", b.fits ? 1 : 0, Unit::kFlag));
  mem.rows.push_back(number_row("peak_bytes", "Peak", "峰值", b.peak_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("capacity_bytes", "Capacity", "容量", b.capacity_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("weights_bytes", "Weights (base + adapters)", "权重（基座 + 适配器）", b.weights_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("gradients_bytes", "Gradients", "梯度", b.gradients_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("optimizer_bytes", "Optimizer states", "优化器状态", b.optimizer_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("paged_optimizer_bytes", "Paged optimizer states (evictable, not in peak)", "分页优化器状态（可换出，不计入峰值）", b.paged_optimizer_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("activations_bytes", "Activations", "激活", b.activations_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("logits_bytes", "Logits and loss", "logits 与损失", b.logits_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("overhead_bytes", "Context, buffers, fragmentation", "上下文、缓冲、碎片", b.cuda_context_bytes + b.comm_buffers_bytes + b.zero3_gathered_bytes + b.fragmentation_bytes, Unit::kBytes));
  mem.rows.push_back(number_row("headroom_bytes", "Headroom after the safety margin", "扣除安全余量后剩余", b.headroom_bytes, Unit::kBytes));
  r.sections.push_back(mem);

  Section f{"flops", "Compute", "计算量", {}, {}, {}};
  f.rows.push_back(number_row("trainable_params", "Trainable parameters", "可训练参数", e.job.method == FineTune::kFull ? count_params(m).total : e.flops.adapter_params, Unit::kParams));
  f.rows.push_back(number_row("flop_per_token", "FLOPs per token (forward + backward + recompute)", "每 token FLOPs（前向+反向+重算）", e.flops.total_flop, Unit::kFlop));
  f.rows.push_back(number_row("ratio_to_6n", "Forward + backward as a multiple of 6·N", "前向+反向相对 6·N 的倍数", e.flops.ratio_to_6n, Unit::kCount));
  f.rows.push_back(number_row("tokens", "Tokens (samples × length × epochs)", "token 数（样本×长度×轮数）", e.tokens, Unit::kCount));
  f.rows.push_back(number_row("total_flop", "Total FLOPs", "总 FLOPs", e.tokens * e.flops.total_flop, Unit::kFlop));
  r.sections.push_back(f);

  // A job that does not fit is given no time or cost (it cannot start); the
  // smallest count that fits and the changes that make it fit say what would.
  Section t{"time", "Time", "时间", {}, {}, {}};
  if (!b.fits) {
    t.rows.push_back(number_row("smallest_gpus", "Smallest GPU count of this type that fits", "该型号可放下的最少卡数", static_cast<double>(smallest), Unit::kGpus));
    r.sections.push_back(t);
  } else {
  t.rows.push_back(number_row("step_s", "Step time", "单步时间", e.step_s, Unit::kSeconds));
  t.rows.push_back(number_row("tokens_per_s_per_gpu", "Tokens/s per GPU", "每卡 token/s", e.tokens_per_s / static_cast<double>(e.layout.gpus()), Unit::kCount));
  t.rows.push_back(number_row("steps", "Steps", "步数", e.steps, Unit::kCount));
  t.rows.push_back(number_row("wall_clock_s", "Wall clock", "墙钟时间", e.wall_s, Unit::kSeconds));
  t.rows.push_back(number_row("gpu_hours", "GPU-hours", "GPU 时", e.gpu_hours, Unit::kGpuHours));
  t.rows.push_back(number_row("smallest_gpus", "Smallest GPU count of this type that fits", "该型号可放下的最少卡数", static_cast<double>(smallest), Unit::kGpus));
  r.sections.push_back(t);

  // One cost object, its amounts in "currency" (a price range is taken at its midpoint).
  const double per_hour = 0.5 * (price.low_per_gpu_hour + price.high_per_gpu_hour);
  Section cost{"cost", "Cost", "成本", {}, {}, {}};
  cost.rows.push_back(currency_row(price.currency));
  cost.rows.push_back(money_row("per_gpu_hour", "Price per GPU-hour", "每卡时价格", per_hour, price.currency));
  cost.rows.push_back(money_row("total", "Cost", "成本", e.gpu_hours * per_hour, price.currency));
  cost.rows.push_back(price_source_row(price));
  if (!price.date.empty()) cost.rows.push_back(Row{"date", "Price date", "价格日期", 0, Unit::kText, price.date, {}, Audience::kPrograms});
  r.sections.push_back(cost);
  }

  if (!cheapest.empty()) {
    const bool cny = price.currency == Currency::kCny;
    Section c{"cheapest", cny ? "Cheapest GPU types for this job (default prices of one market, CNY)" : "Cheapest GPU types for this job (default prices of one market, USD)",
              cny ? "本任务最便宜的 GPU 型号（同一市场默认价格，人民币）" : "本任务最便宜的 GPU 型号（同一市场默认价格，美元）", {}, {"gpu", "gpus", "wall clock", "GPU-hours", "cost"}, {}};
    for (size_t i = 0; i < cheapest.size() && i < 8; ++i) {
      const GpuChoice& ch = cheapest[i];
      c.records.push_back({Row{"gpu", "gpu", "GPU", 0, Unit::kText, ch.gpu_id}, Row{"gpus", "gpus", "卡数", static_cast<double>(ch.gpus), Unit::kGpus, ""},
                           Row{"wall_clock_s", "wall clock", "墙钟", ch.wall_s, Unit::kSeconds, ""},
                           Row{"gpu_hours", "GPU-hours", "GPU 时", ch.gpu_hours, Unit::kGpuHours, ""},
                           currency_row(price.currency),
                           money_row("cost", "cost", "成本", convert(ch.cost_usd, Currency::kUsd, price.currency), price.currency)});
    }
    r.sections.push_back(c);
  }
  // How long the samples are and how a step holds them.
  const FinetuneJob& jb = e.job;
  if (jb.mean_sample_tokens <= 0) {
    r.assumptions.push_back(Note{fmt::format("Every sample is {} tokens (packed or padded to --seq-len).", jb.seq_len),
                                 fmt::format("每个样本 {} 个 token（打包或填充到 --seq-len）。", jb.seq_len)});
  } else if (jb.packing) {
    r.assumptions.push_back(Note{fmt::format("Samples of {} tokens on average packed into rows of {}: {} rows per epoch; memory sized at {} tokens.",
                                             format_thousands(jb.mean_sample_tokens, 0), jb.seq_len,
                                             format_thousands(e.sequences_per_epoch, 0), jb.seq_len),
                                 fmt::format("平均 {} 个 token 的样本打包成 {} token 的行：每轮 {} 行；显存按 {} 个 token 估算。",
                                             format_thousands(jb.mean_sample_tokens, 0), jb.seq_len,
                                             format_thousands(e.sequences_per_epoch, 0), jb.seq_len)});
  } else {
    const bool own = jb.micro_batch == 1;
    r.assumptions.push_back(Note{fmt::format("Samples of {} tokens on average, one per row, padded {}: steps run at {} tokens per sequence; memory sized at the longest, {} tokens.",
                                             format_thousands(jb.mean_sample_tokens, 0),
                                             own ? "to a multiple of 8 of their own length (micro-batch 1)" : "to the longest of the micro-batch, bounded by --seq-len",
                                             format_thousands(e.step_tokens_per_sequence, 0), jb.seq_len),
                                 fmt::format("样本平均 {} 个 token，每行一个，{}：每步按每条序列 {} 个 token 计时；显存按最长样本 {} 个 token 估算。",
                                             format_thousands(jb.mean_sample_tokens, 0),
                                             own ? "补齐到自身长度的 8 的倍数（微批为 1）" : "补齐到微批中最长的样本，上限为 --seq-len",
                                             format_thousands(e.step_tokens_per_sequence, 0), jb.seq_len)});
  }
  if (e.job.method == FineTune::kQlora) r.assumptions.push_back(dequantisation_note(e.job));
  if (e.job.method != FineTune::kFull) r.assumptions.push_back(adapters_note(e));
  // The memory model describes q,k,v,o adapters in fp32; the estimate above
  // rescaled them to the chosen modules and recipe, stated in its own line.
  MemoryNotes notes = memory_notes(b, /*lora_line=*/e.job.method == FineTune::kFull);
  for (Note& a : notes.assumptions) r.assumptions.push_back(std::move(a));
  for (Note& w : notes.warnings) r.warnings.push_back(std::move(w));
  if (!b.fits) {
    r.warnings.push_back(Note{fmt::format("Does not fit on {} × {}; {}.", e.layout.gpus(), g.id, smallest > 0 ? fmt::format("{} GPUs fit", smallest) : "no count up to 1,024 fits"),
                              fmt::format("{} × {} 放不下；{}。", e.layout.gpus(), g.id, smallest > 0 ? fmt::format("{} 卡可放下", smallest) : "1,024 卡以内都放不下")});
  }
  return r;
}

void add_serving_sizing(Report& r, const ServingSizing& s, const ServingPlan& p, const ServingTarget& t) {
  const Note note{fmt::format("{} replicas ({} GPUs) keep up with {} requests/s with {:.0f}% confidence; {} at the median estimate ({} on the "
                              "model's own throughput). gpuplan's errors on published serving runs set the margin; --confidence 0.5–0.99 changes it.",
                              s.replicas, p.gpus, format_sig(t.requests_per_s, 4), s.confidence * 100, s.replicas_median, s.replicas_model),
                  fmt::format("{} 个副本（{} 张卡）能以 {:.0f}% 的把握承载 {} 请求/秒；按中位估计需 {} 个（按模型自身吞吐为 {} 个）。余量由 gpuplan 在公开部署实测上的"
                              "误差决定；可用 --confidence 0.5–0.99 调整。",
                              s.replicas, p.gpus, s.confidence * 100, format_sig(t.requests_per_s, 4), s.replicas_median, s.replicas_model)};
  r.assumptions.insert(r.assumptions.begin(), note);
  r.inputs["confidence"] = s.confidence;
  for (Section& sec : r.sections) {
    if (sec.key != "deployment") continue;
    sec.rows.push_back(number_row("replicas_median", "Replicas at the median estimate", "按中位估计的副本数", static_cast<double>(s.replicas_median), Unit::kCount));
    sec.rows.push_back(number_row("replicas_model", "Replicas on the model's own throughput", "按模型自身吞吐的副本数", static_cast<double>(s.replicas_model), Unit::kCount));
  }
}

}  // namespace gpuplan
