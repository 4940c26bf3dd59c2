// Loading framework profiles (data/frameworks/*.json, format in
// data/frameworks/README.md) and resolving "name@version".
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "data/embedded_data.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "profile_json.hpp"
#include "units/text_match.hpp"
#include "frameworks/framework_words.hpp"

namespace gpuplan {
namespace {

using nlohmann::json;
using profile_json::boolean;
using profile_json::pick;
using profile_json::strings;
using profile_json::text;
using profile_json::valid_date;



std::string display(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string s;
    for (const json& x : v) s += (s.empty() ? "" : ", ") + display(x);
    return s.empty() ? "(none)" : s;
  }
  if (v.is_object()) {
    // pipeline_layouts: "deepseek-v3 at 4 stages: Et*16|…; at 8 stages: …".
    std::string s;
    for (const auto& [k, x] : v.items()) {
      if (x.is_object()) {
        std::string inner;
        for (const auto& [n, layout] : x.items()) inner += (inner.empty() ? "" : "; ") + fmt::format("at {} stages: {}", n, display(layout));
        s += (s.empty() ? "" : "; ") + k + " " + inner;
      } else {
        s += (s.empty() ? "" : "; ") + k + ": " + display(x);
      }
    }
    return s.empty() ? "(none)" : s;
  }
  return v.dump();
}

// perf_recipes in words: "25.09 deepseek-v3 on h100-sxm5-80gb: moe_a2a_overlap
// true, moe_dispatch per_node; …".
std::string recipes_display(const json& v) {
  std::string s;
  for (const auto& [release, by_model] : v.items()) {
    for (const auto& [model, by_gpu] : by_model.items()) {
      for (const auto& [gpu, recipe] : by_gpu.items()) {
        std::string sw;
        for (const auto& [k, x] : recipe.items()) sw += (sw.empty() ? "" : ", ") + k + " " + display(x);
        s += (s.empty() ? "" : "; ") + fmt::format("{} {} on {}: {}", release, model, gpu, sw);
      }
    }
  }
  return s.empty() ? "(none)" : s;
}

// Every property of the format, declared once, in the order docs/frameworks.md
// lists them: its key, the value a file that leaves it out takes (nullptr:
// every profile states it), and how its JSON value sets the profile; each
// error names the property's place in the file (`where`).
using Setter = void (*)(FrameworkProfile& p, const json& v, const std::string& where);
struct Property {
  const char* key;
  const char* default_text;
  Setter set;
};

// The two setters most properties share: a boolean, and a ZeRO stage 0–3.
template <bool FrameworkProfile::*Member>
void set_bool(FrameworkProfile& p, const json& v, const std::string& where) {
  p.*Member = boolean(v, where);
}
template <int FrameworkProfile::*Member>
void set_zero_stage(FrameworkProfile& p, const json& v, const std::string& where) {
  if (!v.is_number_integer() || v.get<int>() < 0 || v.get<int>() > 3) throw InputError("framework", where + " must be 0, 1, 2 or 3.", where + " 须为 0、1、2 或 3。");
  p.*Member = v.get<int>();
}

// A recompute level and a selective-recompute policy by their words: the
// profile's defaults and a benchmark recipe's switches read them alike.
Recompute recompute_level(const json& v, const std::string& where) {
  return pick<Recompute>(v, where, {{"none", Recompute::kNone}, {"selective", Recompute::kSelective}, {"full", Recompute::kFull}});
}
SelectiveRecompute selective_policy(const json& v, const std::string& where) {
  return pick<SelectiveRecompute>(v, where,
                                  {{"attention_core", SelectiveRecompute::kAttentionCore},
                                   {"op", SelectiveRecompute::kOp},
                                   {"layer", SelectiveRecompute::kLayer},
                                   {"minimal", SelectiveRecompute::kSaveDots},
                                   {"save_dot_except_mlp", SelectiveRecompute::kSaveDotExceptMlp},
                                   {"save_qkv_proj", SelectiveRecompute::kSaveQkvProj},
                                   {"norm_mla_up", SelectiveRecompute::kNormMlaUp},
                                   {"mla_up_proj", SelectiveRecompute::kMlaUpProj},
                                   {"none", SelectiveRecompute::kNone}});
}

// Bytes per logit the loss holds at its peak: a count of 2- and 4-byte
// tensors per logit, 2 (the bf16 logits alone) to 64.
double loss_bytes(const json& v, const std::string& where) {
  // 0: the loss never materialises the logits (Cut Cross-Entropy's blockwise kernel).
  // Fewer than the bf16 logits' own 2 bytes is a miscount unless it is none at all.
  if (!v.is_number() || !(v.get<double>() == 0 || v.get<double>() >= 2) || v.get<double>() > 64) {
    throw InputError("framework", fmt::format("{} must be 0 or a number of bytes from 2 to 64 (got {}).", where, v.dump()),
                     fmt::format("{} 须为 0 或 2 到 64 之间的字节数（输入为 {}）。", where, v.dump()));
  }
  return v.get<double>();
}

// A whole number from lo to hi, `what` naming its unit in the sentence ("a
// whole number of calls"); refused naming the property's place.
int64_t whole_number(const json& v, const std::string& where, int64_t lo, int64_t hi, const char* what, const char* what_zh) {
  if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi) {
    throw InputError("framework", fmt::format("{} must be {} from {} to {} (got {}).", where, what, lo, hi, v.dump()),
                     fmt::format("{} 须为 {} 到 {} 之间的{}（输入为 {}）。", where, lo, hi, what_zh, v.dump()));
  }
  return v.get<int64_t>();
}

