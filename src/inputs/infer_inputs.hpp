// The inputs of `gpuplan infer` as a front end collects them, each declared
// once (visit_infer_inputs), and the one place that checks them and builds
// the report: the CLI (src/cli/cmd_infer.cpp) binds its flags to these fields,
// the web API's POST /api/infer reads the request keys of the same names
// (`latency_target_ms` is --latency-target-ms), the Python module takes the
// CLI's flags as keyword arguments.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "inputs/input_info.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

struct Report;  // report.hpp

struct InferInputs {
  std::string model;                    // --model: catalog id, alias or config.json path
  std::optional<ModelSpec> model_spec;  // instead: a model the front end built (the web's pasted config.json)
  std::string gpu;
  std::string precision = "fp16";
  std::string weight_quant;             // --weight-quant: a named method (data/weight_quant.json); empty: none
  std::string kv_precision;             // empty: 16-bit (bf16 with bf16 weights)
  int64_t input = 2048;
  int64_t output = 512;
  double rps = 0;
  double confidence = 0.8;              // --confidence: with --rps, replicas keep up with this probability (issue 15)
  int64_t batch = 0;
  int tp = 0;
  int pp = 0;
  int ep = 0;
  std::optional<double> latency_target_ms;  // unset: kDefaultTpotTargetS (unless a fixed batch); 0: none
  double ttft_target_ms = 0;                // 0: none
  bool disaggregate = false;
  int64_t group_size = 128;
  double memory_utilization = 0.90;
  bool no_int4 = false;
  bool force = false;
  bool max_throughput = false;
  std::string engine;
  std::optional<std::string> price;
  // --market cn|us (unset: from lang), --provider, --currency usd|cny.
  std::optional<std::string> market, provider, currency;
  std::string lang = "en";              // --lang: picks the default market (zh: cn)
};

// Checks the inputs (InputError naming the flag), plans the deployment or the
// max-throughput run and returns its report. An infeasible deployment is an
// InputError with one sentence saying why.
Report infer_report_for(const InferInputs& in);

struct InferRequest;  // inference.hpp
// The checks of infer_report_for's first step: the inputs as a request
// (InputError naming the flag), before any deployment is planned.
InferRequest make_infer_request(const InferInputs& in);

