// gpuplan plan: the fastest (or cheapest) parallel layouts that fit, for one
// or more GPU types and counts.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "input_flags.hpp"
#include "inputs/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/launch_config.hpp"
#include "gpuplan/plan.hpp"
#include "report/plan_report.hpp"
#include "hardware/hardware_words.hpp"

namespace gpuplan::cli {
namespace {

struct PlanFlags {
  OutputOptions out;
  PlanInputs in;
  // CLI output modes, not planner inputs.
  std::optional<std::string> export_to;  // megatron, deepspeed, torchtitan, megatron-bridge, nemo
  std::optional<int> export_rank;         // 1-based place in the ranking
};

void run(const PlanFlags& f) {
  load_gpu_file(f.out);
  PlanInputs in = f.in;
  if (!in.market) in.market = market_code(default_market_for_lang(f.out.lang));
  PlanRequest r = make_plan_request(in);
  if (f.export_rank && !f.export_to) {
    throw InputError("--rank", "--rank picks the layout --export prints; give --export (a format, or none for the --framework's own) too.",
                     "--rank 选择 --export 输出哪个布局；请同时给出 --export（格式，或不带值表示 --framework 自己的格式）。");
  }
  if (!f.export_to) {
    print_report(plan_report(r, plan(r)), f.out);
    return;
  }
  // --export prints one layout's launch configuration instead of the ranking
  // (the decision is the library's, launch_config.hpp); what the configuration
  // cannot say goes to stderr, so the file stays clean.
  const ExportChoice choice{f.export_to, f.export_rank};
  r = prepare_export(r, choice);
  const LaunchConfig lc = launch_config(r, plan(r), choice);
  emit(lc.text);
  const bool zh = parse_lang(f.out.lang) == Lang::kZh;
  for (const Bilingual& n : lc.notes) fmt::print(stderr, "{}\n", zh ? n.zh : n.en);
  if (!lc.launch.empty()) fmt::print(stderr, "{}{}\n", zh ? "启动命令：" : "launch: ", lc.launch);
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto flags = std::make_shared<PlanFlags>();
  CLI::App* cmd = app.add_subcommand("plan",
                                     help_text("Search every parallel layout (TP, PP, DP, CP, EP, micro-batch, ZeRO, recompute) that fits, "
                                     "ranked by predicted step time.\n"
                                     "Example: gpuplan plan --model gpt3-175b --gpu a100-80g --gpus 1024 --seq-len 2048 --global-batch 1536",
      "搜索所有放得下的并行方案（TP、PP、DP、CP、EP、微批、ZeRO、重计算），"
                                     "按预测单步时间排序。\n"
                                     "示例：gpuplan plan --model gpt3-175b --gpu a100-80g --gpus 1024 --seq-len 2048 --global-batch 1536 --lang zh"));
  PlanInputs* f = &flags->in;
  add_model_flag(cmd, &f->model);
  visit_plan_inputs(*f, BindInputs{cmd});
  cmd->get_option("--gpus")->required();
  // Output modes of the CLI (and gpuplan.export in Python), not planner inputs.
  cmd->add_option("--export", flags->export_to,
                  help_text("Print the launch configuration of a ranked layout instead of the ranking: megatron (arguments; MindSpeed-LLM's "
                            "for --framework mindspeed-llm), deepspeed (JSON config), torchtitan (TOML), megatron-bridge or nemo (recipe "
                            "overrides), megatron-deepspeed (a script with its arguments and DeepSpeed JSON), gpt-neox (YAML); no value: the --framework's own; one --gpu type and one --gpus count. The command that starts it "
                            "goes to stderr",
                            "不输出排名，改为输出某个排名方案的启动配置：megatron（命令行参数；--framework mindspeed-llm 时为 MindSpeed-LLM 的参数）、"
                            "deepspeed（JSON 配置）、torchtitan（TOML）、megatron-bridge 或 nemo（配方覆盖项）、megatron-deepspeed（含参数与 DeepSpeed JSON 的脚本）、gpt-neox（YAML）；不带值：--framework 自己的格式；"
                            "只能给一种 --gpu 和一个 --gpus 卡数。启动命令输出到 stderr"))
      ->expected(0, 1);
  cmd->add_option("--rank", flags->export_rank, help_text("Which ranked layout --export prints: 1 (default) is the best", "--export 输出第几名的方案：1（默认）为最优"));
  add_output_options(cmd, &flags->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
