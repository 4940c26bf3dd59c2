// The inputs of `gpuplan train`, `memory`, `calibrate` and `plan` as a front
// end collects them, each declared once (visit_*_inputs, input_info.hpp), and
// the one place that checks them and builds the library's requests.
//
// Each field is named after its CLI flag (`seq_len` is --seq-len) and holds
// what the user typed: counts with SI suffixes, durations and fractions stay
// text until the builders below parse them, so every error names the flag.
// The CLI (src/cli) binds its flags to these fields from the visitors; the web
// API (src/web/api.cpp) reads the request keys of the same names into them;
// the Python module's keyword arguments are the CLI's flags.
//
// The requests the builders return are declared in train_estimate.hpp
// (TrainRequest) and plan.hpp (PlanRequest): a caller that builds one includes
// that header; this one stays plain inputs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/calibration.hpp"
#include "gpuplan/hardware.hpp"
#include "inputs/input_info.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/ownership.hpp"

namespace gpuplan {

struct FrameworkProfile;  // framework.hpp
struct RunSettings;       // framework.hpp
struct MemoryOptions;     // memory.hpp
struct TrainRequest;      // train_estimate.hpp
struct PlanRequest;       // plan.hpp

// --- the software stack (train, memory, calibrate, plan) ------------------

// --framework NAME[@VERSION] and the run settings that override its defaults;
// each unset one takes the profile's default (apply_framework).
// The parallel degrees a layout search may pin, as plan and train declare
// them (fields tp, pp, dp, cp, ep, vp of either's inputs; 0: the planner's choice).
template <class Pins, class Visit>
void visit_degree_pins(Pins& in, Visit&& v) {
  v(kPinTpInput, in.tp);
  v(kPinPpInput, in.pp);
  v(kPinDpInput, in.dp);
  v(kPinCpInput, in.cp);
  v(kPinEpInput, in.ep);
  v(kPinVpInput, in.vp);
}

struct FrameworkInputs {
  std::string framework = "generic";
  std::optional<std::string> attention;        // --attention flash|flash3|cudnn|sdpa|materialised
  std::optional<std::string> loss;             // --loss full|fused|chunked
  std::optional<std::string> compile;          // --compile on|off
  std::optional<std::string> tp_comm_overlap;  // --tp-comm-overlap on|off
  std::optional<std::string> dp_comm_overlap;  // --dp-comm-overlap on|off
  std::optional<std::string> moe_a2a_overlap;  // --moe-a2a-overlap on|off
  std::optional<std::string> recompute_policy; // --recompute-policy attention_core|op|layer|minimal|save_dot_except_mlp|save_qkv_proj|norm_mla_up|mla_up_proj
};

// The profile named by --framework (InputError naming --framework).
const FrameworkProfile& resolve_framework(const FrameworkInputs& in);
// The stated settings, checked (InputError naming the flag).
RunSettings make_run_settings(const FrameworkInputs& in);

template <class Visit>
void visit_framework_inputs(FrameworkInputs& in, Visit&& v) {
  v(InputInfo{"--framework", "",
              "Training stack as NAME[@VERSION]: megatron-lm, nemo, deepspeed, torchtitan, colossalai, mindspeed, llm-foundry, torchtune, ... "
              "(gpuplan frameworks); its defaults and what it can run",
              "训练框架，写作 名称[@版本]：megatron-lm、nemo、deepspeed、torchtitan、colossalai、mindspeed、llm-foundry、torchtune 等"
              "（gpuplan frameworks）；决定默认设置与可用的并行方式"},
    in.framework);
  v(InputInfo{"--attention", "", "Attention kernel: flash (FA2), flash3, cudnn, sdpa, npu_fusion (Ascend), materialised; default: the framework's",
              "注意力内核：flash（FA2）、flash3、cudnn、sdpa、npu_fusion（昇腾）、materialised；默认随框架"},
    in.attention);
  v(InputInfo{"--loss", "", "Cross-entropy: full (fp32 logits), fused, chunked, vocab_parallel (Megatron's unfused); default: the framework's",
              "交叉熵：full（fp32 logits）、fused、chunked、vocab_parallel（Megatron 未融合实现）；默认随框架"},
    in.loss);
  v(InputInfo{"--compile", "", "torch.compile on|off (PyTorch-native stacks); default: the framework's",
              "torch.compile on|off（PyTorch 原生框架）；默认随框架"},
    in.compile);
  v(InputInfo{"--tp-comm-overlap", "", "TP communication overlapped with GEMMs, on|off; default: the framework's",
              "TP 通信与矩阵乘重叠，on|off；默认随框架"},
    in.tp_comm_overlap);
  v(InputInfo{"--recompute-policy", "",
              "What --recompute selective saves: attention_core (Megatron), op, layer (torchtitan), minimal, "
              "save_dot_except_mlp, save_qkv_proj (MaxText remat_policy), norm_mla_up (DeepSeek-V3), mla_up_proj (Megatron's "
              "recompute_modules mla_up_proj); default: the framework's, or its benchmark recipe's",
              "选择性重计算保存什么：attention_core（Megatron）、op、layer（torchtitan）、minimal、"
              "save_dot_except_mlp、save_qkv_proj（MaxText 的 remat_policy）、norm_mla_up（DeepSeek-V3）、mla_up_proj（Megatron 的 "
              "recompute_modules mla_up_proj）；默认随框架或其基准配方"},
    in.recompute_policy);
  v(InputInfo{"--dp-comm-overlap", "", "Gradient reduction and parameter gathers overlapped, on|off; default: the framework's",
              "梯度归约与参数收集重叠，on|off；默认随框架"},
    in.dp_comm_overlap);
  v(InputInfo{"--moe-a2a-overlap", "",
              "MoE all-to-all under another micro-batch's computation (Megatron --overlap-moe-expert-parallel-comm), on|off; "
              "default: the framework's",
              "MoE all-to-all 与另一个微批的计算重叠（Megatron 的 --overlap-moe-expert-parallel-comm），on|off；默认随框架"},
    in.moe_a2a_overlap);
}

// --- gpuplan train ---------------------------------------------------------

struct TrainInputs {
  std::string model;                    // --model: catalog id, alias or config.json path
  std::optional<std::string> params;    // --params 70B
  std::optional<ModelSpec> model_spec;  // instead of both: a model the front end built (the web's pasted config.json)
  std::optional<std::string> tokens, samples, tokens_per_sample, dataset_bytes, flops_per_sample;
  double bytes_per_token = 4;
  double epochs = 1;
  std::optional<int64_t> seq_len;       // --seq-len; unset: default_seq_len(model), 4,096 or the model's shorter context
  bool force = false;                   // --force: a --seq-len beyond the model's context is meant
  std::optional<std::string> global_batch, batch_tokens;
  std::string gpu;
  std::optional<std::string> gpus, deadline, mfu, tflops_per_gpu;
  std::string precision = "bf16";
  std::optional<std::string> recompute;  // counted as none; given, it also pins the layout search's recompute
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
  // The layout search's pins (as plan's): 0 or unset lets the planner choose.
  int tp = 0, pp = 0, dp = 0, cp = 0, ep = 0, vp = 0, etp = 0;
  int64_t micro_batch = 0;
  std::optional<int> zero;
  std::string pipeline_layout;
  double safety_margin = 0.15;          // --safety-margin: memory the layout search keeps free
  double interval = 0.8;                // --interval: level of the prediction ranges
  double confidence = 0.8;              // --confidence: what a --deadline run is sized to
};

// Parses and checks the text fields; train_report checks the rest.
TrainRequest make_train_request(const TrainInputs& in);

// Every input of `gpuplan train`, declared once: `v(info, field)` for each, in
// the CLI's order, the framework's last. Not here: the model (--model/--params
// on the CLI; model/params/config on the web) and the calibration (a file on
// the CLI, the file's object on the web).
template <class Visit>
void visit_train_inputs(TrainInputs& in, Visit&& v) {
  v(InputInfo{"--tokens,-t", "", "Training tokens per epoch (1T, 15e12, 1万亿, 2000亿)", "每轮训练 token 数（1T、15e12、1万亿、2000亿）"}, in.tokens);
  v(InputInfo{"--samples", "", "Instead of --tokens: samples (sequences, images) per epoch", "代替 --tokens：每轮样本数（序列、图像）"}, in.samples);
  v(InputInfo{"--tokens-per-sample", "", "Tokens per sample (default: --seq-len); an image is its patch count", "每样本 token 数（默认 --seq-len）；图像按 patch 数计"}, in.tokens_per_sample);
  v(InputInfo{"--dataset-bytes", "", "Instead of --tokens: raw text size in bytes (500GB, 1TB, 1TiB; 1T = 1 TB)",
              "代替 --tokens：原始文本字节数（500GB、1TB、1TiB；1T = 1 TB）"},
    in.dataset_bytes);
  v(InputInfo{"--bytes-per-token", "bytes", "Bytes of raw text per token for --dataset-bytes", "--dataset-bytes 下每 token 对应的原始文本字节数"}, in.bytes_per_token);
  v(InputInfo{"--flops-per-sample", "", "Non-LLM workloads: training FLOPs of one sample (with --samples)", "非大语言模型任务：单样本训练计算量（配合 --samples）"}, in.flops_per_sample);
  v(InputInfo{"--epochs", "", "Passes over the data", "训练轮数"}, in.epochs);
  v(kSeqLenInput, in.seq_len);
  v(InputInfo{"--force", "", "Plan a --seq-len longer than the model supports", "允许 --seq-len 超过模型支持的上下文长度"}, in.force);
  v(InputInfo{"--global-batch", "", "Sequences per optimizer step (for the step count)", "每个优化步的序列数（用于计算步数）"}, in.global_batch);
  v(InputInfo{"--batch-tokens", "", "Or: tokens per optimizer step", "或：每个优化步的 token 数"}, in.batch_tokens);
  v(kGpuInput, in.gpu);
  v(InputInfo{"--gpus,-n", "", "Number of GPUs", "卡数"}, in.gpus);
  v(InputInfo{"--deadline,-d", "", "Wall-clock deadline: 90d, 36h, 2w, 1month, 30天, 2周, 1个月 (a month is 30 days)", "工期：90d、36h、2w、1month、30天、2周、1个月（一个月按 30 天）"}, in.deadline);
  v(InputInfo{"--mfu", "", "Model FLOPs utilisation, 0.4 or 40%", "算力利用率 MFU，0.4 或 40%"}, in.mfu);
  v(InputInfo{"--tflops-per-gpu", "", "Instead of --mfu: achieved TFLOP/s per GPU", "代替 --mfu：单卡实际 TFLOP/s"}, in.tflops_per_gpu);
  v(InputInfo{"--precision", "", "Training precision whose peak MFU is measured against: bf16, fp16, fp8, tf32, fp32", "训练精度，MFU 以该精度峰值为基准：bf16、fp16、fp8、tf32、fp32"}, in.precision);
  v(InputInfo{"--recompute", "", "Activation recomputation: none, selective, full (changes hardware FLOPs; given, the layout search keeps it too); default none",
              "激活重计算：none、selective、full（改变硬件计算量；给出时并行方案搜索也固定它）；默认 none"},
    in.recompute);
  visit_degree_pins(in, v);
  v(kExpertTpInput, in.etp);
  v(kPipelineLayoutInput, in.pipeline_layout);
  v(kPinMicroBatchInput, in.micro_batch);
  v(kPinZeroInput, in.zero);
  v(kSafetyMarginInput, in.safety_margin);
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
  visit_framework_inputs(in.software, v);
}

// --- gpuplan memory, gpuplan calibrate (and the layout gpuplan plan pins) --

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
  std::string pipeline_layout;          // Megatron's --pipeline-model-parallel-layout; empty: none
  int etp = 0;                          // expert tensor parallel; 0: the framework's default (tp unless folded)
  int64_t micro_batch = 1;
  int64_t global_batch = 0;
  std::optional<int64_t> seq_len;       // --seq-len; unset: default_seq_len(model), 4,096 or the model's shorter context
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
  bool global_batch_defaulted = false;  // no --global-batch: layout.global_batch is the ~4M-token default
};

