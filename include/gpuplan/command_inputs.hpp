// The inputs of `gpuplan train`, `memory` (and `calibrate`'s layout) and `plan`
// as a front end collects them, and the one place that checks them and builds
// the library's requests.
//
// Each field is named after its CLI flag (`seq_len` is --seq-len) and holds
// what the user typed: counts with SI suffixes, durations and fractions stay
// text until the builders below parse them, so every error names the flag.
// The CLI (src/cli) binds its flags to these fields; the web API
// (src/web/api.cpp) reads the request keys of the same names into them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/calibration.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/train_report.hpp"

namespace gpuplan {

// --- the software stack (train, memory, calibrate, plan) ------------------

// --framework NAME[@VERSION] and the run settings that override its defaults;
// each unset one takes the profile's default (apply_framework).
struct FrameworkInputs {
  std::string framework = "generic";
  std::optional<std::string> attention;        // --attention flash|flash3|cudnn|sdpa|materialised
  std::optional<std::string> loss;             // --loss full|fused|chunked
  std::optional<std::string> compile;          // --compile on|off
  std::optional<std::string> tp_comm_overlap;  // --tp-comm-overlap on|off
  std::optional<std::string> dp_comm_overlap;  // --dp-comm-overlap on|off
};

// The profile named by --framework (InputError naming --framework).
const FrameworkProfile& resolve_framework(const FrameworkInputs& in);
// The stated settings, checked (InputError naming the flag).
RunSettings make_run_settings(const FrameworkInputs& in);

// --- gpuplan train ---------------------------------------------------------

struct TrainInputs {
  std::string model;                    // --model: catalog id, alias or config.json path
  std::optional<std::string> params;    // --params 70B
  std::optional<ModelSpec> model_spec;  // instead of both: a model the front end built (the web's pasted config.json)
  std::optional<std::string> tokens, samples, tokens_per_sample, dataset_bytes, flops_per_sample;
  double bytes_per_token = 4;
  double epochs = 1;
  int64_t seq_len = 4096;
  bool force = false;                   // --force: a --seq-len beyond the model's context is meant
  std::optional<std::string> global_batch, batch_tokens;
  std::string gpu;
  std::optional<std::string> gpus, deadline, mfu, tflops_per_gpu;
  std::string precision = "bf16";
  std::string recompute = "none";
  bool causal = false;
  bool six_n = false;
  std::optional<double> fault_budget;
  // Operations: failures, restarts, checkpoints, spot preemptions (OperationsSettings).
  std::optional<double> gpu_mtbf_hours, restart_minutes, storage_gbytes_per_s, spot_mtbf_hours;
  std::optional<std::string> checkpoint_interval;
  double comm_margin = 0.0;
  std::optional<int> gpus_per_node;
  std::optional<std::string> price, currency;
  std::optional<std::string> market;    // --market cn|us (the front end defaults it from the language)
  std::optional<std::string> provider;  // --provider: a named listing of that market
  bool spot = false;
  std::optional<double> spot_discount, spot_overhead;
  std::vector<std::string> phase;       // NAME:GPU:COUNT:DURATION[:PRICE], repeatable
  bool compare_own = false;             // --compare-own: rent vs own
  OwnershipOverrides own;               // --own-*, --pue, --electricity-price, … (any of them implies --compare-own)
  std::optional<Calibration> calibration;  // the CLI reads --calibration FILE, the web takes the file's object
  FrameworkInputs software;
  double interval = 0.8;                // --interval: level of the prediction ranges
  double confidence = 0.8;              // --confidence: what a --deadline run is sized to
};

// Parses and checks the text fields; train_report checks the rest.
TrainRequest make_train_request(const TrainInputs& in);

// How a front end presents one input: the CLI binds `flags` to the field with
// `help`; the web API reads the request key input_key(flags) into it. The
// field's C++ type is the input's type and TrainInputs' initialiser its default.
struct InputInfo {
  const char* flags;  // CLI11 names, "--gpus,-n"; the first is the canonical one
  const char* unit;   // of a plain number ("" where the text carries its own: 15T, 90d, 15cny)
  const char* help;   // the CLI's help line
  const char* help_zh = "";  // the same in Chinese (gpuplan train --help --lang zh)
};
// The web API's key of an input: its first flag without dashes, '-' as '_' ("--seq-len" → "seq_len").
std::string input_key(const InputInfo& input);

// Every input of `gpuplan train`, declared once: `v(info, field)` for each, in
// the CLI's order. Not here: the model (--model/--params on the CLI;
// model/params/config on the web), the framework settings (FrameworkInputs,
// shared by four commands) and the calibration (a file on the CLI, the file's
// object on the web).
template <class Visit>
void visit_train_inputs(TrainInputs& in, Visit&& v) {
  v(InputInfo{"--tokens,-t", "", "Training tokens per epoch (1T, 15e12, 1万亿, 2000亿)", "每轮训练 token 数（1T、15e12、1万亿、2000亿）"}, in.tokens);
  v(InputInfo{"--samples", "", "Instead of --tokens: samples (sequences, images) per epoch", "代替 --tokens：每轮样本数（序列、图像）"}, in.samples);
  v(InputInfo{"--tokens-per-sample", "", "Tokens per sample (default: --seq-len); an image is its patch count", "每样本 token 数（默认 --seq-len）；图像按 patch 数计"}, in.tokens_per_sample);
  v(InputInfo{"--dataset-bytes", "", "Instead of --tokens: raw text size in bytes (1T = 1 TB)", "代替 --tokens：原始文本字节数（1T = 1 TB）"}, in.dataset_bytes);
  v(InputInfo{"--bytes-per-token", "bytes", "Bytes of raw text per token for --dataset-bytes", "--dataset-bytes 下每 token 对应的原始文本字节数"}, in.bytes_per_token);
  v(InputInfo{"--flops-per-sample", "", "Non-LLM workloads: training FLOPs of one sample (with --samples)", "非大语言模型任务：单样本训练计算量（配合 --samples）"}, in.flops_per_sample);
  v(InputInfo{"--epochs", "", "Passes over the data", "训练轮数"}, in.epochs);
  v(InputInfo{"--seq-len", "tokens", "Tokens per sequence", "每条序列 token 数"}, in.seq_len);
  v(InputInfo{"--force", "", "Plan a --seq-len longer than the model supports", "允许 --seq-len 超过模型支持的上下文长度"}, in.force);
  v(InputInfo{"--global-batch", "", "Sequences per optimizer step (for the step count)", "每个优化步的序列数（用于计算步数）"}, in.global_batch);
  v(InputInfo{"--batch-tokens", "", "Or: tokens per optimizer step", "或：每个优化步的 token 数"}, in.batch_tokens);
  v(InputInfo{"--gpu,-g", "", "GPU id or alias: h100, a100-80g, h800, 910b, 4090 (gpuplan gpus)", "GPU id 或别名：h100、a100-80g、h800、910b、4090（gpuplan gpus）"}, in.gpu);
  v(InputInfo{"--gpus,-n", "", "Number of GPUs", "卡数"}, in.gpus);
  v(InputInfo{"--deadline,-d", "", "Wall-clock deadline: 90d, 36h, 2w, 1month, 30天, 2周, 1个月 (a month is 30 days)", "工期：90d、36h、2w、1month、30天、2周、1个月（一个月按 30 天）"}, in.deadline);
  v(InputInfo{"--mfu", "", "Model FLOPs utilisation, 0.4 or 40%", "算力利用率 MFU，0.4 或 40%"}, in.mfu);
  v(InputInfo{"--tflops-per-gpu", "", "Instead of --mfu: achieved TFLOP/s per GPU", "代替 --mfu：单卡实际 TFLOP/s"}, in.tflops_per_gpu);
  v(InputInfo{"--precision", "", "Training precision whose peak MFU is measured against: bf16, fp16, fp8, tf32, fp32", "训练精度，MFU 以该精度峰值为基准：bf16、fp16、fp8、tf32、fp32"}, in.precision);
  v(InputInfo{"--recompute", "", "Activation recomputation: none, selective, full (changes hardware FLOPs)", "激活重计算：none、selective、full（改变硬件计算量）"}, in.recompute);
  v(InputInfo{"--causal", "", "Count only the causal half of attention (default: full s×s, the Megatron/PaLM convention)", "注意力只计因果的一半（默认按完整 s×s，Megatron/PaLM 口径）"}, in.causal);
  v(InputInfo{"--six-n", "", "Time the run with 6·N FLOPs per token instead of the exact count", "用每 token 6·N 代替精确计数来估算时间"}, in.six_n);
  v(InputInfo{"--fault-budget", "fraction of compute", "Fix the time for failures and restarts as a fraction of compute (a common planning figure: 0.2); default: computed", "把故障与重启时间固定为计算时间的一个比例（常用 0.2）；默认按模型计算"}, in.fault_budget);
  v(InputInfo{"--gpu-mtbf-hours", "hours", "Per-GPU mean time between job-stopping failures, hours (default: Llama 3's 50,676)", "单卡导致作业中断的平均故障间隔，小时（默认按 Llama 3 数据 50,676）"}, in.gpu_mtbf_hours);
  v(InputInfo{"--restart-minutes", "minutes", "Minutes to detect a failure, reschedule and reload (default 15)", "发现故障、重新调度并加载所需分钟数（默认 15）"}, in.restart_minutes);
  v(InputInfo{"--storage-gbytes-per-s", "GB/s", "Aggregate checkpoint write bandwidth, GB/s (default 0.125 per GPU)", "检查点总写入带宽，GB/s（默认每卡 0.125）"}, in.storage_gbytes_per_s);
  v(InputInfo{"--checkpoint-interval", "", "Checkpoint every (e.g. 30min); default: Daly's optimum", "检查点间隔（如 30min）；默认按 Daly 最优间隔"}, in.checkpoint_interval);
  v(InputInfo{"--spot-mtbf-hours", "hours", "With --spot: mean hours between preemptions of one node (default 72)", "配合 --spot：单节点两次被抢占之间的平均小时数（默认 72）"}, in.spot_mtbf_hours);
  v(InputInfo{"--comm-margin", "fraction of compute", "Extra time for communication not in your MFU, fraction (a common planning range: 0.1–0.3)", "MFU 未包含的通信额外时间，比例（常用 0.1–0.3）"}, in.comm_margin);
  v(InputInfo{"--gpus-per-node", "GPUs", "GPUs per node (default from the GPU catalog)", "每节点卡数（默认取自 GPU 目录）"}, in.gpus_per_node);
  v(InputInfo{"--price", "", "Price per GPU-hour: 2.49, $2.49, 15cny, or a range 15-30cny (default: catalog)", "每卡时单价：2.49、$2.49、15cny 或区间 15-30cny（默认取目录报价）"}, in.price);
  v(InputInfo{"--currency", "", "Currency every cost is shown in (and of a bare --price): usd or cny (default: the market's)", "所有费用显示的币种（也是不带币种的 --price 的币种）：usd 或 cny（默认随市场）"}, in.currency);
  v(InputInfo{"--market", "", "Where you rent: cn (China listings, CNY) or us (US listings, USD); default from --lang (zh: cn)", "在哪里租：cn（国内报价，人民币）或 us（美国报价，美元）；默认随 --lang（zh 为 cn）"}, in.market);
  v(InputInfo{"--provider", "", "A named listing of that market instead of its default, e.g. Lambda, RunPod (gpuplan gpus GPU lists them)", "改用该市场中指定的报价方，如 Lambda、RunPod（gpuplan gpus GPU 列出可选项）"}, in.provider);
  v(InputInfo{"--spot", "", "Price spot/preemptible capacity", "按竞价（可抢占）实例计价"}, in.spot);
  v(InputInfo{"--spot-discount", "fraction", "Fraction off on-demand for spot, when no spot quote is known", "没有竞价报价时，竞价相对按需价格的优惠比例"}, in.spot_discount);
  v(InputInfo{"--spot-overhead", "fraction of GPU-hours", "Fix the extra GPU-hours lost to spot preemptions as a fraction; default: computed", "把竞价实例被抢占损失的额外卡时固定为一个比例；默认按模型计算"}, in.spot_overhead);
  v(InputInfo{"--phase", "", "Extra priced phase NAME:GPU:COUNT:DURATION[:PRICE], e.g. debug:a100-80g:10:72h:12cny (repeatable)", "另计费用的阶段 名称:GPU:卡数:时长[:单价]，如 --phase debug:a100-80g:10:72h:12cny（可重复）"}, in.phase);
  v(InputInfo{"--compare-own", "", "Add rent vs own: owning the nodes at a fleet utilisation against renting (docs/rent-or-buy.md)", "加上租用与自建对比：按集群利用率计算自建成本（docs/rent-or-buy.md）"}, in.compare_own);
  v(InputInfo{"--fleet-utilisation,--fleet-utilization", "fraction", "Owned: busy share of the fleet's hours over its life, 0 to 1 (default 0.5)", "自建：集群生命周期内忙碌时间占比，0 到 1（默认 0.5）"}, in.own.fleet_utilisation);
  v(InputInfo{"--own-server-price", "result currency", "Owned: purchase price of one node in the result currency (default: the market's listing)", "自建：单节点采购价，按结果币种（默认取该市场报价）"}, in.own.server_price_per_node);
  v(InputInfo{"--own-network-per-node", "result currency", "Owned: switches and cables per node, in the result currency", "自建：每节点分摊的交换机与线缆费用，按结果币种"}, in.own.network_per_node);
  v(InputInfo{"--own-life-years", "years", "Owned: straight-line depreciation life in years", "自建：直线折旧年限"}, in.own.life_years);
  v(InputInfo{"--own-resale", "fraction", "Owned: resale value at end of life, fraction of the price", "自建：期末残值，占采购价的比例"}, in.own.resale_fraction);
  v(InputInfo{"--own-node-kw", "kW", "Owned: IT power of one node at training load, kW (default GPUs' TDP + host)", "自建：训练负载下单节点 IT 功率，kW（默认 GPU 的 TDP 加主机）"}, in.own.node_power_kw);
  v(InputInfo{"--pue", "ratio", "Owned: power usage effectiveness of the machine room (at least 1)", "自建：机房电能使用效率 PUE（至少 1）"}, in.own.pue);
  v(InputInfo{"--electricity-price", "result currency per kWh", "Owned: electricity per kWh, in the result currency", "自建：每 kWh 电价，按结果币种"}, in.own.electricity_per_kwh);
  v(InputInfo{"--colocation-price", "result currency per kW-month", "Owned: machine room / colocation per kW of IT load per month", "自建：机房/托管费用，每 kW IT 负载每月"}, in.own.colocation_per_kw_month);
  v(InputInfo{"--staff-cost", "result currency per year", "Owned: fully loaded cost of one operations engineer per year", "自建：一名运维工程师每年的全部人力成本"}, in.own.staff_cost_per_engineer_year);
  v(InputInfo{"--nodes-per-engineer", "nodes", "Owned: nodes one operations engineer runs", "自建：一名运维工程师负责的节点数"}, in.own.nodes_per_engineer);
  v(InputInfo{"--financing-rate", "fraction per year", "Owned: yearly interest on the capital, 0.05 = 5%", "自建：资金年利率，0.05 = 5%"}, in.own.financing_rate);
  v(InputInfo{"--interval", "probability", "Level of the prediction ranges beside predicted times, GPU-hours, cost and memory (0.5–0.99)", "预测时间、卡时、费用与显存旁所附区间的置信水平（0.5–0.99）"}, in.interval);
  v(InputInfo{"--confidence", "probability", "With --deadline: size the GPU count to finish on time with this probability (0.5: the median estimate; up to 0.99)", "配合 --deadline：卡数取能以此概率按期完成的数量（0.5：中位估计；最高 0.99）"}, in.confidence);
}

// --- gpuplan memory, gpuplan calibrate -------------------------------------

// One training layout: model, GPU, degrees, batch, recipe.
struct LayoutInputs {
  std::string model;
  std::optional<std::string> params;
  std::optional<ModelSpec> model_spec;
  std::string gpu;
  std::optional<std::string> gpus;
  int tp = 1, pp = 1, cp = 1, ep = 1, vp = 1;
  std::optional<int> dp;                // default gpus / (tp·pp·cp)
  std::optional<int> first_stage_layers, last_stage_layers;  // Megatron's uneven pipeline split
  int64_t micro_batch = 1;
  int64_t global_batch = 0;
  int64_t seq_len = 4096;
  bool force = false;                   // --force: a --seq-len beyond the model's context is meant
  std::optional<int> zero;              // not given: the framework's default
  int shard_group = 0;
  std::optional<std::string> recompute; // not given: the framework's default
  bool sequence_parallel = false;       // --sequence-parallel
  bool no_sequence_parallel = false;    // --no-sequence-parallel; neither: the framework's default
  std::optional<std::string> precision; // not given: bf16, or fp16 on a GPU without bf16 (V100)
  bool pure_bf16 = false;
  bool fp32_grads = false;              // --fp32-grads: force an fp32 gradient buffer
  FrameworkInputs software;
  std::string optimizer = "adamw";
  bool offload_optimizer = false, offload_params = false, offload_activations = false;
  bool no_flash_attention = false;
  bool eager = false;
  bool zero3_per_module = false;
};

struct ResolvedLayout {
  ModelSpec model;
  GpuSpec gpu;
  Layout layout;
  int64_t gpus = 0;
};

// A precision the user typed that the GPU lacks is refused (fp8 on A100, bf16
// on V100: InputError naming --precision); an untyped one is bf16, or fp16
// where the GPU has no bf16.
Precision training_precision(const std::optional<std::string>& typed, const GpuSpec& gpu);

// Builds and validates the layout; dp defaults to gpus / (tp·pp·cp). Throws InputError.
ResolvedLayout resolve_layout(const LayoutInputs& in);

struct MemoryInputs {
  LayoutInputs layout;
  bool dropout = false;
  std::optional<double> fragmentation, cuda_context_gib;
  double safety_margin = 0.15;
};

// The memory model's options, checked.
MemoryOptions make_memory_options(const MemoryInputs& in);

// --- gpuplan plan ----------------------------------------------------------

struct PlanInputs {
  std::string model;                    // catalog id, alias or config.json path
  std::optional<ModelSpec> model_spec;  // or a model the front end built
  std::string gpu;                      // one GPU or a comma-separated list
  std::optional<std::string> gpus;      // "1024", "512,1024" or "256-4096"
  int64_t seq_len = 4096;
  bool force = false;                   // --force: a --seq-len beyond the model's context is meant
  int64_t global_batch = 0;
  int tp = 0, pp = 0, dp = 0, cp = 0, ep = 0, vp = 0;  // 0: the planner chooses
  std::optional<int> first_stage_layers, last_stage_layers;  // pinned uneven pipeline split
  int64_t micro_batch = 0;
  std::optional<int> zero;
  std::optional<std::string> recompute;
  std::optional<std::string> precision; // not given: bf16 (each GPU without it plans its 16-bit format)
  std::string optimizer = "adamw";
  std::string rank_by = "time";
  int top = 5;
  bool cross_node_tp = false;
  bool no_flash = false;
  bool eager = false;
  bool zero3_per_module = false;
  std::optional<int> gpus_per_node;
  std::optional<std::string> market, currency;  // --market cn|us, --currency usd|cny (cost columns and --rank-by cost)
  std::vector<std::string> compare_layout;  // "tp=8,pp=16,dp=8,mb=1,recompute=full,sp=off,first=7,last=7", repeatable
  FrameworkInputs software;
};

PlanRequest make_plan_request(const PlanInputs& in);

}  // namespace gpuplan