constexpr Property kProperties[] = {
  {"parallel", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      const auto dims = strings(v, where, {"tp", "pp", "dp", "cp", "ep", "vp"});
      auto has = [&](const char* d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); };
      p.tp = has("tp"), p.pp = has("pp"), p.dp = has("dp"), p.cp = has("cp"), p.ep = has("ep"), p.vp = has("vp");
    }},
  {"zero_stages", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      if (!v.is_array() || v.empty()) throw InputError("framework", where + " must be a non-empty list of 0-3.", where + " 须为非空列表，元素取 0 到 3。");
      p.zero_stages.clear();
      for (const json& x : v) {
        if (!x.is_number_integer() || x.get<int>() < 0 || x.get<int>() > 3) throw InputError("framework", where + " may hold only 0, 1, 2, 3.", where + " 只能包含 0、1、2、3。");
        p.zero_stages.push_back(x.get<int>());
      }
    }},
  {"hsdp", nullptr, set_bool<&FrameworkProfile::hsdp>},
  {"zero_default", nullptr, set_zero_stage<&FrameworkProfile::zero_default>},
  {"sequence_parallel", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.sequence_parallel = pick<SequenceParallelMode>(
          v, where, {{"with_tp", SequenceParallelMode::kWithTp}, {"optional", SequenceParallelMode::kOptional}, {"none", SequenceParallelMode::kNone}});
    }},
  {"sequence_parallel_default", nullptr, set_bool<&FrameworkProfile::sequence_parallel_default>},
  {"recompute_default", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.recompute_default = recompute_level(v, where);
    }},
  {"recompute_selective", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.recompute_selective = selective_policy(v, where);
    }},
  {"attention", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.attention = pick<AttentionKernel>(v, where,
                                          {{"materialised", AttentionKernel::kMaterialised},
                                           {"flash2", AttentionKernel::kFlash2},
                                           {"flash3", AttentionKernel::kFlash3},
                                           {"cudnn", AttentionKernel::kCudnn},
                                           {"sdpa", AttentionKernel::kSdpa},
                                           {"npu_fusion", AttentionKernel::kNpuFusion}});
    }},
  {"elementwise", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.elementwise = pick<ElementwiseMode>(
          v, where, {{"fused", ElementwiseMode::kFused}, {"compiled", ElementwiseMode::kCompiled}, {"eager", ElementwiseMode::kEager}});
    }},
  {"compile_default", nullptr, set_bool<&FrameworkProfile::compile_default>},
  {"loss", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.loss = pick<LossKernel>(v, where, {{"full", LossKernel::kFull}, {"fused", LossKernel::kFused}, {"chunked", LossKernel::kChunked}, {"vocab_parallel", LossKernel::kVocabParallel}});
    }},
  {"tp_comm_overlap", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      const Availability a = pick<Availability>(
          v, where, {{"none", Availability::kNone}, {"optional", Availability::kOptional}, {"default", Availability::kDefault}});
      p.tp_comm_overlap = a;
    }},
  {"dp_comm_overlap_default", nullptr, set_bool<&FrameworkProfile::dp_comm_overlap_default>},
  {"zero3_gather_unit", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.zero3_gather_unit = pick<GatherUnit>(v, where, {{"block", GatherUnit::kBlock}, {"module", GatherUnit::kModule}, {"none", GatherUnit::kNone}});
    }},
  {"zero3_prefetch", nullptr, set_bool<&FrameworkProfile::zero3_prefetch>},
  {"grad_accum_dtype", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.grad_accum_dtype = pick<GradAccumDtype>(v, where, {{"fp32", GradAccumDtype::kFp32}, {"bf16", GradAccumDtype::kBf16}, {"param", GradAccumDtype::kParam}});
    }},
  {"master_weights", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.master_weights = pick<MasterWeights>(
          v, where, {{"fp32", MasterWeights::kFp32}, {"none", MasterWeights::kNone}, {"fp32_with_zero", MasterWeights::kFp32WithZero}});
    }},
  {"pipeline_schedules", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.pipeline_schedules = strings(v, where, {"gpipe", "1f1b", "interleaved", "zero_bubble", "dualpipe"});
    }},
  {"uneven_stages", nullptr, set_bool<&FrameworkProfile::uneven_stages>},
  {"fp8_gemms", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.fp8_gemms = pick<Fp8Gemms>(v, where, {{"none", Fp8Gemms::kNone}, {"linear", Fp8Gemms::kLinear}, {"linear_and_experts", Fp8Gemms::kLinearAndExperts}});
    }},
  {"cuda_graphs", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      const Availability a = pick<Availability>(
          v, where, {{"none", Availability::kNone}, {"optional", Availability::kOptional}, {"default", Availability::kDefault}});
      p.cuda_graphs = a;
    }},
  {"optimizer_in_backward", nullptr, set_bool<&FrameworkProfile::optimizer_in_backward>},
  {"cpu_offload", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.cpu_offload = strings(v, where, {"parameters", "gradients", "optimizer", "activations"});
    }},
  {"export", nullptr,
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.export_format = pick<ExportFormat>(v, where,
                                           {{"megatron", ExportFormat::kMegatron},
                                            {"deepspeed", ExportFormat::kDeepSpeed},
                                            {"torchtitan", ExportFormat::kTorchtitan},
                                            {"megatron-bridge", ExportFormat::kMegatronBridge},
                                            {"nemo", ExportFormat::kNemo},
                                            {"megatron-deepspeed", ExportFormat::kMegatronDeepSpeed},
                                            {"gpt-neox", ExportFormat::kGptNeox},
                                            {"none", ExportFormat::kNone}});
    }},
  {"memory_reported", "none",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.memory_reported = pick<MemoryMetric>(v, where,
                                             {{"allocated", MemoryMetric::kAllocated},
                                              {"reserved", MemoryMetric::kReserved},
                                              {"device", MemoryMetric::kDevice},
                                              {"none", MemoryMetric::kNone}});
    }},
  {"zero3_keep_gathered_with_pp", "false", set_bool<&FrameworkProfile::zero3_keep_gathered_with_pp>},
  {"pipeline_microbatches", "tunable",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.microbatches_default_stages = pick<bool>(v, where, {{"stages", true}, {"tunable", false}});
    }},
  {"pipeline_schedule_choice", "tunable",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.interleaving_opt_in = pick<bool>(v, where, {{"default_unless_named", true}, {"tunable", false}});
    }},
  {"recompute_choice", "tunable",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.recompute_default_unless_named = pick<bool>(v, where, {{"default_unless_named", true}, {"tunable", false}});
    }},
  {"zero3_gather_per_rank_copies", "false", set_bool<&FrameworkProfile::zero3_gather_copies_per_rank>},
  {"fp8_scaling", "delayed",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.fp8_scaling = pick<Fp8Scaling>(v, where, {{"delayed", Fp8Scaling::kDelayed}, {"dynamic", Fp8Scaling::kDynamic}});
    }},
  {"expert_gemms", "grouped",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.expert_gemms = pick<ExpertGemms>(v, where, {{"grouped", ExpertGemms::kGrouped}, {"multi_stream", ExpertGemms::kMultiStream}, {"sequential", ExpertGemms::kSequential}});
    }},
  {"fp8_saved_input", "bf16",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.fp8_saves_fp8_inputs = pick<bool>(v, where, {{"fp8", true}, {"bf16", false}});
    }},
  {"host_calls_per_layer", "0",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.host_calls_per_layer = static_cast<int>(whole_number(v, where, 0, 10000, "a whole number of calls", "整数调用次数"));
    }},
  {"gradient_accumulation", "true", set_bool<&FrameworkProfile::gradient_accumulation>},
  {"moe_permute_traffic", "[4, 4]",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      auto ok = [](const json& x) { return x.is_number() && x.get<double>() >= 0 && x.get<double>() <= 100; };
      if (!v.is_array() || v.size() != 2 || !ok(v[0]) || !ok(v[1])) {
        throw InputError("framework", fmt::format("{} must be [forward, backward], two numbers from 0 to 100 (got {}).", where, v.dump()),
                         fmt::format("{} 须为 [前向, 反向] 两个 0 到 100 之间的数（输入为 {}）。", where, v.dump()));
      }
      p.moe_permute_units_f = v[0].get<double>();
      p.moe_permute_units_b = v[1].get<double>();
    }},
  {"attention_output_saved", "bf16",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.attention_output_bytes = pick<double>(v, where, {{"bf16", 0.0}, {"e5m6", 1.5}});
    }},
  {"swiglu_saved", "input_and_output",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.swiglu_keeps_fp8_input_only = pick<bool>(v, where, {{"input_and_output", false}, {"fp8_input", true}});
    }},
  {"comm_sms", "0",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.comm_sms = static_cast<int>(whole_number(v, where, 0, 1024, "a whole number of SMs", "整数个 SM"));
    }},
  {"moe_dispatch", "per_expert",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.moe_dispatch_per_node = pick<bool>(v, where, {{"per_expert", false}, {"per_node", true}});
    }},
  {"moe_dispatch_dtype", "bf16",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.moe_dispatch_fp8 = pick<bool>(v, where, {{"bf16", false}, {"fp8", true}});
    }},
  {"moe_a2a_overlap", "none",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.moe_a2a_overlap = pick<Availability>(v, where, {{"none", Availability::kNone}, {"optional", Availability::kOptional}, {"default", Availability::kDefault}});
    }},
  {"moe_router_weights", "combine",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.moe_weights_in_activation = pick<bool>(v, where, {{"combine", false}, {"activation", true}});
    }},
  {"optimizer_moments", "fp32",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.bf16_moments = pick<bool>(v, where, {{"fp32", false}, {"bf16", true}});
    }},
  {"activation_clamp", "fused",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.clamp_outside_activation = pick<bool>(v, where, {{"fused", false}, {"separate_ops", true}});
    }},
  {"cp_exchange", "p2p_ring",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.cp_exchange = pick<CpExchange>(v, where, {{"p2p_ring", CpExchange::kP2pRing},
                                                  {"pytorch_allgather", CpExchange::kPytorchAllGather},
                                                  {"ulysses_all_to_all", CpExchange::kUlysses},
                                                  {"ulysses_all_to_all_repeat_kv", CpExchange::kUlyssesRepeatKv},
                                                  {"ulysses_all_to_all_mha", CpExchange::kUlyssesMha}});
    }},
  {"tp_grad_comm_async", "false", set_bool<&FrameworkProfile::tp_grad_comm_async>},
  {"zero_max_with_pp", "3", set_zero_stage<&FrameworkProfile::zero_max_with_pp>},
  {"zero_max_with_ep", "3", set_zero_stage<&FrameworkProfile::zero_max_with_ep>},
  {"zero_max_with_tp", "3", set_zero_stage<&FrameworkProfile::zero_max_with_tp>},
  {"sequence_parallel_with_cp", "true", set_bool<&FrameworkProfile::sequence_parallel_with_cp>},
  {"deepspeed_release", "none",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      // A release number ("0.10.0"): digits and dots, as DeepSpeed numbers its releases.
      const bool ok = v.is_string() && !v.get<std::string>().empty() && v.get<std::string>().size() <= 16 &&
                      v.get<std::string>().find_first_not_of("0123456789.") == std::string::npos &&
                      std::isdigit(static_cast<unsigned char>(v.get<std::string>().front())) &&
                      std::isdigit(static_cast<unsigned char>(v.get<std::string>().back()));
      if (!ok) {
        throw InputError("framework", fmt::format("{} must be a DeepSpeed release number such as \"0.10.0\" (got {}).", where, v.dump()),
                         fmt::format("{} 须为 DeepSpeed 版本号，例如 \"0.10.0\"（输入为 {}）。", where, v.dump()));
      }
      p.deepspeed_release = v.get<std::string>();
    }},
  {"optimizer_loop", "foreach",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.optimizer_loop = pick<OptimizerLoop>(v, where, {{"foreach", OptimizerLoop::kForeach}, {"per_tensor", OptimizerLoop::kPerTensor}});
    }},
  {"zero2_mode", "bucketed",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.zero2_per_unit = pick<bool>(v, where, {{"bucketed", false}, {"fsdp_unit", true}});
    }},
  {"loss_bytes_per_logit", "10",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.loss_bytes_per_logit = loss_bytes(v, where);
    }},
  {"loss_bytes_per_logit_tp", "as loss_bytes_per_logit",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.loss_bytes_per_logit_tp = loss_bytes(v, where);
    }},
  {"loss_bytes_per_logit_compiled", "as loss_bytes_per_logit (the loss is never compiled)",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.loss_bytes_per_logit_compiled = loss_bytes(v, where);
    }},
  {"pipeline_keeps_outputs", "false", set_bool<&FrameworkProfile::pipeline_keeps_outputs>},
  {"recompute_none", "true", set_bool<&FrameworkProfile::recompute_none>},
  {"tp_saved_input", "sharded",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.tp_saves_gathered_input = pick<bool>(v, where, {{"sharded", false}, {"gathered", true}});
    }},
  {"moe_parallel_folding", "false", set_bool<&FrameworkProfile::moe_parallel_folding>},
  {"expert_tp_default", "tp",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      if (v.is_string() && v.get<std::string>() == "tp") {
        p.expert_tp_default = 0;
      } else if (v.is_number_integer() && v.get<int>() >= 1 && v.get<int>() <= 1024) {
        p.expert_tp_default = v.get<int>();
      } else {
        throw InputError("framework", fmt::format("{} must be \"tp\" or a degree from 1 to 1024 (got {}).", where, v.dump()),
                         fmt::format("{} 须为 \"tp\" 或 1 到 1024 的并行度（输入为 {}）。", where, v.dump()));
      }
    }},
  {"pipeline_layouts", "none",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      // {"<model id>": {"<pp×vp stages>": "<Megatron layout string>"}}; each string
      // must parse (parse_pipeline_layout) into that many stages.
      if (!v.is_object()) throw InputError("framework", where + " must be an object of model ids.", where + " 须为以模型 id 为键的对象。");
      p.pipeline_layouts.clear();
      for (const auto& [model, by_stages] : v.items()) {
        if (!by_stages.is_object()) throw InputError("framework", fmt::format("{}.{} must be an object of stage counts.", where, model), fmt::format("{}.{} 须为以段数为键的对象。", where, model));
        for (const auto& [stages, layout] : by_stages.items()) {
          const std::string at = fmt::format("{}.{}.{}", where, model, stages);
          int n = 0;
          try {
            n = std::stoi(stages);
          } catch (const std::exception&) {
          }
          if (n < 1 || std::to_string(n) != stages || !layout.is_string()) {
            throw InputError("framework", at + ": keys are stage counts, values layout strings.", at + "：键为段数，值为分段串。");
          }
          if (parse_pipeline_layout(layout.get<std::string>()).size() != static_cast<size_t>(n)) {
            throw InputError("framework", at + ": the layout does not have that many stages.", at + "：分段串的段数与键不符。");
          }
          p.pipeline_layouts[normalize_name(model)][n] = layout.get<std::string>();
        }
      }
    }},
  {"perf_recipes", "none",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      // {"<release>": {"<model id>": {"<GPU id>": {"moe_a2a_overlap": bool,
      // "moe_dispatch": "per_expert" | "per_node", "moe_dispatch_backend":
      // "deepep" | "hybridep", "recompute": "none" | "selective" | "full",
      // "recompute_policy": a recompute_selective word, "comm_sms": n}}}}: a release is a dated
      // version ("25.09"), a GPU one of data/gpus.json's ids.
      if (!v.is_object()) throw InputError("framework", where + " must be an object of releases.", where + " 须为以版本为键的对象。");
      p.perf_recipes.clear();
      for (const auto& [release, by_model] : v.items()) {
        if (framework_version_date(release).empty() || !by_model.is_object()) {
          throw InputError("framework", fmt::format("{}.{}: keys are dated releases (25.09), values objects of model ids.", where, release),
                           fmt::format("{}.{}：键为带日期的版本（25.09），值为以模型 id 为键的对象。", where, release));
        }
        for (const auto& [model, by_gpu] : by_model.items()) {
          if (!by_gpu.is_object()) throw InputError("framework", fmt::format("{}.{}.{} must be an object of GPU ids.", where, release, model), fmt::format("{}.{}.{} 须为以 GPU id 为键的对象。", where, release, model));
          for (const auto& [gpu, recipe] : by_gpu.items()) {
            const std::string at = fmt::format("{}.{}.{}.{}", where, release, model, gpu);
            if (!recipe.is_object() || recipe.empty()) throw InputError("framework", at + " must be an object of switches.", at + " 须为开关组成的对象。");
            // A GPU key is a catalog id as written (a run's GPU is looked up by its id).
            bool known = false;
            try {
              known = find_gpu(gpu).id == gpu;
            } catch (const InputError&) {
            }
            if (!known) throw InputError("framework", at + ": not a GPU id of data/gpus.json (gpuplan gpus).", at + "：不是 data/gpus.json 中的 GPU id（gpuplan gpus）。");
            PerfRecipe r;
            r.release = release;
            for (const auto& [key, x] : recipe.items()) {
              if (key == "moe_a2a_overlap") {
                r.moe_a2a_overlap = boolean(x, at + "." + key);
              } else if (key == "moe_dispatch") {
                r.moe_dispatch_per_node = pick<bool>(x, at + "." + key, {{"per_expert", false}, {"per_node", true}});
              } else if (key == "moe_dispatch_backend") {
                r.moe_dispatch_hybridep = pick<bool>(x, at + "." + key, {{"deepep", false}, {"hybridep", true}});
              } else if (key == "recompute") {
                r.recompute = recompute_level(x, at + "." + key);
              } else if (key == "recompute_policy") {
                r.recompute_policy = selective_policy(x, at + "." + key);
              } else if (key == "comm_sms") {
                r.comm_sms = static_cast<int>(whole_number(x, at + "." + key, 1, 256, "a whole number of SMs", "整数个 SM"));
              } else {
                throw InputError("framework", fmt::format("{}: unknown switch '{}'; known: moe_a2a_overlap, moe_dispatch, moe_dispatch_backend, recompute, recompute_policy, comm_sms.", at, key),
                                 fmt::format("{}：未知开关 '{}'；可用 moe_a2a_overlap、moe_dispatch、moe_dispatch_backend、recompute、recompute_policy、comm_sms。", at, key));
              }
            }
            p.perf_recipes[release][normalize_name(model)][gpu] = r;
          }
        }
      }
    }},
  {"checkpoint_offload", "false", set_bool<&FrameworkProfile::checkpoint_offload>},
  {"lora_rank_default", "8 (LoRA), 64 (QLoRA)",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.lora_rank_default = static_cast<int>(whole_number(v, where, 1, 4096, "a rank", "秩"));
    }},
  {"lora_targets_default", "q,k,v,o",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      // The matrices a LoRA config that names none adapts, in PEFT's short names.
      using M = LoraModule;
      p.lora_targets_default = pick<std::vector<LoraModule>>(
          v, where,
          {{"all", {M::kQ, M::kK, M::kV, M::kO, M::kGate, M::kUp, M::kDown}},
           {"q,v", {M::kQ, M::kV}},
           {"q,k,v", {M::kQ, M::kK, M::kV}},
           {"q,k,v,o", {M::kQ, M::kK, M::kV, M::kO}}});
    }},
  {"optimizer_default", "adamw",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.optimizer_default = pick<Optimizer>(v, where, {{"adamw", Optimizer::kAdamW}, {"adamw8bit", Optimizer::kAdamW8bit}, {"paged_adamw8bit", Optimizer::kPagedAdamW8bit}});
    }},
  {"frozen_upcast", "none",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.frozen_upcast = pick<FrozenUpcast>(v, where, {{"none", FrozenUpcast::kNone},
                                                      {"qlora_non_quantized", FrozenUpcast::kQloraNonQuantized},
                                                      {"lora_and_qlora", FrozenUpcast::kLoraAndQlora}});
    }},
  {"loss_chunk_tokens", "none",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      p.loss_chunk_tokens = whole_number(v, where, 1, int64_t{1} << 24, "a whole number of tokens", "整数 token 数");
    }},
  {"loss_chunk_cap_gib", "none",
    [](FrameworkProfile& p, const json& v, const std::string& where) {
      if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 1024) {
        throw InputError("framework", fmt::format("{} must be a size in GiB above 0 and at most 1024 (got {}).", where, v.dump()),
                         fmt::format("{} 须为大于 0、不超过 1024 的 GiB 数（输入为 {}）。", where, v.dump()));
      }
      p.loss_chunk_cap_gib = v.get<double>();
    }},
};

