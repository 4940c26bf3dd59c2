// The web API: JSON in, the same Report the CLI builds, JSON out.
//
// Each endpoint reads the request keys that mirror a CLI command's flags
// (`--seq-len` is "seq_len"), turns them into the same library request with the
// same parsers and checks the CLI uses, and returns to_json(report), byte for
// byte the object `gpuplan <command> --format json` prints. Differences from
// the CLI, all deliberate: a model is a catalog id, a bare parameter count or a
// pasted config.json *object* (never a path), and --gpu-file does not exist.
#include "gpuplan/web.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "gpuplan/error.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory_report.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/report.hpp"
#include "gpuplan/text_match.hpp"
#include "gpuplan/train_report.hpp"
#include "gpuplan/units.hpp"

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

ApiResponse error_response(int status, const std::string& message, const std::string& field) {
  json j = {{"error", message}, {"field", field.empty() ? json(nullptr) : json(field)}};
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
  [[noreturn]] static void wrong_type(const std::string& k, const json& v, const char* wanted) {
    throw InputError(k, fmt::format("{} must be {} (got {}).", k, wanted, type_name(v)));
  }
  // A CLI option given as text (--tokens 15T): a string, or a number written out.
  std::optional<std::string> text(const std::string& k) {
    const json* v = get(k);
    if (!v) return std::nullopt;
    if (v->is_string()) return v->get<std::string>();
    if (v->is_number_integer() || v->is_number_unsigned()) return v->dump();
    if (v->is_number_float()) return fmt::format("{}", v->get<double>());
    wrong_type(k, *v, "a string or a number");
  }
  std::string str(const std::string& k, const std::string& fallback = "") {
    const json* v = get(k);
    if (!v) return fallback;
    if (!v->is_string()) wrong_type(k, *v, "a string");
    return v->get<std::string>();
  }
  // A CLI option CLI11 parses as a number: a JSON number, or a string holding only one.
  std::optional<double> number(const std::string& k) {
    const json* v = get(k);
    if (!v) return std::nullopt;
    if (v->is_number()) return v->get<double>();
    if (v->is_string()) {
      const std::string s = v->get<std::string>();
      double d = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
      if (ec == std::errc() && p == s.data() + s.size() && !s.empty()) return d;
      throw InputError(k, fmt::format("{} must be a number (got '{}').", k, s));
    }
    wrong_type(k, *v, "a number");
  }
  std::optional<int64_t> integer(const std::string& k, int64_t lo, int64_t hi) {
    const auto d = number(k);
    if (!d) return std::nullopt;
    if (!std::isfinite(*d) || std::floor(*d) != *d || *d < static_cast<double>(lo) || *d > static_cast<double>(hi)) {
      throw InputError(k, fmt::format("{} must be a whole number from {} to {} (got {}).", k, lo, hi, *d));
    }
    return static_cast<int64_t>(*d);
  }
  int int_or(const std::string& k, int fallback) {
    return static_cast<int>(integer(k, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()).value_or(fallback));
  }
  int64_t int64_or(const std::string& k, int64_t fallback) {
    return integer(k, -(int64_t{1} << 53), int64_t{1} << 53).value_or(fallback);
  }
  bool flag(const std::string& k) {
    const json* v = get(k);
    if (!v) return false;
    if (!v->is_boolean()) wrong_type(k, *v, "true or false");
    return v->get<bool>();
  }
  std::vector<std::string> strings(const std::string& k) {
    const json* v = get(k);
    if (!v) return {};
    if (!v->is_array()) wrong_type(k, *v, "an array of strings");
    std::vector<std::string> out;
    for (const auto& e : *v) {
      if (!e.is_string()) wrong_type(k, e, "an array of strings");
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  // A key no endpoint reads is a mistake the CLI would refuse too ("unknown option").
  void reject_unknown() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (!used_.count(it.key())) {
        throw InputError(it.key(), fmt::format("'{}' is not a field of this request; docs/web.md lists them.", it.key()));
      }
    }
  }

 private:
  const json& j_;
  std::set<std::string> used_;
};

std::optional<double> count(Body& b, const std::string& k) {
  const auto t = b.text(k);
  if (!t) return std::nullopt;
  return parse_count(*t, "--" + k);
}

