// The inputs of `gpuplan finetune` as a front end collects them, each declared
// once (visit_finetune_inputs), and the one place that checks them and builds
// the report: the CLI (src/cli/cmd_finetune.cpp) binds its flags to these
// fields, the web API's POST /api/finetune reads the request keys of the same
// names (`seq_len` is --seq-len), the Python module takes the CLI's flags as
// keyword arguments.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "inputs/command_inputs.hpp"
#include "inputs/input_info.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

struct Report;  // report.hpp

struct FinetuneInputs {
  std::string model;                    // --model: catalog id, alias or config.json path
  std::optional<ModelSpec> model_spec;  // instead: a model the front end built (the web's pasted config.json)
  std::string gpu;
  std::string method = "lora";          // full, lora or qlora
  std::optional<int64_t> rank;          // unset: 8 for LoRA, 64 for QLoRA
  std::string modules;                  // empty: q,k,v,o for LoRA, all for QLoRA
  std::optional<std::string> base_weights;  // QLoRA: nf4 or gptq-int4; unset: from the checkpoint
  int64_t seq_len = 2048;               // tokens per sample
  int64_t micro_batch = 1;
  int64_t global_batch = 0;             // 0: micro-batch × GPUs
  std::optional<std::string> samples;   // 50k, 5万; unset (and no tokens): 1,000
  std::optional<std::string> tokens;    // instead of samples: dataset tokens per epoch (samples = tokens / seq_len)
  double epochs = 1;
  std::optional<double> mean_len;       // --mean-len: mean sample length in tokens (unset: every sample is --seq-len)
  bool packing = false;                 // --packing: samples packed into --seq-len rows
  std::optional<int64_t> gpus;          // unset: the smallest count that fits (that meets --deadline, with one)
  std::optional<std::string> deadline;  // 3d, 12h, 1周: the GPU count finishing by then (with --gpus: a check)
  std::string optimizer;                // empty: adamw (paged_adamw8bit for QLoRA)
  std::optional<std::string> precision; // unset: bf16, fp16 on a GPU without bf16
  bool no_checkpointing = false;
  bool pure_bf16 = false;               // --pure-bf16: no fp32 master, bf16 optimizer states
  bool optimizer_in_backward = false;   // --optimizer-in-backward (torchtune optimizer_in_bwd)
  std::optional<std::string> offload;   // --offload optimizer,parameters,activations
  std::optional<int> zero;              // unset: 3 on more than one GPU
  bool force = false;
  bool no_ranking = false;
  std::optional<std::string> price;
  // --market cn|us (unset: from lang), --provider, --currency usd|cny.
  std::optional<std::string> market, provider, currency;
  std::string lang = "en";              // --lang: picks the default market (zh: cn)
  FrameworkInputs software;
};

// Checks the inputs (InputError naming the flag), estimates the fine-tune on
// the chosen or smallest fitting GPU count and returns its report. A job that
// fits on no count up to 1,024 (or misses --deadline on every count) is an
// InputError with one sentence saying what to change.
Report finetune_report_for(const FinetuneInputs& in);

struct FinetuneRequest;  // finetune.hpp
// The checks of finetune_report_for's first step: the inputs as a request
// (InputError naming the flag), before any GPU count is tried.
FinetuneRequest make_finetune_request(const FinetuneInputs& in);

