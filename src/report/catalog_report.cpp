// gpuplan models / gpus as rows: what the built-in catalogs hold (the CLI,
// the Python module and the web API print these reports).
#include "report/catalog_report.hpp"
#include "units/quantity_text.hpp"

#include <map>
#include <fmt/format.h>
#include <limits>
#include <memory>
#include "report/engines_report.hpp"
#include "report/frameworks_report.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/model.hpp"
#include "units/text_match.hpp"
#include "report/train_report.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {
namespace {

// A table column's label in Chinese (the header people read; programs read the key).
std::string column_zh(const std::string& en) {
  static const std::map<std::string, std::string> zh = {
      {"id", "id"},           {"name", "名称"},        {"total", "总参数"},      {"active", "激活参数"},  {"layers", "层数"},
      {"hidden", "隐藏维度"}, {"heads", "注意力头"},   {"vocab", "词表"},        {"memory", "显存"},      {"HBM", "显存带宽 TB/s"},
      {"link", "互联"},       {"price", "价格"},       {"market", "市场"},       {"provider", "提供商"},  {"on-demand", "按需"},
      {"spot", "竞价"},       {"default", "默认"},     {"date", "日期"},         {"stale", "过时"},        {"source", "来源"},      {"KV heads", "KV 头"},
      {"GPUs per node", "每节点卡数"}, {"currency", "币种"}, {"heads/kv", "注意力头/KV"}};
  const auto it = zh.find(en);
  return it == zh.end() ? "" : it->second;
}

Row cell(const char* key, const std::string& en, double v, Unit u, std::string text = "") {
  return Row{key, en, column_zh(en), v, u, std::move(text)};
}
// The cell's text in Chinese (empty: the same as in English).
Row zh_text(Row r, std::string zh) {
  r.text_zh = std::move(zh);
  return r;
}
// The same value twice: in words for people (a table cell), as a number for programs.
Row people(Row r) { r.audience = Audience::kPeople; return r; }
Row programs(Row r) { r.audience = Audience::kPrograms; return r; }
constexpr double kNotKnown = std::numeric_limits<double>::quiet_NaN();  // JSON null

// One listing's price in the shown currency, as a number for programs.
Row price_number(const char* key, double per_hour, const std::string& quote_currency, Currency shown) {
  const Currency from = quote_currency == "CNY" ? Currency::kCny : Currency::kUsd;
  return programs(cell(key, key, per_hour > 0 ? convert(per_hour, from, shown) : kNotKnown, shown == Currency::kCny ? Unit::kCny : Unit::kUsd));
}
Row currency_cell(Currency shown) { return programs(cell("currency", "currency", 0, Unit::kText, shown == Currency::kCny ? "CNY" : "USD")); }

}  // namespace

Report models_report(const std::string& show) {
  Report rep;
  rep.command = "models";
  if (!show.empty()) {
    const ModelSpec m = find_model(show);
    rep.title_en = "Model " + m.name;
    rep.title_zh = "模型 " + m.name;
    rep.sections.push_back(model_section(m));
    Section src{"source", "Source", "来源", {}, {}, {}};
    src.rows.push_back(Row{"id", "Id", "编号", 0, Unit::kText, m.id});
    src.rows.push_back(Row{"source", "Config from", "配置来源", 0, Unit::kText, m.source});
    if (m.params_official > 0) src.rows.push_back(Row{"params_official", "Official count", "官方参数量", m.params_official, Unit::kParams});
    rep.sections.push_back(src);
    return rep;
  }
  rep.title_en = "Built-in models";
  rep.title_zh = "内置模型";
  Section s{"models", "Models", "模型", {}, {"id", "name", "total", "active", "layers", "hidden", "heads/kv", "vocab"}, {}};
  rep.csv_table = "models";
  for (const auto& e : model_catalog()) {
    const ParamCounts p = count_params(e.spec);
    const ModelSpec& m = e.spec;
    s.records.push_back({cell("id", "id", 0, Unit::kText, m.id), cell("name", "name", 0, Unit::kText, m.name),
                         cell("params_total", "total", p.total, Unit::kParams),
                         cell("params_active", "active", p.active, Unit::kParams),
                         cell("layers", "layers", static_cast<double>(m.layers), Unit::kCount),
                         cell("hidden", "hidden", static_cast<double>(m.hidden), Unit::kCount),
                         people(cell("heads", "heads/kv", 0, Unit::kText, m.mla ? fmt::format("{}/MLA", m.heads) : fmt::format("{}/{}", m.heads, m.kv_heads))),
                         cell("vocab", "vocab", static_cast<double>(m.vocab), Unit::kCount),
                         programs(cell("heads", "heads", static_cast<double>(m.heads), Unit::kCount)),
                         programs(cell("kv_heads", "KV heads", static_cast<double>(m.kv_heads), Unit::kCount)),
                         programs(cell("mla", "MLA", m.mla ? 1 : 0, Unit::kFlag)),
                         programs(cell("moe", "MoE", m.is_moe() ? 1 : 0, Unit::kFlag)),
                         programs(Row{"aliases", "aliases", "", 0, Unit::kText, "", e.aliases})});
  }
  rep.sections.push_back(s);
  return rep;
}

