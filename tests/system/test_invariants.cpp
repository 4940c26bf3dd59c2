// Invariants over many generated inputs (issue 8): properties every answer must
// have, checked on at least 10,000 inputs each from a seeded generator (the same
// inputs on every run). Uses the library, not the binary, to stay fast.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuplan/error.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "report/memory_report.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "report/report.hpp"
#include "report/train_report.hpp"
#include "gpuplan/training_run.hpp"
#include "model/hf_config.hpp"
#include "inputs/report_chains.hpp"

namespace gpuplan {
namespace {

using nlohmann::json;
// 10,000 generated inputs per invariant in the optimised run; 2,000 under
// ASan + UBSan (GPUPLAN_SANITIZED, CMakeLists.txt), where each costs ten times
// as much and the point is memory and undefined-behaviour errors on the same
// code paths, not the breadth of the sample.
#ifdef GPUPLAN_SANITIZED
constexpr int kInputs = 2000;
#else
constexpr int kInputs = 10000;
#endif

// The generator: std::mt19937_64 with a fixed seed per test.
class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  double log_uniform(double lo, double hi) { return std::exp(uniform(std::log(lo), std::log(hi))); }
  int64_t integer(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  bool coin(double p = 0.5) { return uniform(0, 1) < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[static_cast<size_t>(integer(0, static_cast<int64_t>(v.size()) - 1))]; }
  int pow2(int max_log2) { return 1 << integer(0, max_log2); }

 private:
  std::mt19937_64 rng_;
};

// Keys whose value may be negative: a slack or headroom below zero means "missed"/"does not fit".
bool may_be_negative(const std::string& key) {
  static const char* const kSigned[] = {"slack", "headroom", "error", "delta", "change", "saving", "difference"};
  for (const char* s : kSigned) {
    if (key.find(s) != std::string::npos) return true;
  }
  return false;
}

// Every number in the document is finite, and non-negative unless its key says it may be negative.
void check_numbers(const json& j, const std::string& path, const std::string& key, std::string* failure) {
  if (!failure->empty()) return;
  if (j.is_number()) {
    const double v = j.get<double>();
    if (!std::isfinite(v)) *failure = path + " is not finite";
    else if (v < 0 && !may_be_negative(key)) *failure = path + " is negative: " + std::to_string(v);
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) check_numbers(it.value(), path + "." + it.key(), it.key(), failure);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) check_numbers(j[i], path + "[" + std::to_string(i) + "]", key, failure);
  }
}

std::vector<std::string> catalog_model_ids() {
  std::vector<std::string> ids;
  for (const auto& m : model_catalog()) ids.push_back(m.spec.id);
  return ids;
}
std::vector<std::string> bf16_gpu_ids() {
  std::vector<std::string> ids;
  for (const auto& g : gpu_catalog()) {
    if (g.has(Precision::kBf16)) ids.push_back(g.id);
  }
  return ids;
}

// A random, valid training request with a given MFU (no layout search inside).
TrainRequest random_train_request(Gen& g) {
  static const std::vector<std::string> models = catalog_model_ids();
  static const std::vector<std::string> gpus = bf16_gpu_ids();
  TrainRequest r;
  if (g.coin(0.7)) r.model = g.pick(models);
  else r.params = g.log_uniform(1e6, 1e13);
  r.workload.tokens = g.log_uniform(1e6, 1e15);
  r.workload.seq_len = int64_t{1} << g.integer(7, 17);
  if (g.coin(0.3)) r.workload.epochs = g.uniform(1, 4);
  if (g.coin(0.3)) r.workload.global_batch_seqs = static_cast<double>(g.pow2(12));
  r.gpu = g.pick(gpus);
  r.mfu = g.uniform(0.05, 0.7);
  if (g.coin(0.8)) r.gpus = static_cast<double>(g.integer(1, 100000));
  else r.deadline_s = g.log_uniform(3600, 3e8);
  if (g.coin(0.5)) r.fault_budget = g.uniform(0, 0.5);
  r.comm_margin = g.coin(0.3) ? g.uniform(0, 0.3) : 0.0;
  r.recompute = static_cast<Recompute>(g.integer(0, 2));
  r.causal_half = g.coin(0.3);
  if (g.coin(0.3)) {
    static const std::vector<std::string> prices = {"2.49", "$1.5", "15cny", "15-30cny", "0.5-4"};
    r.price.text = g.pick(prices);
  }
  r.price.spot = g.coin(0.2);
  return r;
}

