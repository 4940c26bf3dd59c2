// Reading validation cases and turning them into descriptions.
// Every value a case leaves out is replaced by a stated default and flagged.
#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "gpuplan/error.hpp"
#include "gpuplan/units.hpp"
#include "gpuplan/validate.hpp"

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
      j = json::parse(line);
    } catch (const json::exception& e) {
      throw InputError("FILE", fmt::format("{} line {}: not valid JSON ({}).", origin, n, e.what()));
    }
    if (!j.is_object() || !j.contains("id") || !j["id"].is_string() || !j.contains("kind") || !j["kind"].is_string()) {
      throw InputError("FILE", fmt::format("{} line {}: a case needs string keys 'id' and 'kind'.", origin, n));
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
  std::ifstream f(path);
  if (!f) throw InputError("FILE", fmt::format("cannot read '{}': no such file or not readable.", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_cases(ss.str(), path);
}

namespace {

// A whole number from a case, checked before any arithmetic: a zero, negative,
// fractional or huge value is refused naming its key (fuzz_validate_case found
// micro_batch 0 dividing by zero).
int64_t whole(const json& v, const std::string& key, double lo, double hi) {
  if (!v.is_number()) throw InputError(key, fmt::format("{} must be a number.", key));
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi || x != std::floor(x)) {
    throw InputError(key, fmt::format("{} must be a whole number from {} to {} (got {}).", key, lo, hi, v.dump()));
  }
  return static_cast<int64_t>(x);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool contains_word(const std::string& haystack, const std::string& needle) {
  return lower(haystack).find(needle) != std::string::npos;
}

}  // namespace

bool source_published_by(const ValidationCase& c, int last) {
  static const std::regex year("(^|[^0-9])(20[0-9][0-9])(?=[^0-9]|$)");
  for (auto it = std::sregex_iterator(c.source.begin(), c.source.end(), year); it != std::sregex_iterator(); ++it) {
    const int y = std::stoi((*it)[2].str());
    if (y >= 2019 && y <= last) return true;
  }
  return false;
}

CaseInputs case_inputs(const ValidationCase& c) {
  CaseInputs in;
  auto flag = [&in](std::string s) { in.flags.push_back(std::move(s)); };
  const json& raw = c.raw;
  if (!raw.contains("model") || !raw["model"].is_object()) throw InputError("model", c.id + ": the case has no model object.");
  if (!raw.contains("hardware") || !raw["hardware"].is_object()) throw InputError("hardware", c.id + ": the case has no hardware object.");

  // Model: the case's model object uses Hugging Face key names.
  json model = raw["model"];
  const std::string act = model.value("hidden_act", "");
  if (!model.contains("hidden_act")) flag("hidden_act not stated: 2-matrix MLP assumed");
  if (!model.contains("vocab_size")) {
    // A tokenizer-era default by MLP shape: GPT-2 BPE (50257) for GPT-style
    // models, the Llama/Mistral SentencePiece vocabulary (32000) for gated ones.
    const int64_t v = act == "silu" ? 32000 : 50257;
    model["vocab_size"] = v;
    flag(fmt::format("vocab_size not stated: {} assumed", v));
  }
  if (!model.contains("tie_word_embeddings")) flag("tie_word_embeddings not stated: untied assumed");
  if (model.contains("params_reported")) model.erase("params_reported");
  in.model = model_from_hf_config(model, c.id);
  in.model.name = raw["model"].value("name", c.id);

  // Hardware.
  const json& hw = raw["hardware"];
  in.gpu = find_gpu(hw.value("gpu", ""));
  if (hw.contains("gpu_overrides") && hw["gpu_overrides"].is_object()) {
    const json& o = hw["gpu_overrides"];
    if (o.contains("memory_gib")) in.gpu.memory_bytes = o["memory_gib"].get<double>() * kGiB;
    if (o.contains("hbm_tbps")) in.gpu.hbm_bytes_per_s = o["hbm_tbps"].get<double>() * kTera;
    if (o.contains("bf16_tflops")) in.gpu.peak_flop_per_s[Precision::kBf16] = o["bf16_tflops"].get<double>() * kTera;
    if (o.contains("tdp_w")) in.gpu.tdp_w = o["tdp_w"].get<double>();
  }
  if (hw.contains("gpus_per_node")) in.gpu.gpus_per_node = static_cast<int>(whole(hw["gpus_per_node"], "hardware.gpus_per_node", 1, 1024));

  // Layout.
  const json t = raw.contains("train") && raw["train"].is_object() ? raw["train"] : json::object();
  Layout& l = in.layout;
  auto degree = [&](const char* key, int fallback, bool say) {
    if (t.contains(key)) return static_cast<int>(whole(t[key], std::string("train.") + key, 1, 1e6));
    if (say) flag(fmt::format("{} not stated: {} assumed", key, fallback));
    return fallback;
  };
  l.tp = degree("tp", 1, true);
  l.pp = degree("pp", 1, true);
  l.cp = degree("cp", 1, false);
  l.ep = degree("ep", 1, in.model.is_moe());
  l.vp = degree("vp", 1, false);
  in.gpus = hw.contains("count") ? whole(hw["count"], "hardware.count", 0, 1e7) : 0;
  if (t.contains("dp")) {
    l.dp = static_cast<int>(whole(t["dp"], "train.dp", 1, 1e7));
    if (in.gpus == 0) in.gpus = l.gpus();
  } else {
    const int64_t mp = static_cast<int64_t>(l.tp) * l.pp * l.cp;
    if (in.gpus == 0) {
      l.dp = 1;
      in.gpus = mp;
      flag("GPU count and dp not stated: dp 1 assumed");
    } else {
      l.dp = static_cast<int>(std::max<int64_t>(1, in.gpus / mp));
      flag(fmt::format("dp not stated: count/(tp·pp·cp) = {} assumed", l.dp));
    }
  }
  if (c.kind == "inference") {
    // Serving cases have no training layout; the inference predictor reads `infer`.
    std::erase_if(in.flags, [](const std::string& f) {
      for (const char* k : {"tp ", "pp ", "ep ", "dp ", "GPU count", "micro_batch"}) {
        if (f.rfind(k, 0) == 0) return true;
      }
      return false;
    });
    const json inf = raw.contains("infer") && raw["infer"].is_object() ? raw["infer"] : json::object();
    l.seq_len = inf.value("input_len", int64_t{2048});
    return in;
  }
  if (!t.contains("seq_len")) throw InputError("train.seq_len", c.id + ": train.seq_len is required.");
  l.seq_len = whole(t["seq_len"], "train.seq_len", 1, 1e8);
  if (t.contains("micro_batch")) {
    l.micro_batch = whole(t["micro_batch"], "train.micro_batch", 1, 1e6);
  } else {
    l.micro_batch = 1;
    flag("micro_batch not stated: 1 assumed");
  }
  if (t.contains("global_batch_seqs")) {
    const int64_t gbs = whole(t["global_batch_seqs"], "train.global_batch_seqs", 1, 1e9);
    // Keep whole micro-batches per data-parallel rank.
    const int64_t per = static_cast<int64_t>(l.dp) * l.micro_batch;
    l.global_batch = std::max<int64_t>(per, gbs / per * per);
    if (gbs % per != 0) flag(fmt::format("global batch {} not a multiple of dp×micro-batch: rounded to {}", gbs, l.global_batch));
  } else {
    // Unknown: assume enough micro-batches to fill the pipeline.
    l.global_batch = static_cast<int64_t>(l.dp) * l.micro_batch * l.pp;
    if (l.pp > 1) flag("global_batch_seqs not stated: pipeline assumed full (≥ pp micro-batches)");
  }
  l.zero_stage = t.contains("zero_stage") ? static_cast<int>(whole(t["zero_stage"], "train.zero_stage", 0, 3)) : 0;
  if (!t.contains("zero_stage") && l.dp > 1) flag("zero_stage not stated: 0 (plain DDP) assumed");
  l.shard_group = t.value("shard_group", 0);
  in.recompute_stated = t.contains("recompute");
  if (in.recompute_stated) {
    l.recompute = parse_recompute(t["recompute"].get<std::string>(), "train.recompute");
  } else if (c.notes.find("use_checkpoint=true") != std::string::npos ||
             c.notes.find("--checkpoint-activations") != std::string::npos) {
    // The source's launch config, as the notes record it, turns activation
    // checkpointing on; Megatron-DeepSpeed's flag checkpoints every layer.
    l.recompute = Recompute::kFull;
    in.recompute_stated = true;
    flag("recompute not stated, but the source's config checkpoints activations: full assumed");
  }
  l.sequence_parallel = t.value("sequence_parallel", false);
  if (!t.contains("sequence_parallel") && l.tp > 1) flag("sequence_parallel not stated: off assumed");
  if (t.contains("precision")) {
    l.precision = parse_precision(t["precision"].get<std::string>(), "train.precision");
  } else {
    flag("precision not stated: bf16 assumed");
  }
  if (t.contains("optimizer")) l.optimizer = parse_optimizer(t["optimizer"].get<std::string>(), "train.optimizer");
  const std::string ft = t.value("finetune", "");
  if (ft == "full") l.finetune = FineTune::kFull;
  else if (ft == "lora") l.finetune = FineTune::kLora;
  else if (ft == "qlora") l.finetune = FineTune::kQlora;
  else if (!ft.empty()) throw InputError("train.finetune", c.id + ": train.finetune must be full, lora or qlora.");
  if (!t.contains("optimizer") && (ft.empty() || ft == "full")) flag("optimizer not stated: AdamW assumed");
  if (l.finetune == FineTune::kLora || l.finetune == FineTune::kQlora) {
    l.lora_rank = t.value("lora_rank", int64_t{0});
    if (l.lora_rank == 0) flag("lora_rank not stated: 8 on q,k,v,o assumed");
  }
  if (!ft.empty() && l.precision != Precision::kFp32) {
    // Fine-tuning recipes (torchtune's default dtype bf16) keep weights,
    // gradients and optimizer states in bf16 with no fp32 master copy.
    l.pure_bf16 = true;
    flag("fine-tuning: pure bf16 (no fp32 master weights, torchtune default) assumed");
  }
  if (t.value("cpu_offload", false)) {
    // The schema does not say what was offloaded. With ZeRO/FSDP sharding the
    // framework's offload moves parameters, gradients and optimizer states
    // (FSDP CPUOffload, ZeRO-Offload); without it the native option is
    // activation offloading.
    if (l.zero_stage >= 1) {
      l.offload_optimizer = true;
      if (l.zero_stage == 3) l.offload_params = true;
      flag(l.zero_stage == 3 ? "cpu_offload: parameters, gradients and optimizer states on host assumed (FSDP CPUOffload)"
                             : "cpu_offload: optimizer states and gradients on host assumed (ZeRO-Offload)");
    } else {
      l.offload_activations = true;
      flag("cpu_offload without ZeRO: activation offloading assumed");
    }
  }
  // The attention kernel is not in the schema.
  l.flash_attention = true;
  flag("attention kernel not stated: FlashAttention assumed");
  // ZeRO-3 granularity: DeepSpeed gathers module by module, FSDP block by block.
  if (l.zero_stage == 3 && (contains_word(c.notes, "deepspeed") || contains_word(c.source, "deepspeed"))) {
    l.zero3_per_module = true;
    flag("DeepSpeed ZeRO-3: one all-gather per submodule (norms and linears), not per block");
    if (source_published_by(c, 2021)) {
      l.zero3_prefetch = false;
      flag("DeepSpeed ZeRO-3 published by 2021: gathers not overlapped (DeepSpeed issue #1174 and PR #1170, June 2021)");
    }
  }
  // Element-wise kernels are not in the schema either: fused (Megatron's kernels,
  // torch.compile) unless the notes say the run was eager PyTorch.
  if (contains_word(c.notes, "eager")) {
    l.eager = true;
    flag("notes say eager: unfused element-wise operators (eager PyTorch)");
  }
  // Megatron-family frameworks (the only ones here that run TP or PP)
  // accumulate bf16 gradients in fp32 by default (Megatron's
  // --accumulate-allreduce-grads-in-fp32; DeepSpeed's BF16_Optimizer).
  if ((l.tp > 1 || l.pp > 1) && l.precision == Precision::kBf16 && l.finetune == FineTune::kNone) {
    in.fp32_grad_buffer = true;
    flag("tp/pp > 1 with bf16: Megatron fp32 gradient accumulation assumed");
  }

  // What the measurement counts (README: notes say reserved, active or nvidia-smi).
  if (contains_word(c.notes, "allocated") || contains_word(c.notes, "peak active")) {
    in.memory_scope = MemoryScope::kAllocated;
  } else if (contains_word(c.notes, "reserved")) {
    in.memory_scope = MemoryScope::kReserved;
  } else {
    in.memory_scope = MemoryScope::kDevice;
    if (!contains_word(c.notes, "nvidia-smi")) flag("memory measurement scope not stated: device total assumed");
  }
  validate_layout(in.model, l, in.gpus);
  return in;
}

}  // namespace gpuplan
