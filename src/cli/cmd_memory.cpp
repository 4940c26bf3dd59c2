// gpuplan memory: per-GPU memory of one training layout, the largest
// micro-batch that fits, and what to change when it does not fit.
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "input_flags.hpp"
#include "inputs/command_inputs.hpp"
#include "report/memory_report.hpp"
#include "inputs/report_chains.hpp"

namespace gpuplan::cli {
namespace {

struct MemoryFlags {
  OutputOptions out;
  MemoryInputs in;
};

void run(const MemoryFlags& f) {
  load_gpu_file(f.out);
  const ResolvedLayout r = resolve_layout(f.in.layout);
  print_report(memory_report_for(r.model, r.layout, r.gpu, make_memory_options(f.in), r.global_batch_defaulted), f.out);
}

}  // namespace

void add_memory_command(CLI::App& app) {
  auto flags = std::make_shared<MemoryFlags>();
  CLI::App* cmd = app.add_subcommand("memory",
      help_text("Per-GPU memory of one training layout: breakdown, peak on the worst GPU, fit verdict,\n"
      "largest micro-batch, and the changes that would make it fit.\n"
      "Example: gpuplan memory --model llama-3.1-70b --gpu h100 --gpus 64 --tp 8 --pp 2 --zero 1 --seq-len 8192",
      "一种训练并行方案的单卡显存：分项、最紧张那张卡的峰值、能否放下、\n"
      "最大微批，以及放不下时该改什么。\n"
      "示例：gpuplan memory --model llama-3.1-70b --gpu h100 --gpus 64 --tp 8 --pp 2 --zero 1 --seq-len 8192 --lang zh"));
  MemoryInputs* f = &flags->in;
  add_model_flag(cmd, &f->layout.model);
  add_params_flag(cmd, &f->layout.params, "Instead of --model: a bare parameter count (7B); model states only", "代替 --model：只给参数量（7B），只算模型状态");
  visit_memory_inputs(*f, BindInputs{cmd});
  add_output_options(cmd, &flags->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