// A random synthetic transformer from Hugging Face keys: dense or MoE, MHA/GQA/MQA.
ModelSpec random_model(Gen& g, int max_layers = 48) {
  const int64_t head_dim = g.coin(0.5) ? 64 : 128;
  const int64_t heads = g.pow2(6);
  const int64_t kv = std::max<int64_t>(1, heads >> g.integer(0, 3));
  json c = {{"num_hidden_layers", g.integer(1, max_layers)},
            {"hidden_size", heads * head_dim},
            {"num_attention_heads", heads},
            {"num_key_value_heads", kv},
            {"intermediate_size", heads * head_dim * g.integer(2, 4)},
            {"vocab_size", g.integer(1000, 160000)},
            {"hidden_act", g.coin() ? "silu" : "gelu"},
            {"tie_word_embeddings", g.coin()}};
  if (g.coin(0.2)) {
    c["model_type"] = "mixtral";
    c["num_local_experts"] = g.pow2(4) * 2;
    c["num_experts_per_tok"] = 2;
  }
  return model_from_hf_config(c, "generated");
}

TEST(Invariants, MoreGpusNeverLengthenARunAtFixedMfu) {
  Gen g(802);
  for (int i = 0; i < kInputs; ++i) {
    RunInput a;
    a.total_model_flop = g.log_uniform(1e18, 1e28);
    a.peak_flop_per_s = g.log_uniform(1e13, 5e15);
    a.mfu = g.uniform(0.05, 0.8);
    a.gpus_per_node = g.pow2(3);
    a.comm_margin = g.uniform(0, 0.3);
    a.fault_budget = g.uniform(0, 0.5);
    const double n1 = static_cast<double>(g.integer(1, 500000));
    const double n2 = n1 + static_cast<double>(g.integer(1, 500000));
    RunInput b = a;
    a.gpus = n1;
    b.gpus = n2;
    const RunEstimate ea = solve_run(a), eb = solve_run(b);
    ASSERT_LE(eb.wall_s, ea.wall_s * (1 + 1e-12)) << n1 << " -> " << n2 << " GPUs";
    ASSERT_LE(eb.compute_s, ea.compute_s * (1 + 1e-12));
    // GPU-hours at a fixed MFU do not depend on the count.
    ASSERT_NEAR(eb.gpu_hours_compute, ea.gpu_hours_compute, ea.gpu_hours_compute * 1e-9);
  }
  // The same through the whole report, with a fixed fault budget (the computed one
  // grows with the cluster, as failures do: see TrainReportFaultTimeGrowsWithGpus).
  int ok = 0;
  for (int i = 0; ok < 1000 && i < 5000; ++i) {
    TrainRequest r = random_train_request(g);
    r.deadline_s.reset();
    r.fault_budget = g.uniform(0, 0.3);
    r.gpus = static_cast<double>(g.integer(1, 50000));
    TrainRequest r2 = r;
    r2.gpus = *r.gpus * g.integer(2, 8);
    try {
      const json a = to_json(train_report_for(r)), b = to_json(train_report_for(r2));
      ASSERT_LE(b["time"]["wall_clock_s"].get<double>(), a["time"]["wall_clock_s"].get<double>() * (1 + 1e-12));
      ++ok;
    } catch (const InputError&) {
    }
  }
  EXPECT_GE(ok, 1000);
}

// A random valid layout of `model` (validate_layout passes), or nothing.
std::optional<Layout> random_layout(Gen& g, const ModelSpec& model) {
  Layout l;
  l.tp = g.pow2(3);
  l.pp = g.coin(0.6) ? 1 : g.pow2(3);
  l.dp = g.pow2(6);
  l.cp = g.coin(0.8) ? 1 : 2;
  l.ep = model.is_moe() && g.coin() ? std::min(l.dp, g.pow2(3)) : 1;
  l.micro_batch = g.pow2(3);
  l.seq_len = int64_t{1} << g.integer(8, 15);
  l.recompute = static_cast<Recompute>(g.integer(0, 2));
  l.sequence_parallel = l.tp > 1 && g.coin();
  l.attention = g.coin(0.8) ? AttentionKernel::kFlash2 : AttentionKernel::kMaterialised;
  l.optimizer = g.coin(0.8) ? Optimizer::kAdamW : Optimizer::kAdamW8bit;
  l.offload_optimizer = g.coin(0.1);
  l.offload_activations = g.coin(0.1);
  l.pure_bf16 = g.coin(0.1);
  l.zero_stage = static_cast<int>(g.integer(0, 3));
  try {
    validate_layout(model, l, l.gpus());
  } catch (const InputError&) {
    return std::nullopt;
  }
  return l;
}

