#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "gpuplan/error.hpp"
#include "report/report.hpp"
#include "units/text_match.hpp"
#include "gpuplan/units.hpp"
#include "units/quantity_text.hpp"

namespace gpuplan {

Format parse_format(const std::string& text) {
  const std::string t = normalize_name(text);
  if (t == "table" || t == "text") return Format::kTable;
  if (t == "json") return Format::kJson;
  if (t == "csv") return Format::kCsv;
  if (t == "markdown" || t == "md") return Format::kMarkdown;
  throw InputError("--format", fmt::format("--format must be table, json, csv or markdown (got '{}').", text),
                   fmt::format("--format 须为 table（表格）、json、csv 或 markdown（输入为 '{}'）。", text));
}

Lang parse_lang(const std::string& text) {
  const std::string t = normalize_name(text);
  if (t == "en" || t == "english") return Lang::kEn;
  if (t == "zh" || t == "cn" || t == "zh-cn" || t == "chinese") return Lang::kZh;
  throw InputError("--lang", fmt::format("--lang must be en or zh (got '{}').", text), fmt::format("--lang 须为 en（英文）或 zh（中文）（输入为 '{}'）。", text));
}

std::string format_seconds(double seconds, Lang lang) {
  return format_value(Row{"duration_s", "", "", seconds, Unit::kSeconds, ""}, lang);
}

std::string format_value(const Row& row, Lang lang) {
  const bool zh = lang == Lang::kZh;
  const double v = row.value;
  if (row.unit == Unit::kText && !row.list.empty()) return join(row.list, ", ");
  // Not applicable or not known (a table cell of an infeasible candidate, a peak the GPU lacks): a dash, null in JSON.
  if (!std::isfinite(v) && row.unit != Unit::kText && row.unit != Unit::kFlag) return "–";
  std::string out;
  switch (row.unit) {
    case Unit::kText: return zh && !row.text_zh.empty() ? row.text_zh : row.text;
    case Unit::kFlop: out = v == 0 ? "0 FLOP" : fmt::format("{} ({:.3g} FLOP)", format_si(v, "FLOP"), v); break;
    case Unit::kFlopPerS: out = format_si(v, "FLOP/s"); break;
    case Unit::kSeconds:
      out = v >= 2 * kSecondsPerDay ? fmt::format("{} ({} h)", format_duration(v), format_thousands(v / 3600, 0))
                                    : format_duration(v);
      if (zh) {
        out = v >= 2 * kSecondsPerDay ? fmt::format("{}（{} 小时）", format_duration_zh(v), format_thousands(v / 3600, 0))
                                      : format_duration_zh(v);
      }
      break;
    case Unit::kGpuHours: out = format_thousands(v, v < 100 ? 1 : 0) + (zh ? " 卡时" : " GPU-hours"); break;
    case Unit::kGpuDays: out = format_thousands(v, v < 100 ? 1 : 0) + (zh ? " 卡天" : " GPU-days"); break;
    case Unit::kCount: out = std::fabs(v) >= 1e15 ? fmt::format("{:.4g}", v) : format_thousands(v, v == std::floor(v) ? 0 : 2); break;
    case Unit::kParams:
      // Parameter counts read in billions ("70.55B"), as model cards write them.
      out = std::fabs(v) >= 1e9 ? format_sig(v / 1e9, 4) + "B" : std::fabs(v) >= 1e6 ? format_sig(v / 1e6, 4) + "M" : format_thousands(v);
      out += zh ? " 参数" : " params";
      break;
    case Unit::kGpus: out = format_thousands(v, v == std::floor(v) ? 0 : 1) + (zh ? " 卡" : " GPUs"); break;
    case Unit::kFraction: out = fmt::format("{:.1f}%", v * 100); break;
    case Unit::kBytes: out = fmt::format("{} GiB", format_sig(v / kGiB, 4)); break;
    case Unit::kBytesPerS: out = format_si(v, "B/s"); break;
    case Unit::kUsd: out = "$" + format_thousands(v, std::fabs(v) < 100 ? 2 : 0); break;
    case Unit::kCny: out = "¥" + format_thousands(v, std::fabs(v) < 100 ? 2 : 0); break;
    case Unit::kFlag: out = v != 0 ? (zh ? "是" : "yes") : (zh ? "否" : "no"); break;
  }
  const std::string& note = zh && !row.text_zh.empty() ? row.text_zh : row.text;
  if (!note.empty()) out += "  " + note;
  return out;
}

const RowRange* find_range(const Report& rep, const std::string& section, const std::string& key) {
  for (const auto& r : rep.ranges) {
    if (r.section == section && r.key == key) return &r;
  }
  return nullptr;
}

std::string format_range(const Row& row, const RowRange& range, Lang lang) {
  Row lo = row, hi = row;
  lo.text.clear();
  hi.text.clear();
  lo.value = range.low;
  hi.value = range.high;
  std::string physics;
  if (range.physics) {
    Row ph = row;
    ph.text.clear();
    ph.value = *range.physics;
    physics = format_value(ph, lang);
  }
  if (lang == Lang::kZh) {
    return fmt::format("{:.0f}% 区间 {} 至 {}{}", range.level * 100, format_value(lo, lang), format_value(hi, lang),
                       physics.empty() ? "" : "；理想软件栈物理估计 " + physics);
  }
  return fmt::format("{:.0f}% range {} – {}{}", range.level * 100, format_value(lo, lang), format_value(hi, lang),
                     physics.empty() ? "" : "; ideal-stack physics " + physics);
}

namespace {

// A row's value as shown, with its range beside it where it has one.
std::string shown_value(const Report& rep, const Section& s, const Row& r, Lang lang) {
  std::string out = format_value(r, lang);
  if (const RowRange* range = find_range(rep, s.key, r.key)) out += "  (" + format_range(r, *range, lang) + ")";
  return out;
}

// Display width: CJK characters take two terminal columns.
size_t display_width(const std::string& s) {
  size_t width = 0;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) { width += 1; i += 1; }
    else if ((c >> 5) == 0x6) { width += 1; i += 2; }
    else if ((c >> 4) == 0xE) { width += c >= 0xE3 ? 2 : 1; i += 3; }  // CJK from U+3000 is double width
    else { width += 2; i += 4; }
  }
  return width;
}

