#include "report/memory_report.hpp"
#include "report/model_notes.hpp"
#include "layout_rows.hpp"

#include <fmt/format.h>

#include <cmath>

#include <algorithm>

#include "gpuplan/framework.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {
namespace {

Row bytes_row(const char* key, const char* en, const char* zh, double bytes, double peak) {
  const double share = peak > 0 ? bytes / peak : 0;
  return Row{key, en, zh, bytes, Unit::kBytes, fmt::format("({:.1f}%)", share * 100)};
}

}  // namespace

Section memory_section(const MemoryBreakdown& br) {
  Section s{"memory", fmt::format("Memory per GPU (worst: pipeline stage {})", br.worst_stage),
            fmt::format("单卡显存（最大：第 {} 级流水线）", br.worst_stage), {}, {}, {}};
  const double p = br.peak_bytes;
  s.rows.push_back(bytes_row("weights_bytes", "Weights", "权重", br.weights_bytes, p));
  s.rows.push_back(bytes_row("gradients_bytes", "Gradients", "梯度", br.gradients_bytes, p));
  s.rows.push_back(bytes_row("optimizer_bytes", "Optimizer states (incl. fp32 master)", "优化器状态（含 fp32 主权重）", br.optimizer_bytes, p));
  s.rows.push_back(bytes_row("activations_bytes", "Activations (in-flight micro-batches)", "激活（在途微批）", br.activations_bytes, p));
  s.rows.push_back(bytes_row("logits_bytes", "Logits and loss copies", "Logits 与损失副本", br.logits_bytes, p));
  s.rows.push_back(bytes_row("comm_buffers_bytes", "Communication buckets", "通信缓冲", br.comm_buffers_bytes, p));
  s.rows.push_back(bytes_row("zero3_gathered_bytes", "ZeRO-3 gathered layers", "ZeRO-3 聚合层", br.zero3_gathered_bytes, p));
  s.rows.push_back(bytes_row("cuda_context_bytes", "CUDA context and workspaces", "CUDA 上下文与工作区", br.cuda_context_bytes, p));
  s.rows.push_back(bytes_row("fragmentation_bytes", "Allocator fragmentation", "分配器碎片", br.fragmentation_bytes, p));
  s.rows.push_back(Row{"peak_bytes", "Peak on the worst GPU", "最大单卡峰值", p, Unit::kBytes, ""});
  s.rows.push_back(Row{"capacity_bytes", "GPU capacity", "显存容量", br.capacity_bytes, Unit::kBytes, ""});
  s.rows.push_back(Row{"safety_margin_bytes", "Safety margin kept free", "预留安全余量", br.safety_margin_bytes, Unit::kBytes, ""});
  s.rows.push_back(Row{"headroom_bytes", "Headroom (capacity − margin − peak)", "余量（容量 − 安全余量 − 峰值）", br.headroom_bytes, Unit::kBytes, ""});
  s.rows.push_back(Row{"fits", "Fits", "放得下", br.fits ? 1.0 : 0.0, Unit::kFlag, ""});
  if (br.largest_micro_batch >= 0) {
    s.rows.push_back(Row{"largest_micro_batch", "Largest micro-batch that fits", "可放下的最大微批", static_cast<double>(br.largest_micro_batch),
                         Unit::kCount, br.largest_micro_batch == 0 ? "(not even 1)" : ""});
    if (br.largest_micro_batch == 0) s.rows.back().text_zh = "（连 1 都放不下）";
  }
  s.rows.push_back(Row{"params_on_gpu", "Parameters on this GPU (before ZeRO-3)", "本卡参数（ZeRO-3 前）", br.params_on_gpu, Unit::kParams, ""});
  s.rows.push_back(Row{"activations_per_layer_bytes", "Activations per layer, one micro-batch", "每层每微批激活", br.activations_per_layer_bytes, Unit::kBytes, ""});
  s.rows.push_back(Row{"inflight_micro_batches", "Micro-batches in flight", "在途微批数", br.inflight_micro_batches, Unit::kCount, ""});
  if (!br.stage_split.empty()) {
    s.rows.push_back(Row{"stage_layers", "Layers per pipeline stage", "各级流水线层数", 0, Unit::kText, br.stage_split, {}, Audience::kAll, br.stage_split_zh});
  }
  if (br.host_offload_bytes > 0) {
    s.rows.push_back(Row{"host_offload_bytes", "Offloaded to host memory (not in peak)", "卸载到主机内存（不计入峰值）", br.host_offload_bytes, Unit::kBytes, ""});
  }
  if (br.paged_optimizer_bytes > 0) {
    s.rows.push_back(Row{"paged_optimizer_bytes", "Paged optimizer states (not in peak)", "分页优化器状态（不计入峰值）", br.paged_optimizer_bytes, Unit::kBytes, ""});
  }
  return s;
}