// A catalog model only: unlike the CLI's --model, never a file or folder.
ModelSpec catalog_model(const std::string& name) {
  const std::string key = normalize_name(name);
  std::vector<std::string> ids;
  for (const auto& e : model_catalog()) {
    if (e.spec.id == key) return e.spec;
    for (const auto& a : e.aliases) {
      if (a == key) return e.spec;
    }
    ids.push_back(e.spec.id);
  }
  const auto near = closest_names(name, ids);
  throw InputError("model", fmt::format("model: '{}' is not a catalog model{}; GET /api/models lists them, or paste a "
                                        "config.json object as \"config\".",
                                        name, near.empty() ? "" : " (did you mean " + join(near, ", ") + "?)"));
}

// model, config or params: exactly one, as the CLI's --model / --params.
ModelSpec request_model(Body& b) {
  const std::string name = b.str("model");
  const json* config = b.get("config");
  const auto params_text = b.text("params");
  const int given = (name.empty() ? 0 : 1) + (config ? 1 : 0) + (params_text ? 1 : 0);
  if (given == 0) {
    throw InputError("model", "model is required: a catalog id (GET /api/models), a pasted config.json object as \"config\", "
                              "or \"params\": \"7B\".");
  }
  if (given > 1) throw InputError("model", "model, config and params all describe the model; give only one of them.");
  if (config) {
    if (!config->is_object()) Body::wrong_type("config", *config, "a config.json object");
    try {
      return model_from_hf_config(*config, "pasted config.json");
    } catch (const InputError& e) {
      throw InputError("config", e.what());  // the request's key, not the file name the reader names
    }
  }
  if (params_text) {
    const double p = parse_count(*params_text, "--params");
    require_range(p, 1e3, 1e15, "--params", "a parameter count from 1e3 to 1e15 (e.g. 7B, 70e9)");
    return model_from_param_count(p);
  }
  return catalog_model(name);
}

const GpuSpec& request_gpu(Body& b) {
  const std::string g = b.str("gpu");
  if (g.empty()) {
    throw InputError("--gpu", "--gpu is required: a GPU id or alias such as h100, a100-80g or 910b (gpuplan gpus lists them).");
  }
  return find_gpu(g);
}

// Mirrors src/cli/cmd_train.cpp.
Report train(Body& b) {
  TrainRequest r;
  if (b.get("config")) {
    throw InputError("config", "config: a pasted config.json works for memory (and the planner); for train give a catalog "
                               "model or params, because the training estimate takes its model by name.");
  }
  r.model = b.str("model");
  if (!r.model.empty()) r.model = catalog_model(r.model).id;  // never a path
  r.params = count(b, "params");
  r.workload.tokens = count(b, "tokens");
  r.workload.samples = count(b, "samples");
  r.workload.tokens_per_sample = count(b, "tokens_per_sample");
  r.workload.dataset_bytes = count(b, "dataset_bytes");
  r.workload.bytes_per_token = b.number("bytes_per_token").value_or(4);
  require_range(r.workload.bytes_per_token, 0.1, 1e6, "--bytes-per-token", "a positive number of bytes per token");
  r.workload.epochs = b.number("epochs").value_or(1);
  r.workload.seq_len = b.int64_or("seq_len", 4096);
  r.workload.global_batch_seqs = count(b, "global_batch");
  r.workload.global_batch_tokens = count(b, "batch_tokens");
  r.flop_per_sample = count(b, "flops_per_sample");
  r.gpu = b.str("gpu");
  r.gpus = count(b, "gpus");
  if (auto d = b.text("deadline")) r.deadline_s = parse_duration_s(*d, "--deadline");
  if (auto m = b.text("mfu")) r.mfu = parse_fraction(*m, "--mfu");
  r.tflops_per_gpu = count(b, "tflops_per_gpu");
  r.precision = parse_precision(b.str("precision", "bf16"), "--precision");
  r.recompute = parse_recompute(b.str("recompute", "none"), "--recompute");
  r.causal_half = b.flag("causal");
  r.six_n = b.flag("six_n");
  if (auto f = b.number("fault_budget")) r.fault_budget = *f;
  r.comm_margin = b.number("comm_margin").value_or(0.0);
  if (auto g = b.integer("gpus_per_node", std::numeric_limits<int>::min(), std::numeric_limits<int>::max())) {
    r.gpus_per_node = static_cast<int>(*g);
  }
  r.price.text = b.text("price");
  if (const std::string c = b.str("currency"); !c.empty()) {
    if (c == "usd" || c == "USD") r.price.currency = Currency::kUsd;
    else if (c == "cny" || c == "CNY" || c == "rmb" || c == "RMB") r.price.currency = Currency::kCny;
    else throw InputError("--currency", "--currency must be usd or cny (got '" + c + "').");
  }
  r.price.spot = b.flag("spot");
  r.price.spot_discount = b.number("spot_discount");
  if (auto o = b.number("spot_overhead")) r.price.spot_overhead = *o;
  r.phases = b.strings("phase");
  b.reject_unknown();
  return train_report(r);
}