std::string pad(const std::string& s, size_t width) {
  const size_t w = display_width(s);
  return s + std::string(w < width ? width - w : 0, ' ');
}

const std::string& label(const Row& r, Lang lang) { return lang == Lang::kZh && !r.zh.empty() ? r.zh : r.en; }
const std::string& title(const Section& s, Lang lang) { return lang == Lang::kZh && !s.zh.empty() ? s.zh : s.en; }
const std::string& note_text(const Note& n, Lang lang) { return lang == Lang::kZh && !n.zh.empty() ? n.zh : n.en; }

std::string blocking_block(const Report& rep, Lang lang, const char* bullet) {
  std::string out;
  if (rep.blocking.empty()) return out;
  out += lang == Lang::kZh ? "\n请先看这里（下面的数字依赖于此）\n" : "\nRead first (the numbers below depend on it)\n";
  for (const auto& b : rep.blocking) out += std::string(bullet) + note_text(b, lang) + "\n";
  return out;
}

bool for_people(const Row& r) { return r.audience != Audience::kPrograms; }
bool for_programs(const Row& r) { return r.audience != Audience::kPeople; }

// A record's cells for people, in the order of the section's columns.
std::vector<Row> people_cells(const std::vector<Row>& rec) {
  std::vector<Row> out;
  for (const auto& r : rec) {
    if (for_people(r)) out.push_back(r);
  }
  return out;
}

// A table's column headers: the section's (English) names, or in Chinese the
// first record's cell labels, where they have one.
std::vector<std::string> column_headers(const Section& s, Lang lang) {
  std::vector<std::string> out = s.columns;
  if (lang != Lang::kZh || s.records.empty()) return out;
  const std::vector<Row> first = people_cells(s.records.front());
  for (size_t c = 0; c < out.size() && c < first.size(); ++c) {
    if (!first[c].zh.empty()) out[c] = first[c].zh;
  }
  return out;
}

constexpr double kExactInDouble = 9007199254740992.0;  // 2^53: every integer below it is exact in a double

// A count as programs read it: an integer (2048, not 2048.0), or none (a
// fraction, or too large to be exact). A count that is whole is written as
// one; a byte count always is, to the nearest byte: memory is allocated in
// whole bytes, and an estimate's fraction of a byte (1.5 GiB of activations
// per 7 micro-batches) is no information (34359738368, not 34359738368.0).
std::optional<int64_t> integer_count(const Row& r) {
  if (!std::isfinite(r.value) || std::fabs(r.value) >= kExactInDouble) return std::nullopt;
  if (r.unit == Unit::kBytes) return static_cast<int64_t>(std::llround(r.value));
  if ((r.unit == Unit::kCount || r.unit == Unit::kGpus || r.unit == Unit::kParams) && std::floor(r.value) == r.value) {
    return static_cast<int64_t>(r.value);
  }
  return std::nullopt;
}