const Property* find_property(const std::string& key) {
  for (const Property& p : kProperties) {
    if (key == p.key) return &p;
  }
  return nullptr;
}

// Every property's key, in the table's order.
const std::vector<std::string>& property_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const Property& p : kProperties) out.push_back(p.key);
    return out;
  }();
  return keys;
}

// Properties a file may leave out, with the value they then take.
bool optional_property(const std::string& key, std::string* default_text) {
  const Property* p = find_property(key);
  if (!p || !p->default_text) return false;
  *default_text = p->default_text;
  return true;
}

// Sets one property of `p` from its JSON value.
void set_property(FrameworkProfile& p, const std::string& key, const json& v, const std::string& where) {
  if (const Property* prop = find_property(key)) {
    prop->set(p, v, where);
    return;
  }
  throw InputError("framework", fmt::format("{}: unknown property (data/frameworks/README.md lists them).", where),
                   fmt::format("{}：未知属性（data/frameworks/README.md 列出全部属性）。", where));
}

}  // namespace

FrameworkFamily parse_framework_family(const std::string& json_text, const std::string& origin) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {
    throw InputError("framework", fmt::format("{}: not valid JSON ({}).", origin, e.what()), fmt::format("{}：不是合法的 JSON（{}）。", origin, e.what()));
  }
  if (!j.is_object()) throw InputError("framework", origin + ": a profile is a JSON object.", origin + "：框架配置须为 JSON 对象。");
  FrameworkFamily fam;
  fam.id = text(j, "id", origin);
  fam.name = text(j, "name", origin);
  fam.repository = text(j, "repository", origin, false);
  for (const json& a : j.value("aliases", json::array())) {
    if (a.is_string()) fam.aliases.push_back(normalize_name(a.get<std::string>()));
  }
  const json versions = j.value("versions", json::array());
  if (!versions.is_array() || versions.empty()) throw InputError("framework", origin + ": 'versions' must be a non-empty list.", origin + "：'versions' 须为非空列表。");
  FrameworkProfile current;
  current.id = fam.id;
  current.name = fam.name;
  std::map<std::string, ProfileFact> facts;
  std::string last_date;
  for (size_t i = 0; i < versions.size(); ++i) {
    const json& v = versions[i];
    const std::string where = fmt::format("{} versions[{}]", origin, i);
    if (!v.is_object()) throw InputError("framework", where + ": a version entry is an object.", where + "：每个版本条目须为对象。");
    current.version = text(v, "version", where);
    current.date = text(v, "date", where);
    if (!valid_date(current.date)) throw InputError("framework", fmt::format("{}: date must be YYYY-MM (got '{}').", where, current.date),
                                                        fmt::format("{}：date 须为 YYYY-MM 格式（输入为 '{}'）。", where, current.date));
    if (current.date < last_date) throw InputError("framework", where + ": versions must be in date order.", where + "：各版本须按日期先后排列。");
    last_date = current.date;
    current.version_source = text(v, "source", where);
    // A release-numbered entry ("0.5.0") is its own release; a dated snapshot
    // may name the release its commit follows ("release": "0.4.0").
    current.release = text(v, "release", where, false);
    if (!current.release.empty() && (current.release.find('.') == std::string::npos || profile_json::release_parts(current.release).empty())) {
      throw InputError("framework", fmt::format("{}: release must be a release number such as 0.4.0 (got '{}').", where, current.release),
                       fmt::format("{}：release 须为版本号，如 0.4.0（输入为 '{}'）。", where, current.release));
    }
    if (current.release.empty() && current.version.find('.') != std::string::npos && !profile_json::release_parts(current.version).empty()) {
      current.release = current.version;
    }
    const json props = v.value("properties", json::object());
    if (!props.is_object()) throw InputError("framework", where + ": 'properties' must be an object.", where + "：'properties' 须为对象。");
    for (const auto& [key, entry] : props.items()) {
      const std::string pw = where + " " + key;
      if (!entry.is_object() || !entry.contains("value")) throw InputError("framework", pw + ": give {\"value\": ..., \"source\": ...}.", pw + "：请写成 {\"value\": ..., \"source\": ...}。");
      const std::string source = text(entry, "source", pw);
      set_property(current, key, entry["value"], pw + " value");
      facts[key] = ProfileFact{key, key == "perf_recipes" ? recipes_display(entry["value"]) : display(entry["value"]), source};
    }
    if (i == 0) {
      for (const std::string& k : property_keys()) {
        std::string default_text;
        if (facts.count(k)) continue;
        if (optional_property(k, &default_text)) {
          facts[k] = ProfileFact{k, default_text, "not stated in the profile: gpuplan's default (data/frameworks/README.md)"};
          continue;
        }
        throw InputError("framework", fmt::format("{}: the first version must state '{}'.", where, k), fmt::format("{}：第一个版本须写明 '{}'。", where, k));
      }
    }
    if (!current.supports_zero(current.zero_default)) {
      throw InputError("framework", where + ": zero_default must be one of zero_stages.", where + "：zero_default 须是 zero_stages 中的一个。");
    }
    current.facts.clear();
    for (const std::string& k : property_keys()) current.facts.push_back(facts[k]);
    fam.versions.push_back(current);
  }
  return fam;
}