std::string memory_change_text(const MemorySuggestion& s, Lang lang) {
  const bool zh = lang == Lang::kZh;
  const Layout& x = s.layout;
  switch (s.change) {
    case MemoryChange::kZeroStage: return zh ? fmt::format("ZeRO 第 {} 阶段", x.zero_stage) : fmt::format("ZeRO stage {}", x.zero_stage);
    case MemoryChange::kSelectiveRecompute: return zh ? "选择性重计算" : "selective recompute";
    case MemoryChange::kFullRecompute: return zh ? "完全重计算" : "full recompute";
    case MemoryChange::kSequenceParallel: return zh ? "序列并行" : "sequence parallelism";
    case MemoryChange::kTensorParallel:
      return zh ? fmt::format("张量并行 {}（dp {}）", x.tp, x.dp) : fmt::format("tensor parallel {} (dp {})", x.tp, x.dp);
    case MemoryChange::kPipelineParallel:
      return zh ? fmt::format("流水线并行 {}（dp {}）", x.pp, x.dp) : fmt::format("pipeline parallel {} (dp {})", x.pp, x.dp);
    case MemoryChange::kOffloadOptimizer: return zh ? "优化器状态卸载到 CPU" : "offload optimizer states to CPU";
    case MemoryChange::kOffloadParams: return zh ? "参数和优化器卸载到 CPU" : "offload parameters and optimizer to CPU";
    case MemoryChange::kMicroBatchOne: return zh ? "微批大小 1（更多梯度累积）" : "micro-batch 1 (more accumulation steps)";
  }
  return "";
}

std::string memory_change_flags(const MemorySuggestion& s) {
  const Layout& x = s.layout;
  switch (s.change) {
    case MemoryChange::kZeroStage: return fmt::format("--zero {}", x.zero_stage);
    case MemoryChange::kSelectiveRecompute: return "--recompute selective";
    case MemoryChange::kFullRecompute: return "--recompute full";
    case MemoryChange::kSequenceParallel: return "--sequence-parallel";
    case MemoryChange::kTensorParallel: return fmt::format("--tp {} --dp {}", x.tp, x.dp);
    case MemoryChange::kPipelineParallel: return fmt::format("--pp {} --dp {}", x.pp, x.dp);
    case MemoryChange::kOffloadOptimizer: return "--offload-optimizer";
    case MemoryChange::kOffloadParams: return "--offload-params --offload-optimizer";
    case MemoryChange::kMicroBatchOne: return "--micro-batch 1";
  }
  return "";
}

Section memory_suggestions_section(const MemoryBreakdown& br) {
  Section s{"memory_suggestions", "Changes that reduce memory (cheapest first)", "降低显存的改动（代价从低到高）",
            {}, {"change", "flags", "peak", "fits"}, {}};
  for (const auto& g : br.suggestions) {
    s.records.push_back({Row{"change", "change", "改动", 0, Unit::kText, memory_change_text(g, Lang::kEn), {}, Audience::kAll,
                             memory_change_text(g, Lang::kZh)},
                         Row{"flags", "flags", "参数", 0, Unit::kText, memory_change_flags(g)},
                         Row{"peak_bytes", "peak", "峰值", g.peak_bytes, Unit::kBytes, ""},
                         Row{"fits", "fits", "放得下", g.fits ? 1.0 : 0.0, Unit::kFlag, ""}});
  }
  return s;
}

