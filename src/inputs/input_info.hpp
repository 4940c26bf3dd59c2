// How a front end presents one input of a command (issue 17: each input is
// declared once). A command's inputs struct (TrainInputs, MemoryInputs,
// PlanInputs, InferInputs, FinetuneInputs, ...) comes with a
// visit_<command>_inputs(in, v) that calls `v(info, field)` for each of its
// inputs; the CLI binds `info.flags` to the field with `info.help` (or
// `help_zh` under --lang zh), the web API reads the request key
// input_key(info) into it, and the Python module's keyword arguments are the
// CLI's flags. The field's C++ type is the input's type, and the struct's
// initialiser its default.
#pragma once
#include <string>

namespace gpuplan {

struct InputInfo {
  const char* flags;  // CLI11 names, "--gpus,-n"; the first is the canonical one
  const char* unit;   // of a plain number ("" where the text carries its own: 15T, 90d, 15cny)
  const char* help;   // the CLI's help line
  const char* help_zh = "";  // the same in Chinese (gpuplan <command> --help --lang zh)
};

// The web API's key of an input: its first flag without dashes, '-' as '_' ("--seq-len" → "seq_len").
std::string input_key(const InputInfo& input);

// Inputs several commands declare with the same words.
inline constexpr InputInfo kModelInput{"--model,-m", "", "Catalog id or alias (gpuplan models), or a config.json file or folder",
                                       "目录中的模型 id 或别名（gpuplan models），或 config.json 文件/所在目录"};
inline constexpr InputInfo kSeqLenInput{"--seq-len", "tokens", "Tokens per sequence (default 4,096, or the model's own context where shorter)",
                                        "每条序列 token 数（默认 4,096；模型自身上下文更短时取其长度）"};
inline constexpr InputInfo kForceInput{"--force", "", "Plan a --seq-len longer than the model supports",
                                       "允许 --seq-len 超过模型支持的上下文长度"};
inline constexpr InputInfo kEagerInput{"--eager", "", "Element-wise ops unfused, as eager PyTorch runs them (no torch.compile or fused kernels)",
                                       "逐元素算子不融合，按 PyTorch eager 模式运行（不用 torch.compile 或融合内核）"};
inline constexpr InputInfo kZero3PerModuleInput{
    "--zero3-per-module", "", "ZeRO-3 gathers module by module (each norm and linear), as DeepSpeed does; default: per block, as FSDP",
    "ZeRO-3 逐模块收集参数（每个归一化层和线性层），与 DeepSpeed 相同；默认按块收集，与 FSDP 相同"};
inline constexpr InputInfo kPipelineLayoutInput{
    "--pipeline-layout", "",
    "Megatron's --pipeline-model-parallel-layout: each virtual stage's layers, E embedding, t transformer, m MTP, L loss, | between stages, "
    "(..)*n repeats, e.g. \"Et|(tt|)*30mL\"; its stages / --pp give --vp",
    "Megatron 的 --pipeline-model-parallel-layout：逐个虚拟段写出其中的层，E 嵌入、t Transformer 层、m MTP 层、L 损失，| 分隔各段，"
    "(..)*n 表示重复，如 \"Et|(tt|)*30mL\"；段数 / --pp 即 --vp"};
inline constexpr InputInfo kExpertTpInput{
    "--etp", "", "Expert tensor-parallel degree (Megatron --expert-tensor-parallel-size; default: the framework's, else --tp); "
                 "with MoE parallel folding etp×ep divides tp×cp×dp",
    "专家张量并行度（Megatron 的 --expert-tensor-parallel-size；默认随框架，否则同 --tp）；MoE 并行折叠时 etp×ep 须整除 tp×cp×dp"};
// The layout pins of plan and train: 0 (unset) lets the planner choose.
inline constexpr InputInfo kPinTpInput{"--tp", "", "Pin the tensor-parallel degree", "固定张量并行度"};
inline constexpr InputInfo kPinPpInput{"--pp", "", "Pin the pipeline stages", "固定流水线级数"};
inline constexpr InputInfo kPinDpInput{"--dp", "", "Pin the data-parallel replicas", "固定数据并行副本数"};
inline constexpr InputInfo kPinCpInput{"--cp", "", "Pin the context-parallel degree", "固定上下文并行度"};
inline constexpr InputInfo kPinEpInput{"--ep", "", "Pin the expert-parallel degree", "固定专家并行度"};
inline constexpr InputInfo kPinVpInput{"--vp", "", "Pin the virtual pipeline stages", "固定虚拟流水线级数"};
inline constexpr InputInfo kPinMicroBatchInput{"--micro-batch", "sequences", "Pin the micro-batch", "固定微批大小"};
inline constexpr InputInfo kPinZeroInput{"--zero", "", "Pin the ZeRO stage 0–3", "固定 ZeRO 阶段 0–3"};
// The memory kept free on every GPU (memory, train, plan). Seed 004 asks for
// 15-20% against fragmentation and framework overhead; gpuplan counts both
// already, so the margin is a planning choice against the estimate's own error.
inline constexpr InputInfo kSafetyMarginInput{"--safety-margin", "fraction of capacity",
                                              "Capacity kept free (a common planning margin: 0.15–0.2; tuned stacks run at 0.03–0.07)",
                                              "预留不用的显存（规划时常留 0.15–0.2；调优过的框架实际只留 0.03–0.07）"};
// One GPU type (plan's --gpu takes a list and is declared there).
inline constexpr InputInfo kGpuInput{"--gpu,-g", "", "GPU id or alias: h100, a100-80g, h800, 910b, 4090 (gpuplan gpus)",
                                     "GPU id 或别名：h100、a100-80g、h800、910b、4090（gpuplan gpus）"};
// Every value parse_optimizer (src/execution/layout.cpp) accepts, in one list
// (issue 31: plan's copy had lost paged_adamw8bit).
inline constexpr InputInfo kOptimizerInput{"--optimizer", "", "adamw, adamw8bit, paged_adamw8bit, sgd (default adamw; fine-tuning with QLoRA: paged_adamw8bit)",
                                           "优化器：adamw、adamw8bit、paged_adamw8bit、sgd（默认 adamw；用 QLoRA 微调时为 paged_adamw8bit）"};
// One name on every command (plan once called it --no-flash).
inline constexpr InputInfo kNoFlashAttentionInput{"--no-flash-attention", "", "Keep the s×s attention scores (no FlashAttention)",
                                                  "保存 s×s 注意力分数（不用 FlashAttention）"};
// Where prices come from and what money is shown in (infer, finetune, gpus).
inline constexpr InputInfo kMarketInput{"--market", "", "Where you rent: cn (China listings, CNY) or us (US listings, USD); default from --lang (zh: cn)",
                                        "在哪里租：cn（国内报价，人民币）或 us（美国报价，美元）；默认随 --lang（zh 为 cn）"};
inline constexpr InputInfo kProviderInput{"--provider", "", "A named listing of that market instead of its default (gpuplan gpus GPU lists them)",
                                          "改用该市场中指定的报价方（gpuplan gpus GPU 列出可选项）"};
inline constexpr InputInfo kCurrencyInput{"--currency", "", "Currency money is shown in: usd or cny (default: the market's)",
                                          "金额显示的币种：usd 或 cny（默认随市场）"};

}  // namespace gpuplan
