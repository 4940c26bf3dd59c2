// Framework profiles as a report and as docs/frameworks.md.
#include "report/frameworks_report.hpp"

#include <fmt/format.h>

#include <map>

#include "gpuplan/framework.hpp"

namespace gpuplan {

namespace {

// A property of a profile as a Chinese engineer names it (data/frameworks/README.md
// defines each key); JSON, CSV and the docs keep the key.
const std::map<std::string, std::string>& property_zh() {
  static const std::map<std::string, std::string> m = {
      {"parallel", "支持的并行维度"},
      {"zero_stages", "支持的 ZeRO 阶段"},
      {"hsdp", "HSDP 分组分片"},
      {"zero_default", "默认 ZeRO 阶段"},
      {"sequence_parallel", "序列并行"},
      {"sequence_parallel_default", "序列并行默认开启"},
      {"recompute_default", "默认重计算"},
      {"recompute_selective", "选择性重计算的范围"},
      {"attention", "注意力内核"},
      {"elementwise", "逐元素算子"},
      {"compile_default", "默认使用 torch.compile"},
      {"loss", "损失计算"},
      {"tp_comm_overlap", "TP 通信重叠"},
      {"dp_comm_overlap_default", "DP 通信重叠默认开启"},
      {"zero3_gather_unit", "ZeRO-3 参数收集粒度"},
      {"zero3_prefetch", "ZeRO-3 预取"},
      {"grad_accum_dtype", "梯度累加精度"},
      {"master_weights", "主权重精度"},
      {"pipeline_schedules", "流水线调度"},
      {"uneven_stages", "流水线级可不均分"},
      {"fp8_gemms", "FP8 矩阵乘范围"},
      {"cuda_graphs", "CUDA Graph"},
      {"optimizer_in_backward", "在反向中执行优化器步"},
      {"cpu_offload", "可卸载到 CPU 的内容"},
      {"export", "导出的启动配置"},
      {"memory_reported", "日志报告的显存"},
      {"zero3_keep_gathered_with_pp", "ZeRO-3 配合 PP 时保留已收集的参数"},
      {"pipeline_microbatches", "流水线微批数"},
      {"pipeline_schedule_choice", "流水线调度的选择"},
      {"recompute_choice", "重计算的选择"},
      {"zero3_gather_per_rank_copies", "ZeRO-3 每卡保留收集副本"},
      {"fp8_scaling", "FP8 缩放方式"},
      {"fp8_saved_input", "FP8 线性层为反向保存的输入"},
      {"expert_gemms", "专家 GEMM 的执行方式"},
      {"host_calls_per_layer", "每层主机端调用次数"},
      {"gradient_accumulation", "梯度累加"},
      {"cp_exchange", "CP 通信方式"},
      {"tp_grad_comm_async", "TP 梯度通信异步"},
      {"zero_max_with_pp", "配合 PP 时可用的最高 ZeRO 阶段"},
      {"zero_max_with_ep", "配合 EP 时可用的最高 ZeRO 阶段"},
      {"zero_max_with_tp", "配合 TP 时可用的最高 ZeRO 阶段"},
      {"deepspeed_release", "所需 DeepSpeed 的最低版本"},
      {"sequence_parallel_with_cp", "上下文并行可否与序列并行同用"},
      {"optimizer_loop", "优化器内核的组织方式"},
      {"zero2_mode", "ZeRO-2 的实现方式"},
      {"loss_bytes_per_logit", "损失峰值每个 logit 占用的字节数"},
      {"loss_bytes_per_logit_tp", "TP 下损失峰值每个本地 logit 占用的字节数"},
      {"loss_bytes_per_logit_compiled", "编译损失函数时损失峰值每个 logit 占用的字节数"},
      {"pipeline_keeps_outputs", "流水线末级保留每个微批的输出"},
      {"tp_saved_input", "TP 列并行层为反向保存的输入"},
      {"recompute_none", "允许不重计算"},
      {"moe_parallel_folding", "MoE 并行折叠（专家并行组独立于 TP）"},
      {"expert_tp_default", "默认专家张量并行度"},
      {"pipeline_layouts", "配方给出的流水线分段"},
      {"perf_recipes", "各版本基准脚本按模型和 GPU 设置的 MoE 通信开关"},
      {"activation_clamp", "带截断 SwiGLU 的截断算子"},
      {"checkpoint_offload", "梯度检查点的层输入放在主机内存"},
      {"lora_rank_default", "默认 LoRA 秩"},
      {"lora_targets_default", "默认 LoRA 作用模块"},
      {"optimizer_default", "默认优化器"},
      {"frozen_upcast", "冻结权重转为 fp32"},
      {"loss_chunk_tokens", "损失按多少 token 分块计算"},
      {"loss_chunk_cap_gib", "损失分块的 fp32 logits 上限（GiB）"},
      {"moe_permute_traffic", "MoE token 重排的显存流量（每个路由行的隐藏向量数，前向/反向）"},
      {"moe_router_weights", "路由权重乘在何处"},
      {"moe_a2a_overlap", "MoE all-to-all 与另一微批的计算重叠"},
      {"attention_output_saved", "注意力输出的保存格式"},
      {"swiglu_saved", "MoE SwiGLU 保存的内容"},
      {"optimizer_moments", "AdamW 动量精度"},
      {"comm_sms", "通信内核占用的 SM 数"},
      {"moe_dispatch", "MoE 分发方式"},
      {"moe_dispatch_dtype", "MoE 分发的数据格式"},
  };
  return m;
}

// One word of a value ("tp, pp, dp" is three) in Chinese; a word that means
// different things under different keys is looked up with its key first.
// Names (framework ids, dtypes, numbers) stay as they are.
std::string value_word_zh(const std::string& key, const std::string& w) {
  static const std::map<std::pair<std::string, std::string>, std::string> by_key = {
      {{"recompute_default", "full"}, "完全重计算"},
      {{"recompute_default", "selective"}, "选择性重计算"},
      {{"recompute_default", "none"}, "不重计算"},
      {{"loss", "full"}, "完整 logits 的交叉熵"},
      {{"loss", "fused"}, "融合交叉熵"},
      {{"elementwise", "fused"}, "融合内核"},
      {{"activation_clamp", "fused"}, "融合在激活内核中"},
      {{"activation_clamp", "separate_ops"}, "融合激活内核之前的独立算子"},
      {{"memory_reported", "none"}, "未报告"},
      {{"loss_bytes_per_logit_tp", "as loss_bytes_per_logit"}, "同 loss_bytes_per_logit"},
      {{"loss_bytes_per_logit_compiled", "as loss_bytes_per_logit (the loss is never compiled)"}, "同 loss_bytes_per_logit（损失函数从不编译）"},
      {{"optimizer_default", "adamw"}, "AdamW"},
      {{"optimizer_default", "adamw8bit"}, "8 位 AdamW"},
      {{"optimizer_default", "paged_adamw8bit"}, "分页 8 位 AdamW"},
      {{"lora_targets_default", "all"}, "全部线性层"},
      {{"lora_rank_default", "8 (LoRA)"}, "LoRA 为 8"},
      {{"lora_rank_default", "64 (QLoRA)"}, "QLoRA 为 64"},
      {{"loss_chunk_cap_gib", "none"}, "不分块"},
      {{"loss_chunk_tokens", "none"}, "整个微批一次计算"},
  };
  static const std::map<std::string, std::string> words = {
      {"true", "是"}, {"false", "否"}, {"tunable", "可调"}, {"optional", "可选"}, {"none", "无"}, {"(none)", "无"},
      {"default", "默认开启"}, {"tp", "TP"}, {"pp", "PP"}, {"dp", "DP"}, {"cp", "CP"}, {"ep", "EP"}, {"vp", "VP"},
      {"with_tp", "随 TP 开启"}, {"attention_core", "注意力核心"}, {"layer", "每隔一层重算整层"}, {"op", "算子粒度"},
      {"cudnn", "cuDNN 融合注意力"}, {"flash2", "FlashAttention-2"}, {"flash3", "FlashAttention-3"}, {"sdpa", "PyTorch SDPA"}, {"npu_fusion", "昇腾 npu_fusion_attention 融合注意力"},
      {"materialised", "显式计算 s×s 分数矩阵的非融合注意力"}, {"compiled", "torch.compile 编译融合"},
      {"eager", "PyTorch 逐个算子执行"}, {"chunked", "分块交叉熵"}, {"vocab_parallel", "词表并行交叉熵"},
      {"block", "按 Transformer 块"}, {"module", "按子模块"}, {"param", "与参数相同"}, {"1f1b", "1F1B"},
      {"gpipe", "GPipe"}, {"interleaved", "交错式"}, {"zero_bubble", "零气泡"}, {"dualpipe", "DualPipe"},
      {"combine", "在合并时乘到专家输出上（保存专家输出）"}, {"activation", "在专家内乘到激活输出上"},
      {"per_expert", "每个路由专家各发一份"}, {"per_node", "每个目标节点跨网只发一份，节点内经 NVLink 转发"},
      {"input_and_output", "保存输入与输出"}, {"fp8_input", "只以 FP8 保存输入，反向时重算输出"},
      {"e5m6", "E5M6（1.5 字节）"}, {"norm_mla_up", "重算 RMSNorm 与 MLA 上投影"}, {"mla_up_proj", "重算 MLA 上投影与 RoPE"},
      {"activations", "激活值"}, {"optimizer", "优化器状态"}, {"parameters", "参数"}, {"gradients", "梯度"},
      {"reserved", "峰值预留显存"}, {"allocated", "峰值已分配显存"}, {"stages", "等于流水线级数"}, {"default_unless_named", "未指定时取默认"},
      {"delayed", "延迟缩放"}, {"dynamic", "动态缩放"}, {"p2p_ring", "P2P 环形传递"}, {"pytorch_allgather", "PyTorch all-gather"},
      {"ulysses_all_to_all", "Ulysses all-to-all（按头切分，KV 头不复制）"},
      {"ulysses_all_to_all_repeat_kv", "Ulysses all-to-all（KV 头先复制到查询头数）"},
      {"ulysses_all_to_all_mha", "Ulysses all-to-all（仅支持 KV 头数等于注意力头数）"},
      {"linear", "线性层"}, {"linear_and_experts", "线性层与专家"},
      {"grouped", "单个分组 GEMM 内核（覆盖全部本地专家）"}, {"multi_stream", "每个专家一个 GEMM，轮流分配到 4 条计算流"},
      {"sequential", "按专家逐个顺序执行"},
      {"foreach", "多张量批量内核"}, {"per_tensor", "逐张量循环（每个算子一个内核）"}, {"bucketed", "分桶归约"},
      {"fsdp_unit", "按 FSDP 单元收集与归约"}, {"minimal", "只保存投影输出（minimal）"},
      {"save_dot_except_mlp", "保存除 MLP 外的矩阵乘输出"}, {"save_qkv_proj", "只保存 QKV 投影"},
      {"sharded", "按序列切分的输入（反向再 all-gather）"}, {"gathered", "all-gather 后的完整输入"},
      {"fp32_with_zero", "单卡/DDP 纯 bf16，ZeRO/FSDP 分片时保留 fp32 主权重"},
      {"qlora_non_quantized", "QLoRA 时非 4 位权重（嵌入、输出层、归一化）转 fp32"},
      {"lora_and_qlora", "LoRA 与 QLoRA 时全部冻结的 16 位权重转 fp32"},
  };
  if (const auto k = by_key.find({key, w}); k != by_key.end()) return k->second;
  if (const auto v = words.find(w); v != words.end()) return v->second;
  return w;
}

// A value in Chinese, word by word ("tp, pp, dp" → "TP、PP、DP"); empty where it reads the same.
std::string value_zh(const std::string& key, const std::string& value) {
  std::string out, word;
  bool changed = false;
  auto flush = [&] {
    while (!word.empty() && word.back() == ' ') word.pop_back();
    if (word.empty()) return;
    const std::string z = value_word_zh(key, word);
    changed = changed || z != word;
    out += (out.empty() ? "" : "、") + z;
    word.clear();
  };
  // Items are comma-separated; the spaces around an item go, those inside it
  // stay ("as loss_bytes_per_logit" is one item).
  for (char c : value) {
    if (c == ',') {
      flush();
    } else if (c != ' ' || !word.empty()) {
      word += c;
    }
  }
  flush();
  return changed ? out : "";
}

}  // namespace

Report frameworks_report(const std::string& name) {
  Report rep;
  rep.command = "frameworks";
  if (!name.empty()) {
    const FrameworkProfile& f = find_framework(name, "framework");
    rep.title_en = "Framework profile " + f.label();
    rep.title_zh = "框架配置 " + f.label();
    Section s{"properties", "What it does (each with its source)", "行为（附来源）", {}, {"property", "value", "source"}, {}};
    rep.csv_table = "properties";
    for (const ProfileFact& p : f.facts) {
      // The property and its value in Chinese where they are words; the source quoted as published,
      // labelled (来源：…), except gpuplan's own default, which is gpuplan's text.
      const bool ours = p.source.rfind("not stated in the profile", 0) == 0;
      const auto key_zh = property_zh().find(p.key);
      s.records.push_back({Row{"property", "property", "属性", 0, Unit::kText, p.key, {}, Audience::kAll,
                               key_zh == property_zh().end() ? "" : key_zh->second},
                           Row{"value", "value", "取值", 0, Unit::kText, p.value, {}, Audience::kAll, value_zh(p.key, p.value)},
                           Row{"source", "source", "来源", 0, Unit::kText, p.source, {}, Audience::kAll,
                               ours ? "配置中未注明：采用 gpuplan 的默认值（data/frameworks/README.md）" : "来源：" + p.source}});
    }
    rep.sections.push_back(s);
    // The code read for this version is a citation: quoted as it is, labelled.
    rep.assumptions.push_back(Note{"Version " + f.version + " (" + f.date + "): " + f.version_source,
                                   "版本 " + f.version + "（" + f.date + "）依据的代码，来源：" + f.version_source});
    return rep;
  }
  rep.title_en = "Framework profiles";
  rep.title_zh = "框架配置";
  Section s{"frameworks", "Frameworks", "框架", {}, {"id", "name", "versions", "aliases"}, {}};
  rep.csv_table = "frameworks";
  for (const FrameworkFamily& fam : framework_catalog()) {
    std::vector<std::string> versions;
    for (const auto& v : fam.versions) versions.push_back(v.version);
    s.records.push_back({Row{"id", "id", "编号", 0, Unit::kText, fam.id}, Row{"name", "name", "名称", 0, Unit::kText, fam.name},
                         Row{"versions", "versions", "版本", 0, Unit::kText, "", versions},
                         Row{"aliases", "aliases", "别名", 0, Unit::kText, "", fam.aliases}});
  }
  rep.sections.push_back(s);
  rep.assumptions.push_back(Note{"A profile records what the software does (defaults, kernels, schedules), each value cited to its code or docs; "
                                 "it holds no speed factor. --framework NAME@VERSION picks one (gpuplan frameworks NAME shows it).",
                                 "框架配置只记录软件的行为（默认值、内核、调度），每项附其代码或文档出处，不含任何速度系数。"
                                 "用 --framework 名称@版本 选择（gpuplan frameworks 名称 查看）。"});
  return rep;
}

namespace {

std::string cell_text(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

}  // namespace

std::string frameworks_markdown() {
  std::string md =
      "# Framework profiles\n\n"
      "Generated from `data/frameworks/*.json` by `gpuplan frameworks --docs`; do not edit by hand (a test compares\n"
      "this page with the data). The format and the meaning of every property are in `data/frameworks/README.md`.\n"
      "A profile records what a training stack does at a version (what it can run, its defaults, kernels and\n"
      "schedules), each value with a citation to that framework's own code or docs. It never holds a speed factor.\n"
      "The planner, the memory and step-time models, the exporters and validation read the same profile.\n\n"
      "One row per framework version, one column per property; each cell is the value and, in brackets, the\n"
      "number of its source in the list below the table. A version states only what changed; the rest is\n"
      "inherited from the earlier versions, and its cell cites where the inherited value was shown.\n\n";
  std::vector<std::string> keys;
  for (const auto& fam : framework_catalog()) {
    for (const auto& f : fam.versions.front().facts) keys.push_back(f.key);
    break;
  }
  std::map<std::string, int> number;
  std::vector<std::string> sources;
  auto cite = [&](const std::string& src) {
    auto it = number.find(src);
    if (it != number.end()) return it->second;
    sources.push_back(src);
    number[src] = static_cast<int>(sources.size());
    return static_cast<int>(sources.size());
  };
  md += "| framework@version | date |";
  for (const auto& k : keys) md += " " + k + " |";
  md += "\n|---|---|";
  for (size_t i = 0; i < keys.size(); ++i) md += "---|";
  md += "\n";
  for (const auto& fam : framework_catalog()) {
    for (const auto& v : fam.versions) {
      md += fmt::format("| {} | {} |", v.label(), v.date);
      for (const auto& k : keys) {
        const ProfileFact* f = v.fact(k);
        md += f ? fmt::format(" {} [{}] |", cell_text(f->value), cite(f->source)) : " |";
      }
      md += "\n";
    }
  }
  md += "\n## Sources\n\n";
  for (size_t i = 0; i < sources.size(); ++i) md += fmt::format("{}. {}\n", i + 1, cell_text(sources[i]));
  md += "\n## Versions read\n\n";
  for (const auto& fam : framework_catalog()) {
    for (const auto& v : fam.versions) md += fmt::format("- `{}` ({}): {}\n", v.label(), v.date, cell_text(v.version_source));
  }
  return md;
}

}  // namespace gpuplan