// A precision the user typed that the GPU lacks is refused (fp8 on A100, bf16
// on V100: InputError naming --precision); an untyped one is bf16, or fp16
// where the GPU has no bf16.
Precision training_precision(const std::optional<std::string>& typed, const GpuSpec& gpu);

// Builds and validates the layout; dp defaults to gpus / (tp·pp·cp). Throws InputError.
ResolvedLayout resolve_layout(const LayoutInputs& in);

// The inputs of one training layout, shared by memory and calibrate: the
// GPU, the degrees, the batch, the recipe and the framework. Not here: the
// model (--model, --params), as for train.
template <class Visit>
void visit_layout_inputs(LayoutInputs& in, Visit&& v) {
  v(kGpuInput, in.gpu);
  v(InputInfo{"--gpus,-n", "", "Number of GPUs (default tp×pp×dp×cp)", "卡数（默认 tp×pp×dp×cp）"}, in.gpus);
  v(InputInfo{"--tp", "", "Tensor-parallel degree", "张量并行度"}, in.tp);
  v(InputInfo{"--pp", "", "Pipeline-parallel stages", "流水线并行级数"}, in.pp);
  v(InputInfo{"--dp", "", "Data-parallel replicas (default gpus / (tp×pp×cp))", "数据并行副本数（默认 卡数 / (tp×pp×cp)）"}, in.dp);
  v(InputInfo{"--cp", "", "Context-parallel degree (sequence split)", "上下文并行度（切分序列）"}, in.cp);
  v(InputInfo{"--ep", "", "Expert-parallel degree (MoE)", "专家并行度（MoE）"}, in.ep);
  v(InputInfo{"--vp", "", "Virtual pipeline stages per rank (interleaved 1F1B when > 1)", "每个 rank 的虚拟流水线级数（大于 1 时为交错 1F1B）"}, in.vp);
  v(InputInfo{"--first-stage-layers", "layers",
              "Transformer layers on the first pipeline stage (Megatron --decoder-first-pipeline-num-layers); the rest split evenly",
              "第一级流水线的 Transformer 层数（Megatron 的 --decoder-first-pipeline-num-layers）；其余各级均分"},
    in.first_stage_layers);
  v(InputInfo{"--last-stage-layers", "layers", "Transformer layers on the last pipeline stage (Megatron --decoder-last-pipeline-num-layers)",
              "最后一级流水线的 Transformer 层数（Megatron 的 --decoder-last-pipeline-num-layers）"},
    in.last_stage_layers);
  v(kPipelineLayoutInput, in.pipeline_layout);
  v(kExpertTpInput, in.etp);
  v(InputInfo{"--micro-batch", "sequences", "Sequences per micro-batch per data-parallel rank", "每个数据并行 rank 每个微批的序列数"}, in.micro_batch);
  v(InputInfo{"--global-batch", "sequences", "Sequences per optimizer step (default dp × micro-batch)", "每个优化步的序列数（默认 dp × 微批）"}, in.global_batch);
  v(kSeqLenInput, in.seq_len);
  v(kForceInput, in.force);
  v(InputInfo{"--zero", "", "ZeRO stage 0–3 (1 = distributed optimizer, 2 = FSDP SHARD_GRAD_OP, 3 = FSDP FULL_SHARD); default: the framework's",
              "ZeRO 阶段 0–3（1 = 分布式优化器，2 = FSDP SHARD_GRAD_OP，3 = FSDP FULL_SHARD）；默认随框架"},
    in.zero);
  v(InputInfo{"--shard-group", "ranks", "HSDP: ZeRO-3 within groups of this many data-parallel ranks", "HSDP：在这么多个数据并行 rank 组成的组内做 ZeRO-3"}, in.shard_group);
  v(InputInfo{"--recompute", "", "Activation recomputation: none, selective, full (default: the framework's; generic: none)",
              "激活重计算：none、selective、full（默认随框架；generic 为 none）"},
    in.recompute);
  v(InputInfo{"--sequence-parallel", "", "Sequence parallelism on (with --tp > 1); default: the framework's", "开启序列并行（--tp 大于 1 时）；默认随框架"},
    in.sequence_parallel);
  v(InputInfo{"--no-sequence-parallel", "", "Sequence parallelism off where the framework makes it optional", "在框架允许时关闭序列并行"},
    in.no_sequence_parallel);
  v(InputInfo{"--precision", "", "bf16, fp16 (mixed precision, fp32 master), fp8 (fp8 GEMMs), fp32 (default bf16; fp16 on a GPU without bf16)",
              "bf16、fp16（混合精度，fp32 主权重）、fp8（fp8 矩阵乘）、fp32（默认 bf16；不支持 bf16 的 GPU 用 fp16）"},
    in.precision);
  v(InputInfo{"--pure-bf16", "", "Weights, gradients and optimizer states all bf16, no fp32 master (torchtune)",
              "权重、梯度与优化器状态全为 bf16，无 fp32 主权重（torchtune）"},
    in.pure_bf16);
  v(InputInfo{"--fp32-grads", "", "Megatron fp32 main-grad buffer (4 bytes/param of gradients)", "Megatron 的 fp32 主梯度缓冲区（梯度每参数 4 字节）"},
    in.fp32_grads);
  v(kOptimizerInput, in.optimizer);
  v(InputInfo{"--offload-optimizer", "", "Optimizer states, master weights and gradients in host memory (ZeRO-Offload)",
              "优化器状态、主权重与梯度放在主机内存（ZeRO-Offload）"},
    in.offload_optimizer);
  v(InputInfo{"--offload-params", "", "Parameters in host memory too (ZeRO-Infinity / FSDP offload_params)",
              "参数也放在主机内存（ZeRO-Infinity / FSDP offload_params）"},
    in.offload_params);
  v(InputInfo{"--offload-activations", "", "Saved activations streamed to host memory", "保存的激活卸载到主机内存"}, in.offload_activations);
  v(kNoFlashAttentionInput, in.no_flash_attention);
  v(kZero3PerModuleInput, in.zero3_per_module);
  v(kEagerInput, in.eager);
  visit_framework_inputs(in.software, v);
}

