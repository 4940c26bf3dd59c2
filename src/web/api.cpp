// The web API: JSON in, the same Report the CLI builds, JSON out.
//
// Each endpoint reads the request keys that mirror a CLI command's flags
// (`--seq-len` is "seq_len"), turns them into the same library request with the
// same parsers and checks the CLI uses, and returns to_json(report), byte for
// byte the object `gpuplan <command> --format json` prints. The inputs are the
// CLI's own structs (gpuplan/command_inputs.hpp, infer_inputs.hpp,
// finetune_inputs.hpp), read from the same declarations (visit_*_inputs) the
// CLI binds its flags from, checked and turned into requests by the same
// library functions. Differences from the CLI, all
// deliberate: a model is a catalog id, a bare parameter count or a pasted
// config.json *object*, a calibration the object `gpuplan calibrate --save`
// writes (never a path), and --gpu-file does not exist.
#include "web/web.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "gpuplan/calibration.hpp"
#include "gpuplan/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/finetune_inputs.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/infer_inputs.hpp"
#include "gpuplan/input_info.hpp"
#include "report/memory_report.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "report/plan_report.hpp"
#include "gpuplan/report.hpp"
#include "gpuplan/train_report.hpp"
#include "units/text_match.hpp"
#include "units/json_input.hpp"

namespace gpuplan::web {

using nlohmann::json;

std::string field_key(const std::string& cli_field) {
  std::string k = cli_field;
  while (!k.empty() && k.front() == '-') k.erase(k.begin());
  for (char& c : k) {
    if (c == '-') c = '_';
  }
  return k;
}

ApiResponse error_response(int status, const std::string& message, const std::string& field, const std::string& message_zh) {
  json j = {{"error", message}, {"error_zh", message_zh.empty() ? message : message_zh},
            {"field", field.empty() ? json(nullptr) : json(field)}};
  return ApiResponse{status, "application/json", j.dump()};
}

namespace {

const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "a number";
  }
}

const char* type_name_zh(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return " null";
    case json::value_t::boolean: return "布尔值";
    case json::value_t::string: return "字符串";
    case json::value_t::array: return "数组";
    case json::value_t::object: return "对象";
    default: return "数字";
  }
}

// The request body: typed access to its keys, each error naming the key.
// Every key read is remembered, so a key nobody reads (a typo) is refused.
class Body {
 public:
  explicit Body(const json& j) : j_(j) {}

  const json* get(const std::string& k) {
    used_.insert(k);
    auto it = j_.find(k);
    if (it == j_.end() || it->is_null()) return nullptr;
    return &*it;
  }
  // `wanted` and `wanted_zh`: the shape the key takes, in each language.
  [[noreturn]] static void wrong_type(const std::string& k, const json& v, const char* wanted, const char* wanted_zh) {
    throw InputError(k, fmt::format("{} must be {} (got {}).", k, wanted, type_name(v)),
                     fmt::format("{} 须为{}（收到的是{}）。", k, wanted_zh, type_name_zh(v)));
  }
  // Each read() fills an input field from the key of the same name and leaves
  // the field's default when the key is absent or null, as an unused CLI flag does.
  // A CLI option given as text (--tokens 15T): a string, or a number written out.
  void read(const std::string& k, std::optional<std::string>& out) {
    const json* v = get(k);
    if (!v) return;
    if (v->is_string()) out = v->get<std::string>();
    else if (v->is_number_integer() || v->is_number_unsigned()) out = v->dump();
    else if (v->is_number_float()) out = fmt::format("{}", v->get<double>());
    else wrong_type(k, *v, "a string or a number", "字符串或数字");
  }
  void read(const std::string& k, std::string& out) {
    const json* v = get(k);
    if (!v) return;
    if (!v->is_string()) wrong_type(k, *v, "a string", "字符串");
    out = v->get<std::string>();
  }
  // A CLI option CLI11 parses as a number: a JSON number, or a string holding only one.
  void read(const std::string& k, std::optional<double>& out) {
    const json* v = get(k);
    if (!v) return;
    if (v->is_number()) {
      out = v->get<double>();
      return;
    }
    if (!v->is_string()) wrong_type(k, *v, "a number", "数字");
    const std::string s = v->get<std::string>();
    double d = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) {
      throw InputError(k, fmt::format("{} must be a number (got '{}').", k, s), fmt::format("{} 须为数字（输入为 '{}'）。", k, s));
    }
    out = d;
  }
  void read(const std::string& k, double& out) {
    std::optional<double> d;
    read(k, d);
    if (d) out = *d;
  }
  void read(const std::string& k, std::optional<int>& out) {
    if (auto i = integer(k, std::numeric_limits<int>::min(), std::numeric_limits<int>::max())) out = static_cast<int>(*i);
  }
  void read(const std::string& k, int& out) {
    if (auto i = integer(k, std::numeric_limits<int>::min(), std::numeric_limits<int>::max())) out = static_cast<int>(*i);
  }
  void read(const std::string& k, int64_t& out) {
    if (auto i = integer(k, -(int64_t{1} << 53), int64_t{1} << 53)) out = *i;
  }
  void read(const std::string& k, std::optional<int64_t>& out) {
    if (auto i = integer(k, -(int64_t{1} << 53), int64_t{1} << 53)) out = *i;
  }
  // A CLI switch (--spot): true or false.
  void read(const std::string& k, bool& out) {
    const json* v = get(k);
    if (!v) return;
    if (!v->is_boolean()) wrong_type(k, *v, "true or false", "true 或 false");
    out = v->get<bool>();
  }
  // A repeatable CLI option (--phase): an array of strings.
  void read(const std::string& k, std::vector<std::string>& out) {
    const json* v = get(k);
    if (!v) return;
    if (!v->is_array()) wrong_type(k, *v, "an array of strings", "字符串数组");
    out.clear();
    for (const auto& e : *v) {
      if (!e.is_string()) wrong_type(k, e, "an array of strings", "字符串数组");
      out.push_back(e.get<std::string>());
    }
  }
  // A key no endpoint reads is a mistake the CLI would refuse too ("unknown option").
  void reject_unknown() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (!used_.count(it.key())) {
        throw InputError(it.key(), fmt::format("'{}' is not a field of this request; docs/web.md lists them.", it.key()),
                         fmt::format("'{}' 不是此请求的字段；可用字段见 docs/web.md。", it.key()));
      }
    }
  }

 private:
  // A CLI option CLI11 parses as an integer: a whole number from lo to hi.
  std::optional<int64_t> integer(const std::string& k, int64_t lo, int64_t hi) {
    std::optional<double> d;
    read(k, d);
    if (!d) return std::nullopt;
    if (!std::isfinite(*d) || std::floor(*d) != *d || *d < static_cast<double>(lo) || *d > static_cast<double>(hi)) {
      throw InputError(k, fmt::format("{} must be a whole number from {} to {} (got {}).", k, lo, hi, *d),
                       fmt::format("{} 须为 {} 到 {} 之间的整数（输入为 {}）。", k, lo, hi, *d));
    }
    return static_cast<int64_t>(*d);
  }

  const json& j_;
  std::set<std::string> used_;
};