// The intra-node link in Chinese: its words translated (NVLink 3（受出口管制限速）), a bare name as it is.
namespace {

std::string link_zh(const GpuSpec& g) { return g.intra_link_zh.empty() ? g.intra_link : g.intra_link_zh; }

std::string tflops(const GpuSpec& g, Precision p) {
  return g.has(p) ? format_sig(g.peak(p) / kTera, 4) : "—";
}

// One listing's price in the shown currency: "¥12.00/h" or "$4.76/h".
std::string price_text(double per_hour, const std::string& quote_currency, Currency shown) {
  const Currency from = quote_currency == "CNY" ? Currency::kCny : Currency::kUsd;
  return fmt::format("{}{:.2f}/h", shown == Currency::kCny ? "¥" : "$", convert(per_hour, from, shown));
}

// Every listing of one GPU, both markets, in the shown currency.
Section prices_section(const GpuSpec& g, Currency shown) {
  Section s{"prices", "Rental listings (per GPU-hour)", "租用报价（每卡时）", {}, {"market", "provider", "on-demand", "spot", "default", "date", "stale", "source"}, {}};
  for (const PriceQuote* q : prices_for(g.id)) {
    s.records.push_back({zh_text(cell("market", "market", 0, Unit::kText, market_code(q->market)), q->market == Market::kCn ? "国内" : "美国"), zh_text(cell("provider", "provider", 0, Unit::kText, q->provider), q->provider_zh),
                         people(cell("on_demand", "on-demand", 0, Unit::kText, price_text(q->on_demand_per_gpu_hour, q->currency, shown))),
                         people(cell("spot", "spot", 0, Unit::kText,
                              q->spot_per_gpu_hour > 0 ? price_text(q->spot_per_gpu_hour, q->currency, shown) : "—")),
                         price_number("on_demand_per_gpu_hour", q->on_demand_per_gpu_hour, q->currency, shown),
                         price_number("spot_per_gpu_hour", q->spot_per_gpu_hour, q->currency, shown), currency_cell(shown),
                         zh_text(cell("default", "default", 0, Unit::kText, q->is_default ? market_code(q->market) : ""), q->is_default ? "是" : ""),
                         zh_text(cell("date", "date", 0, Unit::kText, q->date.empty() ? "undated" : q->date), q->date.empty() ? "未注明日期" : q->date),
                         // Over 12 months old or undated: not among the listings a default is the median of, unless none is newer.
                         zh_text(cell("stale", "stale", 0, Unit::kText, q->stale ? "stale" : ""), q->stale ? "已过时" : ""),
                         // The listing's source quoted as published, labelled as a quote in Chinese.
                         zh_text(cell("source", "source", 0, Unit::kText, q->source), "来源：" + q->source)});
  }
  return s;
}

// An architecture as its vendor names it, in English and as Chinese writes it
// (Huawei's 达芬奇 for Da Vinci); data/gpus.json holds the lower-case id.
struct ArchitectureName {
  const char* id;
  const char* en;
  const char* zh;
};
constexpr ArchitectureName kArchitectureNames[] = {
    {"volta", "Volta", "Volta"},         {"ampere", "Ampere", "Ampere"},       {"ada", "Ada Lovelace", "Ada"},
    {"hopper", "Hopper", "Hopper"},      {"blackwell", "Blackwell", "Blackwell"}, {"cdna2", "CDNA 2", "CDNA 2"},
    {"cdna3", "CDNA 3", "CDNA 3"},       {"davinci", "Da Vinci", "达芬奇"},     {"tpu", "TPU", "TPU"}};

ArchitectureName architecture_name(const std::string& id) {
  for (const auto& a : kArchitectureNames) {
    if (id == a.id) return a;
  }
  return {id.c_str(), id.c_str(), id.c_str()};  // unreachable: the catalog accepts only these ids
}

}  // namespace