nlohmann::json row_value(const Row& r) {
  if (r.unit == Unit::kText) return r.list.empty() ? nlohmann::json(r.text) : nlohmann::json(r.list);
  if (r.unit == Unit::kFlag) return r.value != 0;
  if (!std::isfinite(r.value)) return nullptr;
  if (const auto n = integer_count(r)) return *n;
  return r.value;
}

std::string render_table(const Report& rep, Lang lang) {
  std::string out;
  const std::string& t = lang == Lang::kZh && !rep.title_zh.empty() ? rep.title_zh : rep.title_en;
  if (!t.empty()) out += t + "\n" + std::string(std::min<size_t>(display_width(t), 78), '=') + "\n";
  out += blocking_block(rep, lang, "  !! ");
  for (const auto& s : rep.sections) {
    out += "\n" + title(s, lang) + "\n";
    if (!s.columns.empty()) {
      const std::vector<std::string> headers = column_headers(s, lang);
      std::vector<size_t> widths(s.columns.size(), 0);
      std::vector<std::vector<std::string>> cells;
      for (size_t c = 0; c < s.columns.size(); ++c) widths[c] = display_width(headers[c]);
      for (const auto& all : s.records) {
        const std::vector<Row> rec = people_cells(all);
        std::vector<std::string> line;
        for (size_t c = 0; c < rec.size() && c < s.columns.size(); ++c) {
          line.push_back(format_value(rec[c], lang));
          widths[c] = std::max(widths[c], display_width(line.back()));
        }
        cells.push_back(line);
      }
      std::string header = "  ";
      for (size_t c = 0; c < s.columns.size(); ++c) header += pad(headers[c], widths[c] + 2);
      out += header + "\n";
      for (const auto& line : cells) {
        std::string l = "  ";
        for (size_t c = 0; c < line.size(); ++c) l += pad(line[c], widths[c] + 2);
        out += l + "\n";
      }
      continue;
    }
    size_t width = 0;
    for (const auto& r : s.rows) width = std::max(width, display_width(label(r, lang)));
    for (const auto& r : s.rows) {
      if (for_people(r)) out += "  " + pad(label(r, lang), width + 2) + shown_value(rep, s, r, lang) + "\n";
    }
  }
  if (!rep.assumptions.empty()) {
    out += lang == Lang::kZh ? "\n假设\n" : "\nAssumptions\n";
    for (const auto& a : rep.assumptions) out += "  - " + note_text(a, lang) + "\n";
  }
  if (!rep.warnings.empty()) {
    out += lang == Lang::kZh ? "\n警告\n" : "\nWarnings\n";
    for (const auto& w : rep.warnings) out += "  ! " + note_text(w, lang) + "\n";
  }
  return out;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += "\"\"";
    else out += c;
  }
  return out + "\"";
}

std::string raw_value(const Row& r) {
  if (r.unit == Unit::kText) return r.list.empty() ? r.text : join(r.list, ";");
  if (r.unit == Unit::kFlag) return r.value != 0 ? "true" : "false";
  if (!std::isfinite(r.value)) return "";  // not applicable: an empty cell
  if (const auto n = integer_count(r)) return fmt::format("{}", *n);
  return fmt::format("{:.17g}", r.value);
}

const char* unit_name(Unit u) {
  switch (u) {
    case Unit::kText: return "";
    case Unit::kFlop: return "FLOP";
    case Unit::kFlopPerS: return "FLOP/s";
    case Unit::kSeconds: return "s";
    case Unit::kGpuHours: return "GPU-hours";
    case Unit::kGpuDays: return "GPU-days";
    case Unit::kCount: return "count";
    case Unit::kParams: return "parameters";
    case Unit::kGpus: return "GPUs";
    case Unit::kFraction: return "fraction";
    case Unit::kBytes: return "bytes";
    case Unit::kBytesPerS: return "bytes/s";
    case Unit::kUsd: return "USD";
    case Unit::kCny: return "CNY";
    case Unit::kFlag: return "boolean";
  }
  return "";
}

// The group's fields ("gpu", "gpus") as CSV columns.
std::vector<std::string> group_columns(const Report& rep) {
  std::vector<std::string> cols;
  for (const auto& s : rep.sections) {
    if (s.key != rep.csv_table || !s.group.is_object()) continue;
    for (auto it = s.group.begin(); it != s.group.end(); ++it) {
      if (std::find(cols.begin(), cols.end(), it.key()) == cols.end()) cols.push_back(it.key());
    }
  }
  return cols;
}

std::string json_cell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_escape(v.get<std::string>());
  return v.dump();
}

