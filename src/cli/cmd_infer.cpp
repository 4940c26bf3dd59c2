// gpuplan infer: GPUs, TP groups, latency and cost per million tokens of serving a model.
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/inference_report.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

struct InferFlags {
  OutputOptions out;
  std::string model;
  std::string gpu;
  std::string precision = "fp16";
  std::string kv_precision;
  int64_t input = 2048;
  int64_t output = 512;
  double rps = 0;
  int64_t batch = 0;
  int tp = 0;
  std::optional<double> latency_target_ms;  // unset: kDefaultTpotTargetS for a rate or replica plan
  int pp = 0;
  int ep = 0;
  bool disaggregate = false;
  int64_t group_size = 128;
  double memory_utilization = 0.90;
  bool no_int4 = false;
  bool force = false;
  bool max_throughput = false;
  std::string engine;
  std::optional<std::string> price;
};

Currency bare_currency(const std::string& text) {
  return text.find("cny") != std::string::npos || text.find("CNY") != std::string::npos || text.find("¥") != std::string::npos ? Currency::kCny : Currency::kUsd;
}

void run(const InferFlags& f) {
  load_gpu_file(f.out);
  if (f.model.empty()) throw InputError("--model", "--model is required (a catalog id such as llama-3.1-70b, or a config.json).");
  if (f.gpu.empty()) throw InputError("--gpu", "--gpu is required (e.g. h100, a100-80g, 4090).");
  const ModelSpec m = find_model(f.model);
  const GpuSpec& g = find_gpu(f.gpu);
  InferenceOptions o;
  o.weights = parse_weight_format(f.precision, "--precision");
  o.kv = f.kv_precision.empty() ? (o.weights == WeightFormat::kBf16 ? Precision::kBf16 : Precision::kFp16)
                                : parse_precision(f.kv_precision, "--kv-precision");
  o.group_size = f.group_size;
  o.memory_utilization = f.memory_utilization;
  o.int4_supported = !f.no_int4;
  if (f.input < 1 || f.input > (int64_t{1} << 24)) throw InputError("--input", "--input must be between 1 and 16,777,216 tokens.");
  if (f.output < 1 || f.output > (int64_t{1} << 24)) throw InputError("--output", "--output must be between 1 and 16,777,216 tokens.");
  const int64_t max_ctx = model_max_context(m);
  if (max_ctx > 0 && f.input + f.output > max_ctx && !f.force) {
    throw InputError("--input", fmt::format("--input + --output = {} tokens exceeds the {:L} tokens {} supports (max_position_embeddings); add --force to plan it anyway.",
                                            f.input + f.output, max_ctx, m.name));
  }
  require_range(f.rps, 0, 1e9, "--rps", "a non-negative request rate per second");
  if (f.latency_target_ms && (*f.latency_target_ms < 0 || !std::isfinite(*f.latency_target_ms))) throw InputError("--latency-target-ms", "--latency-target-ms must be a positive time per output token in ms (0: no target).");
  if (f.batch < 0) throw InputError("--batch", "--batch must be a positive number of sequences.");
  if (f.tp < 0) throw InputError("--tp", "--tp must be 1, 2, 4 or 8.");
  if (f.tp > 0) {
    o.tp = f.tp;
    validate_inference(m, g, o);
  } else {
    validate_inference(m, g, o);
  }
  if (f.max_throughput) {
    if (f.rps > 0) throw InputError("--rps", "--rps sizes a deployment for a request rate; --max-throughput queues every request at once. Use one of them.");
    if (f.batch > 0) throw InputError("--batch", "--max-throughput lets the engine choose the batch; drop --batch (or drop --max-throughput for a fixed one).");
    if (f.pp > 0 || f.ep > 0 || f.disaggregate) throw InputError(f.pp > 0 ? "--pp" : f.ep > 0 ? "--ep" : "--disaggregate", "--max-throughput plans one TP group on one node; --pp, --ep and --disaggregate are for a serving deployment (drop --max-throughput).");
    if (f.latency_target_ms && *f.latency_target_ms > 0) throw InputError("--latency-target-ms", "--latency-target-ms caps the batch for latency; --max-throughput does not. Use one of them.");
    // TP: the one asked for, else the one of 1, 2, 4, 8 with the most output tokens/s per GPU.
    std::vector<int> tps;
    if (f.tp > 0) tps.push_back(f.tp);
    else for (int tp = 1; tp <= std::min(8, std::max(g.gpus_per_node, g.nvlink_domain_gpus)); tp *= 2) if (m.heads % tp == 0) tps.push_back(tp);
    MaxThroughputRun best;
    InferenceOptions best_o = o;
    for (int tp : tps) {
      o.tp = tp;
      const MaxThroughputRun run = max_throughput_run(m, g, o, engine_defaults(f.engine, m, g, o, f.input, f.output), f.input, f.output);
      const bool better = run.feasible && (!best.feasible || run.output_tokens_per_s_per_gpu > best.output_tokens_per_s_per_gpu);
      if (better || (best.why_not.empty() && !best.feasible)) {
        best = run;
        best_o = o;
      }
    }
    print_report(max_throughput_report(m, g, best_o, f.input, f.output, best), f.out);
    return;
  }
  ServingTarget t;
  t.input_len = f.input;
  t.output_len = f.output;
  t.requests_per_s = f.rps;
  // No target given: the default one, unless a fixed batch is asked for.
  t.tpot_target_s = f.latency_target_ms ? *f.latency_target_ms / 1e3 : (f.batch > 0 ? 0.0 : kDefaultTpotTargetS);
  t.batch = f.batch;
  t.tp = f.tp;
  t.pp = f.pp;
  t.ep = f.ep;
  t.disaggregate = f.disaggregate;
  const ServingPlan p = plan_serving(m, g, o, t);
  if (!p.feasible) {
    // One sentence and exit status 2; the layouts tried are in --format json of a feasible request.
    const bool target = t.tpot_target_s > 0 && p.why_not.find("target") != std::string::npos;
    throw InputError(target ? "--latency-target-ms" : "--gpu",
                     target ? fmt::format("No deployment found that meets --latency-target-ms {:g}: {}.", 1e3 * t.tpot_target_s, p.why_not)
                            : fmt::format("No deployment found on --gpu {}: {}.", g.id, p.why_not));
  }
  PriceInput pi;
  pi.text = f.price;
  if (f.price) pi.currency = bare_currency(*f.price);
  const Price price = resolve_price(g.id, pi);
  print_report(inference_report(m, g, o, t, p, price), f.out);
}

}  // namespace

