#include "report/memory_report.hpp"
#include "report/model_notes.hpp"
#include "layout_rows.hpp"
#include "units/quantity_text.hpp"
#include "execution/layout_words.hpp"

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
  if (br.stage_split) {
    const Note split = stage_split_note(*br.stage_split);
    s.rows.push_back(Row{"stage_layers", "Layers per pipeline stage", "各级流水线层数", 0, Unit::kText, split.en, {}, Audience::kAll, split.zh});
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

Note stage_split_note(const StageSplit& split) {
  Note n{fmt::format("{} ({})", split.describe(), stage_split_rule_name(split.rule)),
         fmt::format("{}（{}）", split.describe_zh(), stage_split_rule_name_zh(split.rule))};
  if (split.mtp_layers > 0) {
    // The model descriptions have no MTP module (layout.hpp StageSplit::mtp_layers).
    n.en += fmt::format("; its {} MTP layer(s) are not modelled", split.mtp_layers);
    n.zh += fmt::format("；其中 {} 个 MTP 层未建模", split.mtp_layers);
  }
  return n;
}

namespace {

// The LoRA line: the adapters' rank, matrices and states, and the frozen base.
Note lora_note(const MemoryBasis& b) {
  const bool qlora = b.finetune == FineTune::kQlora;
  return {fmt::format("LoRA: rank {} adapters on {} with fp32 weights, gradients and AdamW states (16 B/param); base weights frozen, {}.",
                      b.lora_rank, lora_modules_text(b.lora_modules), qlora ? "NF4 (0.52 B/param) except embeddings" : "bf16"),
          fmt::format("LoRA：{} 上秩 {} 的适配器，fp32 权重、梯度和 AdamW 状态（每参数 16 字节）；基座权重冻结，{}。",
                      lora_modules_text(b.lora_modules, "、"), b.lora_rank, qlora ? "NF4（每参数 0.52 字节，嵌入除外）" : "bf16")};
}

// The activation, logits and pipeline lines (a model with an architecture).
void add_activation_notes(const MemoryBreakdown& br, std::vector<Note>& out) {
  const MemoryBasis& b = br.basis;
  out.push_back({fmt::format("Activations: Korthikanti et al. 2022 Table 2 generalised (GQA, {} MLP, {}, dropout {}{}); {} micro-batch(es) in flight on stage {}.",
                             b.gated_mlp ? "gated" : "2-matrix", !b.attention_scores_kept ? "FlashAttention: no s×s scores" : "s×s attention scores kept",
                             b.dropout ? "on" : "off", b.eager ? ", eager: fp32 RMSNorm inputs and silu outputs kept too" : "",
                             format_sig(br.inflight_micro_batches, 3), br.worst_stage),
                 fmt::format("激活：Korthikanti 等 2022 表 2 的推广（GQA、{}、{}、dropout {}{}）；第 {} 级在途 {} 个微批。",
                             b.gated_mlp ? "门控 MLP" : "两矩阵 MLP", !b.attention_scores_kept ? "FlashAttention 不存 s×s 分数" : "保存 s×s 注意力分数",
                             b.dropout ? "开" : "关", b.eager ? "，逐算子执行时另存 fp32 RMSNorm 输入与激活函数输出" : "", br.worst_stage,
                             format_sig(br.inflight_micro_batches, 3))});
  const std::string per_logit = format_sig(b.loss_bytes_per_logit, 3);
  if (b.loss_bytes_per_logit == 10) {
    out.push_back({fmt::format("Logits: tokens × vocab/tp × {} bytes (bf16 logits + fp32 copy + fp32 log-softmax), last stage, one micro-batch.", per_logit),
                   fmt::format("Logits：token 数 × 词表/TP × {} 字节（bf16 logits + fp32 副本 + fp32 log-softmax），仅最后一级、一个微批。", per_logit)});
  } else {
    out.push_back({fmt::format("Logits and loss: tokens × vocab/tp × {} bytes, what the LM head's output and the cross-entropy hold at "
                               "their peak (forward or backward, the framework's loss code), last stage, one micro-batch.",
                               per_logit),
                   fmt::format("Logits 与损失：token 数 × 词表/TP × {} 字节，即 LM head 输出和交叉熵在前向或反向峰值时同时存活的张量"
                               "（按框架的损失实现），仅最后一级、一个微批。",
                               per_logit)});
  }
  if (b.kept_logits_micro_batches > 0) {
    out.push_back({fmt::format("The pipeline's last stage keeps the bf16 logits of all {} micro-batches of a step until it ends "
                               "(torch.distributed.pipelining): 2 bytes × tokens × vocab/tp each.",
                               b.kept_logits_micro_batches),
                   fmt::format("流水线最后一级保留一个 step 内全部 {} 个微批的 bf16 logits 直到该 step 结束"
                               "（torch.distributed.pipelining）：每个 2 字节 × token 数 × 词表/TP。",
                               b.kept_logits_micro_batches)});
  }
}

}  // namespace

MemoryNotes memory_notes(const MemoryBreakdown& br, bool lora_line) {
  const MemoryBasis& b = br.basis;
  MemoryNotes n;
  auto add = [&n](std::string en, std::string zh) { n.assumptions.push_back({std::move(en), std::move(zh)}); };
  const std::string weight = fmt::format("{}", br.weight_bytes_per_param), grad = fmt::format("{}", br.grad_bytes_per_param);
  const std::string optimizer = format_sig(br.optimizer_bytes_per_param, 3);
  add(fmt::format("Model states: {} + {} + {} bytes per parameter (weights + gradients + optimizer incl. fp32 master); "
                  "mixed-precision AdamW holds 16 (Rajbhandari et al. 2020, ZeRO §3: 2 + 2 for bf16 weights and gradients, 12 for the fp32 "
                  "master copy, momentum and variance), not the 14 often quoted, which omits the fp32 master copy.",
                  weight, grad, optimizer),
      fmt::format("模型状态：每参数 {} + {} + {} 字节（权重 + 梯度 + 优化器含 fp32 主权重）；混合精度 AdamW 为 16 字节（Rajbhandari 等 2020，ZeRO 第 3 节：bf16 权重与梯度 2 + 2 字节，"
                  "fp32 主权重、动量与方差 12 字节），常见的 14 字节漏算了 fp32 主权重。",
                  weight, grad, optimizer));
  if (b.fp8_weight_cache && b.fp8_saved_inputs) {
    add("FP8: weights stay bf16 with an fp32 master; an fp8 copy and its transpose are cached between micro-batches, as TransformerEngine does "
        "(+2 B/param); the linear layers keep their fp8 inputs (1 B) for the weight gradient, other activations bf16.",
        "FP8：权重仍为 bf16 并有 fp32 主权重；fp8 权重及其转置在微批之间缓存，与 TransformerEngine 的做法相同（每参数 +2 字节）；"
        "线性层为权重梯度保存 fp8 输入（1 字节），其余激活按 bf16 计。");
  } else if (b.fp8_weight_cache) {
    add("FP8: weights stay bf16 with an fp32 master; an fp8 copy and its transpose are cached between micro-batches, as TransformerEngine does "
        "(+2 B/param); activations counted as bf16.",
        "FP8：权重仍为 bf16 并有 fp32 主权重；fp8 权重及其转置在微批之间缓存，与 TransformerEngine 的做法相同（每参数 +2 字节）；激活按 bf16 计。");
  }
  if (lora_line && b.lora_rank > 0) n.assumptions.push_back(lora_note(b));  // set for LoRA and QLoRA only
  if (b.architecture) add_activation_notes(br, n.assumptions);
  if (br.stage_split) {
    add(fmt::format("Pipeline stages hold {} transformer layers ({}; Megatron-LM's rules); the first also holds the embedding, "
                    "the last the final norm, LM head and loss.",
                    br.stage_split->describe(), stage_split_rule_name(br.stage_split->rule)),
        fmt::format("各流水线级的 Transformer 层数：{}（{}；按 Megatron-LM 的规则）；第一级另有嵌入层，最后一级另有最终归一化、输出层与损失。",
                    br.stage_split->describe_zh(), stage_split_rule_name_zh(br.stage_split->rule)));
  }
  add(fmt::format("Overheads: CUDA context and workspaces {} GiB, allocator fragmentation {}% of allocated bytes, safety margin {}% of capacity kept free.",
                  format_sig(br.cuda_context_bytes / kGiB, 3), format_sig(b.fragmentation * 100, 3), format_sig(b.safety_margin * 100, 3)),
      fmt::format("开销：CUDA 上下文与工作区 {} GiB，分配器碎片为已分配的 {}%，预留安全余量为容量的 {}%。",
                  format_sig(br.cuda_context_bytes / kGiB, 3), format_sig(b.fragmentation * 100, 3), format_sig(b.safety_margin * 100, 3)));
  if (!b.architecture) {
    n.warnings.push_back({"A bare parameter count has no architecture: activations and logits are not estimated (give --model).",
                          "仅有参数量、没有结构：未估算激活和 logits（请用 --model）。"});
  }
  if (br.paged_optimizer_bytes > 0) {
    n.warnings.push_back({fmt::format("{} GiB of paged 8-bit optimizer states are in unified memory: they use free GPU memory but move to host under pressure (not in the peak).",
                                      format_sig(br.paged_optimizer_bytes / kGiB, 3)),
                          fmt::format("{} GiB 分页 8 位优化器状态位于统一内存：显存紧张时换出到主机（未计入峰值）。",
                                      format_sig(br.paged_optimizer_bytes / kGiB, 3))});
  }
  return n;
}

void add_memory_to_report(Report& report, const MemoryBreakdown& br) {
  report.sections.push_back(memory_section(br));
  if (!br.suggestions.empty()) report.sections.push_back(memory_suggestions_section(br));
  MemoryNotes notes = memory_notes(br);
  for (Note& a : notes.assumptions) report.assumptions.push_back(std::move(a));
  for (Note& w : notes.warnings) report.warnings.push_back(std::move(w));
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
