// The checks of train, memory and plan inputs and the building of their
// requests, shared by the CLI and the web API (command_inputs.hpp).
#include "inputs/choice_words.hpp"
#include "inputs/command_inputs.hpp"
#include "units/quantity_text.hpp"
#include "frameworks/framework_words.hpp"
#include "hardware/hardware_words.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gpuplan/error.hpp"
#include "gpuplan/workload.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/train_estimate.hpp"
#include "model/size_limits.hpp"
#include "units/text_match.hpp"
#include "gpuplan/typed_inputs.hpp"
#include "gpuplan/units.hpp"
#include "inputs/echoed_parse.hpp"

namespace gpuplan {
namespace {

// --safety-margin, checked (memory, train, plan).
double checked_safety_margin(double margin) {
  require_range(margin, 0, 0.9, "--safety-margin", "a fraction from 0 to 0.9 (a common planning margin is 0.15–0.2)", "0 到 0.9 之间的比例（规划时常留 0.15–0.2）");
  return margin;
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

bool any_override(const OwnershipOverrides& o) {
  for (const auto* v : {&o.server_price_per_node, &o.network_per_node, &o.life_years, &o.resale_fraction, &o.node_power_kw, &o.pue,
                        &o.electricity_per_kwh, &o.colocation_per_kw_month, &o.staff_cost_per_engineer_year, &o.nodes_per_engineer,
                        &o.financing_rate, &o.fleet_utilisation}) {
    if (v->has_value()) return true;
  }
  return false;
}

// "1024", "512,1024,2048" or a range "256-4096" (the powers of two in it).
std::vector<int64_t> parse_gpu_counts(const std::string& text) {
  std::vector<int64_t> out;
  for (const std::string& part : split(text, ',')) {
    const auto dash = part.find('-');
    if (dash != std::string::npos && dash > 0) {
      const double lo = parse_count(part.substr(0, dash), "--gpus");
      const double hi = parse_count(part.substr(dash + 1), "--gpus");
      if (hi < lo || hi > static_cast<double>(kMaxGpus)) throw InputError("--gpus", fmt::format("--gpus: the range {} must run from low to high.", part),
                                                                                              fmt::format("--gpus：范围 {} 须从小到大写，且不超过 10,000,000。", part));
      for (int64_t n = 1; static_cast<double>(n) <= hi; n *= 2) {
        if (static_cast<double>(n) >= lo) out.push_back(n);
      }
      if (out.empty()) throw InputError("--gpus", fmt::format("--gpus: the range {} holds no power of two.", part),
                                         fmt::format("--gpus：范围 {} 内没有 2 的幂。", part));
    } else {
      const double n = parse_count(part, "--gpus");
      if (!(n <= static_cast<double>(kMaxGpus)) || n != std::floor(n)) {  // range first: a huge n has no int64 value
        throw InputError("--gpus", fmt::format("--gpus must be whole GPU counts (got {}).", part),
                         fmt::format("--gpus 须为整数卡数，最多 10,000,000（输入为 {}）。", part));
      }
      out.push_back(static_cast<int64_t>(n));
    }
  }
  if (out.empty()) throw InputError("--gpus", "--gpus is required: a count (1024), a list (512,1024) or a range (256-4096).",
                                     "缺少 --gpus：请给出卡数（1024）、列表（512,1024）或范围（256-4096）。");
  return out;
}

// "tp=8,pp=16,dp=8,mb=1,vp=1,zero=0,recompute=full,sp=off,first=7,last=7": a
// layout to rank among the searched ones. Unset: cp/ep/vp 1, micro-batch 1,
// ZeRO 0, recompute none, SP on when tp > 1, the pipeline split stage_split
// chooses; dp = GPUs / (tp·pp·cp) when --gpus is one count; batch, sequence,
// precision and optimizer from the plan.
Layout parse_compare_layout(const std::string& text, const PlanRequest& r) {
  Layout l = plan_recipe_layout(r);
  std::optional<bool> sp;
  bool have_tp = false, have_pp = false, have_dp = false;
  const char* flag = "--compare-layout";
  for (const std::string& part : split(text, ',')) {
    const auto eq = part.find('=');
    if (eq == std::string::npos) throw InputError(flag, fmt::format("{}: '{}' is not key=value (tp=8,pp=16,dp=8,mb=1,recompute=full).", flag, part),
                                                   fmt::format("{}：'{}' 不是“键=值”的形式（如 tp=8,pp=16,dp=8,mb=1,recompute=full）。", flag, part));
    const std::string k = normalize_name(part.substr(0, eq));
    const std::string v = part.substr(eq + 1);
    auto integer = [&](double lo, double hi) {
      const double x = parse_count(v, flag);
      // Range first: converting a number beyond int64 to an integer is undefined.
      if (!(x >= lo && x <= hi) || x != std::floor(x)) {
        throw InputError(flag, fmt::format("{}: {} must be a whole number from {} to {} (got {}).", flag, k, lo, hi, v),
                         fmt::format("{}：{} 须为 {} 到 {} 之间的整数（输入为 {}）。", flag, k, lo, hi, v));
      }
      return static_cast<int64_t>(x);
    };
    if (k == "tp") { l.tp = static_cast<int>(integer(1, 1e6)); have_tp = true; }
    else if (k == "pp") { l.pp = static_cast<int>(integer(1, 1e6)); have_pp = true; }
    else if (k == "dp") { l.dp = static_cast<int>(integer(1, 1e7)); have_dp = true; }
    else if (k == "cp") l.cp = static_cast<int>(integer(1, 1e6));
    else if (k == "ep") l.ep = static_cast<int>(integer(1, 1e6));
    else if (k == "vp") l.vp = static_cast<int>(integer(1, 1e3));
    else if (k == "mb" || k == "micro-batch" || k == "micro_batch") l.micro_batch = integer(1, 1e7);
    else if (k == "first" || k == "first-stage-layers") l.first_stage_layers = static_cast<int>(integer(1, 1e6));
    else if (k == "last" || k == "last-stage-layers") l.last_stage_layers = static_cast<int>(integer(1, 1e6));
    else if (k == "etp") l.etp = static_cast<int>(integer(1, 1e6));
    else if (k == "layout" || k == "pipeline-layout") {
      parse_pipeline_layout(v);
      l.pipeline_layout = v;
    }
    else if (k == "zero") l.zero_stage = static_cast<int>(integer(0, 3));
    else if (k == "recompute") l.recompute = parse_recompute(v, flag);
    else if (k == "sp") {
      const std::string b = normalize_name(v);
      if (b == "on" || b == "true" || b == "1") sp = true;
      else if (b == "off" || b == "false" || b == "0") sp = false;
      else throw InputError(flag, fmt::format("{}: sp must be on or off (got {}).", flag, v), fmt::format("{}：sp 须为 on 或 off（输入为 {}）。", flag, v));
    } else {
      throw InputError(flag, fmt::format("{}: unknown key '{}' (tp, pp, dp, cp, ep, etp, vp, mb, zero, recompute, sp, first, last, layout).", flag, k),
                       fmt::format("{}：未知的键 '{}'（可用 tp、pp、dp、cp、ep、etp、vp、mb、zero、recompute、sp、first、last、layout）。", flag, k));
    }
  }
  if (!have_dp && have_tp && have_pp && r.gpu_counts.size() == 1) {
    // One cluster size: the data-parallel degree is what the other degrees leave.
    const int64_t model_parallel = static_cast<int64_t>(l.tp) * l.pp * l.cp;
    if (r.gpu_counts.front() % model_parallel != 0) {
      throw InputError(flag, fmt::format("{} {}: --gpus {} is not a multiple of tp×pp×cp = {}.", flag, text, r.gpu_counts.front(),
                                         model_parallel),
                       fmt::format("{} {}：--gpus {} 不是 TP×PP×CP = {} 的整数倍。", flag, text, r.gpu_counts.front(), model_parallel));
    }
    l.dp = static_cast<int>(r.gpu_counts.front() / model_parallel);
    have_dp = true;
  }
  if (!have_tp || !have_pp || !have_dp) {
    throw InputError(flag, fmt::format("{}: give at least tp, pp and dp (dp may be left out with one --gpus count) ({}).", flag, text),
                     fmt::format("{}：至少要给出 tp、pp 和 dp（--gpus 只有一个数时可省略 dp）（{}）。", flag, text));
  }
  // The planned framework's defaults for these degrees, with sp= over them.
  const FrameworkProfile& fw = plan_framework(r);
  RunSettings s = r.settings;
  if (sp) s.sequence_parallel = *sp;
  if (!l.pipeline_layout.empty() && l.vp == 1 && l.pp > 1) {
    const size_t stages = parse_pipeline_layout(l.pipeline_layout).size();
    if (stages % static_cast<size_t>(l.pp) == 0) l.vp = static_cast<int>(stages / static_cast<size_t>(l.pp));
  }
  apply_framework(fw, s, l);
  apply_recipe_layout(fw, r.model, l);
  if (r.zero3_per_module) l.zero3_per_module = true;
  Reason cannot = why_framework_cannot_run(fw, l);
  if (cannot.empty() && sp && *sp != l.sequence_parallel && l.tp > 1) {
    cannot = {fmt::format("{} runs sequence parallelism {} with TP", fw.label(), l.sequence_parallel ? "always" : "never"),
              fmt::format("{} 开 TP 时{}序列并行（SP）", fw.label(), l.sequence_parallel ? "总是开" : "从不开")};
  }
  if (!cannot.empty()) throw InputError(flag, fmt::format("{} {}: {}.", flag, text, cannot.en), fmt::format("{} {}：{}。", flag, text, cannot.zh));
  return l;
}

}  // namespace

TrainRequest make_train_request(const TrainInputs& in) {
  TrainRequest r;
  r.model = in.model;
  std::vector<TypedInput>* echo = &r.typed_inputs;
  r.params = parse_count_echoed(in.params, "--params", echo);
  r.model_spec = in.model_spec;
  r.workload.tokens = parse_count_echoed(in.tokens, "--tokens", echo);
  r.workload.samples = parse_count_echoed(in.samples, "--samples", echo);
  r.workload.tokens_per_sample = parse_count_echoed(in.tokens_per_sample, "--tokens-per-sample", echo);
  if (in.dataset_bytes) {
    r.workload.dataset_bytes = parse_bytes(*in.dataset_bytes, "--dataset-bytes");
    if (echo && !is_plain_number(*in.dataset_bytes)) echo->push_back({"--dataset-bytes", *in.dataset_bytes, *r.workload.dataset_bytes, Unit::kCount, "", ""});
  }
  require_range(in.bytes_per_token, 0.1, 1e6, "--bytes-per-token", "a positive number of bytes per token", "正的每个 token 字节数");
  r.workload.bytes_per_token = in.bytes_per_token;
  r.workload.epochs = in.epochs;
  if (in.seq_len) {
    require_range(static_cast<double>(*in.seq_len), 1, static_cast<double>(kMaxContext), "--seq-len", "a whole number of tokens from 1 to 100,000,000", "1 到 100,000,000 之间的整数 token 数");
  }
  r.workload.seq_len = in.seq_len.value_or(0);  // 0: estimate_train takes default_seq_len(model)
  r.force_context = in.force;
  r.workload.global_batch_seqs = parse_count_echoed(in.global_batch, "--global-batch", echo);
  r.workload.global_batch_tokens = parse_count_echoed(in.batch_tokens, "--batch-tokens", echo);
  r.flop_per_sample = parse_count_echoed(in.flops_per_sample, "--flops-per-sample", echo);
  r.gpu = in.gpu;
  r.gpus = parse_count_echoed(in.gpus, "--gpus", echo);
  r.deadline_s = parse_duration_echoed(in.deadline, "--deadline", echo);
  if (in.mfu) r.mfu = parse_fraction(*in.mfu, "--mfu");
  r.tflops_per_gpu = parse_count_echoed(in.tflops_per_gpu, "--tflops-per-gpu", echo);
  r.precision = parse_precision(in.precision, "--precision");
  r.recompute = in.recompute ? parse_recompute(*in.recompute, "--recompute") : Recompute::kNone;
  if (in.recompute) {
    // A stated recompute is the run's: the layout search keeps it (as plan's --recompute pins it).
    r.pin_recompute = true;
    r.layout_recompute_pin = r.recompute;
  }
  r.causal_half = in.causal;
  r.six_n = in.six_n;
  r.fault_budget = in.fault_budget;
  r.comm_margin = in.comm_margin;
  r.gpus_per_node = in.gpus_per_node;
  r.price.text = in.price;
  if (in.currency) r.price.currency = parse_currency(*in.currency, "--currency");
  if (in.market) r.price.market = parse_market(*in.market, "--market");
  if (in.provider && !in.provider->empty()) r.price.provider = in.provider;
  if (in.compare_own || any_override(in.own)) r.own = in.own;
  r.price.spot = in.spot;
  r.price.spot_discount = in.spot_discount;
  r.price.spot_overhead = in.spot_overhead;
  for (const std::string& text : in.phase) r.phases.push_back(parse_phase(text));
  if (in.gpu_mtbf_hours) r.ops.gpu_mtbf_hours = *in.gpu_mtbf_hours;
  if (in.restart_minutes) r.ops.restart_s = *in.restart_minutes * 60;
  if (in.storage_gbytes_per_s) {
    require_range(*in.storage_gbytes_per_s, 1e-3, 1e7, "--storage-gbytes-per-s", "a positive aggregate write bandwidth in GB/s", "正的总写入带宽（GB/s）");
    r.ops.storage_bytes_per_s = *in.storage_gbytes_per_s * 1e9;
  }
  if (in.checkpoint_interval) r.ops.checkpoint_interval_s = *parse_duration_echoed(in.checkpoint_interval, "--checkpoint-interval", echo);
  if (in.spot_mtbf_hours) r.ops.spot_node_mtbf_hours = *in.spot_mtbf_hours;
  r.calibration = in.calibration;
  r.framework = &resolve_framework(in.software);
  r.settings = make_run_settings(in.software);
  r.tp = in.tp, r.pp = in.pp, r.dp = in.dp, r.cp = in.cp, r.ep = in.ep, r.vp = in.vp, r.etp = in.etp;
  r.micro_batch = in.micro_batch;
  r.zero_stage = in.zero;
  r.pipeline_layout = in.pipeline_layout;
  r.safety_margin = checked_safety_margin(in.safety_margin);
  r.interval = in.interval;
  r.confidence = in.confidence;
  return r;
}

Precision training_precision(const std::optional<std::string>& typed, const GpuSpec& gpu) {
  if (!typed) return gpu.has(Precision::kBf16) || !gpu.has(Precision::kFp16) ? Precision::kBf16 : Precision::kFp16;
  const Precision p = parse_precision(*typed, "--precision");
  (void)gpu.peak(p);  // throws "--precision: a100-sxm4-80gb has no fp8 tensor-core path; it supports ..."
  return p;
}

ResolvedLayout resolve_layout(const LayoutInputs& in) {
  ResolvedLayout r;
  r.model = choose_model(in.model, parse_optional_count(in.params, "--params"), in.model_spec);
  if (in.gpu.empty()) {
    throw InputError("--gpu", "--gpu is required: a GPU id or alias such as h100, a100-80g or 910b (gpuplan gpus lists them).",
                     "缺少 --gpu：请给出 GPU 的 id 或别名，如 h100、a100-80g、910b（gpuplan gpus 列出全部）。");
  }
  r.gpu = find_gpu(in.gpu);

  Layout& l = r.layout;
  l.tp = in.tp;
  l.pp = in.pp;
  l.cp = in.cp;
  l.ep = in.ep;
  l.vp = in.vp;
  l.first_stage_layers = in.first_stage_layers;
  l.last_stage_layers = in.last_stage_layers;
  l.pipeline_layout = in.pipeline_layout;
  l.etp = in.etp;
  if (!l.pipeline_layout.empty() && l.vp == 1 && l.pp > 1) {
    // Megatron reads the virtual stages off the layout: stages / pp.
    const size_t stages = parse_pipeline_layout(l.pipeline_layout).size();
    if (stages % static_cast<size_t>(l.pp) == 0) l.vp = static_cast<int>(stages / static_cast<size_t>(l.pp));
  }
  l.micro_batch = in.micro_batch;
  if (in.global_batch < 0) throw InputError("--global-batch", "--global-batch must be a positive number of sequences.", "--global-batch 须为正的序列条数。");
  if (in.global_batch > 0) l.global_batch = in.global_batch;  // 0 (the flag's default): dp × micro-batch
  const int64_t seq_len = in.seq_len.value_or(default_seq_len(r.model));
  require_range(static_cast<double>(seq_len), 1, static_cast<double>(kMaxContext), "--seq-len",
                "a positive token count up to 100,000,000 (10x Llama 4 Scout's 10M context)", "1 到 100,000,000 之间的 token 数（Llama 4 Scout 上下文 1000 万的 10 倍）");
  l.seq_len = seq_len;
  const FrameworkProfile& fw = resolve_framework(in.software);
  l.zero_stage = in.zero.value_or(fw.zero_default);
  l.shard_group = in.shard_group;
  l.recompute = in.recompute ? parse_recompute(*in.recompute, "--recompute") : fw.recompute_default;
  l.precision = training_precision(in.precision, r.gpu);
  require_supported_context(r.model, seq_len, in.force, "--seq-len");
  l.pure_bf16 = in.pure_bf16;
  l.optimizer = parse_optimizer(in.optimizer, "--optimizer");
  l.offload_optimizer = in.offload_optimizer;
  l.offload_params = in.offload_params;
  l.offload_activations = in.offload_activations;

  // GPU count and data parallelism: dp defaults to gpus / (tp·pp·cp).
  const int64_t model_parallel = static_cast<int64_t>(in.tp) * in.pp * in.cp;
  int64_t gpus = 0;
  if (in.gpus) {
    const double g = parse_count(*in.gpus, "--gpus");
    if (g < 1 || g > static_cast<double>(kMaxGpus) || std::floor(g) != g) {
      throw InputError("--gpus", fmt::format("--gpus must be a whole number of GPUs from 1 to 10,000,000 (got {}).", *in.gpus),
                       fmt::format("--gpus 须为 1 到 10,000,000 之间的整数卡数（输入为 {}）。", *in.gpus));
    }
    gpus = static_cast<int64_t>(g);
  }
  if (in.dp) {
    l.dp = *in.dp;
    if (!in.gpus) gpus = model_parallel * l.dp;
  } else if (in.gpus) {
    if (model_parallel <= 0 || gpus % model_parallel != 0) {
      throw InputError("--gpus", fmt::format("--gpus {} is not a multiple of tp×pp×cp = {}×{}×{} = {}; set --dp or change the degrees.",
                                             gpus, in.tp, in.pp, in.cp, model_parallel),
                       fmt::format("--gpus {} 不是 TP×PP×CP = {}×{}×{} = {} 的整数倍；请给出 --dp 或调整并行度。", gpus, in.tp, in.pp,
                                   in.cp, model_parallel));
    }
    l.dp = static_cast<int>(gpus / model_parallel);
  } else {
    l.dp = 1;
    gpus = model_parallel;
  }
  if (in.sequence_parallel && in.no_sequence_parallel) {
    throw InputError("--sequence-parallel", "--sequence-parallel and --no-sequence-parallel contradict each other; give one.",
                     "--sequence-parallel 与 --no-sequence-parallel 相互矛盾，只能给一个。");
  }
  // The framework's defaults, then what the flags state on top of them.
  RunSettings settings = make_run_settings(in.software);
  if (in.sequence_parallel) settings.sequence_parallel = true;
  if (in.no_sequence_parallel) settings.sequence_parallel = false;
  if (in.no_flash_attention) settings.attention = AttentionKernel::kMaterialised;
  settings.force_eager = in.eager;
  apply_perf_recipe(fw, r.model, r.gpu.id, settings);
  apply_framework(fw, settings, l);
  apply_recipe_layout(fw, r.model, l);
  if (in.zero3_per_module) l.zero3_per_module = true;
  if (in.fp32_grads) l.fp32_grad_accum = true;
  // No --global-batch: the ~4M-token batch plan also takes (workload.hpp), in
  // whole dp × micro-batch steps, so a pipeline holds as many micro-batches as
  // a real run does (70B at TP 8 × PP 2 once read one micro-batch in flight, issue 30).
  if (!l.global_batch && l.dp >= 1 && l.micro_batch >= 1) {
    l.global_batch = default_global_batch_seqs(l.seq_len, static_cast<int64_t>(l.dp) * l.micro_batch);
    r.global_batch_defaulted = true;
  }
  validate_layout(r.model, l, gpus);
  const Reason cannot = why_framework_cannot_run(fw, l);
  if (!cannot.empty()) {
    throw InputError("--framework", fmt::format("--framework: {}; choose another layout or framework.", cannot.en),
                     fmt::format("--framework：{}；请换一种并行布局或框架。", cannot.zh));
  }
  r.gpus = gpus;
  return r;
}

const FrameworkProfile& resolve_framework(const FrameworkInputs& in) { return find_framework(in.framework, "--framework"); }

namespace {

std::optional<bool> on_off(const std::optional<std::string>& v, const char* flag) {
  if (!v) return std::nullopt;
  const std::string t = normalize_name(*v);
  if (t == "on" || t == "true" || t == "yes" || t == "1") return true;
  if (t == "off" || t == "false" || t == "no" || t == "0") return false;
  throw InputError(flag, fmt::format("{} must be on or off (got '{}').", flag, *v), fmt::format("{} 须为 on 或 off（输入为 '{}'）。", flag, *v));
}

}  // namespace

RunSettings make_run_settings(const FrameworkInputs& in) {
  RunSettings s;
  if (in.attention) s.attention = parse_attention_kernel(*in.attention, "--attention");
  if (in.loss) s.loss = parse_loss_kernel(*in.loss, "--loss");
  s.compile = on_off(in.compile, "--compile");
  s.tp_comm_overlap = on_off(in.tp_comm_overlap, "--tp-comm-overlap");
  s.dp_comm_overlap = on_off(in.dp_comm_overlap, "--dp-comm-overlap");
  s.moe_a2a_overlap = on_off(in.moe_a2a_overlap, "--moe-a2a-overlap");
  if (s.moe_a2a_overlap.value_or(false) && resolve_framework(in).moe_a2a_overlap == Availability::kNone) {
    const std::string who = resolve_framework(in).label();  // a catalog lookup, on this refusal only
    throw InputError("--moe-a2a-overlap",
                     fmt::format("--moe-a2a-overlap: {} has no MoE all-to-all overlap (Megatron-Core's --overlap-moe-expert-parallel-comm "
                                 "arrived in core 0.14.0).", who),
                     fmt::format("--moe-a2a-overlap：{} 不支持 MoE all-to-all 与计算重叠（Megatron-Core 的 --overlap-moe-expert-parallel-comm "
                                 "自 core 0.14.0 起才有）。", who));
  }
  if (in.recompute_policy) s.recompute_policy = parse_selective_recompute(*in.recompute_policy, "--recompute-policy");
  if (const auto at = in.framework.find('@'); at != std::string::npos) s.release = in.framework.substr(at + 1);
  return s;
}

MemoryOptions make_memory_options(const MemoryInputs& in) {
  MemoryOptions o;
  if (in.fragmentation) {
    require_range(*in.fragmentation, 0, 1, "--fragmentation", "a fraction from 0 to 1 (0.05 = 5%)", "0 到 1 之间的比例（0.05 即 5%）");
    o.fragmentation = *in.fragmentation;
  }
  if (in.cuda_context_gib) {
    require_range(*in.cuda_context_gib, 0, 64, "--cuda-context-gib", "GiB from 0 to 64", "0 到 64 GiB");
    o.cuda_context_bytes = *in.cuda_context_gib * kGiB;
  }
  o.safety_margin = checked_safety_margin(in.safety_margin);
  o.dropout = in.dropout;
  o.framework = &resolve_framework(in.layout.software);  // suggest only what that stack can run
  return o;
}

PlanRequest make_plan_request(const PlanInputs& in) {
  if (in.model.empty() && !in.model_spec) {
    throw InputError("--model", "--model is required: a catalog id (gpuplan models) or a config.json.",
                     "缺少 --model：请给出模型目录中的 id（gpuplan models 列出全部）或一个 config.json。");
  }
  if (in.gpu.empty()) throw InputError("--gpu", "--gpu is required: one GPU or a list such as h100,h800,a100.", "缺少 --gpu：请给出一种 GPU 或列表，如 h100,h800,a100。");
  PlanRequest r;
  if (in.market) r.market = parse_market(*in.market, "--market");
  if (in.currency) r.currency = parse_currency(*in.currency, "--currency");
  r.model = choose_model(in.model, std::nullopt, in.model_spec);
  if (r.model.count_only) throw InputError("--model", "--model: the planner needs an architecture, not a bare parameter count.", "--model：规划器需要模型结构，只给参数量不够。");
  for (const std::string& g : split(in.gpu, ',')) r.gpus.push_back(find_gpu(g));
  r.gpu_counts = parse_gpu_counts(in.gpus.value_or(""));
  r.seq_len = in.seq_len.value_or(default_seq_len(r.model));
  require_range(static_cast<double>(r.seq_len), 1, static_cast<double>(kMaxContext), "--seq-len", "a positive token count up to 100,000,000 (10x Llama 4 Scout's 10M context)", "1 到 100,000,000 之间的 token 数（Llama 4 Scout 上下文 1000 万的 10 倍）");
  if (in.global_batch < 0) throw InputError("--global-batch", "--global-batch must be positive.", "--global-batch 须为正数。");
  r.global_batch = in.global_batch;
  r.tp = in.tp;
  r.pp = in.pp;
  r.dp = in.dp;
  r.cp = in.cp;
  r.ep = in.ep;
  r.vp = in.vp;
  r.first_stage_layers = in.first_stage_layers;
  r.last_stage_layers = in.last_stage_layers;
  r.pipeline_layout = in.pipeline_layout;
  r.etp = in.etp;
  r.micro_batch = in.micro_batch;
  r.zero_stage = in.zero;
  if (in.recompute) r.recompute = parse_recompute(*in.recompute, "--recompute");
  r.memory_options.safety_margin = checked_safety_margin(in.safety_margin);
  r.precision = parse_precision(in.precision.value_or("bf16"), "--precision");
  if (in.precision) {
    for (const GpuSpec& g : r.gpus) (void)training_precision(in.precision, g);
  }
  require_supported_context(r.model, r.seq_len, in.force, "--seq-len");
  r.optimizer = parse_optimizer(in.optimizer, "--optimizer");
  const std::string rank = normalize_name(in.rank_by);
  if (rank == "time") r.rank_by = PlanRank::kTime;
  else if (rank == "cost") r.rank_by = PlanRank::kCost;
  else throw InputError("--rank-by", fmt::format("--rank-by must be time or cost (got '{}').", in.rank_by), fmt::format("--rank-by 须为 time（按时间）或 cost（按费用）（输入为 '{}'）。", in.rank_by));
  if (in.top < 1 || in.top > 100) throw InputError("--top", "--top must be from 1 to 100.", "--top 须在 1 到 100 之间。");
  r.top_k = in.top;
  r.cross_node_tp = in.cross_node_tp;
  r.zero3_per_module = in.zero3_per_module;
  r.framework = &resolve_framework(in.software);
  r.settings = make_run_settings(in.software);
  if (in.no_flash_attention) r.settings.attention = AttentionKernel::kMaterialised;
  r.settings.force_eager = in.eager;
  if (in.gpus_per_node) {
    if (*in.gpus_per_node < 1 || *in.gpus_per_node > 1024) throw InputError("--gpus-per-node", "--gpus-per-node must be from 1 to 1024.", "--gpus-per-node 须在 1 到 1024 之间。");
    r.step_options.gpus_per_node = *in.gpus_per_node;
  }
  for (const std::string& c : in.compare_layout) {
    const Layout l = parse_compare_layout(c, r);
    bool used = false;
    for (int64_t n : r.gpu_counts) used = used || l.gpus() == n;
    if (!used) {
      throw InputError("--compare-layout", fmt::format("--compare-layout {} uses {} GPUs; --gpus does not include that count.", c, l.gpus()),
                       fmt::format("--compare-layout {} 需要 {} 张卡，而 --gpus 里没有这个卡数。", c, l.gpus()));
    }
    r.references.push_back(l);
  }
  return r;
}

}  // namespace gpuplan
