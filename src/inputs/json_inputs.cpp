// Inputs from a JSON object (see json_inputs.hpp).
#include "inputs/json_inputs.hpp"
#include "hardware/hardware_words.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "gpuplan/calibration.hpp"
#include "inputs/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "inputs/finetune_inputs.hpp"
#include "gpuplan/hardware.hpp"
#include "inputs/infer_inputs.hpp"
#include "inputs/input_info.hpp"
#include "gpuplan/market.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "commands/calibrate.hpp"
#include "commands/validate.hpp"
#include "estimate/uncertainty/interval_json.hpp"
#include "report/calibration_report.hpp"
#include "report/catalog_report.hpp"
#include "report/engines_report.hpp"
#include "report/frameworks_report.hpp"
#include "report/train_report.hpp"
#include "report/memory_report.hpp"
#include "report/plan_report.hpp"
#include "units/text_match.hpp"
#include "model/hf_config.hpp"
#include "estimate/uncertainty/calibration_json.hpp"
#include "inputs/report_chains.hpp"
#include "commands/market_terms.hpp"

namespace gpuplan {

using nlohmann::json;

const char* json_type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "a number";
  }
}

const char* json_type_name_zh(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return " null";
    case json::value_t::boolean: return "布尔值";
    case json::value_t::string: return "字符串";
    case json::value_t::array: return "数组";
    case json::value_t::object: return "对象";
    default: return "数字";
  }
}