struct MemoryInputs {
  LayoutInputs layout;
  bool dropout = false;
  std::optional<double> fragmentation, cuda_context_gib;
  double safety_margin = 0.15;
};

// The memory model's options, checked.
MemoryOptions make_memory_options(const MemoryInputs& in);

// Every input of `gpuplan memory` but the model: the layout's, then the memory model's own.
template <class Visit>
void visit_memory_inputs(MemoryInputs& in, Visit&& v) {
  visit_layout_inputs(in.layout, v);
  v(InputInfo{"--dropout", "", "Count dropout masks (Korthikanti's assumption; off for Llama-era training)",
              "计入 dropout 掩码（Korthikanti 的假设；Llama 之后的训练通常关闭）"},
    in.dropout);
  v(InputInfo{"--fragmentation", "fraction of allocated bytes", "Allocator fragmentation (default 0.05)", "显存分配器碎片（默认 0.05）"},
    in.fragmentation);
  v(kSafetyMarginInput, in.safety_margin);
  v(InputInfo{"--cuda-context-gib", "GiB", "CUDA context + library workspaces (default 0.75, +0.25 with NCCL)",
              "CUDA 上下文与库工作区（默认 0.75，使用 NCCL 时再加 0.25）"},
    in.cuda_context_gib);
}