// One line per record of the csv_table sections: the group's fields, then the
// records' keys (the first record's order, later new keys after), values raw.
std::string render_csv_table(const Report& rep) {
  const std::vector<std::string> gcols = group_columns(rep);
  std::vector<std::string> cols;
  for (const auto& s : rep.sections) {
    if (s.key != rep.csv_table) continue;
    for (const auto& rec : s.records) {
      for (const auto& r : rec) {
        if (for_programs(r) && std::find(cols.begin(), cols.end(), r.key) == cols.end()) cols.push_back(r.key);
      }
    }
  }
  std::string out;
  for (const auto& c : gcols) out += c + ",";
  for (size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + cols[i];
  out += "\n";
  for (const auto& s : rep.sections) {
    if (s.key != rep.csv_table) continue;
    for (const auto& rec : s.records) {
      std::string line;
      for (const auto& c : gcols) line += (s.group.is_object() && s.group.contains(c) ? json_cell(s.group[c]) : "") + ",";
      for (size_t i = 0; i < cols.size(); ++i) {
        if (i) line += ",";
        for (const auto& r : rec) {
          if (r.key == cols[i] && for_programs(r)) {
            line += csv_escape(raw_value(r));
            break;
          }
        }
      }
      out += line + "\n";
    }
  }
  return out;
}

std::string render_csv(const Report& rep, Lang lang) {
  if (!rep.csv_table.empty()) return render_csv_table(rep);
  std::string out = "section,key,label,value,unit\n";
  for (size_t i = 0; i < rep.blocking.size(); ++i) {
    out += fmt::format("blocking,{},{},{},\n", i, csv_escape(lang == Lang::kZh ? "请先看" : "read first"), csv_escape(note_text(rep.blocking[i], lang)));
  }
  for (const auto& s : rep.sections) {
    if (!s.columns.empty()) {
      for (size_t i = 0; i < s.records.size(); ++i) {
        for (const auto& r : s.records[i]) {
          if (!for_programs(r)) continue;
          out += fmt::format("{},{}.{},{},{},{}\n", s.key, i, r.key, csv_escape(label(r, lang)), csv_escape(raw_value(r)),
                             unit_name(r.unit));
        }
      }
      continue;
    }
    for (const auto& r : s.rows) {
      if (!for_programs(r)) continue;
      out += fmt::format("{},{},{},{},{}\n", s.key, r.key, csv_escape(label(r, lang)), csv_escape(raw_value(r)),
                         unit_name(r.unit));
      if (const RowRange* range = find_range(rep, s.key, r.key)) {
        const std::string level = fmt::format("{:.0f}%", range->level * 100);
        Row end = r;  // the ends written as the row is (a byte count's ends are byte counts)
        end.value = range->low;
        out += fmt::format("{},{}_low,{},{},{}\n", s.key, r.key, csv_escape(label(r, lang) + " (" + level + " low)"), raw_value(end), unit_name(r.unit));
        end.value = range->high;
        out += fmt::format("{},{}_high,{},{},{}\n", s.key, r.key, csv_escape(label(r, lang) + " (" + level + " high)"), raw_value(end), unit_name(r.unit));
        if (range->physics) {
          end.value = *range->physics;
          out += fmt::format("{},{}_physics,{},{},{}\n", s.key, r.key, csv_escape(label(r, lang) + " (ideal-stack physics)"), raw_value(end),
                             unit_name(r.unit));
        }
      }
    }
  }
  return out;
}

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  return out;
}

std::string render_markdown(const Report& rep, Lang lang) {
  std::string out;
  const std::string& t = lang == Lang::kZh && !rep.title_zh.empty() ? rep.title_zh : rep.title_en;
  if (!t.empty()) out += "# " + t + "\n";
  out += blocking_block(rep, lang, "> **!** ");
  for (const auto& s : rep.sections) {
    out += "\n## " + title(s, lang) + "\n\n";
    if (!s.columns.empty()) {
      out += "|";
      for (const auto& c : column_headers(s, lang)) out += " " + md_escape(c) + " |";
      out += "\n|";
      for (size_t c = 0; c < s.columns.size(); ++c) out += "---|";
      out += "\n";
      for (const auto& rec : s.records) {
        out += "|";
        for (const auto& r : people_cells(rec)) out += " " + md_escape(format_value(r, lang)) + " |";
        out += "\n";
      }
      continue;
    }
    out += lang == Lang::kZh ? "| 项目 | 数值 |\n|---|---|\n" : "| item | value |\n|---|---|\n";
    for (const auto& r : s.rows) {
      if (for_people(r)) out += "| " + md_escape(label(r, lang)) + " | " + md_escape(shown_value(rep, s, r, lang)) + " |\n";
    }
  }
  if (!rep.assumptions.empty()) {
    out += lang == Lang::kZh ? "\n## 假设\n\n" : "\n## Assumptions\n\n";
    for (const auto& a : rep.assumptions) out += "- " + note_text(a, lang) + "\n";
  }
  if (!rep.warnings.empty()) {
    out += lang == Lang::kZh ? "\n## 警告\n\n" : "\n## Warnings\n\n";
    for (const auto& w : rep.warnings) out += "- " + note_text(w, lang) + "\n";
  }
  return out;
}

}  // namespace

