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
  CLI::App* cmd = app.add_subcommand("finetune", "Fine-tuning (full, LoRA, QLoRA): memory per GPU, FLOPs, time, cost, smallest GPU count, cheapest GPU type");
  cmd->add_option("--model", f->model, "Model id, alias or config.json");
  cmd->add_option("--gpu", f->gpu, "GPU id or alias");
  cmd->add_option("--method", f->method, "full, lora or qlora")->capture_default_str();
  cmd->add_option("--rank", f->rank, "LoRA rank (default 8 for LoRA, 64 for QLoRA)");
  cmd->add_option("--modules", f->modules, "Adapted modules: q,k,v,o,gate,up,down, attn, mlp or all (default q,k,v,o for LoRA, all for QLoRA)");
  cmd->add_option("--seq-len,--seq", f->seq_len, "Tokens per sample")->capture_default_str();
  cmd->add_option("--micro-batch", f->micro_batch, "Sequences per GPU per micro-batch")->capture_default_str();
  cmd->add_option("--global-batch", f->global_batch, "Sequences per optimizer step (default micro-batch × GPUs)");
  cmd->add_option("--samples", f->samples, "Samples in the dataset (e.g. 50000, 50k, 5万; default 1,000)");
  cmd->add_option("--tokens", f->tokens, "Instead of --samples: dataset tokens per epoch (100M, 1亿), packed into --seq-len samples");
  cmd->add_option("--epochs", f->epochs, "Passes over the dataset")->capture_default_str();
  cmd->add_option("--gpus", f->gpus, "GPU count (default: the smallest that fits, or that meets --deadline)");
  cmd->add_option("--deadline", f->deadline, "Finish within: 3d, 12h, 1w, 3天, 1周; without --gpus, picks the fewest GPUs that do");
  cmd->add_option("--optimizer", f->optimizer, "adamw, adamw8bit, paged_adamw8bit, sgd (default adamw; paged_adamw8bit for QLoRA)");
  cmd->add_option("--precision", f->precision, "Compute precision: bf16, fp16 (default bf16; fp16 on a GPU without bf16)");
  cmd->add_flag("--no-checkpointing", f->no_checkpointing, "Turn gradient checkpointing off (on by default)");
  cmd->add_option("--zero", f->zero, "ZeRO/FSDP stage (default 3 on more than one GPU)");
  cmd->add_flag("--force", f->force, "Plan a sequence longer than the model supports");
  add_framework_flags(cmd, &f->software);
  cmd->add_flag("--no-ranking", f->no_ranking, "Skip ranking every catalog GPU by cost");
  cmd->add_option("--price", f->price, "Price per GPU-hour: 2.49, $2.5, 15cny (default: the market's listing)");
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
