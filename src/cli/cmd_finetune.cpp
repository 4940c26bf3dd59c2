// gpuplan finetune: memory, time and cost of full, LoRA and QLoRA fine-tuning.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "layout_flags.hpp"
#include "gpuplan/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/inference_report.hpp"
#include "gpuplan/typed_inputs.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

struct FinetuneFlags {
  OutputOptions out;
  std::string model;
  std::string gpu;
  std::string method = "lora";
  int64_t rank = -1;
  std::string modules;
  int64_t seq_len = 2048;
  int64_t micro_batch = 1;
  int64_t global_batch = 0;
  std::optional<std::string> samples;
  double epochs = 1;
  std::optional<int64_t> gpus;
  std::string optimizer;
  std::optional<std::string> precision;  // not given: bf16, fp16 on a GPU without bf16
  bool no_checkpointing = false;
  int zero = -1;
  bool force = false;
  bool no_ranking = false;
  std::optional<std::string> price;
  MarketFlags market;
  FrameworkInputs software;
};

void run(const FinetuneFlags& f) {
  load_gpu_file(f.out);
  if (f.model.empty()) throw InputError("--model", "--model is required (a catalog id such as llama-2-7b, or a config.json).");
  if (f.gpu.empty()) throw InputError("--gpu", "--gpu is required (e.g. a100-80g, 4090).");
  const ModelSpec m = find_model(f.model);
  const GpuSpec& g = find_gpu(f.gpu);
  FinetuneJob j;
  if (f.method == "full") j.method = FineTune::kFull;
  else if (f.method == "lora") j.method = FineTune::kLora;
  else if (f.method == "qlora") j.method = FineTune::kQlora;
  else throw InputError("--method", fmt::format("--method must be full, lora or qlora (got '{}').", f.method));
  if (f.rank == 0) throw InputError("--rank", "--rank must be at least 1 (rank 0 adapts nothing).");
  if (f.rank < -1) throw InputError("--rank", "--rank must be a positive integer.");
  j.lora_rank = f.rank > 0 ? f.rank : 0;
  if (!f.modules.empty()) j.modules = parse_lora_modules(f.modules, "--modules");
  j.seq_len = f.seq_len;
  const int64_t max_ctx = model_max_context(m);
  if (max_ctx > 0 && f.seq_len > max_ctx && !f.force) {
    throw InputError("--seq-len", fmt::format("--seq-len {} exceeds the {} tokens {} supports (max_position_embeddings); add --force to plan it anyway.", f.seq_len, max_ctx, m.name));
  }
  j.micro_batch = f.micro_batch;
  j.global_batch = f.global_batch;
  std::vector<TypedInput> echo;
  j.samples = parse_count_echoed(f.samples, "--samples", &echo).value_or(1000);
  j.epochs = f.epochs;
  if (!f.optimizer.empty()) j.optimizer = parse_optimizer(f.optimizer, "--optimizer");
  if (f.precision) {
    j.precision = parse_precision(*f.precision, "--precision");
    if (j.precision != Precision::kBf16 && j.precision != Precision::kFp16) {
      throw InputError("--precision", fmt::format("--precision must be bf16 or fp16 for fine-tuning (got '{}').", *f.precision));
    }
  }
  j.precision = training_precision(f.precision, g);  // refuses bf16 on V100
  j.gradient_checkpointing = !f.no_checkpointing;
  if (f.zero != -1) j.zero_stage = f.zero;  // the flag's -1: not given
  j.framework = &resolve_framework(f.software);
  j.settings = make_run_settings(f.software);
  validate_finetune(m, j);
  if (f.gpus && (*f.gpus < 1 || *f.gpus > 100000)) throw InputError("--gpus", "--gpus must be between 1 and 100,000.");
  const int64_t smallest = smallest_fitting_gpus(m, g, j);
  if (smallest == 0 && !f.gpus) {
    // No count up to the search's limit fits: a time and a cost for a run
    // that cannot start would be nonsense, so say what to change instead.
    throw InputError("--gpu", fmt::format("--gpu: {} fine-tuning of {} does not fit on any count of {} up to 1,024 ({} GiB each, ZeRO-3); "
                                          "use --method lora or qlora, or a GPU with more memory.",
                                          f.method, m.name, g.id, format_sig(g.memory_bytes / kGiB, 3)));
  }
  const int64_t n = f.gpus ? *f.gpus : (smallest > 0 ? smallest : 1);
  const FinetuneEstimate e = estimate_finetune(m, g, j, n);
  PriceInput pi;
  pi.text = f.price;
  apply_market_flags(f.market, f.out, &pi);
  std::vector<GpuChoice> ranking;
  if (!f.no_ranking) ranking = rank_gpus_for_finetune(m, j, 1024, pi.market);
  const Price price = resolve_price(g.id, pi);
  Report rep = finetune_report(m, g, e, smallest, ranking, price);
  if (auto s = typed_inputs_section(echo)) rep.sections.insert(rep.sections.begin(), *s);
  print_report(rep, f.out);
}

}  // namespace

void add_finetune_command(CLI::App& app) {
  auto f = std::make_shared<FinetuneFlags>();
  CLI::App* cmd = app.add_subcommand("finetune", "Fine-tuning (full, LoRA, QLoRA): memory per GPU, FLOPs, time, cost, smallest GPU count, cheapest GPU type");
  cmd->add_option("--model", f->model, "Model id, alias or config.json");
  cmd->add_option("--gpu", f->gpu, "GPU id or alias");
  cmd->add_option("--method", f->method, "full, lora or qlora")->capture_default_str();
  cmd->add_option("--rank", f->rank, "LoRA rank (default 8 for LoRA, 64 for QLoRA)");
  cmd->add_option("--modules", f->modules, "Adapted modules: q,k,v,o,gate,up,down, attn, mlp or all (default q,k,v,o for LoRA, all for QLoRA)");
  cmd->add_option("--seq-len,--seq", f->seq_len, "Tokens per sample")->capture_default_str();
  cmd->add_option("--micro-batch", f->micro_batch, "Sequences per GPU per micro-batch")->capture_default_str();
  cmd->add_option("--global-batch", f->global_batch, "Sequences per optimizer step (default micro-batch × GPUs)");
  cmd->add_option("--samples", f->samples, "Samples in the dataset (e.g. 50000, 50k)");
  cmd->add_option("--epochs", f->epochs, "Passes over the dataset")->capture_default_str();
  cmd->add_option("--gpus", f->gpus, "GPU count (default: the smallest that fits)");
  cmd->add_option("--optimizer", f->optimizer, "adamw, adamw8bit, paged_adamw8bit, sgd (default adamw; paged_adamw8bit for QLoRA)");
  cmd->add_option("--precision", f->precision, "Compute precision: bf16, fp16 (default bf16; fp16 on a GPU without bf16)");
  cmd->add_flag("--no-checkpointing", f->no_checkpointing, "Turn gradient checkpointing off (on by default)");
  cmd->add_option("--zero", f->zero, "ZeRO/FSDP stage (default 3 on more than one GPU)");
  cmd->add_flag("--force", f->force, "Plan a sequence longer than the model supports");
  add_framework_flags(cmd, &f->software);
  cmd->add_flag("--no-ranking", f->no_ranking, "Skip ranking every catalog GPU by cost");
  cmd->add_option("--price", f->price, "Price per GPU-hour: 2.49, $2.5, 15cny (default: the market's listing)");
  add_market_flags(cmd, &f->market);
  add_output_options(cmd, &f->out);
  cmd->callback([f] { run(*f); });
}

}  // namespace gpuplan::cli