std::string describe_layout(const Layout& l) {
  return "tp " + std::to_string(l.tp) + " pp " + std::to_string(l.pp) + " dp " + std::to_string(l.dp) + " cp " +
         std::to_string(l.cp) + " ep " + std::to_string(l.ep) + " mb " + std::to_string(l.micro_batch) + " seq " +
         std::to_string(l.seq_len) + " zero " + std::to_string(l.zero_stage) + " recompute " + recompute_name(l.recompute) +
         (keeps_attention_scores(l) ? " no-flash" : " flash") + (l.offload_activations ? " offload-act" : "") +
         (l.offload_optimizer ? " offload-opt" : "") + (l.sequence_parallel ? " sp" : "");
}

ModelSpec random_model_or_catalog(Gen& g) {
  static const std::vector<std::string> models = catalog_model_ids();
  return g.coin(0.5) ? find_model(g.pick(models)) : random_model(g);
}

TEST(Invariants, MemoryReportNumbersAreFiniteAndNonNegative) {
  Gen g(803);
  static const std::vector<std::string> gpus = bf16_gpu_ids();
  int ok = 0;
  for (int i = 0; ok < kInputs && i < 20 * kInputs; ++i) {
    const ModelSpec m = random_model_or_catalog(g);
    const auto l = random_layout(g, m);
    if (!l) continue;
    MemoryOptions o;
    o.suggest = (ok % 10) == 0;  // the suggestions search is the slow part
    const json j = to_json(memory_report_for(m, *l, find_gpu(g.pick(gpus)), o));
    std::string failure;
    check_numbers(j, "$", "", &failure);
    ASSERT_TRUE(failure.empty()) << failure << "\n" << j.dump(1);
    ++ok;
  }
  EXPECT_GE(ok, kInputs);
}

TEST(Invariants, HigherZeroStageNeverRaisesPerGpuMemory) {
  Gen g(804);
  const GpuSpec& gpu = find_gpu("h100");
  int ok = 0;
  for (int i = 0; ok < kInputs && i < 20 * kInputs; ++i) {
    const ModelSpec m = random_model_or_catalog(g);
    auto l = random_layout(g, m);
    if (!l) continue;
    MemoryOptions o;
    o.suggest = false;
    double previous_states = 0, previous_peak = 0;
    for (int z = 0; z <= 3; ++z) {
      l->zero_stage = z;
      const MemoryBreakdown b = estimate_memory(m, *l, gpu, o);
      const double states = b.weights_bytes + b.gradients_bytes + b.optimizer_bytes;
      if (z > 0) {
        ASSERT_LE(states, previous_states * (1 + 1e-12)) << m.name << " zero " << z << " " << describe_layout(*l);
        // The peak too, but for ZeRO-3's gathered layers: FSDP holds the full weights of the
        // layers it prefetches, which for a model of a few layers can exceed what sharding saves.
        // The allocator's fragmentation share (MemoryOptions::fragmentation,
        // 5% by default) applies to the gathered layers too.
        ASSERT_LE(b.peak_bytes - b.zero3_gathered_bytes * 1.05, previous_peak * (1 + 1e-12))
            << m.name << " zero " << z << " dp " << l->dp << " " << describe_layout(*l);
      }
      previous_states = states;
      previous_peak = b.peak_bytes;
    }
    ++ok;
  }
  EXPECT_GE(ok, kInputs);
}