// Mirrors src/cli/cmd_memory.cpp.
Report memory(Body& b) {
  const ModelSpec model = request_model(b);
  const GpuSpec& gpu = request_gpu(b);
  Layout l;
  l.tp = b.int_or("tp", 1);
  l.pp = b.int_or("pp", 1);
  l.cp = b.int_or("cp", 1);
  l.ep = b.int_or("ep", 1);
  l.vp = b.int_or("vp", 1);
  const auto dp = b.integer("dp", std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
  l.micro_batch = b.int64_or("micro_batch", 1);
  l.global_batch = b.int64_or("global_batch", 0);
  l.seq_len = b.int64_or("seq_len", 4096);
  l.zero_stage = b.int_or("zero", 0);
  l.shard_group = b.int_or("shard_group", 0);
  l.recompute = parse_recompute(b.str("recompute", "none"), "--recompute");
  l.sequence_parallel = b.flag("sequence_parallel");
  l.flash_attention = !b.flag("no_flash_attention");
  l.precision = parse_precision(b.str("precision", "bf16"), "--precision");
  l.pure_bf16 = b.flag("pure_bf16");
  l.optimizer = parse_optimizer(b.str("optimizer", "adamw"), "--optimizer");
  l.offload_optimizer = b.flag("offload_optimizer");
  l.offload_params = b.flag("offload_params");
  l.offload_activations = b.flag("offload_activations");

  const auto gpus_text = b.text("gpus");
  const int64_t model_parallel = static_cast<int64_t>(l.tp) * l.pp * l.cp;
  int64_t gpus = 0;
  if (gpus_text) {
    const double g = parse_count(*gpus_text, "--gpus");
    if (g < 1 || g > 1e7 || std::floor(g) != g) {
      throw InputError("--gpus", fmt::format("--gpus must be a whole number of GPUs from 1 to 10,000,000 (got {}).", *gpus_text));
    }
    gpus = static_cast<int64_t>(g);
  }
  if (dp) {
    l.dp = static_cast<int>(*dp);
    if (!gpus_text) gpus = model_parallel * l.dp;
  } else if (gpus_text) {
    if (model_parallel <= 0 || gpus % model_parallel != 0) {
      throw InputError("--gpus", fmt::format("--gpus {} is not a multiple of tp×pp×cp = {}×{}×{} = {}; set --dp or change the degrees.",
                                             gpus, l.tp, l.pp, l.cp, model_parallel));
    }
    l.dp = static_cast<int>(gpus / model_parallel);
  } else {
    l.dp = 1;
    gpus = model_parallel;
  }

  MemoryOptions o;
  const auto fragmentation = b.number("fragmentation");
  const auto context = b.number("cuda_context_gib");
  const double safety = b.number("safety_margin").value_or(0.15);
  o.dropout = b.flag("dropout");
  o.fp32_grad_buffer = b.flag("fp32_grads");
  b.reject_unknown();

  validate_layout(model, l, gpus);
  if (fragmentation) {
    require_range(*fragmentation, 0, 1, "--fragmentation", "a fraction from 0 to 1 (0.05 = 5%)");
    o.fragmentation = *fragmentation;
  }
  if (context) {
    require_range(*context, 0, 64, "--cuda-context-gib", "GiB from 0 to 64");
    o.cuda_context_bytes = *context * kGiB;
  }
  require_range(safety, 0, 0.9, "--safety-margin", "a fraction from 0 to 0.9 (seed 004: 0.15–0.2)");
  o.safety_margin = safety;
  return memory_report(model, l, gpu, o);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// As src/cli/cmd_plan.cpp: "1024", "512,1024,2048" or a range "256-4096" (powers of two in it).
std::vector<int64_t> parse_counts(const std::string& text) {
  std::vector<int64_t> out;
  for (const std::string& part : split(text, ',')) {
    const auto dash = part.find('-');
    if (dash != std::string::npos && dash > 0) {
      const double lo = parse_count(part.substr(0, dash), "--gpus");
      const double hi = parse_count(part.substr(dash + 1), "--gpus");
      if (hi < lo || hi > 1e7) throw InputError("--gpus", fmt::format("--gpus: the range {} must run from low to high.", part));
      for (int64_t n = 1; static_cast<double>(n) <= hi; n *= 2) {
        if (static_cast<double>(n) >= lo) out.push_back(n);
      }
      if (out.empty()) throw InputError("--gpus", fmt::format("--gpus: the range {} holds no power of two.", part));
    } else {
      const double n = parse_count(part, "--gpus");
      if (n != static_cast<double>(static_cast<int64_t>(n)) || n > 1e7) {
        throw InputError("--gpus", fmt::format("--gpus must be whole GPU counts (got {}).", part));
      }
      out.push_back(static_cast<int64_t>(n));
    }
  }
  if (out.empty()) throw InputError("--gpus", "--gpus is required: a count (1024), a list (512,1024) or a range (256-4096).");
  return out;
}

// Searches run on the server's threads: the page may compare a few GPU types
// and counts at once, not hundreds.
constexpr size_t kMaxPlanGroups = 8;

// Mirrors src/cli/cmd_plan.cpp.
Report plan_endpoint(Body& b) {
  PlanRequest r;
  r.model = request_model(b);
  if (r.model.count_only) throw InputError("--model", "--model: the planner needs an architecture, not a bare parameter count.");
  const std::string gpu = b.str("gpu");
  if (gpu.empty()) throw InputError("--gpu", "--gpu is required: one GPU or a list such as h100,h800,a100.");
  for (const std::string& g : split(gpu, ',')) r.gpus.push_back(find_gpu(g));
  const auto counts = b.text("gpus");
  r.gpu_counts = parse_counts(counts.value_or(""));
  if (r.gpus.size() * r.gpu_counts.size() > kMaxPlanGroups) {
    throw InputError("--gpus", fmt::format("The web planner compares at most {} GPU type × count pairs at once (asked for {}).",
                                           kMaxPlanGroups, r.gpus.size() * r.gpu_counts.size()));
  }
  const int64_t seq_len = b.int64_or("seq_len", 4096);
  require_range(static_cast<double>(seq_len), 1, 1e8, "--seq-len", "a positive token count");
  r.seq_len = seq_len;
  const int64_t global_batch = b.int64_or("global_batch", 0);
  if (global_batch < 0) throw InputError("--global-batch", "--global-batch must be positive.");
  r.global_batch = global_batch;
  r.tp = b.int_or("tp", 0);
  r.pp = b.int_or("pp", 0);
  r.dp = b.int_or("dp", 0);
  r.cp = b.int_or("cp", 0);
  r.ep = b.int_or("ep", 0);
  r.vp = b.int_or("vp", 0);
  r.micro_batch = b.int64_or("micro_batch", 0);
  if (auto z = b.integer("zero", std::numeric_limits<int>::min(), std::numeric_limits<int>::max())) r.zero_stage = static_cast<int>(*z);
  if (const std::string rc = b.str("recompute"); !rc.empty()) r.recompute = parse_recompute(rc, "--recompute");
  r.precision = parse_precision(b.str("precision", "bf16"), "--precision");
  r.optimizer = parse_optimizer(b.str("optimizer", "adamw"), "--optimizer");
  const std::string rank_by = b.str("rank_by", "time");
  const std::string rank = normalize_name(rank_by);
  if (rank == "time") r.rank_by = PlanRank::kTime;
  else if (rank == "cost") r.rank_by = PlanRank::kCost;
  else throw InputError("--rank-by", fmt::format("--rank-by must be time or cost (got '{}').", rank_by));
  const int top = b.int_or("top", 5);
  if (top < 1 || top > 100) throw InputError("--top", "--top must be from 1 to 100.");
  r.top_k = top;
  r.cross_node_tp = b.flag("cross_node_tp");
  r.flash_attention = !b.flag("no_flash");
  if (auto g = b.integer("gpus_per_node", std::numeric_limits<int>::min(), std::numeric_limits<int>::max())) {
    if (*g < 1 || *g > 1024) throw InputError("--gpus-per-node", "--gpus-per-node must be from 1 to 1024.");
    r.step_options.gpus_per_node = static_cast<int>(*g);
  }
  b.reject_unknown();
  const PlanResult res = plan(r);
  return plan_report(r, res);
}

json row_view(const Row& r) {
  return {{"key", r.key}, {"en", r.en}, {"zh", r.zh}, {"value_en", format_value(r, Lang::kEn)}, {"value_zh", format_value(r, Lang::kZh)}};
}

// Labels and formatted values in both languages, for the page.
json view(const Report& rep) {
  json sections = json::array();
  for (const auto& s : rep.sections) {
    json js = {{"key", s.key}, {"en", s.en}, {"zh", s.zh}};
    json rows = json::array();
    for (const auto& r : s.rows) rows.push_back(row_view(r));
    js["rows"] = rows;
    js["columns"] = s.columns;
    json records = json::array();
    for (const auto& rec : s.records) {
      json jr = json::array();
      for (const auto& r : rec) jr.push_back(row_view(r));
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
          {"assumptions", notes(rep.assumptions)}, {"warnings", notes(rep.warnings)}};
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
    arr.push_back({{"id", g.id}, {"name", g.name}, {"vendor", g.vendor}, {"memory_bytes", g.memory_bytes},
                   {"peak_bf16_flop_per_s", g.has(Precision::kBf16) ? json(g.peak(Precision::kBf16)) : json(nullptr)},
                   {"gpus_per_node", g.gpus_per_node}, {"aliases", g.aliases}, {"default_price", price}});
  }
  return {{"gpus", arr}};
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
  if (route == "health" || route == "models" || route == "gpus") {
    if (method != "GET") return error_response(405, "/api/" + route + " takes GET.");
    if (route == "health") return ok({{"ok", true}, {"version", "0.1.0"}});
    return ok(route == "models" ? models_json() : gpus_json());
  }
  std::string command = route;
  bool with_view = false;
  if (const auto slash = route.find('/'); slash != std::string::npos) {
    command = route.substr(0, slash);
    if (route.substr(slash + 1) != "view") return error_response(404, "No such API route: /api/" + route + ".");
    with_view = true;
  }
  if (command != "train" && command != "memory" && command != "plan") return error_response(404, "No such API route: /api/" + route + ".");
  if (method != "POST") return error_response(405, "/api/" + route + " takes POST with a JSON object.");
  json j;
  try {
    j = json::parse(body);
  } catch (const json::parse_error& e) {
    return error_response(400, fmt::format("The request body is not valid JSON: {}", e.what()));
  }
  if (!j.is_object()) return error_response(400, fmt::format("The request body must be a JSON object (got {}).", type_name(j)));
  Body b(j);
  Report rep;
  if (command == "train") rep = train(b);
  else if (command == "memory") rep = memory(b);
  else rep = plan_endpoint(b);
  if (!with_view) return ok(to_json(rep));
  return ok({{"report", to_json(rep)}, {"view", view(rep)}});
}

}  // namespace

ApiResponse handle_request(const std::string& method, const std::string& path, const std::string& body) {
  try {
    if (body.size() > kMaxBodyBytes) {
      return error_response(413, fmt::format("The request body is {} bytes; the limit is {} bytes.", body.size(), kMaxBodyBytes));
    }
    if (path.find("..") != std::string::npos || path.find('\\') != std::string::npos || path.find('\0') != std::string::npos) {
      return error_response(400, "The path must not contain '..', '\\' or NUL.", "path");
    }
    if (path.rfind("/api/", 0) == 0) return api(method, path.substr(5), body);
    if (method != "GET" && method != "HEAD") return error_response(405, "Pages take GET; the API is under /api/.");
    const std::string name = (path == "/" || path.empty()) ? "index.html" : path.substr(1);
    for (const auto& f : embedded_web_files()) {
      if (f.path == name) return ApiResponse{200, content_type_for(name), f.content};
    }
    return error_response(404, "No such page: " + path + ".", "path");
  } catch (const InputError& e) {
    return error_response(400, e.what(), field_key(e.field()));
  } catch (const json::exception& e) {
    return error_response(400, fmt::format("Malformed JSON input: {}", e.what()));
  } catch (const std::exception& e) {
    return error_response(500, fmt::format("Internal error: {} (please report this).", e.what()));
  }
}

}  // namespace gpuplan::web
