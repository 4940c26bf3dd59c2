// gpuplan infer: GPUs, TP groups, latency and cost per million tokens of serving a model.
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/infer_inputs.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

struct InferFlags {
  OutputOptions out;
  InferInputs in;
  MarketFlags market;
};

}  // namespace

void add_infer_command(CLI::App& app) {
  auto f = std::make_shared<InferFlags>();
  CLI::App* cmd = app.add_subcommand("infer", help_text("Serving: weights + KV cache memory, TTFT, time per output token, GPUs for a request rate, cost per million tokens",
      "推理服务：权重与 KV 缓存显存、TTFT、每输出 token 时间、满足请求速率所需卡数、每百万 token 费用"));
  cmd->add_option("--model", f->in.model, help_text("Model id, alias or config.json", "模型 id、别名或 config.json"));
  cmd->add_option("--gpu", f->in.gpu, help_text("GPU id or alias", "GPU id 或别名"));
  cmd->add_option("--precision", f->in.precision, "Weights: fp16, bf16, fp8, int8 (W8A16), int4 (W4A16, AWQ/GPTQ)")->capture_default_str();
  cmd->add_option("--kv-precision", f->in.kv_precision, "KV cache: fp16, bf16 or fp8 (default: 16-bit)");
  cmd->add_option("--input", f->in.input, "Input (prompt) tokens per request")->capture_default_str();
  cmd->add_option("--output", f->in.output, "Output tokens per request")->capture_default_str();
  cmd->add_option("--rps", f->in.rps, "Target requests per second (0: size one replica)");
  cmd->add_option("--confidence", f->in.confidence, "With --rps: size the replicas to keep up with this probability (0.5: the median estimate)")
      ->capture_default_str();
  cmd->add_option("--batch", f->in.batch, "Concurrent sequences per replica (default: the largest that fits and meets the latency target)");
  cmd->add_option("--tp", f->in.tp, "Tensor-parallel degree per replica (default: try 1, 2, 4, 8 and keep the fewest GPUs)");
  cmd->add_option("--latency-target-ms", f->in.latency_target_ms, "Time-per-output-token target in ms (default 50 ms, about 20 tokens/s per user; 0: none)");
  cmd->add_option("--pp", f->in.pp, "Pipeline stages per replica (default: search 1, 2, 4, 8)");
  cmd->add_option("--ep", f->in.ep, "MoE expert parallelism: 1 splits experts by TP; N > 1 spreads whole experts over N GPUs with DP attention (N = TP × DP); default: search both");
  cmd->add_flag("--disaggregate", f->in.disaggregate, "Separate prefill and decode pools (prefill/decode disaggregation)");
  cmd->add_option("--group-size", f->in.group_size, "Weight-only quantisation group size (int4)")->capture_default_str();
  cmd->add_option("--memory-utilization", f->in.memory_utilization, "Share of GPU memory the engine may use")->capture_default_str();
  cmd->add_flag("--no-int4", f->in.no_int4, "The GPU has no usable 4-bit kernel (refuses --precision int4)");
  cmd->add_flag("--force", f->in.force, "Plan a context longer than the model supports");
  cmd->add_flag("--max-throughput", f->in.max_throughput, "Offline max-throughput run: every request queued at once, batched by the engine as far as memory allows");
  cmd->add_option("--engine", f->in.engine, "Engine whose defaults --max-throughput uses: vllm (default) or 'TensorRT-LLM 1.0'");
  cmd->add_option("--price", f->in.price, "Price per GPU-hour: 2.49, $2.5, 15cny (default: the catalog's)");
  add_market_flags(cmd, &f->market);
  add_output_options(cmd, &f->out);
  cmd->callback([f] {
    load_gpu_file(f->out);
    f->in.market = f->market.market;
    f->in.provider = f->market.provider;
    f->in.currency = f->market.currency;
    f->in.lang = f->out.lang;
    print_report(infer_report_for(f->in), f->out);
  });
}

}  // namespace gpuplan::cli
