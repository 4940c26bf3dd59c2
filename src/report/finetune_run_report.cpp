// `gpuplan finetune` and POST /api/finetune: the request read from the inputs
// (make_finetune_request), the run (run_finetune) and its report: the
// estimate's sections (finetune_report), the deadline rows and how typed
// inputs were read.
#include <fmt/format.h>

#include "gpuplan/finetune.hpp"
#include "inputs/finetune_inputs.hpp"
#include "report/inference_report.hpp"
#include "report/row_makers.hpp"
#include "report/typed_inputs_section.hpp"

namespace gpuplan {
namespace {

// A change as programs read it (the JSON's change_code).
const char* change_code(FinetuneChange c) {
  switch (c) {
    case FinetuneChange::kCheckpointing: return "gradient_checkpointing";
    case FinetuneChange::kMicroBatchOne: return "micro_batch_1";
    case FinetuneChange::kAdamW8bit: return "adamw8bit";
    case FinetuneChange::kOptimizerInBackward: return "optimizer_in_backward";
    case FinetuneChange::kOffloadOptimizer: return "offload_optimizer";
    case FinetuneChange::kLora: return "method_lora";
    case FinetuneChange::kQlora: return "method_qlora";
    case FinetuneChange::kMoreGpus: return "gpus";
    case FinetuneChange::kShorterSequence: return "seq_len";
  }
  return "";
}

// A change that makes the job fit, in words (FinetuneChange).
std::pair<std::string, std::string> change_words(const FinetuneAlternative& a) {
  switch (a.change) {
    case FinetuneChange::kCheckpointing: return {"gradient checkpointing on", "开启梯度检查点"};
    case FinetuneChange::kMicroBatchOne: return {"micro-batch 1 (gradient accumulation keeps the global batch)", "微批大小 1（用梯度累积保持全局批量）"};
    case FinetuneChange::kAdamW8bit: return {"--optimizer adamw8bit", "--optimizer adamw8bit（8 位 AdamW）"};
    case FinetuneChange::kOptimizerInBackward: return {"--optimizer-in-backward", "--optimizer-in-backward（反向中逐参数更新）"};
    case FinetuneChange::kOffloadOptimizer: return {"--offload optimizer", "--offload optimizer（优化器状态放主机内存）"};
    case FinetuneChange::kLora: return {"--method lora", "--method lora"};
    case FinetuneChange::kQlora: return {"--method qlora", "--method qlora"};
    case FinetuneChange::kMoreGpus: return {fmt::format("--gpus {}", a.value), fmt::format("--gpus {}", a.value)};
    case FinetuneChange::kShorterSequence: return {fmt::format("--seq-len {}", a.value), fmt::format("--seq-len {}", a.value)};
  }
  return {"", ""};
}

// The layout and recipe the estimate assumed, for people to check against their config.
Section layout_section(const FinetuneEstimate& e, const FinetuneRun& run) {
  const Layout& l = e.layout;
  Section s{"layout", "Layout and recipe", "并行方式与训练配置", {}, {}, {}};
  s.rows.push_back(text_row("framework", "Stack", "框架", e.job.framework ? e.job.framework->label() : "generic"));
  s.rows.push_back(number_row("gpus", "GPU count", "卡数", static_cast<double>(l.gpus()), Unit::kGpus));
  s.rows.push_back(number_row("zero_stage", "ZeRO / FSDP stage", "ZeRO/FSDP 阶段", l.zero_stage, Unit::kCount));
  Row rc = text_row("gradient_checkpointing", "Gradient checkpointing", "梯度检查点",
                    l.recompute == Recompute::kNone ? "off" : l.offload_activations ? "every layer, inputs in host memory" : "every layer");
  rc.text_zh = l.recompute == Recompute::kNone ? "关" : l.offload_activations ? "每层，层输入放主机内存" : "每层";
  s.rows.push_back(rc);
  Row opt = text_row("optimizer", "Optimizer", "优化器", optimizer_name(l.optimizer));
  opt.text_zh = l.optimizer == Optimizer::kAdamW           ? "AdamW"
                : l.optimizer == Optimizer::kAdamW8bit     ? "8 位 AdamW"
                : l.optimizer == Optimizer::kPagedAdamW8bit ? "分页 8 位 AdamW"
                                                            : "带动量的 SGD";
  s.rows.push_back(opt);
  // Full fine-tuning trains the model's weights; LoRA trains fp32 adapters
  // (PEFT, the stacks), QLoRA's own recipe bf16 ones (estimate_finetune).
  const bool lora = e.job.method != FineTune::kFull;
  const bool recipe = uses_qlora_recipe(e.job);
  Row mw = text_row("master_weights", "Trained weights", "训练权重",
                    lora ? (recipe ? "bf16 adapters (QLoRA recipe)" : "fp32 adapters")
                         : l.pure_bf16 ? "bf16, no fp32 master" : "fp32 master copy (mixed precision)");
  mw.text_zh = lora ? (recipe ? "bf16 适配器（QLoRA 做法）" : "fp32 适配器") : l.pure_bf16 ? "bf16，无 fp32 主权重" : "fp32 主权重（混合精度）";
  s.rows.push_back(mw);
  s.rows.push_back(number_row("micro_batch", "Micro-batch", "微批大小", static_cast<double>(l.micro_batch), Unit::kCount));
  s.rows.push_back(number_row("largest_micro_batch", "Largest micro-batch that fits (powers of two)", "可放下的最大微批（2 的幂）",
                              static_cast<double>(run.largest_micro_batch), Unit::kCount));
  s.rows.push_back(number_row("longest_seq_len", "Longest sequence that fits (powers of two)", "可放下的最长序列（2 的幂）",
                              static_cast<double>(run.longest_seq_len), Unit::kCount));
  return s;
}

}  // namespace

Report finetune_run_report(const FinetuneRequest& q, const FinetuneRun& run) {
  const ModelSpec& m = q.model;
  const GpuSpec& g = q.gpu;
  const FinetuneEstimate& e = run.estimate;
  Report rep = finetune_report(m, g, e, run.smallest_gpus, run.ranking, run.price);
  if (q.deadline_s) {
    rep.inputs["deadline_s"] = *q.deadline_s;
    for (Section& s : rep.sections) {
      if (s.key != "time") continue;
      s.rows.push_back(Row{"deadline_s", "Deadline", "工期", *q.deadline_s, Unit::kSeconds, ""});
      s.rows.push_back(Row{"deadline_met", "Finishes by the deadline", "工期内完成", e.wall_s <= *q.deadline_s ? 1.0 : 0.0, Unit::kFlag, ""});
    }
    if (e.wall_s > *q.deadline_s) {
      rep.warnings.push_back(Note{fmt::format("Misses the deadline of {}: {} on {} × {}.", format_seconds(*q.deadline_s, Lang::kEn),
                                              format_seconds(e.wall_s, Lang::kEn), run.gpus, g.id),
                                  fmt::format("赶不上 {} 的工期：{} 张 {} 需 {}。", format_seconds(*q.deadline_s, Lang::kZh), run.gpus, g.id,
                                              format_seconds(e.wall_s, Lang::kZh))});
    }
  }
  // After the memory section: what was assumed, then what would fit.
  auto after_memory = rep.sections.begin();
  while (after_memory != rep.sections.end() && after_memory->key != "memory") ++after_memory;
  if (after_memory != rep.sections.end()) ++after_memory;
  after_memory = rep.sections.insert(after_memory, layout_section(e, run)) + 1;
  if (!e.fits) {
    Section alt{"alternatives", "Changes that make it fit (fewest GPU-hours first)", "能放下的改法（按 GPU 时从少到多）", {},
                {"change", "gpus", "peak", "wall clock", "GPU-hours"}, {}};
    for (const FinetuneAlternative& a : run.alternatives) {
      const auto [en, zh] = change_words(a);
      Row change = text_row("change", "change", "改法", en);
      change.text_zh = zh;
      Row code = text_row("change_code", "change code", "改法代码", change_code(a.change));
      code.audience = Audience::kPrograms;
      alt.records.push_back({change, code, number_row("gpus", "gpus", "卡数", static_cast<double>(a.gpus), Unit::kGpus),
                             number_row("peak_bytes", "peak", "峰值", a.peak_bytes, Unit::kBytes),
                             number_row("wall_clock_s", "wall clock", "墙钟", a.wall_s, Unit::kSeconds),
                             number_row("gpu_hours", "GPU-hours", "GPU 时", a.gpu_hours, Unit::kGpuHours)});
    }
    rep.sections.insert(after_memory, alt);
  }
  if (auto s = typed_inputs_section(q.typed_inputs)) rep.sections.insert(rep.sections.begin(), *s);
  return rep;
}

}  // namespace gpuplan