// `gpuplan calibrate`: a trial run's layout, what it measured, and the full
// run to re-plan with the fitted model. The CLI's --save (a file to write)
// is the CLI's own.
struct CalibrateInputs {
  LayoutInputs layout;
  std::optional<double> step_time, tokens_per_s_per_gpu, peak_memory_gib;
  std::optional<std::string> tokens, full_gpus, deadline;
};

template <class Visit>
void visit_calibrate_inputs(CalibrateInputs& in, Visit&& v) {
  visit_layout_inputs(in.layout, v);
  v(InputInfo{"--step-time", "seconds", "Measured seconds per optimizer step of the trial", "试跑实测的每个优化步秒数"}, in.step_time);
  v(InputInfo{"--tokens-per-s-per-gpu", "tokens/s", "Or: measured training tokens/s per GPU", "或：实测单卡每秒训练 token 数"},
    in.tokens_per_s_per_gpu);
  v(InputInfo{"--peak-memory-gib", "GiB", "Measured peak memory per GPU (nvidia-smi)", "实测单卡显存峰值（nvidia-smi）"}, in.peak_memory_gib);
  v(InputInfo{"--tokens", "", "Re-plan the full run of this many tokens with the calibrated model", "用校准后的模型重新规划这么多 token 的完整训练"},
    in.tokens);
  v(InputInfo{"--full-gpus", "", "GPUs of the full run (default: the trial's)", "完整训练的卡数（默认与试跑相同）"}, in.full_gpus);
  v(InputInfo{"--deadline", "", "Or: the full run's deadline, to solve its GPU count", "或：完整训练的工期，据此求卡数"}, in.deadline);
}

