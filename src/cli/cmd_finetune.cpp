// gpuplan finetune: memory, time and cost of full, LoRA and QLoRA fine-tuning.
// The flags bind to FinetuneInputs; finetune_report_for (src/report/finetune_run_report.cpp: inputs/finetune_inputs.cpp, commands/finetune.cpp)
// checks them and builds the report, as it does for POST /api/finetune.
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "inputs/finetune_inputs.hpp"
#include "report/report.hpp"
#include "input_flags.hpp"

namespace gpuplan::cli {
namespace {

struct FinetuneFlags {
  OutputOptions out;
  FinetuneInputs in;
};

}  // namespace

void add_finetune_command(CLI::App& app) {
  auto flags = std::make_shared<FinetuneFlags>();
  FinetuneInputs* f = &flags->in;
  CLI::App* cmd = app.add_subcommand("finetune", help_text("Fine-tuning (full, LoRA, QLoRA): memory per GPU, FLOPs, time, cost, smallest GPU count, cheapest GPU type",
      "微调（全参数、LoRA、QLoRA）：单卡显存、计算量、时间、费用、最少卡数、最便宜的 GPU 型号"));
  add_model_flag(cmd, &f->model);
  visit_finetune_inputs(*f, BindInputs{cmd});
  add_output_options(cmd, &flags->out);
  cmd->callback([flags] {
    load_gpu_file(flags->out);
    FinetuneInputs in = flags->in;
    in.lang = flags->out.lang;
    print_report(finetune_report_for(in), flags->out);
  });
}

}  // namespace gpuplan::cli