// Every input of `gpuplan finetune` but the model (--model; the web's model or
// config) and the language (--lang, an output option).
template <class Visit>
void visit_finetune_inputs(FinetuneInputs& in, Visit&& v) {
  v(kGpuInput, in.gpu);
  v(InputInfo{"--method", "", "full, lora or qlora", "full（全参数）、lora 或 qlora"}, in.method);
  v(InputInfo{"--rank", "", "LoRA rank (default 8 for LoRA, 64 for QLoRA)", "LoRA 秩（LoRA 默认 8，QLoRA 默认 64）"}, in.rank);
  v(InputInfo{"--modules", "", "Adapted modules: q,k,v,o,gate,up,down, attn, mlp or all (default q,k,v,o for LoRA, all for QLoRA)",
              "适配的模块：q,k,v,o,gate,up,down、attn、mlp 或 all（LoRA 默认 q,k,v,o，QLoRA 默认 all）"},
    in.modules);
  v(InputInfo{"--base-weights", "", "QLoRA's frozen weights: nf4 (bitsandbytes) or gptq-int4 (a GPTQ checkpoint through AutoGPTQ); default: gptq-int4 for a GPTQ checkpoint, else nf4",
              "QLoRA 的冻结权重：nf4（bitsandbytes）或 gptq-int4（经 AutoGPTQ 加载的 GPTQ 权重）；默认：GPTQ 权重用 gptq-int4，否则 nf4"},
    in.base_weights);
  v(InputInfo{"--seq-len,--seq", "tokens", "Tokens per sample", "每个样本的 token 数"}, in.seq_len);
  v(InputInfo{"--micro-batch", "sequences", "Sequences per GPU per micro-batch", "每张卡每个微批次的序列数"}, in.micro_batch);
  v(InputInfo{"--global-batch", "sequences", "Sequences per optimizer step (default micro-batch × GPUs)", "每个优化器步的序列数（默认 微批次 × 卡数）"},
    in.global_batch);
  v(InputInfo{"--samples", "", "Samples in the dataset (e.g. 50000, 50k, 5万; default 1,000)", "数据集样本数（如 50000、50k、5万；默认 1,000）"}, in.samples);
  v(InputInfo{"--tokens", "", "Instead of --samples: dataset tokens per epoch (100M, 1亿), packed into --seq-len samples",
              "代替 --samples：每轮数据集 token 数（100M、1亿），按 --seq-len 打包成样本"},
    in.tokens);
  v(InputInfo{"--epochs", "", "Passes over the dataset", "数据集遍历轮数"}, in.epochs);
  v(InputInfo{"--mean-len", "tokens", "Mean sample length (default: every sample is --seq-len); memory stays sized at --seq-len, the longest sample",
              "样本平均长度（默认：每个样本都是 --seq-len）；显存仍按最长样本 --seq-len 估算"},
    in.mean_len);
  v(InputInfo{"--packing", "", "Pack samples into --seq-len rows (default: one sample per row, padded)", "把样本打包成 --seq-len 长的行（默认：每行一个样本，补齐）"},
    in.packing);
  v(InputInfo{"--gpus,-n", "", "GPU count (default: the smallest that fits, or that meets --deadline)",
              "卡数（默认：放得下的最少卡数，或满足 --deadline 的最少卡数）"},
    in.gpus);
  v(InputInfo{"--deadline,-d", "", "Finish within: 3d, 12h, 1w, 3天, 1周; without --gpus, picks the fewest GPUs that do",
              "完成期限：3d、12h、1w、3天、1周；不给 --gpus 时选能按期完成的最少卡数"},
    in.deadline);
  v(kOptimizerInput, in.optimizer);
  v(InputInfo{"--precision", "", "Compute precision: bf16, fp16 (default bf16; fp16 on a GPU without bf16)",
              "计算精度：bf16、fp16（默认 bf16；不支持 bf16 的 GPU 用 fp16）"},
    in.precision);
  v(InputInfo{"--no-checkpointing", "", "Turn gradient checkpointing off (default: the stack's; on for generic)",
              "关闭梯度检查点（默认按所选框架；通用配置为开启）"},
    in.no_checkpointing);
  v(InputInfo{"--pure-bf16", "", "Weights, gradients and optimizer states all bf16, no fp32 master copy (a model loaded in bf16 and trained as is)",
              "权重、梯度与优化器状态全部为 bf16，无 fp32 主权重（以 bf16 加载并直接训练）"},
    in.pure_bf16);
  v(InputInfo{"--optimizer-in-backward", "", "Step the optimizer per parameter inside the backward, freeing each gradient at once (torchtune optimizer_in_bwd)",
              "在反向过程中逐参数执行优化器更新，梯度随即释放（torchtune optimizer_in_bwd）"},
    in.optimizer_in_backward);
  v(InputInfo{"--offload", "", "What goes to host memory: any of optimizer, parameters, activations (comma-separated)",
              "卸载到主机内存的内容：optimizer、parameters、activations 中的任意几项（逗号分隔）"},
    in.offload);
  v(InputInfo{"--zero", "", "ZeRO/FSDP stage (default 3 on more than one GPU)", "ZeRO/FSDP 阶段（多卡时默认 3）"}, in.zero);
  v(InputInfo{"--force", "", "Plan a sequence longer than the model supports", "允许超过模型支持长度的序列"}, in.force);
  visit_framework_inputs(in.software, v);
  v(InputInfo{"--no-ranking", "", "Skip ranking every catalog GPU by cost", "不按费用给目录中的每种 GPU 排名"}, in.no_ranking);
  v(InputInfo{"--price", "", "Price per GPU-hour: 2.49, $2.5, 15cny (default: the market's listing)", "每卡时价格：2.49、$2.5、15cny（默认：所选市场的挂牌价）"},
    in.price);
  v(kMarketInput, in.market);
  v(kProviderInput, in.provider);
  v(kCurrencyInput, in.currency);
}

}  // namespace gpuplan
