// A Report is what every command produces: sections of rows, each a number
// with its unit (or a text), plus the assumptions behind them and warnings.
// Renderers turn it into a table (English or Chinese), JSON, CSV or Markdown;
// estimators never print.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuplan/bilingual.hpp"  // Note
#include "gpuplan/units.hpp"  // Unit

namespace gpuplan {

// The version of the JSON documents (docs/json-schema/*.json): every document
// carries it as "schema_version". Raised when a key is removed or changes
// meaning; adding a key keeps it.
inline constexpr int kJsonSchemaVersion = 3;

// Who a row is for: both, or one side only, where people read a value in words
// ("tp 8 × pp 1 × dp 256") that a program reads as numbers (tp, pp, dp).
enum class Audience { kAll, kPeople /* table, Markdown */, kPrograms /* JSON, CSV */ };

struct Row {
  std::string key;   // stable JSON key, unit in the name: total_flop, wall_clock_s, cost_cny
  std::string en;    // label
  std::string zh;
  double value = 0;
  Unit unit = Unit::kText;
  std::string text;  // for kText, or an annotation shown after the value
  std::vector<std::string> list = {};  // kText with items (aliases): a JSON array; joined with ", " for people
  Audience audience = Audience::kAll;
  std::string text_zh = {};  // `text` in Chinese where it is words (people only; JSON and CSV keep `text`)
};

struct Section {
  std::string key;
  std::string en;
  std::string zh;
  std::vector<Row> rows;
  // A section may instead be a table of records (e.g. the planner's ranking).
  std::vector<std::string> columns;
  std::vector<std::vector<Row>> records;
  // Sections repeated per group (the planner's per GPU type and count): the
  // group's identity, e.g. {"gpu": "h100-sxm5-80gb", "gpus": 1024}. JSON puts
  // the sections of one group into one object of the array "groups", under
  // their keys; null: a section of the document itself.
  nlohmann::json group = nullptr;
};

// A report's assumption or warning, in both languages.
using Note = Bilingual;

// A prediction interval on one row (issue 15): the quantity lies in
// [low, high], in the row's unit, with probability `level`.
struct RowRange {
  std::string section;
  std::string key;
  double low = 0;
  double high = 0;
  double level = 0.8;
  // The row's value is the median of the calibrated distribution (issue 25);
  // this is the estimators' own figure beside it ("ideal-stack physics").
  std::optional<double> physics;
};

struct Report {
  std::string command;
  // The record section whose rows CSV prints, one line per record (with the
  // group's fields first): "ranking" for the planner, "cases" for validation.
  // Empty: CSV prints every row as section,key,label,value,unit.
  std::string csv_table;
  std::string title_en;
  std::string title_zh;
  nlohmann::json inputs = nlohmann::json::object();
  std::vector<Section> sections;
  std::vector<Note> assumptions;
  std::vector<Note> warnings;
  // Stated before any number: problems the numbers below depend on (an
  // implausible prediction, a layout that does not fit, an unknown price, a
  // calibration from another GPU or model).
  std::vector<Note> blocking;
  std::vector<RowRange> ranges;
};


enum class Format { kTable, kJson, kCsv, kMarkdown };
enum class Lang { kEn, kZh };
Format parse_format(const std::string& text);
Lang parse_lang(const std::string& text);

std::string render(const Report& report, Format format, Lang lang);
// A count held in a double (a GPU count, a token count) as JSON: an integer when whole.
nlohmann::json json_count(double v);
// A byte count held in a double as JSON: an integer, to the nearest byte (null when not finite).
nlohmann::json json_bytes(double v);
nlohmann::json to_json(const Report& report);
// The value of one row as a person reads it: "315 ZFLOP", "93,483 GPU-hours".
std::string format_value(const Row& row, Lang lang);
// A duration as a report shows it (format_value of seconds): "23.0 days", "5.2 hours".
std::string format_seconds(double seconds, Lang lang);
// The range recorded for a row, or nullptr.
const RowRange* find_range(const Report& report, const std::string& section, const std::string& key);
// "80% range 8.7–11.3 days" (zh "80% 区间 …"), in the row's unit.
std::string format_range(const Row& row, const RowRange& range, Lang lang);

}  // namespace gpuplan
