// Loading serving-engine profiles (data/engines/*.json, format in
// data/engines/README.md) and resolving "engine@version".
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "data/embedded_data.hpp"
#include "gpuplan/engine.hpp"
#include "gpuplan/error.hpp"
#include "profile_json.hpp"
#include "units/text_match.hpp"
#include "frameworks/framework_words.hpp"

namespace gpuplan {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& en, const std::string& zh) { throw InputError("engine", en, zh); }

double number(const json& v, const std::string& where, double lo, double hi) {
  if (!v.is_number() || v.get<double>() < lo || v.get<double>() > hi) {
    bad(fmt::format("{} must be a number from {} to {} (got {}).", where, lo, hi, v.dump()),
        fmt::format("{} 须为 {} 到 {} 之间的数（输入为 {}）。", where, lo, hi, v.dump()));
  }
  return v.get<double>();
}

template <class E>
E engine_pick(const json& v, const std::string& where, const std::vector<std::pair<const char*, E>>& allowed) {
  return profile_json::pick(v, where, allowed, "engine");
}

bool engine_boolean(const json& v, const std::string& where) { return profile_json::boolean(v, where, "engine"); }

std::vector<std::string> nonempty_strings(const json& v, const std::string& where, const std::vector<std::string>& allowed) {
  if (!v.is_array() || v.empty()) bad(where + " must be a non-empty list.", where + " 须为非空列表。");
  return profile_json::strings(v, where, allowed, "engine");
}

EngineDeviceRule device_rule(const json& r, const std::string& where) {
  if (!r.is_object()) bad(where + " must be an object.", where + " 须为对象。");
  static const std::vector<std::string> keys = {"memory_gib_at_least", "memory_gib_below", "name_has", "name_lacks", "tp_at_least",
                                                "tp_below", "max_num_seqs", "max_num_batched_tokens", "cuda_graph_max_bs", "kv_memory_fraction"};
  EngineDeviceRule d;
  for (const auto& [k, x] : r.items()) {
    const std::string w = where + " " + k;
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) bad(fmt::format("{}: unknown key; allowed: memory_gib_at_least, memory_gib_below, name_has, name_lacks, tp_at_least, tp_below, max_num_seqs, max_num_batched_tokens, cuda_graph_max_bs, kv_memory_fraction.", w),
                                                                   fmt::format("{}：未知键。", w));
    if (k == "kv_memory_fraction") {
      d.kv_memory_fraction = number(x, w, 0.01, 1);
    } else if (k == "name_has" || k == "name_lacks") {
      if (!x.is_string()) bad(w + " must be a lower-case string.", w + " 须为小写字符串。");
      (k == "name_has" ? d.name_has : d.name_lacks) = ascii_lower(x.get<std::string>());
    } else if (k == "memory_gib_at_least") {
      d.memory_gib_at_least = number(x, w, 0, 1e4);
    } else if (k == "memory_gib_below") {
      d.memory_gib_below = number(x, w, 0, 1e4);
    } else if (k == "tp_at_least") {
      d.tp_at_least = static_cast<int>(number(x, w, 0, 4096));
    } else if (k == "tp_below") {
      d.tp_below = static_cast<int>(number(x, w, 0, 4096));
    } else {
      const long long n = static_cast<long long>(number(x, w, 1, 1e7));
      (k == "max_num_seqs" ? d.max_num_seqs : k == "max_num_batched_tokens" ? d.max_num_batched_tokens : d.cuda_graph_max_bs) = n;
    }
  }
  return d;
}

// Every property of the format once: its key, the value a file that leaves it
// out takes (the default written beside the EngineProfile field; nullptr: the
// first version must state it), and how its value sets the profile.
using EngineSetter = void (*)(EngineProfile& p, const json& v, const std::string& where);
struct EngineProperty {
  const char* key;
  const char* default_text;  // nullptr: the first version must state it
  EngineSetter set;
};

template <bool EngineProfile::*Member>
void set_engine_bool(EngineProfile& p, const json& v, const std::string& where) {
  p.*Member = engine_boolean(v, where);
}