const std::vector<FrameworkFamily>& framework_catalog() {
  static const std::vector<FrameworkFamily> catalog = [] {
    std::vector<FrameworkFamily> out;
    for (const auto& f : embedded_files()) {
      if (f.path.rfind("frameworks/", 0) == 0 && f.path.size() > 5 && f.path.substr(f.path.size() - 5) == ".json") {
        out.push_back(parse_framework_family(f.content, "data/" + f.path));
      }
    }
    std::sort(out.begin(), out.end(), [](const FrameworkFamily& a, const FrameworkFamily& b) { return a.id < b.id; });
    return out;
  }();
  return catalog;
}

// "2021" → "2021-12"; "2024-07" as is; NeMo's "24.07" → "2024-07"; else empty.
std::string framework_version_date(const std::string& v) {
  auto digits = [](const std::string& s) { return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }); };
  if (v.size() == 4 && digits(v)) return v + "-12";
  if (v.size() == 7 && digits(v.substr(0, 4)) && v[4] == '-' && digits(v.substr(5))) return v;
  if (v.size() == 5 && digits(v.substr(0, 2)) && v[2] == '.' && digits(v.substr(3))) return "20" + v.substr(0, 2) + "-" + v.substr(3);
  return "";
}

const FrameworkProfile& find_framework(const std::string& spec, const std::string& field) {
  const auto at = spec.find('@');
  const std::string name = normalize_name(spec.substr(0, at));
  const std::string version = at == std::string::npos ? "" : spec.substr(at + 1);
  const auto& cat = framework_catalog();
  const FrameworkFamily* fam = nullptr;
  for (const auto& f : cat) {
    if (normalize_name(f.id) == name || std::find(f.aliases.begin(), f.aliases.end(), name) != f.aliases.end()) {
      fam = &f;
      break;
    }
  }
  if (!fam) {
    std::string ids, ids_zh;
    for (const auto& f : cat) {
      ids += (ids.empty() ? "" : ", ") + f.id;
      ids_zh += (ids_zh.empty() ? "" : "、") + f.id;
    }
    throw InputError(field, fmt::format("{}: unknown framework '{}'; known: {} (optionally @version, e.g. torchtitan@2024-12).", field,
                                        spec, ids),
                     fmt::format("{}：未知框架 '{}'；可选 {}（可加 @版本，如 torchtitan@2024-12）。", field, spec, ids_zh));
  }
  if (version.empty()) return fam->versions.back();
  for (const auto& p : fam->versions) {
    if (p.version == version) return p;
  }
  const std::string date = framework_version_date(version);
  if (date.empty() && version.find('.') != std::string::npos && !profile_json::release_parts(version).empty()) {
    // A release the profile has no entry for ("megatron-core@0.6.0") takes the
    // latest entry of a release at or before it, as the engine profiles do; one
    // older than every release entry takes the entry that precedes the first of
    // them (the code up to that release), else the earliest.
    const std::vector<long> asked = profile_json::release_parts(version);
    const FrameworkProfile* best = nullptr;
    const FrameworkProfile* first_release = nullptr;
    for (const FrameworkProfile& p : fam->versions) {
      if (p.release.empty()) continue;
      if (!first_release) first_release = &p;
      if (profile_json::release_at_or_before(profile_json::release_parts(p.release), asked)) best = &p;
    }
    if (best) return *best;
    if (first_release) return first_release == &fam->versions.front() ? *first_release : *(first_release - 1);
  }
  if (date.empty()) {
    std::string known, known_zh;
    for (const auto& p : fam->versions) {
      known += (known.empty() ? "" : ", ") + p.version;
      known_zh += (known_zh.empty() ? "" : "、") + p.version;
    }
    throw InputError(field, fmt::format("{}: {} has no version '{}'; give one of {} or a date (2024, 2024-07).", field, fam->id,
                                        version, known),
                     fmt::format("{}：{} 没有版本 '{}'；请给出 {} 之一，或一个日期（2024、2024-07）。", field, fam->id, version, known_zh));
  }
  const FrameworkProfile* best = &fam->versions.front();
  for (const auto& p : fam->versions) {
    if (p.date <= date) best = &p;
  }
  return *best;
}

}  // namespace gpuplan