// --- gpuplan plan ----------------------------------------------------------

struct PlanInputs {
  std::string model;                    // catalog id, alias or config.json path
  std::optional<ModelSpec> model_spec;  // or a model the front end built
  std::string gpu;                      // one GPU or a comma-separated list
  std::optional<std::string> gpus;      // "1024", "512,1024" or "256-4096"
  std::optional<int64_t> seq_len;       // --seq-len; unset: default_seq_len(model), 4,096 or the model's shorter context
  bool force = false;                   // --force: a --seq-len beyond the model's context is meant
  int64_t global_batch = 0;
  int tp = 0, pp = 0, dp = 0, cp = 0, ep = 0, vp = 0;  // 0: the planner chooses
  std::optional<int> first_stage_layers, last_stage_layers;  // pinned uneven pipeline split
  std::string pipeline_layout;          // pinned Megatron stage layout
  int etp = 0;                          // pinned expert tensor parallel (0: the framework's default)
  int64_t micro_batch = 0;
  std::optional<int> zero;
  std::optional<std::string> recompute;
  double safety_margin = 0.15;          // --safety-margin: memory every layout keeps free
  std::optional<std::string> precision; // not given: bf16 (each GPU without it plans its 16-bit format)
  std::string optimizer = "adamw";
  std::string rank_by = "time";
  int top = 5;
  bool cross_node_tp = false;
  bool no_flash_attention = false;
  bool eager = false;
  bool zero3_per_module = false;
  std::optional<int> gpus_per_node;
  std::optional<std::string> market, currency;  // --market cn|us, --currency usd|cny (cost columns and --rank-by cost)
  std::vector<std::string> compare_layout;  // "tp=8,pp=16,dp=8,mb=1,recompute=full,sp=off,first=7,last=7", repeatable
  FrameworkInputs software;
};