// A catalog model only: unlike the CLI's --model, never a file or folder.
ModelSpec catalog_model(const std::string& name) {
  if (std::optional<ModelSpec> m = find_catalog_model(name)) return *m;
  std::vector<std::string> ids;
  for (const auto& e : model_catalog()) ids.push_back(e.spec.id);
  const auto near = closest_names(name, ids);
  throw InputError("model",
                   fmt::format("model: '{}' is not a catalog model{}; GET /api/models lists them, or paste a "
                               "config.json object as \"config\".",
                               name, near.empty() ? "" : " (did you mean " + join(near, ", ") + "?)"),
                   fmt::format("model：'{}' 不是目录中的模型{}；GET /api/models 列出全部，或把 config.json 对象粘贴为 \"config\"。", name,
                               near.empty() ? "" : "（是否指 " + join(near, "、") + "？）"));
}

// A JSON object the CLI would read from a file, pasted whole: Body::wrong_type unless it is an object.
const json* pasted_object(Body& b, const std::string& k, const char* what, const char* what_zh) {
  const json* v = b.get(k);
  if (v && !v->is_object()) Body::wrong_type(k, *v, what, what_zh);
  return v;
}

// The model: "model" (a catalog id, never a path), "config" (a pasted
// config.json object, what the CLI's --model ./config.json reads) or, where
// the command has --params, "params". At most one; the library refuses none.
void read_model(Body& b, std::optional<ModelSpec>& spec, std::optional<std::string>* params) {
  std::string name;
  b.read("model", name);
  const json* config = pasted_object(b, "config", "a config.json object", "config.json 对象");
  std::optional<std::string> count;
  if (params) b.read("params", count);
  if ((name.empty() ? 0 : 1) + (config ? 1 : 0) + (count ? 1 : 0) > 1) {
    throw InputError("model",
                     params ? "model, config and params all describe the model; give only one of them."
                            : "model and config both describe the model; give only one of them.",
                     params ? "model、config 与 params 都在描述模型；只给其中一个。" : "model 与 config 都在描述模型；只给其中一个。");
  }
  if (config) {
    try {
      spec = model_from_hf_config(*config, "pasted config.json");
    } catch (const InputError& e) {
      throw InputError("config", e.what(), e.zh());  // the request's key, not the file name the reader names
    }
  } else if (!name.empty()) {
    spec = catalog_model(name);
  }
  if (params) *params = count;
}

// Every declared input of a command (input_info.hpp) from the key of its flag.
struct ReadInputs {
  Body& b;
  template <class T>
  void operator()(const InputInfo& input, T& field) const {
    b.read(input_key(input), field);
  }
};