constexpr EngineProperty kEngineProperties[] = {
  {"platforms", nullptr, [](EngineProfile& p, const json& v, const std::string& w) { p.platforms = nonempty_strings(v, w, {"nvidia", "amd", "huawei", "intel", "apple", "cpu"}); }},
  {"batching", nullptr,
    [](EngineProfile& p, const json& v, const std::string& w) {
      p.batching = engine_pick<BatchingMode>(v, w, {{"continuous", BatchingMode::kContinuous}, {"static", BatchingMode::kStatic}});
    }},
  {"kv_cache_memory", nullptr,
    [](EngineProfile& p, const json& v, const std::string& w) {
      if (!v.is_object() || !v.contains("fraction") || !v.contains("of")) bad(w + ": give {\"fraction\": 0–1, \"of\": \"device\", \"free_after_weights\" or \"device_total_for_pool\"}.", w + "：请写成 {\"fraction\": 0–1, \"of\": \"device\"、\"free_after_weights\" 或 \"device_total_for_pool\"}。");
      p.kv_memory_fraction = number(v["fraction"], w + " fraction", 0.01, 1);
      p.kv_share_of = engine_pick<KvShareOf>(v["of"], w + " of", {{"device", KvShareOf::kDevice}, {"free_after_weights", KvShareOf::kFreeAfterWeights}, {"device_total_for_pool", KvShareOf::kDeviceTotalForPool}});
      p.kv_sized_before_buffers = v.contains("before_runtime_buffers") && engine_boolean(v["before_runtime_buffers"], w + " before_runtime_buffers");
      p.kv_fraction_rule = v.contains("fraction_rule")
                               ? engine_pick<KvFractionRule>(v["fraction_rule"], w + " fraction_rule", {{"fixed", KvFractionRule::kFixed}, {"sglang_reserved_memory", KvFractionRule::kSglangReservedMemory}, {"device_less_reserve", KvFractionRule::kDeviceLessReserve}})
                               : KvFractionRule::kFixed;
    }},
  {"batch_limits", nullptr,
    [](EngineProfile& p, const json& v, const std::string& w) {
      if (!v.is_object() || !v.contains("rule")) bad(w + ": give {\"rule\": ..., \"rows\": [...]}.", w + "：请写成 {\"rule\": ..., \"rows\": [...]}。");
      p.batch_limit_rule = engine_pick<BatchLimitRule>(v["rule"], w + " rule", {{"device_table", BatchLimitRule::kDeviceTable},
                                                                           {"trtllm_bench_tuning", BatchLimitRule::kTrtllmBenchTuning},
                                                                           {"sglang_pool", BatchLimitRule::kSglangPool},
                                                                           {"vllm_v0_scheduler", BatchLimitRule::kVllmV0Scheduler}});
      p.device_rules.clear();
      const json rows = v.value("rows", json::array());
      if (!rows.is_array()) bad(w + " rows must be a list.", w + " rows 须为列表。");
      for (size_t i = 0; i < rows.size(); ++i) p.device_rules.push_back(device_rule(rows[i], fmt::format("{} rows[{}]", w, i)));
      if (p.batch_limit_rule != BatchLimitRule::kTrtllmBenchTuning && (p.device_rules.empty() || p.device_rules.back().max_num_seqs + p.device_rules.back().cuda_graph_max_bs == 0))
        bad(w + ": the last row is the fallback and must give the limits.", w + "：最后一行是兜底行，须给出上限。");
      p.prefill_budget_plus_batch = v.contains("prefill_budget_plus_batch") ? static_cast<long long>(number(v["prefill_budget_plus_batch"], w + " prefill_budget_plus_batch", 1, 1e7)) : 0;
    }},
  {"kv_block_tokens", nullptr, [](EngineProfile& p, const json& v, const std::string& w) { p.kv_block_tokens = static_cast<long long>(number(v, w, 1, 65536)); }},
  {"chunked_prefill", nullptr, set_engine_bool<&EngineProfile::chunked_prefill>},
  {"mixed_prefill_decode", nullptr, set_engine_bool<&EngineProfile::mixed_prefill_decode>},
  {"kv_reservation", nullptr,
    [](EngineProfile& p, const json& v, const std::string& w) {
      p.reserve_whole_sequence = engine_pick<bool>(v, w, {{"as_generated", false}, {"whole_sequence", true}});
    }},
  {"prefill_context", "unbounded",
    [](EngineProfile& p, const json& v, const std::string& w) {
      p.prefill_context_is_session_len = engine_pick<bool>(v, w, {{"unbounded", false}, {"session_len", true}});
    }},
  {"kv_precisions", nullptr, [](EngineProfile& p, const json& v, const std::string& w) { p.kv_precisions = nonempty_strings(v, w, {"fp32", "fp16", "bf16", "fp8", "int8", "int4"}); }},
  {"cuda_graphs", nullptr, set_engine_bool<&EngineProfile::cuda_graphs>},
  {"host_step_ms", "0", [](EngineProfile& p, const json& v, const std::string& w) { p.host_step_s = number(v, w, 0, 1000) * 1e-3; }},
  {"eager_host_us_per_layer", "0", [](EngineProfile& p, const json& v, const std::string& w) { p.eager_layer_s = number(v, w, 0, 100000) * 1e-6; }},
  {"kv_append", "in_place",
    [](EngineProfile& p, const json& v, const std::string& w) { p.kv_concat_copy = engine_pick<bool>(v, w, {{"in_place", false}, {"concat_copy", true}}); }},
  {"decode_kv_reads", "per_kv_head",
    [](EngineProfile& p, const json& v, const std::string& w) {
      p.kv_read_per_query_head = engine_pick<bool>(v, w, {{"per_kv_head", false}, {"per_query_head", true}});
    }},
  {"first_token", "prefill",
    [](EngineProfile& p, const json& v, const std::string& w) { p.first_token_from_decode = engine_pick<bool>(v, w, {{"prefill", false}, {"next_decode_step", true}}); }},
  {"attention_scores", "in_kernel",
    [](EngineProfile& p, const json& v, const std::string& w) {
      p.attention_scores_materialised = engine_pick<bool>(v, w, {{"in_kernel", false}, {"materialised_f32", true}});
    }},
  {"tp_allreduce", "custom",
    [](EngineProfile& p, const json& v, const std::string& w) { p.tp_allreduce_nccl = engine_pick<bool>(v, w, {{"custom", false}, {"nccl", true}}); }},
  {"tp_allreduce_rocm", "as tp_allreduce",
    [](EngineProfile& p, const json& v, const std::string& w) { p.tp_allreduce_rocm_nccl = engine_pick<bool>(v, w, {{"custom", false}, {"nccl", true}}); }},
  {"rocm_skinny_fp8_tokens", "all",
    [](EngineProfile& p, const json& v, const std::string& w) {
      if (v.is_string() && v.get<std::string>() == "all") {
        p.rocm_skinny_fp8_tokens = -1;
      } else if (v.is_number()) {
        p.rocm_skinny_fp8_tokens = static_cast<long long>(number(v, w, 0, 1e6));
      } else {
        bad(w + " must be a token count from 0 to 1000000 or \"all\".", w + " 须为 0 到 1000000 之间的 token 数或 \"all\"。");
      }
    }},
  {"prefill_ubatch_tokens", "0", [](EngineProfile& p, const json& v, const std::string& w) { p.prefill_ubatch_tokens = static_cast<long long>(number(v, w, 0, 1e7)); }},
  {"rule_constants", "(none)",
    [](EngineProfile& p, const json& v, const std::string& w) {
      if (!v.is_object()) bad(w + " must be an object of named numbers.", w + " 须为“名称: 数值”对象。");
      p.rule_constants.clear();
      for (const auto& [k, x] : v.items()) p.rule_constants.emplace_back(k, number(x, w + " " + k, -1e9, 1e9));
    }},
};