namespace {

// The request: typed access to its keys, each error naming the key.
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
    throw InputError(k, fmt::format("{} must be {} (got {}).", k, wanted, json_type_name(v)),
                     fmt::format("{} 须为{}（收到的是{}）。", k, wanted_zh, json_type_name_zh(v)));
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

// The model. From the web: "model" (a catalog id, never a path), "config" (a
// pasted config.json object, what the CLI's --model ./config.json reads) or,
// where the command has --params, "params"; at most one. From a local caller:
// "model" as the CLI's --model reads it (an id, alias, file or folder) into
// `name`, or "params". The library refuses none.
void read_model(Body& b, JsonCaller caller, std::string& name, std::optional<ModelSpec>& spec, std::optional<std::string>* params) {
  if (caller == JsonCaller::kLocal) {
    b.read("model", name);
    if (params) b.read("params", *params);
    return;
  }
  std::string catalog_name;
  b.read("model", catalog_name);
  const json* config = pasted_object(b, "config", "a config.json object", "config.json 对象");
  std::optional<std::string> count;
  if (params) b.read("params", count);
  if ((catalog_name.empty() ? 0 : 1) + (config ? 1 : 0) + (count ? 1 : 0) > 1) {
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
  } else if (!catalog_name.empty()) {
    spec = catalog_model(catalog_name);
  }
  if (params) *params = count;
}

// A local caller's "gpu_file": loaded for this call (report_from_json holds the UserGpuScope).
void read_gpu_file(Body& b, JsonCaller caller) {
  if (caller != JsonCaller::kLocal) return;
  std::string path;
  b.read("gpu_file", path);
  if (!path.empty()) load_user_gpu_file(path);
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
Report train(Body& b, JsonCaller caller) {
  TrainInputs in;
  read_model(b, caller, in.model, in.model_spec, &in.params);
  read_gpu_file(b, caller);
  visit_train_inputs(in, ReadInputs{b});
  std::string calibration_file;
  if (caller == JsonCaller::kLocal) {
    b.read("calibration", calibration_file);  // the CLI's --calibration FILE
    // The CLI's market under its default --lang en (cmd_train.cpp).
    if (!in.market) in.market = market_code(default_market_for_lang("en"));
  } else if (const json* c = pasted_object(b, "calibration", "the object a file written by gpuplan calibrate --save holds",
                                           "gpuplan calibrate --save 所写文件中的对象")) {
    in.calibration = calibration_from_json(*c, "the pasted calibration");  // the file's object, never a path
  }
  b.reject_unknown();
  TrainRequest r = make_train_request(in);
  if (!calibration_file.empty()) r.calibration = load_calibration_file(calibration_file);
  return train_report_for(r);
}

// The same MemoryInputs as src/cli/cmd_memory.cpp.
Report memory(Body& b, JsonCaller caller) {
  MemoryInputs in;
  read_model(b, caller, in.layout.model, in.layout.model_spec, &in.layout.params);
  read_gpu_file(b, caller);
  visit_memory_inputs(in, ReadInputs{b});
  b.reject_unknown();
  const ResolvedLayout r = resolve_layout(in.layout);
  return memory_report_for(r.model, r.layout, r.gpu, make_memory_options(in), r.global_batch_defaulted);
}

// Searches from the web run on the server's threads: the page may compare a
// few GPU types and counts at once, not hundreds.
constexpr size_t kMaxWebPlanGroups = 8;

// The same PlanInputs as src/cli/cmd_plan.cpp; `choice`, when given, also
// reads the export keys ("export", "rank": plan --export TO --rank N).
PlanRequest plan_request_for(Body& b, JsonCaller caller, ExportChoice* choice) {
  PlanInputs in;
  read_model(b, caller, in.model, in.model_spec, nullptr);  // `gpuplan plan` has no --params
  read_gpu_file(b, caller);
  visit_plan_inputs(in, ReadInputs{b});
  if (choice) {
    b.read("export", choice->to);
    b.read("rank", choice->rank);
  }
  b.reject_unknown();
  if (caller == JsonCaller::kLocal && !in.market) in.market = market_code(default_market_for_lang("en"));  // as cmd_plan.cpp
  return make_plan_request(in);
}

Report plan_report_for(Body& b, JsonCaller caller) {
  const PlanRequest r = plan_request_for(b, caller, nullptr);
  if (caller == JsonCaller::kWeb && r.gpus.size() * r.gpu_counts.size() > kMaxWebPlanGroups) {
    throw InputError("--gpus",
                     fmt::format("The web planner compares at most {} GPU type × count pairs at once (asked for {}).", kMaxWebPlanGroups,
                                 r.gpus.size() * r.gpu_counts.size()),
                     fmt::format("网页规划器一次最多比较 {} 组 GPU 型号 × 卡数（本次请求 {} 组）。", kMaxWebPlanGroups,
                                 r.gpus.size() * r.gpu_counts.size()));
  }
  return plan_report(r, plan(r));
}

// The same InferInputs and infer_report_for as src/cli/cmd_infer.cpp.
Report infer(Body& b, JsonCaller caller) {
  InferInputs in;
  read_model(b, caller, in.model, in.model_spec, nullptr);  // `gpuplan infer` has no --params
  read_gpu_file(b, caller);
  visit_infer_inputs(in, ReadInputs{b});
  b.reject_unknown();
  return infer_report_for(in);
}

// The same FinetuneInputs and finetune_report_for as src/cli/cmd_finetune.cpp.
Report finetune(Body& b, JsonCaller caller) {
  FinetuneInputs in;
  read_model(b, caller, in.model, in.model_spec, nullptr);  // `gpuplan finetune` has no --params
  read_gpu_file(b, caller);
  visit_finetune_inputs(in, ReadInputs{b});
  b.reject_unknown();
  return finetune_report_for(in);
}

// The same CalibrateInputs as src/cli/cmd_calibrate.cpp; a local caller's
// "save" writes the fitted factors as the CLI's --save does.
Report calibrate_report_for(Body& b, JsonCaller caller) {
  CalibrateInputs in;
  read_model(b, caller, in.layout.model, in.layout.model_spec, &in.layout.params);
  read_gpu_file(b, caller);
  visit_calibrate_inputs(in, ReadInputs{b});
  std::string save;
  if (caller == JsonCaller::kLocal) b.read("save", save);
  b.reject_unknown();
  const CalibrationRun run = run_calibration(in);
  Report rep = calibration_report(run);
  if (!save.empty()) {
    save_calibration_file(run.calibration, save, in.layout.model);
    add_saved_note(&rep, save);
  }
  return rep;
}

// The catalogs: one named entry ("model", "gpu", "framework", "engine") or all.
Report catalog_report_for(const std::string& command, Body& b, JsonCaller caller) {
  read_gpu_file(b, caller);
  std::string show;
  if (command == "gpus") {
    std::optional<std::string> market, currency;
    b.read("gpu", show);
    b.read(input_key(kMarketInput), market);
    b.read(input_key(kCurrencyInput), currency);
    b.reject_unknown();
    PriceInput pi;  // as the CLI's gpus under its default --lang en
    apply_market_terms(&pi, market, std::nullopt, currency, "en");
    return gpus_report(show, *pi.market, result_currency(pi, market_currency(*pi.market)));
  }
  b.read(command == "models" ? "model" : command == "frameworks" ? "framework" : "engine", show);
  b.reject_unknown();
  if (command == "models") return models_report(show);
  if (command == "frameworks") return frameworks_report(show);
  return engines_report(show);
}

// `gpuplan validate FILE`: a local caller's file only.
json validate_document_for(Body& b, JsonCaller caller) {
  if (caller != JsonCaller::kLocal) {
    throw InputError("file", "validate reads a case file on this machine; the web API names no file.",
                     "validate 读取本机上的案例文件；网页接口不接受文件路径。");
  }
  read_gpu_file(b, caller);
  ValidateRequest r;
  b.read("file", r.file);
  b.read("kind", r.kind);
  b.read("interval", r.interval);
  b.read("derive_intervals", r.derive_intervals);
  b.reject_unknown();
  if (r.file.empty()) throw InputError("file", "file is required: a JSON-lines case file.", "file 为必填项：JSON Lines 格式的案例文件。");
  const ValidateRun run = run_validate(r);
  return run.intervals ? interval_table_to_json(*run.intervals, r.file) : validation_json(run.result, r.file);
}

// A request is one JSON object, whatever the command.
void require_object(const json& request) {
  if (!request.is_object()) {
    throw InputError("", fmt::format("The request must be a JSON object (got {}).", json_type_name(request)),
                     fmt::format("请求须为 JSON 对象（收到的是{}）。", json_type_name_zh(request)));
  }
}

}  // namespace

LaunchConfig launch_config_from_json(const json& request, JsonCaller caller) {
  require_object(request);
  const UserGpuScope gpus;  // a local caller's gpu_file applies to this call only
  Body b(request);
  ExportChoice choice;
  const PlanRequest r = prepare_export(plan_request_for(b, caller, &choice), choice);
  return launch_config(r, plan(r), choice);
}

bool is_json_command(const std::string& command) {
  return command == "train" || command == "memory" || command == "plan" || command == "infer" || command == "finetune";
}

Report report_from_json(const std::string& command, const json& request, JsonCaller caller) {
  require_object(request);
  const UserGpuScope gpus;  // a local caller's gpu_file applies to this call only
  Body b(request);
  if (command == "train") return train(b, caller);
  if (command == "memory") return memory(b, caller);
  if (command == "plan") return plan_report_for(b, caller);
  if (command == "infer") return infer(b, caller);
  if (command == "finetune") return finetune(b, caller);
  throw InputError("", fmt::format("'{}' is not a command report_from_json runs (train, memory, plan, infer, finetune).", command),
                   fmt::format("report_from_json 不运行 '{}'（只运行 train、memory、plan、infer、finetune）。", command));
}

json document_from_json(const std::string& command, const json& request, JsonCaller caller) {
  if (is_json_command(command)) return to_json(report_from_json(command, request, caller));
  require_object(request);
  const UserGpuScope gpus;  // a local caller's gpu_file applies to this call only
  Body b(request);
  if (command == "calibrate") return to_json(calibrate_report_for(b, caller));
  if (command == "models" || command == "gpus" || command == "frameworks" || command == "engines") {
    return to_json(catalog_report_for(command, b, caller));
  }
  if (command == "validate") return validate_document_for(b, caller);
  throw InputError("", fmt::format("'{}' is not a command with a JSON document.", command),
                   fmt::format("'{}' 不是有 JSON 文档的命令。", command));
}

}  // namespace gpuplan
