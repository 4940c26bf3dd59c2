// gpuplan finetune: memory, time and cost of full, LoRA and QLoRA fine-tuning.
// The flags bind to FinetuneInputs; finetune_report_for (src/report/finetune_inputs.cpp)
// checks them and builds the report, as it does for POST /api/finetune.
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "gpuplan/finetune_inputs.hpp"

namespace gpuplan::cli {
namespace {

struct FinetuneFlags {
  OutputOptions out;
  FinetuneInputs in;
  MarketFlags market;
};

}  // namespace

void add_finetune_command(CLI::App& app) {
  auto flags = std::make_shared<FinetuneFlags>();
  FinetuneInputs* f = &flags->in;
  CLI::App* cmd = app.add_subcommand("finetune", help_text("Fine-tuning (full, LoRA, QLoRA): memory per GPU, FLOPs, time, cost, smallest GPU count, cheapest GPU type",
      "微调（全参数、LoRA、QLoRA）：单卡显存、计算量、时间、费用、最少卡数、最便宜的 GPU 型号"));
  cmd->add_option("--model", f->model, help_text("Model id, alias or config.json", "模型 id、别名或 config.json"));
  cmd->add_option("--gpu", f->gpu, help_text("GPU id or alias", "GPU id 或别名"));
  cmd->add_option("--method", f->method, help_text("full, lora or qlora", "full（全参数）、lora 或 qlora"))->capture_default_str();
  cmd->add_option("--rank", f->rank, help_text("LoRA rank (default 8 for LoRA, 64 for QLoRA)", "LoRA 秩（LoRA 默认 8，QLoRA 默认 64）"));
  cmd->add_option("--modules", f->modules, help_text("Adapted modules: q,k,v,o,gate,up,down, attn, mlp or all (default q,k,v,o for LoRA, all for QLoRA)", "适配的模块：q,k,v,o,gate,up,down、attn、mlp 或 all（LoRA 默认 q,k,v,o，QLoRA 默认 all）"));
  cmd->add_option("--seq-len,--seq", f->seq_len, help_text("Tokens per sample", "每个样本的 token 数"))->capture_default_str();
  cmd->add_option("--micro-batch", f->micro_batch, help_text("Sequences per GPU per micro-batch", "每张卡每个微批次的序列数"))->capture_default_str();
  cmd->add_option("--global-batch", f->global_batch, help_text("Sequences per optimizer step (default micro-batch × GPUs)", "每个优化器步的序列数（默认 微批次 × 卡数）"));
  cmd->add_option("--samples", f->samples, help_text("Samples in the dataset (e.g. 50000, 50k, 5万; default 1,000)", "数据集样本数（如 50000、50k、5万；默认 1,000）"));
  cmd->add_option("--tokens", f->tokens, help_text("Instead of --samples: dataset tokens per epoch (100M, 1亿), packed into --seq-len samples", "代替 --samples：每轮数据集 token 数（100M、1亿），按 --seq-len 打包成样本"));
  cmd->add_option("--epochs", f->epochs, help_text("Passes over the dataset", "数据集遍历轮数"))->capture_default_str();
  cmd->add_option("--gpus", f->gpus, help_text("GPU count (default: the smallest that fits, or that meets --deadline)", "卡数（默认：放得下的最少卡数，或满足 --deadline 的最少卡数）"));
  cmd->add_option("--deadline", f->deadline, help_text("Finish within: 3d, 12h, 1w, 3天, 1周; without --gpus, picks the fewest GPUs that do", "完成期限：3d、12h、1w、3天、1周；不给 --gpus 时选能按期完成的最少卡数"));
  cmd->add_option("--optimizer", f->optimizer, help_text("adamw, adamw8bit, paged_adamw8bit, sgd (default adamw; paged_adamw8bit for QLoRA)", "adamw、adamw8bit、paged_adamw8bit、sgd（默认 adamw；QLoRA 默认 paged_adamw8bit）"));
  cmd->add_option("--precision", f->precision, help_text("Compute precision: bf16, fp16 (default bf16; fp16 on a GPU without bf16)", "计算精度：bf16、fp16（默认 bf16；不支持 bf16 的 GPU 用 fp16）"));
  cmd->add_flag("--no-checkpointing", f->no_checkpointing, help_text("Turn gradient checkpointing off (on by default)", "关闭梯度检查点（默认开启）"));
  cmd->add_option("--zero", f->zero, help_text("ZeRO/FSDP stage (default 3 on more than one GPU)", "ZeRO/FSDP 阶段（多卡时默认 3）"));
  cmd->add_flag("--force", f->force, help_text("Plan a sequence longer than the model supports", "允许超过模型支持长度的序列"));
  add_framework_flags(cmd, &f->software);
  cmd->add_flag("--no-ranking", f->no_ranking, help_text("Skip ranking every catalog GPU by cost", "不按费用给目录中的每种 GPU 排名"));
  cmd->add_option("--price", f->price, help_text("Price per GPU-hour: 2.49, $2.5, 15cny (default: the market's listing)", "每卡时价格：2.49、$2.5、15cny（默认：所选市场的挂牌价）"));
  add_market_flags(cmd, &flags->market);
  add_output_options(cmd, &flags->out);
  cmd->callback([flags] {
    load_gpu_file(flags->out);
    FinetuneInputs in = flags->in;
    in.market = flags->market.market;
    in.provider = flags->market.provider;
    in.currency = flags->market.currency;
    in.lang = flags->out.lang;
    print_report(finetune_report_for(in), flags->out);
  });
}

}  // namespace gpuplan::cli