PlanRequest make_plan_request(const PlanInputs& in);

// Every input of `gpuplan plan` but the model (--model; the web's model or config).
template <class Visit>
void visit_plan_inputs(PlanInputs& in, Visit&& v) {
  v(InputInfo{"--gpu,-g", "", "GPU id or alias, or a comma-separated list to compare: h100,h800,a100",
              "GPU id 或别名，或用逗号分隔的列表以作比较：h100,h800,a100"},
    in.gpu);
  v(InputInfo{"--gpus,-n", "", "GPU count, list (512,1024) or range of powers of two (256-4096)", "卡数、列表（512,1024）或 2 的幂区间（256-4096）"},
    in.gpus);
  v(InputInfo{"--seq-len,--seq", kSeqLenInput.unit, kSeqLenInput.help, kSeqLenInput.help_zh}, in.seq_len);
  v(InputInfo{"--global-batch", "sequences", "Sequences per optimizer step (default: about 4M tokens, a multiple of the GPU count's odd part)",
              "每个优化步的序列数（默认约 4M token，取卡数奇数因子的倍数）"},
    in.global_batch);
  visit_degree_pins(in, v);
  v(InputInfo{"--first-stage-layers", "layers", "Pin the layers of the first pipeline stage (Megatron's uneven split)",
              "固定第一级流水线的层数（Megatron 的不均匀切分）"},
    in.first_stage_layers);
  v(InputInfo{"--last-stage-layers", "layers", "Pin the layers of the last pipeline stage", "固定最后一级流水线的层数"}, in.last_stage_layers);
  v(kPipelineLayoutInput, in.pipeline_layout);
  v(kExpertTpInput, in.etp);
  v(kPinMicroBatchInput, in.micro_batch);
  v(kPinZeroInput, in.zero);
  v(InputInfo{"--recompute", "", "Pin recompute: none, selective, full", "固定重计算：none、selective、full"}, in.recompute);
  v(kSafetyMarginInput, in.safety_margin);
  v(InputInfo{"--precision", "", "bf16, fp16, fp8 (default bf16; a GPU without it plans its 16-bit format)",
              "bf16、fp16、fp8（默认 bf16；不支持的 GPU 按其 16 位格式规划）"},
    in.precision);
  v(kForceInput, in.force);
  v(kOptimizerInput, in.optimizer);
  v(InputInfo{"--market", "", "Prices from this market only: cn (CNY listings) or us (USD listings); default from --lang",
              "只用该市场的报价：cn（人民币报价）或 us（美元报价）；默认随 --lang"},
    in.market);
  v(InputInfo{"--currency", "", "Currency of the cost columns: usd or cny (default: the market's)", "费用列的币种：usd 或 cny（默认随市场）"},
    in.currency);
  v(InputInfo{"--rank-by", "", "time or cost (GPU-seconds per step)", "排序依据：time（时间）或 cost（每步卡秒）"}, in.rank_by);
  v(InputInfo{"--top", "layouts", "Layouts shown per GPU type", "每种 GPU 显示的方案数"}, in.top);
  v(InputInfo{"--cross-node-tp", "", "Also search TP larger than one node", "也搜索跨节点的张量并行"}, in.cross_node_tp);
  v(kNoFlashAttentionInput, in.no_flash_attention);
  v(kZero3PerModuleInput, in.zero3_per_module);
  v(kEagerInput, in.eager);
  visit_framework_inputs(in.software, v);
  v(InputInfo{"--gpus-per-node", "GPUs", "GPUs per node (default: the GPU's usual node)", "每节点卡数（默认取该 GPU 的常见节点配置）"},
    in.gpus_per_node);
  v(InputInfo{"--compare-layout", "",
              "A layout to rank among the searched ones, e.g. tp=8,pp=16,dp=8,mb=1,recompute=full,sp=off (repeatable; "
              "also vp, cp, ep, zero, first=, last= for the first/last stage layers; dp may be left out with one --gpus count)",
              "与搜索结果一起排名的指定方案，如 tp=8,pp=16,dp=8,mb=1,recompute=full,sp=off（可重复；"
              "也可写 vp、cp、ep、zero，以及 first=、last= 表示第一/最后一级的层数；只有一个 --gpus 卡数时可省略 dp）"},
    in.compare_layout);
}

}  // namespace gpuplan
