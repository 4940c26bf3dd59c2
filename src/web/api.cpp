// The web API: JSON in, the same Report the CLI builds, JSON out.
//
// Each endpoint reads the request keys that mirror a CLI command's flags
// (`--seq-len` is "seq_len"), turns them into the same library request with the
// same parsers and checks the CLI uses, and returns to_json(report), byte for
// byte the object `gpuplan <command> --format json` prints. The inputs are the
// CLI's own structs, read by report_from_json (src/inputs/json_inputs.cpp,
// shared with the Python module) from the same declarations (visit_*_inputs)
// the CLI binds its flags from. Differences from the CLI, all
// deliberate: a model is a catalog id, a bare parameter count or a pasted
// config.json *object*, a calibration the object `gpuplan calibrate --save`
// writes (never a path), and --gpu-file does not exist.
#include "web/web.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuplan/engine.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/model.hpp"
#include "report/report.hpp"
#include "inputs/json_inputs.hpp"
#include "units/json_input.hpp"

namespace gpuplan::web {

using nlohmann::json;

ApiResponse error_response(int status, const std::string& message, const std::string& field, const std::string& message_zh) {
  json j = {{"error", message}, {"error_zh", message_zh.empty() ? message : message_zh},
            {"field", field.empty() ? json(nullptr) : json(field)}};
  return ApiResponse{status, "application/json", j.dump()};
}

namespace {

json row_view(const Report& rep, const Section& s, const Row& r) {
  json v = {{"key", r.key}, {"en", r.en}, {"zh", r.zh}, {"value_en", format_value(r, Lang::kEn)}, {"value_zh", format_value(r, Lang::kZh)}};
  if (const RowRange* range = find_range(rep, s.key, r.key)) {
    v["range_en"] = format_range(r, *range, Lang::kEn);
    v["range_zh"] = format_range(r, *range, Lang::kZh);
  }
  return v;
}

// Labels and formatted values in both languages, for the page.
json view(const Report& rep) {
  json sections = json::array();
  for (const auto& s : rep.sections) {
    json js = {{"key", s.key}, {"en", s.en}, {"zh", s.zh}};
    json rows = json::array();
    for (const auto& r : s.rows) {
      if (r.audience != Audience::kPrograms) rows.push_back(row_view(rep, s, r));  // the page shows what people read
    }
    js["rows"] = rows;
    js["columns"] = s.columns;
    json records = json::array();
    for (const auto& rec : s.records) {
      json jr = json::array();
      for (const auto& r : rec) {
        if (r.audience != Audience::kPrograms) jr.push_back(row_view(rep, s, r));
      }
      records.push_back(jr);
    }
    js["records"] = records;
    sections.push_back(js);
  }
  auto notes = [](const std::vector<Note>& ns) {
    json a = json::array();
    for (const auto& n : ns) a.push_back({{"en", n.en}, {"zh", n.zh}});
    return a;
  };
  return {{"title_en", rep.title_en}, {"title_zh", rep.title_zh}, {"sections", sections},
          {"assumptions", notes(rep.assumptions)}, {"warnings", notes(rep.warnings)}, {"blocking", notes(rep.blocking)}};
}

json models_json() {
  json arr = json::array();
  for (const auto& e : model_catalog()) {
    const ParamCounts p = count_params(e.spec);
    arr.push_back({{"id", e.spec.id}, {"name", e.spec.name}, {"params_total", p.total}, {"params_active", p.active},
                   {"moe", e.spec.is_moe()}, {"aliases", e.aliases}});
  }
  return {{"models", arr}};
}

json gpus_json() {
  json arr = json::array();
  for (const auto& g : gpu_catalog()) {
    json price = nullptr;
    if (const PriceQuote* q = default_price(g.id)) {
      price = {{"currency", q->currency}, {"on_demand_per_gpu_hour", q->on_demand_per_gpu_hour}, {"provider", q->provider}};
    }
    // The default listing of each market (null where that market lists none).
    json by_market = json::object();
    for (Market m : {Market::kCn, Market::kUs}) {
      const PriceQuote* q = default_price(g.id, m);
      by_market[market_code(m)] = q ? json{{"currency", q->currency}, {"on_demand_per_gpu_hour", q->on_demand_per_gpu_hour}, {"provider", q->provider},
                                          {"date", q->date}}
                                    : json(nullptr);
    }
    arr.push_back({{"id", g.id}, {"name", g.name}, {"vendor", g.vendor}, {"memory_bytes", json_bytes(g.memory_bytes)},
                   {"peak_bf16_flop_per_s", g.has(Precision::kBf16) ? json(g.peak(Precision::kBf16)) : json(nullptr)},
                   {"gpus_per_node", g.gpus_per_node}, {"aliases", g.aliases}, {"default_price", price},
                   {"default_price_by_market", by_market}});
  }
  return {{"gpus", arr}};
}

// The framework profiles, for the page's menu: each version as NAME@VERSION.
// A catalog of versioned profiles (frameworks, serving engines) for the page's menus.
template <class Families>
json versioned_catalog_json(const Families& families, const char* key) {
  json arr = json::array();
  for (const auto& fam : families) {
    json versions = json::array();
    for (const auto& v : fam.versions) versions.push_back({{"label", v.label()}, {"version", v.version}, {"date", v.date}});
    arr.push_back({{"id", fam.id}, {"name", fam.name}, {"aliases", fam.aliases}, {"versions", versions}});
  }
  return {{key, arr}};
}

ApiResponse ok(const json& j) { return ApiResponse{200, "application/json", j.dump()}; }

const char* content_type_for(const std::string& path) {
  auto ends = [&](const char* ext) {
    const std::string e(ext);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js") || ends(".mjs")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".json")) return "application/json";
  return "text/plain; charset=utf-8";
}

// Bounds on what one request may ask for, so that its work and its answer stay
// small whatever it holds (issue 30: a 70,000-entry GPU list took 1.3 s before
// the pair limit refused it, a 700 KB model name 1.1 s in the did-you-mean
// search). A pasted config.json is well inside them: its longest lists
// (layer_types, modules_to_not_convert) hold tens to a few hundred entries.
constexpr size_t kMaxJsonValues = 20000;   // values in the whole body
constexpr size_t kMaxArrayItems = 1024;    // entries in any one list
constexpr size_t kMaxStringBytes = 16384;  // bytes in any one string or key

// One sentence naming what is over its bound, or "" when the body is within them.
std::pair<std::string, std::string> oversized(const json& root) {
  std::vector<const json*> todo{&root};
  size_t values = 0;
  while (!todo.empty()) {
    const json* v = todo.back();
    todo.pop_back();
    if (++values > kMaxJsonValues) {
      return {fmt::format("The request holds more than {} JSON values; the API takes at most that many.", kMaxJsonValues),
              fmt::format("请求中的 JSON 值超过 {} 个；接口最多接受这么多。", kMaxJsonValues)};
    }
    if (v->is_string() && v->get_ref<const std::string&>().size() > kMaxStringBytes) {
      return {fmt::format("A string in the request is {} bytes long; the API takes strings of at most {} bytes.",
                          v->get_ref<const std::string&>().size(), kMaxStringBytes),
              fmt::format("请求中有一个字符串长 {} 字节；接口接受的字符串最长 {} 字节。", v->get_ref<const std::string&>().size(), kMaxStringBytes)};
    }
    if (v->is_array()) {
      if (v->size() > kMaxArrayItems) {
        return {fmt::format("A list in the request has {} entries; the API takes lists of at most {}.", v->size(), kMaxArrayItems),
                fmt::format("请求中有一个列表含 {} 项；接口接受的列表最多 {} 项。", v->size(), kMaxArrayItems)};
      }
      for (const json& e : *v) todo.push_back(&e);
    } else if (v->is_object()) {
      for (const auto& [k, e] : v->items()) {
        if (k.size() > kMaxStringBytes) {
          return {fmt::format("A key in the request is {} bytes long; the API takes keys of at most {} bytes.", k.size(), kMaxStringBytes),
                  fmt::format("请求中有一个键长 {} 字节；接口接受的键最长 {} 字节。", k.size(), kMaxStringBytes)};
        }
        todo.push_back(&e);
      }
    }
  }
  return {};
}

ApiResponse api(const std::string& method, const std::string& route, const std::string& body) {
  if (route == "health" || route == "models" || route == "gpus" || route == "frameworks" || route == "engines") {
    if (method != "GET") return error_response(405, "/api/" + route + " takes GET.", "", "/api/" + route + " 只接受 GET 请求。");
    if (route == "health") return ok({{"ok", true}, {"version", "0.1.0"}});
    if (route == "frameworks") return ok(versioned_catalog_json(framework_catalog(), "frameworks"));
    if (route == "engines") return ok(versioned_catalog_json(engine_catalog(), "engines"));
    return ok(route == "models" ? models_json() : gpus_json());
  }
  std::string command = route;
  bool with_view = false;
  bool export_config = false;  // plan/export: the launch configuration of a ranked layout
  if (const auto slash = route.find('/'); slash != std::string::npos) {
    command = route.substr(0, slash);
    const std::string what = route.substr(slash + 1);
    if (!(what == "view" || (command == "plan" && what == "export"))) {
      return error_response(404, "No such API route: /api/" + route + ".", "", "没有这个接口：/api/" + route + "。");
    }
    with_view = what == "view";
    export_config = what == "export";
  }
  if (!is_json_command(command)) {
    return error_response(404, "No such API route: /api/" + route + ".", "", "没有这个接口：/api/" + route + "。");
  }
  if (method != "POST") return error_response(405, "/api/" + route + " takes POST with a JSON object.", "", "/api/" + route + " 只接受带 JSON 对象的 POST 请求。");
  json j;
  try {
    j = parse_json_input(body, "body", "The request body");
  } catch (const InputError& e) {
    return error_response(400, e.what(), "", e.zh());
  } catch (const json::parse_error& e) {
    return error_response(400, fmt::format("The request body is not valid JSON: {}", e.what()), "", fmt::format("请求体不是合法的 JSON：{}", e.what()));
  }
  if (!j.is_object()) {
    return error_response(400, fmt::format("The request body must be a JSON object (got {}).", json_type_name(j)), "",
                          fmt::format("请求体须为 JSON 对象（收到的是{}）。", json_type_name_zh(j)));
  }
  if (const auto [en, zh] = oversized(j); !en.empty()) return error_response(400, en, "", zh);
  if (export_config) {
    const LaunchConfig lc = launch_config_from_json(j, JsonCaller::kWeb);
    json notes = json::array();
    for (const Bilingual& n : lc.notes) notes.push_back({{"en", n.en}, {"zh", n.zh}});
    return ok({{"format", lc.format}, {"runner", lc.runner}, {"rank", lc.rank}, {"file_name", lc.file_name},
               {"media_type", lc.media_type}, {"text", lc.text}, {"launch", lc.launch}, {"notes", notes}});
  }
  const Report rep = report_from_json(command, j, JsonCaller::kWeb);
  if (!with_view) return ok(to_json(rep));
  return ok({{"report", to_json(rep)}, {"view", view(rep)}});
}

}  // namespace

ApiResponse handle_request(const std::string& method, const std::string& path, const std::string& body) {
  try {
    if (body.size() > kMaxBodyBytes) {
      return error_response(413, fmt::format("The request body is {} bytes; the limit is {} bytes.", body.size(), kMaxBodyBytes), "",
                            fmt::format("请求体有 {} 字节，上限是 {} 字节。", body.size(), kMaxBodyBytes));
    }
    if (path.find("..") != std::string::npos || path.find('\\') != std::string::npos || path.find('\0') != std::string::npos) {
      return error_response(400, "The path must not contain '..', '\\' or NUL.", "path", "路径中不能有 '..'、'\\' 或 NUL 字符。");
    }
    if (path.rfind("/api/", 0) == 0) return api(method, path.substr(5), body);
    if (method != "GET" && method != "HEAD") return error_response(405, "Pages take GET; the API is under /api/.", "", "页面只接受 GET 请求；接口在 /api/ 下。");
    const std::string name = (path == "/" || path.empty()) ? "index.html" : path.substr(1);
    for (const auto& f : embedded_web_files()) {
      if (f.path == name) return ApiResponse{200, content_type_for(name), f.content};
    }
    return error_response(404, "No such page: " + path + ".", "path", "没有这个页面：" + path + "。");
  } catch (const InputError& e) {
    // The sentence as the CLI spells it: the page turns each --flag into its form's label
    // (web/app.js inFormWords); `field` is the request key.
    return error_response(400, e.what(), e.field(), e.zh());
  } catch (const json::exception& e) {
    return error_response(400, fmt::format("Malformed JSON input: {}", e.what()), "", fmt::format("JSON 输入格式有误：{}", e.what()));
  } catch (const std::exception& e) {
    return error_response(500, fmt::format("Internal error: {} (please report this).", e.what()), "",
                          fmt::format("内部错误：{}（请报告此问题）。", e.what()));
  }
}

}  // namespace gpuplan::web