void add_infer_command(CLI::App& app) {
  auto f = std::make_shared<InferFlags>();
  CLI::App* cmd = app.add_subcommand("infer", "Serving: weights + KV cache memory, TTFT, time per output token, GPUs for a request rate, cost per million tokens");
  cmd->add_option("--model", f->model, "Model id, alias or config.json");
  cmd->add_option("--gpu", f->gpu, "GPU id or alias");
  cmd->add_option("--precision", f->precision, "Weights: fp16, bf16, fp8, int8 (W8A16), int4 (W4A16, AWQ/GPTQ)")->capture_default_str();
  cmd->add_option("--kv-precision", f->kv_precision, "KV cache: fp16, bf16 or fp8 (default: 16-bit)");
  cmd->add_option("--input", f->input, "Input (prompt) tokens per request")->capture_default_str();
  cmd->add_option("--output", f->output, "Output tokens per request")->capture_default_str();
  cmd->add_option("--rps", f->rps, "Target requests per second (0: size one replica)");
  cmd->add_option("--batch", f->batch, "Concurrent sequences per replica (default: the largest that fits and meets the latency target)");
  cmd->add_option("--tp", f->tp, "Tensor-parallel degree per replica (default: try 1, 2, 4, 8 and keep the fewest GPUs)");
  cmd->add_option("--latency-target-ms", f->latency_target_ms, "Time-per-output-token target in ms (default 50 ms, about 20 tokens/s per user; 0: none)");
  cmd->add_option("--pp", f->pp, "Pipeline stages per replica (default: search 1, 2, 4, 8)");
  cmd->add_option("--ep", f->ep, "MoE expert parallelism: 1 splits experts by TP; N > 1 spreads whole experts over N GPUs with DP attention (N = TP × DP); default: search both");
  cmd->add_flag("--disaggregate", f->disaggregate, "Separate prefill and decode pools (prefill/decode disaggregation)");
  cmd->add_option("--group-size", f->group_size, "Weight-only quantisation group size (int4)")->capture_default_str();
  cmd->add_option("--memory-utilization", f->memory_utilization, "Share of GPU memory the engine may use")->capture_default_str();
  cmd->add_flag("--no-int4", f->no_int4, "The GPU has no usable 4-bit kernel (refuses --precision int4)");
  cmd->add_flag("--force", f->force, "Plan a context longer than the model supports");
  cmd->add_flag("--max-throughput", f->max_throughput, "Offline max-throughput run: every request queued at once, batched by the engine as far as memory allows");
  cmd->add_option("--engine", f->engine, "Engine whose defaults --max-throughput uses: vllm (default) or 'TensorRT-LLM 1.0'");
  cmd->add_option("--price", f->price, "Price per GPU-hour: 2.49, $2.5, 15cny (default: the catalog's)");
  add_output_options(cmd, &f->out);
  cmd->callback([f] { run(*f); });
}

}  // namespace gpuplan::cli