nlohmann::json json_count(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (std::floor(v) == v && std::fabs(v) < kExactInDouble) return static_cast<int64_t>(v);
  return v;
}

nlohmann::json json_bytes(double v) {
  Row r;
  r.unit = Unit::kBytes;
  r.value = v;
  return row_value(r);
}

namespace {
// A section's JSON goes under its key; a dotted key ("cost.converted") nests it
// in the object of the section named before the dot, so one object can hold
// everything about, say, the cost while people read it as several tables.
void place(nlohmann::json& doc, const std::string& key, nlohmann::json value) {
  const size_t dot = key.find('.');
  if (dot == std::string::npos) {
    doc[key] = std::move(value);
    return;
  }
  nlohmann::json& parent = doc[key.substr(0, dot)];
  if (!parent.is_object()) parent = nlohmann::json::object();
  place(parent, key.substr(dot + 1), std::move(value));
}
}  // namespace

nlohmann::json to_json(const Report& rep) {
  nlohmann::json j = nlohmann::json::object();
  j["schema_version"] = kJsonSchemaVersion;
  j["command"] = rep.command;
  j["inputs"] = rep.inputs;
  for (const auto& s : rep.sections) {
    nlohmann::json value;
    if (!s.columns.empty()) {
      value = nlohmann::json::array();
      for (const auto& rec : s.records) {
        nlohmann::json o = nlohmann::json::object();
        for (const auto& r : rec) {
          if (for_programs(r)) o[r.key] = row_value(r);
        }
        value.push_back(o);
      }
    } else {
      value = nlohmann::json::object();
      for (const auto& r : s.rows) {
        if (!for_programs(r)) continue;
        value[r.key] = row_value(r);
        if (const RowRange* range = find_range(rep, s.key, r.key)) {
          // The range's ends in the row's own type (a byte count's ends are byte counts).
          Row end = r;
          end.value = range->low;
          value[r.key + "_low"] = row_value(end);
          end.value = range->high;
          value[r.key + "_high"] = row_value(end);
          if (range->physics) {
            end.value = *range->physics;
            value[r.key + "_physics"] = row_value(end);
          }
        }
      }
    }
    if (s.group.is_null()) {
      place(j, s.key, std::move(value));
      continue;
    }
    // A group's section: into the group's object (created at its first section, in order).
    nlohmann::json& groups = j["groups"];
    if (groups.is_null()) groups = nlohmann::json::array();
    // A group's object holds its identifying fields, then its sections.
    auto same_group = [&](const nlohmann::json& g) {
      for (auto f = s.group.begin(); f != s.group.end(); ++f) {
        if (!g.contains(f.key()) || g[f.key()] != f.value()) return false;
      }
      return true;
    };
    auto it = std::find_if(groups.begin(), groups.end(), same_group);
    if (it == groups.end()) {
      groups.push_back(s.group);
      it = groups.end() - 1;
    }
    place(*it, s.key, std::move(value));
  }
  if (!rep.ranges.empty()) j["interval_level"] = rep.ranges.front().level;
  nlohmann::json b = nlohmann::json::array();
  for (const auto& n : rep.blocking) b.push_back(n.en);
  if (!rep.blocking.empty()) j["blocking_warnings"] = b;
  nlohmann::json a = nlohmann::json::array();
  for (const auto& n : rep.assumptions) a.push_back(n.en);
  j["assumptions"] = a;
  nlohmann::json w = nlohmann::json::array();
  for (const auto& n : rep.warnings) w.push_back(n.en);
  j["warnings"] = w;
  return j;
}

std::string render(const Report& report, Format format, Lang lang) {
  switch (format) {
    case Format::kTable: return render_table(report, lang);
    case Format::kJson: return to_json(report).dump(2) + "\n";
    case Format::kCsv: return render_csv(report, lang);
    case Format::kMarkdown: return render_markdown(report, lang);
  }
  return "";
}

}  // namespace gpuplan
