// Serving-engine profiles as a report and as docs/engines.md.
#include "report/engines_report.hpp"

#include <fmt/format.h>

#include <map>

#include "gpuplan/engine.hpp"

namespace gpuplan {

namespace {

// A property as a Chinese engineer names it (data/engines/README.md defines each key).
const std::map<std::string, std::string>& engine_property_zh() {
  static const std::map<std::string, std::string> m = {
      {"platforms", "支持的硬件平台"},
      {"batching", "批处理方式"},
      {"kv_cache_memory", "KV 缓存的显存份额"},
      {"batch_limits", "调度上限（并发序列数、每步 token 数）"},
      {"kv_block_tokens", "每个 KV 块的 token 数"},
      {"chunked_prefill", "分块预填充"},
      {"mixed_prefill_decode", "预填充与解码同批"},
      {"kv_reservation", "KV 块的预留方式"},
      {"prefill_context", "一次前向中预填充的上下文上限"},
      {"kv_precisions", "支持的 KV 缓存精度"},
      {"cuda_graphs", "默认使用 CUDA Graph"},
      {"host_step_ms", "每步主机端耗时（毫秒）"},
      {"eager_host_us_per_layer", "逐个算子执行时每个解码层的主机端开销（微秒）"},
      {"kv_append", "KV 缓存的追加方式"},
      {"attention_scores", "注意力分数的存放方式"},
      {"prefill_ubatch_tokens", "每次预填充前向处理的 token 数"},
      {"tp_allreduce", "张量并行 all-reduce 的实现"},
      {"tp_allreduce_rocm", "AMD（ROCm）上张量并行 all-reduce 的实现"},
      {"rocm_skinny_fp8_tokens", "AMD（ROCm）上由引擎自带窄矩阵 FP8 GEMM 处理的最多 token 行数（更多行交给 hipBLASLt）"},
      {"rule_constants", "规则常数"},
  };
  return m;
}

std::string engine_value_zh(const std::string& v) {
  static const std::map<std::string, std::string> words = {
      {"true", "是"}, {"false", "否"}, {"continuous", "连续批处理"}, {"static", "静态批（每次 generate 一批）"},
      {"as_generated", "随生成逐块分配"}, {"whole_sequence", "按整条序列预留"}, {"unbounded", "不限"},
      {"session_len", "session_len（模型最大长度）"}, {"(none)", "无"},
      {"in_place", "原地写入"}, {"concat_copy", "每步拼接复制整个缓存"},
      {"in_kernel", "留在注意力内核内"}, {"materialised_f32", "以 F32 写入显存（分数矩阵、softmax、乘 V 分成三个内核）"},
      {"custom", "自定义 all-reduce 内核（小消息）"}, {"nccl", "所有消息都走 NCCL"}};
  const auto it = words.find(v);
  return it == words.end() ? "" : it->second;
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

// The conditions of a device row in words, for the report ("≥ 70 GiB, name without 'a100'").
std::string row_conditions(const EngineDeviceRule& r, bool zh) {
  std::vector<std::string> c;
  if (r.memory_gib_at_least > 0) c.push_back(zh ? fmt::format("显存 ≥ {:g} GiB", r.memory_gib_at_least) : fmt::format("≥ {:g} GiB", r.memory_gib_at_least));
  if (r.memory_gib_below > 0) c.push_back(zh ? fmt::format("显存 < {:g} GiB", r.memory_gib_below) : fmt::format("< {:g} GiB", r.memory_gib_below));
  if (!r.name_has.empty()) c.push_back(zh ? fmt::format("设备名含“{}”", r.name_has) : fmt::format("device name contains '{}'", r.name_has));
  if (!r.name_lacks.empty()) c.push_back(zh ? fmt::format("设备名不含“{}”", r.name_lacks) : fmt::format("device name without '{}'", r.name_lacks));
  if (r.tp_at_least > 0) c.push_back(fmt::format("TP ≥ {}", r.tp_at_least));
  if (r.tp_below > 0) c.push_back(fmt::format("TP < {}", r.tp_below));
  if (c.empty()) return zh ? "其余设备" : "every other device";
  std::string s;
  for (const auto& x : c) s += (s.empty() ? "" : zh ? "，" : ", ") + x;
  return s;
}

bool ours(const EngineFact& f) { return f.source.rfind("not stated in the profile", 0) == 0; }

}  // namespace

Note engine_limits_note(const std::string& engine_name, const std::string& gpu_id, const EngineDeviceRule& row, long long max_num_seqs,
                        long long tokens_per_step) {
  return Note{fmt::format("{}: max_num_seqs {}, {} tokens per step on {} ({})", engine_name, max_num_seqs, tokens_per_step, gpu_id, row_conditions(row, false)),
              fmt::format("{}：max_num_seqs {}，每步 {} 个 token（{}：{}）", engine_name, max_num_seqs, tokens_per_step, gpu_id, row_conditions(row, true))};
}

Note engine_fact_note(const std::string& engine_name, const EngineFact& f) {
  // A table's rows are in the line the run's own limits came from; here its key and source.
  const bool table = f.value.rfind('{', 0) == 0;
  const auto key_zh = engine_property_zh().find(f.key);
  const std::string zh_key = key_zh == engine_property_zh().end() ? f.key : key_zh->second;
  const std::string zh_value = engine_value_zh(f.value).empty() ? f.value : engine_value_zh(f.value);
  return Note{fmt::format("{}: {}{}: {}", engine_name, f.key, table ? "" : " " + f.value, f.source),
              fmt::format("{}：{}{}（来源：{}）", engine_name, zh_key, table ? "" : " " + zh_value, f.source)};
}

Report engines_report(const std::string& name) {
  Report rep;
  rep.command = "engines";
  if (!name.empty()) {
    const EngineProfile p = find_engine(name, "engine");
    rep.title_en = "Serving engine profile " + p.label();
    rep.title_zh = "推理引擎配置 " + p.label();
    Section s{"properties", "What it does by default (each with its source)", "默认行为（附来源）", {}, {"property", "value", "source"}, {}};
    rep.csv_table = "properties";
    for (const EngineFact& f : p.facts) {
      const auto key_zh = engine_property_zh().find(f.key);
      s.records.push_back({Row{"property", "property", "属性", 0, Unit::kText, f.key, {}, Audience::kAll, key_zh == engine_property_zh().end() ? "" : key_zh->second},
                           Row{"value", "value", "取值", 0, Unit::kText, f.value, {}, Audience::kAll, engine_value_zh(f.value)},
                           Row{"source", "source", "来源", 0, Unit::kText, f.source, {}, Audience::kAll,
                               ours(f) ? "配置中未注明：采用 gpuplan 的默认值（data/engines/README.md）" : "来源：" + f.source}});
    }
    rep.sections.push_back(s);
    if (!p.note.empty()) rep.assumptions.push_back(Note{p.note, p.note_zh});
    rep.assumptions.push_back(Note{"Version " + p.version + " (" + p.date + "): " + p.version_source,
                                   "版本 " + p.version + "（" + p.date + "）依据的代码，来源：" + p.version_source});
    return rep;
  }
  rep.title_en = "Serving engine profiles";
  rep.title_zh = "推理引擎配置";
  Section s{"engines", "Engines", "推理引擎", {}, {"id", "name", "versions", "aliases"}, {}};
  rep.csv_table = "engines";
  for (const EngineFamily& fam : engine_catalog()) {
    std::vector<std::string> versions;
    for (const auto& v : fam.versions) versions.push_back(v.version);
    s.records.push_back({Row{"id", "id", "编号", 0, Unit::kText, fam.id}, Row{"name", "name", "名称", 0, Unit::kText, fam.name},
                         Row{"versions", "versions", "版本", 0, Unit::kText, "", versions},
                         Row{"aliases", "aliases", "别名", 0, Unit::kText, "", fam.aliases}});
  }
  rep.sections.push_back(s);
  rep.assumptions.push_back(Note{"A profile records what a serving engine does by default at a version (scheduler limits, KV-cache share, block size, "
                                 "CUDA graphs, host work per step), each value cited to its code or docs; it holds no speed factor. "
                                 "--engine NAME@VERSION picks one (gpuplan engines NAME shows it).",
                                 "推理引擎配置只记录引擎在某一版本的默认行为（调度上限、KV 缓存份额、块大小、CUDA Graph、每步主机端耗时），"
                                 "每项附其代码或文档出处，不含任何速度系数。用 --engine 名称@版本 选择（gpuplan engines 名称 查看）。"});
  return rep;
}

std::string engines_markdown() {
  std::string md =
      "# Serving engine profiles\n\n"
      "Generated from `data/engines/*.json` by `gpuplan engines --docs`; do not edit by hand (a test compares\n"
      "this page with the data). The format and the meaning of every property are in `data/engines/README.md`.\n"
      "A profile records what a serving engine does by default at a version (its scheduler limits, KV-cache\n"
      "share and block size, CUDA graphs, the host work per step), each value with a citation to that engine's\n"
      "own code or docs. It never holds a speed factor. `infer`, `validate` and the serving planner read the\n"
      "same profile; `--engine NAME@VERSION` takes the latest entry at or before that version.\n";
  for (const auto& fam : engine_catalog()) {
    md += fmt::format("\n## {} (`{}`)\n\n", fam.name, fam.id);
    if (!fam.repository.empty()) md += fmt::format("Repository: {}. ", fam.repository);
    std::string aliases;
    for (const auto& a : fam.aliases) aliases += (aliases.empty() ? "" : ", ") + ("`" + a + "`");
    if (!aliases.empty()) md += "Also named " + aliases + ".";
    md += "\n";
    for (const auto& v : fam.versions) {
      md += fmt::format("\n### `{}` ({})\n\nRead from: {}\n\n| property | value | source |\n|---|---|---|\n", v.label(), v.date, md_cell(v.version_source));
      for (const EngineFact& f : v.facts) md += fmt::format("| {} | {} | {} |\n", f.key, md_cell(f.value), md_cell(f.source));
    }
  }
  return md;
}

}  // namespace gpuplan