void add_memory_to_report(Report& report, const MemoryBreakdown& br) {
  report.sections.push_back(memory_section(br));
  if (!br.suggestions.empty()) report.sections.push_back(memory_suggestions_section(br));
  for (const auto& a : br.assumptions) report.assumptions.push_back(Note{a.en, a.zh});
  for (const auto& w : br.warnings) report.warnings.push_back(Note{w.en, w.zh});
  if (!br.fits) {
    report.warnings.push_back(Note{fmt::format("Does not fit: the worst GPU needs {} GiB of {} GiB usable ({} GiB minus the safety margin).",
                                               format_sig(br.peak_bytes / kGiB, 4),
                                               format_sig((br.capacity_bytes - br.safety_margin_bytes) / kGiB, 4),
                                               format_sig(br.capacity_bytes / kGiB, 4)),
                                   fmt::format("放不下：最大单卡需 {} GiB，可用 {} GiB（{} GiB 减去安全余量）。",
                                               format_sig(br.peak_bytes / kGiB, 4),
                                               format_sig((br.capacity_bytes - br.safety_margin_bytes) / kGiB, 4),
                                               format_sig(br.capacity_bytes / kGiB, 4))});
  }
}

}  // namespace gpuplan

#include "report/train_report.hpp"

namespace gpuplan {

Report memory_report(const ModelSpec& model, const Layout& l, const GpuSpec& gpu, const MemoryBreakdown& br, bool batch_defaulted) {
  Report rep;
  add_model_scope_warning(rep, model);
  // TP beyond one node (or NVLink domain) is legal but unusual: its per-layer
  // all-reduces leave NVLink for the scale-out network, some 10x slower
  // (H100: 450 GB/s NVLink vs 50 GB/s per GPU of 400 Gb/s InfiniBand).
  const int domain = std::max(gpu.gpus_per_node, gpu.nvlink_domain_gpus);
  if (l.tp > domain) {
    rep.warnings.push_back({fmt::format("--tp {} spans {} nodes of {} {}: tensor-parallel all-reduces cross the scale-out network "
                                        "({}/s per GPU instead of {}/s in the node); keep TP within a node unless you mean it.",
                                        l.tp, (l.tp + domain - 1) / domain, domain, gpu.id, format_si(gpu.scaleout_bytes_per_s, "B"),
                                        format_si(gpu.intra_bytes_per_s, "B")),
                            fmt::format("--tp {} 跨 {} 个节点（每节点 {} 张 {}）：张量并行的 all-reduce 走节点间网络"
                                        "（每卡 {}/s，节点内为 {}/s）；除非确有需要，TP 应留在节点内。",
                                        l.tp, (l.tp + domain - 1) / domain, domain, gpu.id, format_si(gpu.scaleout_bytes_per_s, "B"),
                                        format_si(gpu.intra_bytes_per_s, "B"))});
  }
  rep.command = "memory";
  rep.title_en = "Training memory per GPU";
  rep.title_zh = "训练单卡显存";
  rep.inputs = {{"model", model.name},
                {"gpu", gpu.id},
                {"gpus", l.gpus()},
                {"tp", l.tp},
                {"pp", l.pp},
                {"dp", l.dp},
                {"cp", l.cp},
                {"ep", l.ep},
                {"vp", l.vp},
                {"micro_batch", l.micro_batch},
                {"global_batch", l.effective_global_batch()},
                {"seq_len", l.seq_len},
                {"zero_stage", l.zero_stage},
                {"recompute", recompute_name(l.recompute)},
                {"sequence_parallel", l.sequence_parallel},
                {"flash_attention", !keeps_attention_scores(l)}, {"attention_kernel", attention_kernel_name(l.attention)},
                {"eager", l.eager},
                {"precision", precision_name(l.precision)},
                {"optimizer", optimizer_name(l.optimizer)},
                {"offload_optimizer", l.offload_optimizer},
                {"offload_params", l.offload_params}};
  rep.sections.push_back(model_section(model));
  Section ls{"layout", "Layout", "并行布局", {}, {}, {}};
  ls.rows.push_back(Row{"parallel", "Parallelism", "并行方式", 0, Unit::kText,
                        fmt::format("tp {} × pp {} × dp {} × cp {} = {} GPUs{}{}{}{}", l.tp, l.pp, l.dp, l.cp, l.gpus(),
                                    l.ep > 1 ? fmt::format(", ep {}", l.ep) : "",
                                    l.ep > 1 && l.expert_tp() != l.tp ? fmt::format(", expert tp {}", l.expert_tp()) : "",
                                    l.vp > 1 ? fmt::format(", vp {}", l.vp) : "", l.dualpipe && l.pp > 1 ? ", DualPipe schedule" : "")});
  ls.rows.back().text_zh = fmt::format("{} = {} 张卡", degrees_zh(l), l.gpus());
  ls.rows.push_back(Row{"batch", "Batch", "批大小", 0, Unit::kText,
                        fmt::format("micro-batch {} × {} micro-batches × dp {} = {} sequences of {} tokens", l.micro_batch,
                                    l.micro_batches(), l.dp, l.effective_global_batch(), l.seq_len)});
  ls.rows.back().text_zh = fmt::format("微批 {} × {} 个微批 × DP {} = {} 条序列，每条 {} 个 token", l.micro_batch, l.micro_batches(), l.dp,
                                       l.effective_global_batch(), l.seq_len);
  if (batch_defaulted) {
    rep.assumptions.push_back(
        {fmt::format("--global-batch not given: {} sequences of {} tokens ({} tokens), about the 4M-token step of GPT-3, Llama 2 and plan's default, "
                     "in whole steps of dp × micro-batch; a pipeline's first stage holds min(pp, micro-batches) = {} micro-batches' activations (1F1B).",
                     l.effective_global_batch(), l.seq_len, format_si(static_cast<double>(l.effective_global_batch() * l.seq_len), ""),
                     std::min<int64_t>(l.pp, l.micro_batches())),
         fmt::format("未给 --global-batch：取 {} 条 {} token 的序列（{} 个 token），约为 GPT-3、Llama 2 每步 400 万 token 的批，与并行规划的默认值相同，"
                     "取 DP × 微批的整数倍；流水线第一段同时保存 PP 与微批数中较小者即 {} 个微批的激活（1F1B）。",
                     l.effective_global_batch(), l.seq_len, format_si(static_cast<double>(l.effective_global_batch() * l.seq_len), ""),
                     std::min<int64_t>(l.pp, l.micro_batches()))});
  }
  // MaxText's remat policies differ enough in what they keep to name them.
  const bool named_policy = l.recompute == Recompute::kSelective &&
                            (l.selective == SelectiveRecompute::kSaveDots || l.selective == SelectiveRecompute::kSaveDotExceptMlp ||
                             l.selective == SelectiveRecompute::kSaveQkvProj);
  const std::string policy_en = named_policy ? fmt::format(" (remat_policy {})", selective_recompute_name(l.selective)) : "";
  const std::string policy_zh = named_policy ? fmt::format("（remat_policy {}）", selective_recompute_name(l.selective)) : "";
  ls.rows.push_back(Row{"recipe", "Recipe", "训练配置", 0, Unit::kText,
                        fmt::format("{}{}, {}, ZeRO {}, recompute {}{}{}{}{}", precision_name(l.precision), l.pure_bf16 ? " (pure, no fp32 master)" : "",
                                    optimizer_name(l.optimizer), l.zero_stage, recompute_name(l.recompute), policy_en,
                                    l.sequence_parallel ? ", sequence parallel" : "", !keeps_attention_scores(l) ? ", FlashAttention" : "",
                                    l.eager ? ", eager (unfused) element-wise ops" : "")});
  ls.rows.back().text_zh = fmt::format("{}{}，{}，ZeRO {}，{}{}{}{}{}", precision_name(l.precision), l.pure_bf16 ? "（纯 bf16，无 fp32 主权重）" : "",
                                       optimizer_zh(l.optimizer), l.zero_stage, recompute_zh(l.recompute), policy_zh, l.sequence_parallel ? "，序列并行" : "",
                                       !keeps_attention_scores(l) ? "，FlashAttention" : "", l.eager ? "，逐元素算子不融合（eager）" : "");
  ls.rows.push_back(Row{"gpu", "GPU", "GPU", 0, Unit::kText, fmt::format("{} ({})", gpu.name, gpu.id)});
  rep.sections.push_back(ls);
  add_memory_to_report(rep, br);
  return rep;
}

}  // namespace gpuplan
