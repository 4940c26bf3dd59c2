// train_throughput predictor (issue 4): the step-time model on the case's
// layout. Where the source leaves a parallel dimension out, the planner picks
// it (a published benchmark is a tuned run); every such choice is flagged.
#include <fmt/format.h>


#include "gpuplan/plan.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/validate.hpp"

namespace gpuplan {

StepTime predict_case_step_time(const ValidationCase& c, CaseInputs& in, std::vector<std::string>& flags) {
  const nlohmann::json t = c.raw.contains("train") ? c.raw["train"] : nlohmann::json::object();
  Layout& l = in.layout;
  StepTimeOptions o;
  o.gpus_per_node = in.gpu.gpus_per_node;

  // Settings the notes record from the source's launch flags.
  if (c.notes.find("tp-comm-overlap") != std::string::npos) {
    o.overlap_tp = true;
    flags.push_back("--tp-comm-overlap in the source: TP collectives overlapped");
    // Megatron-LM refuses --tp-comm-overlap without --sequence-parallel
    // (megatron/training/arguments.py: "Tensor parallel communication/GEMM
    // overlap can happen only when sequence parallelism is enabled").
    if (l.tp > 1 && !t.contains("sequence_parallel") && !l.sequence_parallel) {
      l.sequence_parallel = true;
      flags.push_back("--tp-comm-overlap requires --sequence-parallel: sequence parallelism on");
    }
  }
  if (!t.contains("zero_stage") && c.notes.find("overlap-param-gather") != std::string::npos) {
    l.zero_stage = 1;
    flags.push_back("--overlap-param-gather implies the distributed optimizer: ZeRO-1");
  }
  // Attention kernel: FlashAttention (Dao et al., May 2022) reached Megatron
  // and DeepSpeed in 2023. Runs published before 2023, and fp16 Megatron-
  // DeepSpeed runs, are taken to use the fused (materialised) softmax.
  if (source_published_by(c, 2022) || l.precision == Precision::kFp16) {
    l.flash_attention = false;
    flags.push_back("pre-2023 or fp16 Megatron-era run: materialised attention softmax (no FlashAttention) assumed");
  }
  // Unknown global batch with a pipeline: enough micro-batches for a 1/8
  // bubble (m = 8·pp), the regime published pipeline runs use.
  if (!t.contains("global_batch_seqs") && l.pp > 1) {
    l.global_batch = static_cast<int64_t>(l.dp) * l.micro_batch * 8 * l.pp;
    flags.push_back(fmt::format("global batch not stated: {} micro-batches (8·pp) assumed", 8 * l.pp));
  }
  // Unknown parallel layout: the planner's best layout with what is stated pinned.
  const bool layout_unknown = !t.contains("tp") && !t.contains("pp") && !t.contains("dp");
  if (layout_unknown && in.gpus > 1) {
    PlanRequest r;
    r.model = in.model;
    r.gpus = {in.gpu};
    r.gpu_counts = {in.gpus};
    r.seq_len = l.seq_len;
    r.global_batch = t.contains("global_batch_seqs") ? t["global_batch_seqs"].get<int64_t>() : 0;
    if (t.contains("micro_batch")) r.micro_batch = l.micro_batch;
    if (t.contains("zero_stage")) r.zero_stage = l.zero_stage;
    if (in.recompute_stated) r.recompute = l.recompute;
    r.precision = l.precision;
    r.optimizer = l.optimizer;
    r.flash_attention = l.flash_attention;
    r.step_options = o;
    r.top_k = 1;
    const PlanResult res = plan(r);
    if (!res.groups.empty() && !res.groups[0].top.empty()) {
      const PlanCandidate& best = res.groups[0].top[0];
      l = best.layout;
      flags.push_back(fmt::format("parallel layout not stated: planner's best tp {} pp {} dp {} cp {} micro-batch {} ZeRO-{} recompute {}",
                                  l.tp, l.pp, l.dp, l.cp, l.micro_batch, l.zero_stage, recompute_name(l.recompute)));
    } else {
      flags.push_back("parallel layout not stated and no layout fits in memory: the defaults above are used as they are");
    }
  } else if (!in.recompute_stated) {
    // The run fitted: take the least recomputation the memory model accepts.
    MemoryOptions mo;
    mo.suggest = false;
    for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
      l.recompute = rc;
      if (estimate_memory(in.model, l, in.gpu, mo).fits) break;
    }
    flags.push_back(fmt::format("recompute not stated: {} assumed (least that fits)", recompute_name(l.recompute)));
  }

  return estimate_step_time(in.model, l, in.gpu, o);
}

std::vector<Prediction> predict_train_throughput(const ValidationCase& c, CaseInputs& in) {
  std::vector<std::string> flags;
  const StepTime st = predict_case_step_time(c, in, flags);
  std::vector<Prediction> out;
  const auto has = [&](const char* k) {
    return (c.raw.contains("measured") && c.raw["measured"].contains(k)) || (c.raw.contains("derived") && c.raw["derived"].contains(k));
  };
  // Primary target: tokens/s per GPU, else step time (README, "Targets per kind").
  if (has("tokens_per_s_per_gpu")) out.push_back(Prediction{"tokens_per_s_per_gpu", st.tokens_per_s_per_gpu, flags});
  else if (has("step_time_s")) out.push_back(Prediction{"step_time_s", st.step_s, flags});
  return out;
}

}  // namespace gpuplan
