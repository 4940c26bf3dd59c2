// Reading validation cases and turning them into descriptions.
// Every value a case leaves out is replaced by a stated default and flagged.
#include <fmt/format.h>

#include <filesystem>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "inputs/choice_words.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/units.hpp"
#include "validate/validate.hpp"
#include "units/json_input.hpp"
#include "model/hf_config.hpp"
#include "execution/layout_words.hpp"
#include "frameworks/framework_words.hpp"
#include "hardware/hardware_words.hpp"

namespace gpuplan {

using nlohmann::json;

std::vector<ValidationCase> parse_cases(const std::string& text, const std::string& origin) {
  std::vector<ValidationCase> out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j;
    try {
      j = parse_json_input(line, "FILE", fmt::format("{} line {}", origin, n));
    } catch (const json::exception& e) {
      throw InputError("FILE", fmt::format("{} line {}: not valid JSON ({}).", origin, n, e.what()),
                       fmt::format("{} 第 {} 行：不是合法的 JSON（{}）。", origin, n, e.what()));
    }
    if (!j.is_object() || !j.contains("id") || !j["id"].is_string() || !j.contains("kind") || !j["kind"].is_string()) {
      throw InputError("FILE", fmt::format("{} line {}: a case needs string keys 'id' and 'kind'.", origin, n),
                       fmt::format("{} 第 {} 行：每个案例都要有字符串类型的 'id' 和 'kind'。", origin, n));
    }
    ValidationCase c;
    c.id = j["id"].get<std::string>();
    c.kind = j["kind"].get<std::string>();
    c.source = j.value("source", "");
    c.verification = j.value("verification", "");
    c.notes = j.value("notes", "");
    c.raw = std::move(j);
    c.line = n;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<ValidationCase> read_cases(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError("FILE", fmt::format("'{}' is a folder; give a JSON-lines case file (one case per line).", path),
                     fmt::format("'{}' 是文件夹；请给出 JSON Lines 案例文件（每行一个案例）。", path));
  }
  std::ifstream f(path);
  if (!f) {
    throw InputError("FILE", fmt::format("cannot read '{}': no such file or not readable.", path),
                     fmt::format("无法读取 '{}'：文件不存在或没有读权限。", path));
  }
  std::stringstream ss;
  ss << f.rdbuf();
  std::vector<ValidationCase> cases = parse_cases(ss.str(), path);
  if (cases.empty()) {
    // Nothing scored is not a pass (an empty file scored zero cases and exited 0).
    throw InputError("FILE", fmt::format("'{}' holds no cases; give a JSON-lines case file (one case per line).", path),
                     fmt::format("'{}' 中没有案例；请给出 JSON Lines 案例文件（每行一个案例）。", path));
  }
  return cases;
}

namespace {

// A whole number from a case, checked before any arithmetic: a zero, negative,
// fractional or huge value is refused naming its key (fuzz_validate_case found
// micro_batch 0 dividing by zero).
int64_t whole(const json& v, const std::string& key, double lo, double hi) {
  if (!v.is_number()) throw InputError(key, fmt::format("{} must be a number.", key), fmt::format("{} 须为数字。", key));
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi || x != std::floor(x)) {
    throw InputError(key, fmt::format("{} must be a whole number from {} to {} (got {}).", key, lo, hi, v.dump()),
                     fmt::format("{} 须为 {} 到 {} 之间的整数（输入为 {}）。", key, lo, hi, v.dump()));
  }
  return static_cast<int64_t>(x);
}


std::optional<bool> stated_bool(const json& t, const char* key) {
  if (!t.contains(key)) return std::nullopt;
  if (!t[key].is_boolean()) {
    throw InputError(std::string("train.") + key, fmt::format("train.{} must be true or false.", key), fmt::format("train.{} 须为 true 或 false。", key));
  }
  return t[key].get<bool>();
}

std::optional<std::string> stated_text(const json& t, const char* key, const char* where = "train") {
  if (!t.contains(key)) return std::nullopt;
  if (!t[key].is_string()) {
    throw InputError(std::string(where) + "." + key, fmt::format("{}.{} must be a string.", where, key), fmt::format("{}.{} 须为字符串。", where, key));
  }
  return t[key].get<std::string>();
}

// The model object: Hugging Face key names; a model given only by a name the
// catalog knows is the catalog's model.
ModelSpec case_model(const ValidationCase& c, std::vector<Bilingual>& flags) {
  json model = c.raw["model"];
  const std::string name = model.value("name", c.id);
  if (!model.contains("num_hidden_layers") && !model.contains("n_layer") && !model.contains("num_layers")) {
    // The catalog only: a case never names a file to read.
    std::optional<ModelSpec> found = find_catalog_model(name);
    if (!found) {
      throw InputError("model", fmt::format("{}: model '{}' has no architecture keys and is not a catalog model.", c.id, name),
                       fmt::format("{}：模型 '{}' 没有结构参数，也不在模型目录中。", c.id, name));
    }
    ModelSpec m = *found;
    flags.push_back({fmt::format("model given by name only: catalog model {}", m.id), fmt::format("模型只给了名称：按目录中的 {} 计", m.id)});
    return m;
  }
  const std::string act = model.value("hidden_act", "");
  if (!model.contains("hidden_act")) flags.push_back({"hidden_act not stated: 2-matrix MLP assumed", "未给出 hidden_act：按两个矩阵的 MLP 计"});
  if (!model.contains("vocab_size")) {
    // A tokenizer-era default by MLP shape: GPT-2 BPE (50257) for GPT-style
    // models, the Llama/Mistral SentencePiece vocabulary (32000) for gated ones.
    const int64_t v = act == "silu" ? 32000 : 50257;
    model["vocab_size"] = v;
    flags.push_back({fmt::format("vocab_size not stated: {} assumed", v), fmt::format("未给出 vocab_size：按 {} 计", v)});
  }
  if (!model.contains("tie_word_embeddings")) {
    flags.push_back({"tie_word_embeddings not stated: untied assumed", "未给出 tie_word_embeddings：按输入嵌入与输出层不共享权重计"});
  }
  if (model.contains("params_reported")) model.erase("params_reported");
  ModelSpec m = model_from_hf_config(model, c.id);
  m.name = name;
  return m;
}

// The framework a case names (train.framework, name@version); one gpuplan
// has no profile for runs as the generic profile, flagged.
const FrameworkProfile& case_framework(const json& t, std::vector<Bilingual>& flags) {
  const std::optional<std::string> name = stated_text(t, "framework");
  if (!name) {
    flags.push_back({"framework not stated: generic profile", "未给出框架：按通用配置计"});
    return find_framework("generic");
  }
  try {
    const FrameworkProfile& p = find_framework(*name, "train.framework");
    const size_t at = name->find('@');
    const std::string asked = at == std::string::npos ? "" : name->substr(at + 1);
    // A release number the profile has no entry for (a date resolving to an earlier entry is the rule, not flagged).
    if (!asked.empty() && asked != p.version && framework_version_date(asked).empty()) {
      flags.push_back({fmt::format("framework {} has no profile entry of its own: {}@{} assumed (data/frameworks/README.md, how a version resolves)", *name, p.id, p.version),
                       fmt::format("框架 {} 没有自己的配置条目：按 {}@{} 计（见 data/frameworks/README.md 的版本解析规则）", *name, p.id, p.version)});
    }
    return p;
  } catch (const InputError&) {
    flags.push_back({fmt::format("framework {} has no profile: generic profile", *name), fmt::format("框架 {} 没有配置：按通用配置计", *name)});
    return find_framework("generic");
  }
}

// A pipeline schedule's name in a Chinese note (the profile's ids: 1f1b, gpipe, ...).
std::string pipeline_schedule_zh(const std::string& id) {
  if (id == "1f1b") return "1F1B";
  if (id == "gpipe") return "GPipe";
  if (id == "interleaved") return "交错式";
  if (id == "zero_bubble") return "零气泡";
  return id;
}

// The case's GPU, with the overrides it states (memory, bandwidth, peak, power limit) and its node size.
GpuSpec case_gpu(const json& hw) {
  GpuSpec gpu = find_gpu(hw.value("gpu", ""));
  if (hw.contains("gpu_overrides") && hw["gpu_overrides"].is_object()) {
    const json& o = hw["gpu_overrides"];
    auto positive = [&](const char* k, double hi) {
      const double x = o[k].is_number() ? o[k].get<double>() : -1;
      if (!(x > 0 && x <= hi)) {
        throw InputError(std::string("hardware.gpu_overrides.") + k, fmt::format("hardware.gpu_overrides.{} must be a positive number.", k),
                         fmt::format("hardware.gpu_overrides.{} 须为正数。", k));
      }
      return x;
    };
    // A stated capacity that is another memory configuration of the part (H100
    // with 96 GB of HBM2e) brings that configuration's bandwidth (data/gpus.json).
    if (o.contains("memory_gib")) set_gpu_memory(gpu, positive("memory_gib", 1e5) * kGiB, o.contains("hbm_tbps"));
    if (o.contains("hbm_tbps")) gpu.hbm_bytes_per_s = positive("hbm_tbps", 1e3) * kTera;
    if (o.contains("bf16_tflops")) gpu.peak_flop_per_s[Precision::kBf16] = positive("bf16_tflops", 1e5) * kTera;
    // The case's power figure is the limit the boards ran at (nvidia-smi -pl).
    if (o.contains("tdp_w")) gpu.power_limit_w = positive("tdp_w", 1e5);
  }
  if (hw.contains("gpus_per_node")) gpu.gpus_per_node = static_cast<int>(whole(hw["gpus_per_node"], "hardware.gpus_per_node", 1, 1024));
  return gpu;
}

// The recipe the case states (precision, optimizer, fine-tuning, offload, the
// memory figure it reports), each default taken flagged.
void read_recipe(const ValidationCase& c, const json& t, const FrameworkProfile& fw, bool zero_stated, int zero_value, CaseInputs& in) {
  auto flag = [&in](std::string en, std::string zh) { in.flags.push_back({std::move(en), std::move(zh)}); };
  Layout& l = in.layout;
  if (const auto p = stated_text(t, "precision")) {
    l.precision = parse_precision(*p, "train.precision");
  } else {
    flag("precision not stated: bf16 assumed", "未给出精度：按 bf16 计");
  }
  if (const auto o = stated_text(t, "optimizer")) l.optimizer = parse_optimizer(*o, "train.optimizer");
  const std::string ft = stated_text(t, "finetune").value_or("");
  if (ft == "full") l.finetune = FineTune::kFull;
  else if (ft == "lora") l.finetune = FineTune::kLora;
  else if (ft == "qlora") l.finetune = FineTune::kQlora;
  else if (!ft.empty()) {
    throw InputError("train.finetune", c.id + ": train.finetune must be full, lora or qlora.", c.id + "：train.finetune 须为 full、lora 或 qlora。");
  }
  if (!t.contains("optimizer") && (ft.empty() || ft == "full")) flag("optimizer not stated: AdamW assumed", "未给出优化器：按 AdamW 计");
  if (l.finetune == FineTune::kLora || l.finetune == FineTune::kQlora) {
    // Unstated: the stack's default (apply_framework notes it), else gpuplan's.
    if (t.contains("lora_rank")) {
      l.lora_rank = whole(t["lora_rank"], "train.lora_rank", 1, 1e5);
    } else if (fw.lora_rank_default == 0) {
      const int r = l.finetune == FineTune::kQlora ? 64 : 8;
      flag(fmt::format("lora_rank not stated: {} assumed", r), fmt::format("未给出 lora_rank：按秩 {} 计", r));
    }
    if (fw.lora_targets_default.empty()) flag("LoRA targets not stated: q, k, v, o assumed", "未给出 LoRA 作用模块：按 q、k、v、o 计");
  }
  // QLoRA over a published GPTQ checkpoint (the model's quantization_config or
  // its name) quantises nothing itself: it loads that checkpoint through AutoGPTQ.
  if (l.finetune == FineTune::kQlora && default_qlora_base(in.model) == QloraBase::kGptqInt4) {
    l.qlora_base = QloraBase::kGptqInt4;
    flag(fmt::format("QLoRA base weights: {} is a GPTQ Int4 checkpoint (its quantization_config or name), run through AutoGPTQ (not bitsandbytes NF4)", in.model.name),
         "QLoRA 基座权重：该模型是 GPTQ Int4 权重（按其 quantization_config 或名称），经 AutoGPTQ 运行（而非 bitsandbytes NF4）");
  }
  // Offload: `offload` lists what moved to host memory; a bare cpu_offload
  // means what the sharding's own offload moves (FSDP CPUOffload: parameters,
  // gradients and optimizer states; ZeRO-Offload: optimizer states and
  // gradients) or, without sharding, activation offloading.
  if (t.contains("offload")) {
    if (!t["offload"].is_array()) throw InputError("train.offload", "train.offload must be a list.", "train.offload 须为列表。");
    for (const json& o : t["offload"]) {
      const std::string what = o.is_string() ? o.get<std::string>() : "";
      if (what == "parameters") l.offload_params = true;
      else if (what == "optimizer" || what == "gradients") l.offload_optimizer = true;
      else if (what == "activations") l.offload_activations = true;
      else {
        throw InputError("train.offload", "train.offload may hold parameters, gradients, optimizer, activations.",
                         "train.offload 只能包含 parameters、gradients、optimizer、activations。");
      }
    }
  } else if (stated_bool(t, "cpu_offload").value_or(false)) {
    if ((zero_stated ? zero_value : fw.zero_default) >= 1) {
      l.offload_optimizer = true;
      if ((zero_stated ? zero_value : fw.zero_default) == 3) l.offload_params = true;
      flag("cpu_offload without a list: the sharding's own offload (parameters with ZeRO-3, optimizer states, gradients) assumed",
           "cpu_offload 未列出卸载内容：按分片方式自带的卸载计（优化器状态与梯度，ZeRO-3 时还有参数）");
    } else {
      l.offload_activations = true;
      flag("cpu_offload without a list or sharding: activation offloading assumed", "cpu_offload 未列出卸载内容且未分片：按激活值卸载计");
    }
  }
  if (const auto s = stated_text(t, "memory_scope")) {
    if (*s == "allocated") in.memory_scope = MemoryScope::kAllocated;
    else if (*s == "reserved") in.memory_scope = MemoryScope::kReserved;
    else if (*s == "device") in.memory_scope = MemoryScope::kDevice;
    else {
      throw InputError("train.memory_scope", "train.memory_scope must be allocated, reserved or device.",
                       "train.memory_scope 须为 allocated、reserved 或 device。");
    }
  } else if (c.kind == "train_memory") {
    // The number a run reports is what its framework's own log prints.
    switch (in.framework->memory_reported) {
      case MemoryMetric::kAllocated: in.memory_scope = MemoryScope::kAllocated; break;
      case MemoryMetric::kReserved: in.memory_scope = MemoryScope::kReserved; break;
      case MemoryMetric::kDevice:
      case MemoryMetric::kNone: in.memory_scope = MemoryScope::kDevice; break;
    }
    const bool reserved = in.memory_scope == MemoryScope::kReserved, allocated = in.memory_scope == MemoryScope::kAllocated;
    if (in.framework->memory_reported == MemoryMetric::kNone) {
      flag("memory_scope not stated: device total assumed", "未给出 memory_scope：按整卡显存占用计");
    } else {
      flag(fmt::format("memory_scope not stated: what {} logs ({}) assumed", in.framework->label(),
                       reserved ? "peak reserved" : allocated ? "peak allocated" : "device total"),
           fmt::format("未给出 memory_scope：按 {} 日志报告的{}计", in.framework->label(),
                       reserved ? "峰值预留显存" : allocated ? "峰值已分配显存" : "整卡显存占用"));
    }
  }
}

// The recompute the case states, else its release's benchmark preset's (the
// release it names keys the stack's per-model, per-GPU presets, whose
// switches stand in for what the case leaves out: apply_perf_recipe, which
// also sets in.settings' recipe and release), else the default of a stack run
// from its shipped configs; unset: the planner's to choose.
std::optional<Recompute> case_recompute(const json& t, const FrameworkProfile& fw, CaseInputs& in) {
  auto flag = [&in](std::string en, std::string zh) { in.flags.push_back({std::move(en), std::move(zh)}); };
  std::optional<Recompute> recompute;
  if (const auto r = stated_text(t, "recompute")) recompute = parse_recompute(*r, "train.recompute");
  RunSettings& st = in.settings;
  if (const auto named = stated_text(t, "framework"); named && named->find('@') != std::string::npos) st.release = named->substr(named->find('@') + 1);
  apply_perf_recipe(fw, in.model, in.gpu.id, st, &in.flags);
  if (!recompute && st.recipe && st.recipe->recompute) {
    recompute = st.recipe->recompute;
    flag(fmt::format("recompute not stated: {} ({} {} benchmark recipe)", recompute_name(*recompute), fw.id, st.recipe->release),
         fmt::format("未给出 train.recompute：{}（{} {} 基准配方）", recompute_name_zh(*recompute), fw.id, st.recipe->release));
  }
  if (!recompute && fw.recompute_default_unless_named) {
    // The stack is run from its shipped recipe configs, which set recompute
    // (torchtune's enable_activation_checkpointing): not a per-run tunable.
    recompute = fw.recompute_default;
    flag(fmt::format("recompute not stated: {} ({} default)", recompute_name(*recompute), fw.label()),
         fmt::format("未给出 train.recompute：{}（{} 默认）", recompute_name_zh(*recompute), fw.label()));
  }
  return recompute;
}

}  // namespace