// The same TrainInputs as src/cli/cmd_train.cpp, from the same declaration: keys named as its flags.
Report train(Body& b) {
  TrainInputs in;
  read_model(b, in.model_spec, &in.params);
  visit_train_inputs(in, ReadInputs{b});
  // The CLI's --calibration names a file; here it is that file's object.
  if (const json* c = pasted_object(b, "calibration", "the object a file written by gpuplan calibrate --save holds", "gpuplan calibrate --save 所写文件中的对象")) {
    in.calibration = calibration_from_json(*c, "the pasted calibration");
  }
  b.reject_unknown();
  return train_report(make_train_request(in));
}

// The same MemoryInputs as src/cli/cmd_memory.cpp.
Report memory(Body& b) {
  MemoryInputs in;
  read_model(b, in.layout.model_spec, &in.layout.params);
  visit_memory_inputs(in, ReadInputs{b});
  b.reject_unknown();
  const ResolvedLayout r = resolve_layout(in.layout);
  return memory_report(r.model, r.layout, r.gpu, make_memory_options(in));
}

// Searches run on the server's threads: the page may compare a few GPU types
// and counts at once, not hundreds.
constexpr size_t kMaxPlanGroups = 8;

// The same PlanInputs as src/cli/cmd_plan.cpp.
Report plan_endpoint(Body& b) {
  PlanInputs in;
  read_model(b, in.model_spec, nullptr);  // `gpuplan plan` has no --params
  visit_plan_inputs(in, ReadInputs{b});
  b.reject_unknown();
  const PlanRequest r = make_plan_request(in);
  if (r.gpus.size() * r.gpu_counts.size() > kMaxPlanGroups) {
    throw InputError("--gpus",
                     fmt::format("The web planner compares at most {} GPU type × count pairs at once (asked for {}).", kMaxPlanGroups,
                                 r.gpus.size() * r.gpu_counts.size()),
                     fmt::format("网页规划器一次最多比较 {} 组 GPU 型号 × 卡数（本次请求 {} 组）。", kMaxPlanGroups,
                                 r.gpus.size() * r.gpu_counts.size()));
  }
  return plan_report(r, plan(r));
}

// The same InferInputs and infer_report_for as src/cli/cmd_infer.cpp.
Report infer_endpoint(Body& b) {
  InferInputs in;
  read_model(b, in.model_spec, nullptr);  // `gpuplan infer` has no --params
  visit_infer_inputs(in, ReadInputs{b});
  b.reject_unknown();
  return infer_report_for(in);
}

// The same FinetuneInputs and finetune_report_for as src/cli/cmd_finetune.cpp.
Report finetune_endpoint(Body& b) {
  FinetuneInputs in;
  read_model(b, in.model_spec, nullptr);  // `gpuplan finetune` has no --params
  visit_finetune_inputs(in, ReadInputs{b});
  b.reject_unknown();
  return finetune_report_for(in);
}

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
json frameworks_json() {
  json arr = json::array();
  for (const auto& fam : framework_catalog()) {
    json versions = json::array();
    for (const auto& v : fam.versions) versions.push_back({{"label", v.label()}, {"version", v.version}, {"date", v.date}});
    arr.push_back({{"id", fam.id}, {"name", fam.name}, {"aliases", fam.aliases}, {"versions", versions}});
  }
  return {{"frameworks", arr}};
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

ApiResponse api(const std::string& method, const std::string& route, const std::string& body) {
  if (route == "health" || route == "models" || route == "gpus" || route == "frameworks") {
    if (method != "GET") return error_response(405, "/api/" + route + " takes GET.", "", "/api/" + route + " 只接受 GET 请求。");
    if (route == "health") return ok({{"ok", true}, {"version", "0.1.0"}});
    if (route == "frameworks") return ok(frameworks_json());
    return ok(route == "models" ? models_json() : gpus_json());
  }
  std::string command = route;
  bool with_view = false;
  if (const auto slash = route.find('/'); slash != std::string::npos) {
    command = route.substr(0, slash);
    if (route.substr(slash + 1) != "view") return error_response(404, "No such API route: /api/" + route + ".", "", "没有这个接口：/api/" + route + "。");
    with_view = true;
  }
  if (command != "train" && command != "memory" && command != "plan" && command != "infer" && command != "finetune") {
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
    return error_response(400, fmt::format("The request body must be a JSON object (got {}).", type_name(j)), "",
                          fmt::format("请求体须为 JSON 对象（收到的是{}）。", type_name_zh(j)));
  }
  Body b(j);
  Report rep;
  if (command == "train") rep = train(b);
  else if (command == "memory") rep = memory(b);
  else if (command == "infer") rep = infer_endpoint(b);
  else if (command == "finetune") rep = finetune_endpoint(b);
  else rep = plan_endpoint(b);
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
    return error_response(400, e.what(), field_key(e.field()), e.zh());
  } catch (const json::exception& e) {
    return error_response(400, fmt::format("Malformed JSON input: {}", e.what()), "", fmt::format("JSON 输入格式有误：{}", e.what()));
  } catch (const std::exception& e) {
    return error_response(500, fmt::format("Internal error: {} (please report this).", e.what()), "",
                          fmt::format("内部错误：{}（请报告此问题）。", e.what()));
  }
}

}  // namespace gpuplan::web