std::string engine_value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string s;
    for (const json& x : v) s += (s.empty() ? "" : ", ") + engine_value_text(x);
    return s;
  }
  if (v.is_object()) {
    std::string s;
    for (const auto& [k, x] : v.items()) s += (s.empty() ? "" : "; ") + k + " " + engine_value_text(x);
    return "{" + s + "}";
  }
  return v.dump();
}

std::string field_text(const json& j, const char* key, const std::string& where, bool required = true) {
  return profile_json::text(j, key, where, required, "engine");
}

bool is_date(const std::string& v) { return profile_json::valid_date(v) || (v.size() == 4 && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }) && v >= "2015"); }

}  // namespace

double EngineProfile::constant(const std::string& key) const {
  for (const auto& [k, v] : rule_constants) {
    if (k == key) return v;
  }
  throw InputError("engine", fmt::format("engine profile {} lacks the rule constant '{}' (data/engines/{}.json).", label(), key, id),
                   fmt::format("推理引擎配置 {} 缺少规则常数 '{}'（data/engines/{}.json）。", label(), key, id));
}

bool EngineProfile::runs_on(const std::string& vendor) const { return std::find(platforms.begin(), platforms.end(), vendor) != platforms.end(); }

EngineFamily parse_engine_family(const std::string& content, const std::string& origin) {
  json j;
  try {
    j = json::parse(content);
  } catch (const json::exception& e) {
    bad(fmt::format("{}: not valid JSON ({}).", origin, e.what()), fmt::format("{}：不是合法的 JSON（{}）。", origin, e.what()));
  }
  if (!j.is_object()) bad(origin + ": a profile is a JSON object.", origin + "：引擎配置须为 JSON 对象。");
  EngineFamily fam;
  fam.id = field_text(j, "id", origin);
  fam.name = field_text(j, "name", origin);
  fam.repository = field_text(j, "repository", origin, false);
  for (const json& a : j.value("aliases", json::array())) {
    if (a.is_string()) fam.aliases.push_back(normalize_name(a.get<std::string>()));
  }
  const json versions = j.value("versions", json::array());
  if (!versions.is_array() || versions.empty()) bad(origin + ": 'versions' must be a non-empty list.", origin + "：'versions' 须为非空列表。");
  EngineProfile current;
  current.id = fam.id;
  current.name = fam.name;
  std::map<std::string, EngineFact> facts;
  std::string last_date;
  for (size_t i = 0; i < versions.size(); ++i) {
    const json& v = versions[i];
    const std::string where = fmt::format("{} versions[{}]", origin, i);
    if (!v.is_object()) bad(where + ": a version entry is an object.", where + "：每个版本条目须为对象。");
    current.version = field_text(v, "version", where);
    current.date = field_text(v, "date", where);
    if (!profile_json::valid_date(current.date)) bad(fmt::format("{}: date must be YYYY-MM (got '{}').", where, current.date), fmt::format("{}：date 须为 YYYY-MM 格式（输入为 '{}'）。", where, current.date));
    if (current.date < last_date) bad(where + ": versions must be in date order.", where + "：各版本须按日期先后排列。");
    last_date = current.date;
    current.version_source = field_text(v, "source", where);
    const json props = v.value("properties", json::object());
    if (!props.is_object()) bad(where + ": 'properties' must be an object.", where + "：'properties' 须为对象。");
    for (const auto& [key, entry] : props.items()) {
      const std::string pw = where + " " + key;
      const EngineProperty* prop = nullptr;
      for (const EngineProperty& p : kEngineProperties) {
        if (key == p.key) prop = &p;
      }
      if (!prop) bad(fmt::format("{}: unknown property (data/engines/README.md lists them).", pw), fmt::format("{}：未知属性（见 data/engines/README.md）。", pw));
      if (!entry.is_object() || !entry.contains("value")) bad(pw + ": give {\"value\": ..., \"source\": ...}.", pw + "：请写成 {\"value\": ..., \"source\": ...}。");
      prop->set(current, entry["value"], pw + " value");
      facts[key] = EngineFact{key, engine_value_text(entry["value"]), field_text(entry, "source", pw)};
    }
    if (i == 0) {
      for (const EngineProperty& p : kEngineProperties) {
        if (facts.count(p.key)) continue;
        if (!p.default_text) bad(fmt::format("{}: the first version must state '{}'.", where, p.key), fmt::format("{}：第一个版本须写明 '{}'。", where, p.key));
        facts[p.key] = EngineFact{p.key, p.default_text, "not stated in the profile: gpuplan's default (data/engines/README.md)"};
      }
    }
    current.facts.clear();
    for (const EngineProperty& p : kEngineProperties) current.facts.push_back(facts[p.key]);
    fam.versions.push_back(current);
  }
  return fam;
}