CaseInputs case_inputs(const ValidationCase& c) {
  CaseInputs in;
  auto flag = [&in](std::string en, std::string zh) { in.flags.push_back({std::move(en), std::move(zh)}); };
  const json& raw = c.raw;
  if (!raw.contains("model") || !raw["model"].is_object()) throw InputError("model", c.id + ": the case has no model object.", c.id + "：案例缺少 model 对象。");
  if (!raw.contains("hardware") || !raw["hardware"].is_object()) {
    throw InputError("hardware", c.id + ": the case has no hardware object.", c.id + "：案例缺少 hardware 对象。");
  }
  in.model = case_model(c, in.flags);

  in.gpu = case_gpu(raw["hardware"]);
  const json& hw = raw["hardware"];

  const json t = raw.contains("train") && raw["train"].is_object() ? raw["train"] : json::object();
  Layout& l = in.layout;
  in.gpus = hw.contains("count") ? whole(hw["count"], "hardware.count", 1, 1e7) : 0;
  if (c.kind == "inference") {
    // Serving cases have no training layout; the inference predictor reads `infer`.
    const json inf = raw.contains("infer") && raw["infer"].is_object() ? raw["infer"] : json::object();
    l.seq_len = inf.contains("input_len") ? whole(inf["input_len"], "infer.input_len", 1, 1e8) : 2048;
    return in;
  }

  // ---- What the case states. Each unstated tunable is the planner's (below).
  in.framework = &case_framework(t, in.flags);
  const FrameworkProfile& fw = *in.framework;
  auto degree = [&](const char* key, double hi) -> std::optional<int> {
    if (!t.contains(key)) return std::nullopt;
    return static_cast<int>(whole(t[key], std::string("train.") + key, 1, hi));
  };
  const std::optional<int> tp = degree("tp", 1e6), pp = degree("pp", 1e6), dp = degree("dp", 1e7), cp = degree("cp", 1e6),
                           ep = degree("ep", 1e6), vp = degree("vp", 1e3);
  if (!t.contains("seq_len")) throw InputError("train.seq_len", c.id + ": train.seq_len is required.", c.id + "：缺少 train.seq_len。");
  l.seq_len = whole(t["seq_len"], "train.seq_len", 1, 1e8);
  // Plain integers with a "stated" bit (GCC 12 warns falsely on std::optional here, PR 80635).
  int64_t mb_value = 0;
  bool mb_stated = false;
  if (t.contains("micro_batch")) {
    mb_value = whole(t["micro_batch"], "train.micro_batch", 1, 1e6);
    mb_stated = true;
  }
  std::optional<int64_t> gbs;
  if (t.contains("global_batch_seqs")) gbs = whole(t["global_batch_seqs"], "train.global_batch_seqs", 1, 1e9);
  if (!mb_stated && pp && *pp > 1 && dp && gbs && in.framework->microbatches_default_stages) {
    // The framework splits each rank's batch into as many micro-batches as
    // there are pipeline stages unless told otherwise (torchtitan).
    const int64_t per_rank = *gbs / *dp;
    if (per_rank % *pp == 0 && per_rank / *pp >= 1) {
      mb_value = per_rank / *pp;
      mb_stated = true;  // by the framework's default, flagged
      flag(fmt::format("micro_batch not stated: {} ({} micro-batches = pipeline stages, {} default)", mb_value, *pp, in.framework->label()),
           fmt::format("未给出 micro_batch：{}（{} 默认微批数等于流水线级数 {}）", mb_value, in.framework->label(), *pp));
    }
  }
  int zero_value = 0;
  bool zero_stated = false;
  if (t.contains("zero_stage")) {
    zero_value = static_cast<int>(whole(t["zero_stage"], "train.zero_stage", 0, 3));
    zero_stated = true;
  }
  const std::optional<Recompute> recompute = case_recompute(t, fw, in);
  RunSettings& st = in.settings;
  const std::optional<bool> sp = stated_bool(t, "sequence_parallel");

  if (in.gpus == 0) {
    if (tp && pp && dp) {
      in.gpus = static_cast<int64_t>(*tp) * *pp * *dp * cp.value_or(1);
    } else {
      in.gpus = static_cast<int64_t>(tp.value_or(1)) * pp.value_or(1) * cp.value_or(1) * dp.value_or(1);
      flag(fmt::format("GPU count not stated: {} assumed from the stated degrees", in.gpus),
           fmt::format("未给出卡数：按给定并行度之积 {} 张卡计", in.gpus));
    }
  }

  read_recipe(c, t, fw, zero_stated, zero_value, in);

  // Software settings the case states; the rest are the framework's defaults.
  st.compile = stated_bool(t, "compile");
  st.tp_comm_overlap = stated_bool(t, "tp_comm_overlap");
  st.dp_comm_overlap = stated_bool(t, "dp_comm_overlap");
  st.optimizer_in_backward = stated_bool(t, "optimizer_in_backward");
  st.pure_bf16 = stated_bool(t, "pure_bf16");
  st.sequence_parallel = sp;
  if (const auto a = stated_text(t, "attention")) st.attention = parse_attention_kernel(*a, "train.attention");
  if (const auto a = stated_text(t, "loss")) st.loss = parse_loss_kernel(*a, "train.loss");
  if (const auto a = stated_text(t, "recompute_policy")) st.recompute_policy = parse_selective_recompute(*a, "train.recompute_policy");
  if (t.contains("shard_group")) l.shard_group = static_cast<int>(whole(t["shard_group"], "train.shard_group", 1, 1e7));

  // ---- Complete the layout: stated values pinned, the planner chooses the
  // rest among what the framework can run (the published run was a tuned
  // one, and it fitted the device: no safety margin is kept).
  const bool sp_open = !sp && fw.sequence_parallel == SequenceParallelMode::kOptional && tp.value_or(0) != 1;
  std::optional<int> vp_eff = vp;
  if (!vp && fw.interleaving_opt_in && !fw.pipeline_schedules.empty() && fw.pipeline_schedules.front() != "interleaved") {
    // The framework runs its default (non-interleaved) schedule unless the
    // run's config names another (torchtitan: pipeline_parallel_schedule).
    vp_eff = 1;
    if (pp.value_or(1) > 1) {
      flag(fmt::format("vp not stated: 1 ({} schedule, {} default)", fw.pipeline_schedules.front(), fw.label()),
           fmt::format("未给出 train.vp：1（{} 默认 {} 调度）", fw.label(), pipeline_schedule_zh(fw.pipeline_schedules.front())));
    }
  }
  const bool vp_open = !vp_eff && fw.interleaving() && pp.value_or(0) != 1;
  const bool zero_open = !zero_stated && fw.zero_stages.size() > 1 && dp.value_or(0) * cp.value_or(1) != 1;
  const bool dims_open = !tp || !pp || (!dp && in.gpus == 0) || (in.model.is_moe() && !ep);
  const bool open = dims_open || !mb_stated || !gbs || zero_open || !recompute || sp_open || vp_open;
  Layout base = l;
  base.tp = tp.value_or(1);
  base.pp = pp.value_or(1);
  base.cp = cp.value_or(1);
  base.ep = ep.value_or(1);
  base.vp = vp_eff.value_or(1);
  base.dp = dp.value_or(static_cast<int>(std::max<int64_t>(1, in.gpus / (static_cast<int64_t>(base.tp) * base.pp * base.cp))));
  base.micro_batch = mb_stated ? mb_value : 1;
  base.zero_stage = zero_stated ? zero_value : fw.zero_default;
  base.recompute = recompute.value_or(Recompute::kNone);
  if (gbs) {
    // Whole micro-batches per data-parallel rank.
    const int64_t per = static_cast<int64_t>(base.dp) * base.micro_batch;
    const int64_t rounded = std::max<int64_t>(per, *gbs / per * per);
    base.global_batch = rounded;
    if (*gbs % per != 0 && mb_stated) {
      flag(fmt::format("global batch {} not a multiple of dp×micro-batch: rounded to {}", *gbs, rounded),
           fmt::format("全局批量 {} 不是 DP×微批大小的整数倍：取整为 {}", *gbs, rounded));
    }
  }
  // Stated by the case itself (not by a framework default standing in for it).
  in.layout_stated = !open && t.contains("micro_batch") && (vp || !fw.interleaving() || pp.value_or(1) == 1);
  if (open) {
    PlanRequest r;
    r.model = in.model;
    r.gpus = {in.gpu};
    r.gpu_counts = {in.gpus};
    r.seq_len = l.seq_len;
    r.global_batch = gbs ? base.effective_global_batch() : 0;
    r.precision = l.precision;
    r.optimizer = l.optimizer;
    r.tp = tp.value_or(0), r.pp = pp.value_or(0), r.dp = dp.value_or(0), r.cp = cp.value_or(1), r.ep = ep.value_or(0), r.vp = vp_eff.value_or(0);
    if (!in.model.is_moe()) r.ep = 1;
    r.micro_batch = mb_stated ? mb_value : 0;
    if (zero_stated) r.zero_stage = zero_value;
    if (recompute) r.recompute = *recompute;
    if (sp) r.sequence_parallel = *sp;
    r.cross_node_tp = tp.has_value();
    r.framework = &fw;
    r.settings = st;
    r.base_layout = base;
    r.step_options.gpus_per_node = in.gpu.gpus_per_node;
    r.memory_options.safety_margin = 0;
    r.top_k = 1;
    const PlanResult res = plan(r);
    if (!res.groups.empty() && !res.groups[0].top.empty()) {
      l = res.groups[0].top[0].layout;
      std::string chosen, chosen_zh;
      auto add = [&](bool open_here, std::string what, std::string what_zh) {
        if (!open_here) return;
        chosen += (chosen.empty() ? "" : ", ") + what;
        chosen_zh += (chosen_zh.empty() ? "" : "，") + what_zh;
      };
      add(!tp, fmt::format("tp {}", l.tp), fmt::format("TP {}", l.tp));
      add(!pp, fmt::format("pp {}", l.pp), fmt::format("PP {}", l.pp));
      add(!dp, fmt::format("dp {}", l.dp), fmt::format("DP {}", l.dp));
      add(in.model.is_moe() && !ep, fmt::format("ep {}", l.ep), fmt::format("EP {}", l.ep));
      add(vp_open, fmt::format("vp {}", l.vp), fmt::format("VP {}", l.vp));
      add(!mb_stated, fmt::format("micro-batch {}", l.micro_batch), fmt::format("微批大小 {}", l.micro_batch));
      add(!gbs, fmt::format("global batch {}", l.effective_global_batch()), fmt::format("全局批量 {}", l.effective_global_batch()));
      add(zero_open, fmt::format("ZeRO-{}", l.zero_stage), fmt::format("ZeRO-{}", l.zero_stage));
      add(!recompute, fmt::format("recompute {}", recompute_name(l.recompute)), recompute_name_zh(l.recompute));
      add(sp_open, fmt::format("sequence parallelism {}", l.sequence_parallel ? "on" : "off"),
          fmt::format("序列并行{}", l.sequence_parallel ? "开" : "关"));
      flag("planner completed (stated values pinned, " + fw.label() + "): " + chosen, "由规划器补全（给定值固定，" + fw.label() + "）：" + chosen_zh);
    } else {
      l = base;
      if (!gbs) l.global_batch = static_cast<int64_t>(l.dp) * l.micro_batch * l.pp;
      flag("planner found no layout that fits with the stated values pinned: the stated values and defaults are used as they are",
           "固定给定值后规划器找不到放得下的并行方案：按给定值与默认值原样计算");
    }
  } else {
    l = base;
  }
  apply_framework(fw, st, l, &in.flags);
  apply_recipe_layout(fw, in.model, l, &in.flags);
  // A stack named but not profiled (generic stands in): a stated pp·vp
  // Megatron cannot split is cut as torch.distributed.pipelining stacks cut it.
  if (fw.id == "generic" && stated_text(t, "framework")) apply_unprofiled_stack_layout(in.model, l, &in.flags);
  validate_layout(in.model, l, in.gpus);
  return in;
}

}  // namespace gpuplan