Report gpus_report(const std::string& show, Market market, Currency shown) {
  Report rep;
  rep.command = "gpus";
  if (!show.empty()) {
    const GpuSpec& g = find_gpu(show);
    rep.title_en = g.name;
    rep.title_zh = g.name;
    Section s{"gpu", "Specification", "规格", {}, {}, {}};
    s.rows.push_back(Row{"id", "Id", "编号", 0, Unit::kText, g.id});
    const ArchitectureName arch = architecture_name(g.architecture);
    s.rows.push_back(Row{"architecture", "Architecture", "架构", 0, Unit::kText, arch.en, {}, Audience::kAll, arch.zh});
    s.rows.push_back(Row{"compute_units", "Compute units (SMs, CUs or AI cores)", "计算单元数", static_cast<double>(g.compute_units), Unit::kCount});
    s.rows.push_back(Row{"memory_bytes", "Memory", "显存", g.memory_bytes, Unit::kBytes});
    s.rows.push_back(Row{"hbm_bytes_per_s", "Memory bandwidth", "显存带宽", g.hbm_bytes_per_s, Unit::kBytesPerS});
    const std::pair<const char*, Precision> kinds[] = {{"fp32", Precision::kFp32}, {"tf32", Precision::kTf32}, {"bf16", Precision::kBf16},
                                                       {"fp16", Precision::kFp16}, {"fp8", Precision::kFp8},   {"int8", Precision::kInt8}};
    for (const auto& [name, p] : kinds) {
      // A peak the catalog leaves empty is either absent from the silicon or
      // listed by no source; its source line says which ("unknown: …").
      const auto src = g.sources.find(fmt::format("peak_tflops.{}", name));
      const bool unknown = src != g.sources.end() && src->second.rfind("unknown", 0) == 0;
      Row r{fmt::format("peak_{}_flop_per_s", name), fmt::format("Dense peak {}", name), fmt::format("{} 稠密峰值", name), 0, Unit::kText,
            unknown ? "unknown (no source lists it)" : "not supported", {}, Audience::kAll, unknown ? "未知（没有来源给出）" : "不支持"};
      if (g.has(p)) { r.value = g.peak(p); r.unit = Unit::kFlopPerS; r.text.clear(); r.text_zh.clear(); }
      s.rows.push_back(r);
    }
    s.rows.push_back(Row{"intra_link", "Intra-node link", "节点内互联", 0, Unit::kText, g.intra_link.empty() ? "PCIe only" : g.intra_link, {}, Audience::kAll,
                         g.intra_link.empty() ? "仅 PCIe" : link_zh(g)});
    s.rows.push_back(Row{"intra_bytes_per_s", "Intra-node bandwidth per GPU, one direction", "节点内每卡单向带宽", g.intra_bytes_per_s, Unit::kBytesPerS});
    // Unknown (0 in the spec) is shown as such, never as a zero.
    if (g.pcie_gen > 0) s.rows.push_back(Row{"pcie_gen", "PCIe generation", "PCIe 代数", static_cast<double>(g.pcie_gen), Unit::kCount});
    else s.rows.push_back(Row{"pcie_gen", "PCIe generation", "PCIe 代数", kNotKnown, Unit::kCount});  // "–" in the table, null in JSON
    if (g.tdp_w > 0) s.rows.push_back(Row{"tdp_w", "TDP (W)", "功耗（W）", g.tdp_w, Unit::kCount});
    else s.rows.push_back(Row{"tdp_w", "TDP (W)", "功耗（W）", 0, Unit::kText, "unknown", {}, Audience::kAll, "未知"});
    s.rows.push_back(Row{"gpus_per_node", "GPUs per node (default)", "每节点卡数（默认）", static_cast<double>(g.gpus_per_node), Unit::kCount});
    s.rows.push_back(Row{"scaleout_bytes_per_s", "Scale-out per GPU, one direction", "跨节点每卡单向带宽", g.scaleout_bytes_per_s, Unit::kBytesPerS, g.scaleout,
                         {}, Audience::kAll, g.scaleout_zh});
    s.rows.push_back(Row{"aliases", "Aliases", "别名", 0, Unit::kText, "", g.aliases});
    rep.sections.push_back(s);
    Section src{"sources", "Sources", "来源", {}, {}, {}};
    // Each source quoted as published, labelled as a quote in Chinese (来源：…).
  // Labelled by the data field; the one plain word among them in Chinese.
    for (const auto& [k, v] : g.sources) src.rows.push_back(Row{k, k, k == "architecture" ? "架构" : k, 0, Unit::kText, v, {}, Audience::kAll, "来源：" + v});
    if (!g.notes.empty()) src.rows.push_back(Row{"notes", "Notes", "备注", 0, Unit::kText, g.notes, {}, Audience::kAll, g.notes_zh});
    rep.sections.push_back(src);
    if (!prices_for(g.id).empty()) rep.sections.push_back(prices_section(g, shown));
    return rep;
  }
  rep.title_en = "Built-in GPUs (dense peaks, TFLOP/s)";
  rep.title_zh = "内置 GPU（稠密峰值 TFLOP/s）";
  Section s{"gpus", "GPUs", "GPU", {}, {"id", "memory", "HBM TB/s", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "link",
                                        fmt::format("price ({})", market_code(market))}, {}};
  rep.inputs["market"] = market_code(market);
  rep.csv_table = "gpus";
  // A dense peak in FLOP/s (null: the GPU has no such unit).
  auto peak = [](const GpuSpec& g, Precision p, const char* name) {
    const std::string key = fmt::format("peak_{}_flop_per_s", name);
    return programs(Row{key, key, "", g.has(p) ? g.peak(p) : kNotKnown, Unit::kFlopPerS, ""});
  };
  for (const auto& g : gpu_catalog()) {
    const PriceQuote* q = default_price(g.id, market);
    std::string price = q ? price_text(q->on_demand_per_gpu_hour, q->currency, shown) : "—";
    s.records.push_back({cell("id", "id", 0, Unit::kText, g.id), cell("memory_bytes", "memory", g.memory_bytes, Unit::kBytes),
                         people(cell("hbm_tbps", "HBM", 0, Unit::kText, format_sig(g.hbm_bytes_per_s / kTera, 3))),
                         people(cell("fp32", "fp32", 0, Unit::kText, tflops(g, Precision::kFp32))),
                         people(cell("tf32", "tf32", 0, Unit::kText, tflops(g, Precision::kTf32))),
                         people(cell("bf16", "bf16", 0, Unit::kText, tflops(g, Precision::kBf16))),
                         people(cell("fp16", "fp16", 0, Unit::kText, tflops(g, Precision::kFp16))),
                         people(cell("fp8", "fp8", 0, Unit::kText, tflops(g, Precision::kFp8))),
                         people(cell("int8", "int8", 0, Unit::kText, tflops(g, Precision::kInt8))),
                         zh_text(cell("link", "link", 0, Unit::kText, g.intra_link.empty() ? "PCIe" : g.intra_link), g.intra_link.empty() ? "PCIe" : link_zh(g)),
                         people(cell("default_price", "price", 0, Unit::kText, price)),
                         // For programs: SI units, null where the GPU has no such unit or no price is known.
                         programs(cell("hbm_bytes_per_s", "HBM", g.hbm_bytes_per_s, Unit::kBytesPerS)),
                         peak(g, Precision::kFp32, "fp32"), peak(g, Precision::kTf32, "tf32"), peak(g, Precision::kBf16, "bf16"),
                         peak(g, Precision::kFp16, "fp16"), peak(g, Precision::kFp8, "fp8"), peak(g, Precision::kInt8, "int8"),
                         programs(cell("gpus_per_node", "GPUs per node", static_cast<double>(g.gpus_per_node), Unit::kCount)),
                         programs(Row{"aliases", "aliases", "", 0, Unit::kText, "", g.aliases}),
                         price_number("default_price_per_gpu_hour", q ? q->on_demand_per_gpu_hour : 0, q ? q->currency : "USD", shown),
                         currency_cell(shown),
                         programs(cell("default_price_provider", "provider", 0, Unit::kText, q ? q->provider : ""))});
  }
  rep.sections.push_back(s);
  rep.assumptions.push_back({"Each number has its source (datasheet, paper or measurement) and notes: gpuplan gpus ID, e.g. gpuplan gpus 910b2.",
                             "每个数字都有来源（规格书、论文或实测）与说明：gpuplan gpus 型号，例如 gpuplan gpus 910b2。"});
  return rep;
}


}  // namespace gpuplan