// Every input of `gpuplan infer` but the model (--model; the web's model or
// config) and the language (--lang, an output option).
template <class Visit>
void visit_infer_inputs(InferInputs& in, Visit&& v) {
  v(kGpuInput, in.gpu);
  v(InputInfo{"--precision", "", "Weights: fp16, bf16, fp8, int8 (W8A16), int4 (W4A16, AWQ/GPTQ)",
              "权重精度：fp16、bf16、fp8、int8（W8A16）、int4（W4A16，AWQ/GPTQ）"},
    in.precision);
  v(InputInfo{"--weight-quant", "",
              "How the weights were quantised: none, fp8, int8, gptq-int4, gptq-int8, awq-int4, nf4 (bitsandbytes), gguf-q4_k_m, gguf-q8_0 (llama.cpp), mxfp4, nvfp4; sets --precision and the bytes each kind of matrix takes",
              "权重的量化方法：none、fp8、int8、gptq-int4、gptq-int8、awq-int4、nf4（bitsandbytes）、gguf-q4_k_m、gguf-q8_0（llama.cpp）、mxfp4、nvfp4；据此确定 --precision 及各类矩阵每个权重所占字节"},
    in.weight_quant);
  v(InputInfo{"--kv-precision", "", "KV cache: fp16, bf16 or fp8 (default: 16-bit)", "KV 缓存精度：fp16、bf16 或 fp8（默认 16 位）"}, in.kv_precision);
  v(InputInfo{"--input", "tokens", "Input (prompt) tokens per request", "每个请求的输入（提示词）token 数"}, in.input);
  v(InputInfo{"--output", "tokens", "Output tokens per request", "每个请求的输出 token 数"}, in.output);
  v(InputInfo{"--rps", "requests/s", "Target requests per second (0: size one replica)", "目标每秒请求数（0：只算一个副本）"}, in.rps);
  v(InputInfo{"--confidence", "probability", "With --rps: size the replicas to keep up with this probability (0.5: the median estimate)",
              "配合 --rps：副本数取能以此概率跟上请求的数量（0.5：中位估计）"},
    in.confidence);
  v(InputInfo{"--batch", "sequences", "Concurrent sequences per replica (default: the largest that fits and meets the latency target)",
              "每个副本的并发序列数（默认：放得下且满足延迟目标的最大值）"},
    in.batch);
  v(InputInfo{"--tp", "", "Tensor-parallel degree per replica (default: try 1, 2, 4, 8 and keep the fewest GPUs)",
              "每个副本的张量并行度（默认：试 1、2、4、8，取卡数最少者）"},
    in.tp);
  v(InputInfo{"--latency-target-ms", "ms", "Time-per-output-token target (default 50 ms, about 20 tokens/s per user; 0: none)",
              "每输出 token 时间目标（默认 50 ms，约每用户每秒 20 token；0：不设）"},
    in.latency_target_ms);
  v(InputInfo{"--ttft-target-ms", "ms", "Time-to-first-token target: a replica layout whose prefill of one prompt takes longer is refused (0: none)",
              "首 token 时间目标：单个提示词的预填充超过它的副本布局不予采用（0：不设）"},
    in.ttft_target_ms);
  v(InputInfo{"--pp", "", "Pipeline stages per replica (default: search 1, 2, 4, 8)", "每个副本的流水线级数（默认：搜索 1、2、4、8）"}, in.pp);
  v(InputInfo{"--ep", "",
              "MoE expert parallelism: 1 splits experts by TP; N > 1 spreads whole experts over N GPUs with DP attention (N = TP × DP); default: search both",
              "MoE 专家并行：1 表示专家按 TP 切分；N > 1 表示整个专家分布到 N 张卡、注意力用数据并行（N = TP × DP）；默认两者都搜索"},
    in.ep);
  v(InputInfo{"--disaggregate", "", "Separate prefill and decode pools (prefill/decode disaggregation)", "预填充与解码分池部署（PD 分离）"},
    in.disaggregate);
  v(InputInfo{"--group-size", "weights", "Weight-only quantisation group size (int4)", "仅权重量化的分组大小（int4）"}, in.group_size);
  v(InputInfo{"--memory-utilization", "fraction", "Share of GPU memory the engine may use", "推理引擎可用的显存比例"}, in.memory_utilization);
  v(InputInfo{"--no-int4", "", "The GPU has no usable 4-bit kernel (refuses --precision int4)", "该 GPU 没有可用的 4 位内核（拒绝 --precision int4）"},
    in.no_int4);
  v(InputInfo{"--force", "", "Plan a context longer than the model supports", "允许上下文超过模型支持的长度"}, in.force);
  v(InputInfo{"--max-throughput", "", "Offline max-throughput run: every request queued at once, batched by the engine as far as memory allows",
              "离线最大吞吐：所有请求同时排队，由引擎在显存允许范围内尽量合批"},
    in.max_throughput);
  v(InputInfo{"--engine", "", "Serving engine as ENGINE[@VERSION] (gpuplan engines lists the profiles): vllm (default), sglang, tensorrt-llm, lmdeploy (TurboMind), tgi, hf-transformers, llama.cpp, mindie (Ascend); its defaults (KV-cache memory rule, batch limits, CUDA graphs) size each replica and, named, replace --memory-utilization",
              "推理引擎，写作 引擎[@版本]（gpuplan engines 列出全部配置）：vllm（默认）、sglang、tensorrt-llm、lmdeploy（TurboMind）、tgi、hf-transformers、llama.cpp、mindie（昇腾）；按其默认设置（KV 缓存显存规则、批处理上限、CUDA Graph）确定每个副本，指定后取代 --memory-utilization"},
    in.engine);
  v(InputInfo{"--price", "", "Price per GPU-hour: 2.49, $2.5, 15cny (default: the catalog's)", "每卡时单价：2.49、$2.5、15cny（默认取目录报价）"}, in.price);
  v(kMarketInput, in.market);
  v(kProviderInput, in.provider);
  v(kCurrencyInput, in.currency);
}

}  // namespace gpuplan