const std::vector<EngineFamily>& engine_catalog() {
  static const std::vector<EngineFamily> catalog = [] {
    std::vector<EngineFamily> out;
    for (const auto& f : embedded_files()) {
      if (f.path.rfind("engines/", 0) == 0 && f.path.size() > 5 && f.path.substr(f.path.size() - 5) == ".json") {
        out.push_back(parse_engine_family(f.content, "data/" + f.path));
      }
    }
    std::sort(out.begin(), out.end(), [](const EngineFamily& a, const EngineFamily& b) { return a.id < b.id; });
    return out;
  }();
  return catalog;
}

namespace {

// The engine's name and the version asked, from "vllm@0.6.3", "vLLM 0.10" or
// "vllm". With a space, the next word is the version only where it starts with
// a digit ("TensorRT-LLM 1.0 (PyTorch backend)"); otherwise every word is the
// name ("lmdeploy pytorch" names LMDeploy's PyTorch engine, not TurboMind).
std::pair<std::string, std::string> split_spec(const std::string& spec) {
  const size_t at = spec.find('@');
  if (at != std::string::npos) return {normalize_name(spec.substr(0, at)), spec.substr(at + 1)};
  const size_t space = spec.find(' ');
  if (space == std::string::npos || space + 1 >= spec.size() || !(spec[space + 1] >= '0' && spec[space + 1] <= '9')) return {normalize_name(spec), ""};
  std::string version = spec.substr(space + 1);
  const size_t end = version.find_first_of(" (");
  return {normalize_name(spec.substr(0, space)), end == std::string::npos ? version : version.substr(0, end)};
}

const EngineFamily* family_of(const std::string& name) {
  for (const auto& f : engine_catalog()) {
    if (normalize_name(f.id) == name || std::find(f.aliases.begin(), f.aliases.end(), name) != f.aliases.end()) return &f;
  }
  return nullptr;
}

}  // namespace