TEST(Invariants, RecomputeNeverRaisesActivationMemory) {
  Gen g(805);
  const GpuSpec& gpu = find_gpu("a100-80g");
  int ok = 0;
  for (int i = 0; ok < kInputs && i < 20 * kInputs; ++i) {
    const ModelSpec m = random_model_or_catalog(g);
    auto l = random_layout(g, m);
    if (!l) continue;
    MemoryOptions o;
    o.suggest = false;
    o.dropout = g.coin(0.3);
    double previous = 0, previous_layer = 0;
    for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
      l->recompute = rc;
      const MemoryBreakdown b = estimate_memory(m, *l, gpu, o);
      const double per_layer = activation_bytes_per_layer(m, *l, false, o);
      if (rc != Recompute::kNone) {
        ASSERT_LE(b.activations_bytes, previous * (1 + 1e-12)) << m.name << " " << recompute_name(rc) << " " << describe_layout(*l);
        ASSERT_LE(per_layer, previous_layer * (1 + 1e-12)) << m.name << " " << recompute_name(rc) << " " << describe_layout(*l);
      }
      previous = b.activations_bytes;
      previous_layer = per_layer;
    }
    ++ok;
  }
  EXPECT_GE(ok, kInputs);
}

// The number a table shows for a row, parsed back: "93,483 GPU-hours" -> 93483.
std::optional<double> leading_number(const std::string& s) {
  std::string digits;
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == ',' || s[i] == '.' || (i == 0 && s[i] == '-'))) {
    if (s[i] != ',') digits.push_back(s[i]);
    ++i;
  }
  if (digits.empty() || digits == "-") return std::nullopt;
  return std::strtod(digits.c_str(), nullptr);
}

// Every amount of the cost object equals its GPU-hours × "per_gpu_hour" (keys
// without a currency: the object's "currency" names it); returns how many were checked.
int check_cost(const json& j) {
  const json& h = j["gpu_hours"];
  const json& c = j["cost"];
  if (!c.contains("per_gpu_hour") || !c["currency"].is_string()) return -1;
  const double price = c["per_gpu_hour"].get<double>();
  int checked = 0;
  for (const char* part : {"compute", "comm_margin", "fault_budget", "spot_overhead", "run"}) {
    const std::string hours_key = (std::string(part) == "run" ? std::string("total") : part) + "_gpu_hours";
    if (!c.contains(part) || c[part].is_null() || !h.contains(hours_key)) continue;
    const double want = h[hours_key].get<double>() * price;
    EXPECT_NEAR(c[part].get<double>(), want, std::max(1e-9, std::fabs(want) * 1e-9)) << part;
    if (std::fabs(c[part].get<double>() - want) > std::max(1e-9, std::fabs(want) * 1e-9)) return -1;
    ++checked;
  }
  return checked;
}

// A few rows of a report: JSON holds the value, the table shows it formatted; returns the rows compared.
int check_json_table(Gen& g, const Report& rep, const json& j, std::string* failure) {
  const std::string table = render(rep, Format::kTable, g.coin() ? Lang::kEn : Lang::kZh);
  int compared = 0;
  for (int n = 0; n < 4; ++n) {
    const Section& s = rep.sections[static_cast<size_t>(g.integer(0, static_cast<int64_t>(rep.sections.size()) - 1))];
    if (s.rows.empty()) continue;
    const Row& row = s.rows[static_cast<size_t>(g.integer(0, static_cast<int64_t>(s.rows.size()) - 1))];
    if (row.unit == Unit::kText || row.unit == Unit::kFlag) continue;
    // A layout's degrees for programs (tp, pp, global_batch, ...): the table shows them as one line of words.
    if (row.audience == Audience::kPrograms) continue;
    const std::string where = s.key + "." + row.key;
    // A dotted section key ("cost.converted") is an object inside another.
    std::string pointer = "/" + s.key + "/" + row.key;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    const json::json_pointer at(pointer);
    if (!j.contains(at) || !j[at].is_number()) {
      *failure = where + " is not a number in the JSON";
      return compared;
    }
    // A byte count is written to the nearest byte, as an integer (render.cpp, integer_count).
    const bool bytes = row.unit == Unit::kBytes && std::fabs(row.value) < 9007199254740992.0;
    if (j[at].get<double>() != (bytes ? std::round(row.value) : row.value) || (bytes && !j[at].is_number_integer())) {
      *failure = where + ": JSON " + j[at].dump() + " != " + std::to_string(row.value);
      return compared;
    }
    const std::string shown = format_value(row, Lang::kEn), shown_zh = format_value(row, Lang::kZh);
    if (table.find(shown) == std::string::npos && table.find(shown_zh) == std::string::npos) {
      *failure = where + " shown as '" + shown + "' is not in the table:\n" + table;
      return compared;
    }
    // Whole counts are shown whole: the table's digits are the JSON value, rounded.
    if ((row.unit == Unit::kGpus || row.unit == Unit::kGpuHours) && row.value >= 1 && row.value < 1e15) {
      const auto parsed = leading_number(shown);
      if (parsed && std::fabs(*parsed - row.value) > std::max(0.5 + 1e-9, row.value * 0.005)) {
        *failure = where + " shown as '" + shown + "' but is " + std::to_string(row.value);
        return compared;
      }
    }
    ++compared;
  }
  return compared;
}

