// Framework profiles as a report and as docs/frameworks.md.
#include "report/frameworks_report.hpp"

#include <fmt/format.h>

#include <map>

#include "gpuplan/framework.hpp"

namespace gpuplan {

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
      // The value in Chinese where it is a word; the source quoted as published, labelled (来源：…),
      // except gpuplan's own default, which is gpuplan's text.
      static const std::map<std::string, std::string> value_zh = {
          {"true", "是"}, {"false", "否"}, {"tunable", "可调"}, {"optional", "可选"}, {"none", "无"},
          {"foreach", "多张量批量核"}, {"per_tensor", "逐张量循环"}, {"bucketed", "分桶"}, {"fsdp_unit", "按 FSDP 单元"}};
      const auto v = value_zh.find(p.value);
      const bool ours = p.source.rfind("not stated in the profile", 0) == 0;
      s.records.push_back({Row{"property", "property", "属性", 0, Unit::kText, p.key},
                           Row{"value", "value", "取值", 0, Unit::kText, p.value, {}, Audience::kAll, v == value_zh.end() ? "" : v->second},
                           Row{"source", "source", "来源", 0, Unit::kText, p.source, {}, Audience::kAll,
                               ours ? "配置中未注明：采用 gpuplan 的默认值（data/frameworks/README.md）" : "来源：" + p.source}});
    }
    rep.sections.push_back(s);
    rep.assumptions.push_back(Note{"Version " + f.version + " (" + f.date + "): " + f.version_source, "版本 " + f.version + "（" + f.date + "）：" + f.version_source});
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