bool engine_has_profile(const std::string& spec) { return family_of(split_spec(spec).first) != nullptr; }

EngineProfile find_engine(const std::string& spec, const std::string& field) {
  const auto [name, version] = split_spec(spec);
  const EngineFamily* fam = family_of(name);
  if (!fam) {
    std::string ids;
    for (const auto& f : engine_catalog()) ids += (ids.empty() ? "" : ", ") + f.id;
    throw InputError(field, fmt::format("{}: unknown serving engine '{}'; known: {} (optionally @version, e.g. vllm@0.6.3).", field, spec, ids),
                     fmt::format("{}：未知推理引擎 '{}'；可选 {}（可加 @版本，如 vllm@0.6.3）。", field, spec, ids));
  }
  if (version.empty()) return fam->versions.back();
  const bool by_date = is_date(version);
  const std::string date = version.size() == 4 ? version + "-12" : version;
  const std::vector<long> asked = profile_json::release_parts(version);
  if (!by_date && asked.empty()) {
    throw InputError(field, fmt::format("{}: '{}' is not a release number or a date (YYYY-MM) of {}.", field, version, fam->id),
                     fmt::format("{}：'{}' 不是 {} 的版本号或日期（YYYY-MM）。", field, version, fam->id));
  }
  const EngineProfile* best = nullptr;
  for (const auto& p : fam->versions) {
    if (by_date ? p.date <= date : profile_json::release_at_or_before(profile_json::release_parts(p.version), asked) || profile_json::in_series(asked, profile_json::release_parts(p.version))) best = &p;
  }
  if (!best) {
    EngineProfile first = fam->versions.front();
    first.note = fmt::format("{} has no profile as old as {}: the earliest, {}, assumed", fam->id, version, first.version);
    first.note_zh = fmt::format("{} 没有早至 {} 的配置：按最早的 {} 计", fam->id, version, first.version);
    return first;
  }
  EngineProfile p = *best;
  if (by_date ? p.date != date : !profile_json::release_at_or_before(asked, profile_json::release_parts(p.version)) && !profile_json::in_series(asked, profile_json::release_parts(p.version))) {
    p.note = fmt::format("{}@{} resolves to the profile of {} (the latest at or before it)", fam->id, version, p.version);
    p.note_zh = fmt::format("{}@{} 按 {} 的配置计（不晚于它的最近版本）", fam->id, version, p.version);
  }
  return p;
}

}  // namespace gpuplan