// Three invariants over the same 10,000 generated train reports (one pass, as
// train_report is the expensive part): every number finite and non-negative
// where it must be; cost = GPU-hours × price; JSON and table agree.
TEST(Invariants, TrainReportFiniteCostAndJsonTableAgree) {
  Gen g(801);
  int ok = 0, refused = 0, costs = 0, rows = 0;
  for (int i = 0; ok < kInputs && i < 3 * kInputs; ++i) {
    const TrainRequest r = random_train_request(g);
    Report rep;
    try {
      rep = train_report_for(r);
    } catch (const InputError&) {
      ++refused;  // e.g. a deadline too short for the model at MFU <= 1
      continue;
    }
    const json j = to_json(rep);
    std::string failure;
    check_numbers(j, "$", "", &failure);
    ASSERT_TRUE(failure.empty()) << failure << "\n" << j.dump(1);
    if (!j.contains("cost")) {
      // No rental price known for that GPU in that market: the report says so
      // first (a blocking warning) and shows no cost; not a priced report.
      ASSERT_TRUE(j.contains("blocking_warnings") && !j["blocking_warnings"].empty()) << j.dump(1);
      ++refused;
      continue;
    }
    const int c = check_cost(j);
    ASSERT_GE(c, 2) << "cost is not GPU-hours x price (or not found):\n" << j.dump(1);
    costs += c;
    rows += check_json_table(g, rep, j, &failure);
    ASSERT_TRUE(failure.empty()) << failure;
    ++ok;
  }
  EXPECT_GE(ok, kInputs) << refused << " refused";
  EXPECT_GE(costs, 2 * kInputs);
  EXPECT_GE(rows, kInputs);
}

TEST(Invariants, PlannedLayoutsAlwaysFitInMemory) {
  Gen g(808);
  static const std::vector<std::string> gpus = bf16_gpu_ids();
  int inputs = 0, layouts = 0;
  for (int i = 0; inputs < kInputs && i < 3 * kInputs; ++i) {
    PlanRequest r;
    r.model = random_model(g, 8);
    r.gpus = {find_gpu(g.pick(gpus))};
    r.gpu_counts = {g.pow2(2)};
    r.seq_len = int64_t{1} << g.integer(8, 13);
    r.global_batch = g.pow2(5) * 8;
    r.max_micro_batch = 2;
    r.top_k = 3;
    r.step_options.explain = false;
    r.memory_options.suggest = false;
    if (g.coin(0.5)) r.zero_stage = static_cast<int>(g.integer(0, 3));
    if (g.coin(0.5)) r.recompute = static_cast<Recompute>(g.integer(0, 2));
    PlanResult res;
    try {
      res = plan(r);
    } catch (const InputError&) {
      continue;
    }
    ++inputs;
    for (const PlanGroup& grp : res.groups) {
      for (const PlanCandidate& c : grp.top) {
        ASSERT_TRUE(c.memory.fits);
        ASSERT_NO_THROW(validate_layout(r.model, c.layout, grp.gpus));
        const MemoryBreakdown again = estimate_memory(r.model, c.layout, r.gpus[0], r.memory_options);
        ASSERT_TRUE(again.fits) << "peak " << again.peak_bytes << " capacity " << again.capacity_bytes;
        ASSERT_LE(again.peak_bytes + again.safety_margin_bytes, again.capacity_bytes * (1 + 1e-12));
        ASSERT_TRUE(std::isfinite(c.time.step_s) && c.time.step_s > 0);
        ++layouts;
      }
    }
  }
  EXPECT_GE(inputs, kInputs);
  EXPECT_GT(layouts, 0);
}

}  // namespace
}  // namespace gpuplan
