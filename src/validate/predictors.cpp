// One predictor per case kind: the table below is the extension point.
// A predictor turns a case's descriptions into predicted metrics using the
// estimators only; it holds no physics of its own.
#include <fmt/format.h>

#include "inputs/choice_words.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/units.hpp"
#include "report/inference_notes.hpp"  // the engine's and a refused run's sentences, as infer's report says them
#include "validate/validate.hpp"
#include "hardware/hardware_words.hpp"

namespace gpuplan {

std::vector<Prediction> predict_train_memory(const ValidationCase&, CaseInputs& in) {
  MemoryOptions o;
  o.scope = in.memory_scope;
  o.suggest = false;
  Prediction p;
  p.metric = "peak_memory_gib";
  const MemoryBreakdown br = estimate_memory(in.model, in.layout, in.gpu, o);
  p.value = br.peak_bytes / kGiB;
  if (br.paged_optimizer_bytes > 0) {
    p.flags.push_back({fmt::format("paged optimizer states ({:.1f} GiB) outside PyTorch's allocator, not counted", br.paged_optimizer_bytes / kGiB),
                       fmt::format("分页优化器状态（{:.1f} GiB）不经 PyTorch 的显存分配器，未计入", br.paged_optimizer_bytes / kGiB)});
  }
  if (o.scope == MemoryScope::kAllocated) {
    p.flags.push_back({"measured as allocated (active) memory: no context or fragmentation", "实测为已分配（活跃）显存：不含 CUDA 上下文与碎片"});
  }
  if (o.scope == MemoryScope::kReserved) p.flags.push_back({"measured as reserved memory: no CUDA context", "实测为预留显存：不含 CUDA 上下文"});
  return {p};
}

// Issue 5: a serving case with a batch is a static batch (or one request)
// timed as the benchmark tools do: prefill, then output_len − 1 decode steps.
// A case without a batch is a max-throughput run (validation README: all
// requests queued at once, batched by the engine as far as memory allows): the
// engine named in infer.framework batches it with its own defaults.
std::vector<Prediction> predict_inference(const ValidationCase& c, CaseInputs& in) {
  const nlohmann::json inf = c.raw.contains("infer") ? c.raw["infer"] : nlohmann::json::object();
  InferenceOptions o;
  o.tp = inf.value("tp", 1);
  const std::string precision = inf.value("precision", "fp16");
  o.weights = parse_weight_format(precision, "infer.precision");
  // The named method, where the case states it, gives each matrix its width
  // (data/weight_quant.json) and the compute class.
  if (const std::string wq = inf.value("weight_quant", std::string()); !wq.empty() && wq != "none") {
    o.weight_quant = wq;
    if (const WeightQuant* q = find_weight_quant(wq)) o.weights = q->format;
  }
  // The KV cache's format where the case states it; else FP8 deployments
  // (TensorRT-LLM) quantise the KV cache to fp8 as well.
  o.kv = inf.contains("kv_precision") ? parse_precision(inf.value("kv_precision", "fp16"), "infer.kv_precision")
                                      : precision == "fp8" ? Precision::kFp8 : Precision::kFp16;
  std::vector<Bilingual> flags;
  const int64_t input = inf.value("input_len", int64_t{1});
  const int64_t output = inf.value("output_len", int64_t{1});
  if (inf.value("pp", 1) > 1) flags.push_back({"pp > 1 not modelled: one TP group assumed", "未对 PP > 1 建模：按单个 TP 组计"});
  // A stated expert-parallel degree over the TP group's GPUs (vLLM
  // --enable-expert-parallel, TensorRT-LLM moe_ep_size = tp): whole experts per
  // GPU, reached by all-to-all, attention still split by TP. Any other EP the
  // format's tp·pp = count cannot place.
  if (const int ep = inf.value("ep", 1); ep > 1) {
    if (ep == o.tp && in.model.moe && in.model.moe->routed_experts % ep == 0) {
      o.ep = ep;
    } else {
      flags.push_back({fmt::format("ep {} not modelled (only ep = tp dividing a mixture-of-experts model's experts): experts split by TP", ep),
                       fmt::format("未对 ep {} 建模（只支持 MoE 模型上 ep = tp 且整除专家数）：专家按 TP 切分", ep)});
    }
  }
  validate_inference(in.model, in.gpu, o);
  // The engine the case names, at its version (data/engines/); what the case
  // states of its settings replaces the engine's default.
  EngineDefaults e = engine_defaults(inf.value("framework", std::string()), in.model, in.gpu, o, input, output);
  if (inf.contains("max_num_seqs")) e.max_batch_size = inf.value("max_num_seqs", e.max_batch_size);
  if (inf.contains("cuda_graphs")) e.cuda_graphs = inf.value("cuda_graphs", e.cuda_graphs);
  if (inf.contains("chunked_prefill")) e.chunked_prefill = inf.value("chunked_prefill", e.chunked_prefill);
  flags.push_back({fmt::format("engine profile {}", e.profile), fmt::format("推理引擎配置 {}", e.profile)});
  const std::vector<Bilingual> chosen = engine_choice_notes(e);  // a fallback, a version resolved to another entry
  flags.insert(flags.end(), chosen.begin(), chosen.end());
  apply_engine_host(o, e);
  std::vector<Prediction> out;
  if (!inf.contains("batch")) {
    const MaxThroughputRun run = max_throughput_run(in.model, in.gpu, o, e, input, output);
    if (!run.feasible) {
      const Bilingual why = infer_refusal_text(run.refusal);
      throw InputError("infer", "max-throughput run does not fit: " + why.en, "最大吞吐运行放不下：" + (why.zh.empty() ? why.en : why.zh));
    }
    flags.push_back({fmt::format("batch not stated: max-throughput run, batch {} reached ({}-limited; {} defaults)", run.batch,
                                 run.limited_by, engine_display_name(e)),
                     fmt::format("未给出批量：按最大吞吐运行，并发达到 {} 条序列（受{}限制；{}的默认值）", run.batch,
                                 run.limited_by == "kv_cache" ? "KV 缓存容量" : " " + run.limited_by + " ", engine_display_name(e))});
    out.push_back(Prediction{"per_token_latency_ms", run.tpot_s * 1e3, flags});
    out.push_back(Prediction{"output_tokens_per_s", run.output_tokens_per_s, flags});
    return out;
  }
  const int64_t batch = inf.value("batch", int64_t{1});
  const BatchRun run = static_batch_run(in.model, in.gpu, o, batch, input, output);
  out.push_back(Prediction{"first_token_latency_ms", run.ttft_s * 1e3, flags});
  if (output > 1) {
    out.push_back(Prediction{"per_token_latency_ms", run.tpot_s * 1e3, flags});
    out.push_back(Prediction{"output_tokens_per_s", run.output_tokens_per_s, flags});
  }
  return out;
}

const std::vector<PredictorEntry>& predictors() {
  // kind → predictor. Issue 4 adds {"train_throughput", predict_train_throughput},
  // issue 5 {"inference", predict_inference}.
  static const std::vector<PredictorEntry> table = {
      {"train_memory", predict_train_memory},
      {"train_throughput", predict_train_throughput},
      {"train_total", predict_train_total},
      {"inference", predict_inference},
  };
  return table;
}

}  // namespace gpuplan
