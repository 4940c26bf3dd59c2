// gpuplan plan: the fastest (or cheapest) parallel layouts that fit, for one
// or more GPU types and counts.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "input_flags.hpp"
#include "gpuplan/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/framework.hpp"
#include "frameworks/launch_config.hpp"
#include "gpuplan/plan.hpp"
#include "report/plan_report.hpp"
#include "units/text_match.hpp"

namespace gpuplan::cli {
namespace {

struct PlanFlags {
  OutputOptions out;
  PlanInputs in;
  // CLI output modes, not planner inputs.
  std::optional<std::string> export_to;  // megatron, deepspeed, torchtitan
  std::optional<int> export_rank;         // 1-based place in the ranking
};

void run(const PlanFlags& f) {
  load_gpu_file(f.out);
  PlanInputs in = f.in;
  if (!in.market) in.market = market_code(default_market_for_lang(f.out.lang));
  PlanRequest r = make_plan_request(in);
  // --export prints one layout's launch configuration instead of the ranking.
  std::string export_to;
  int export_rank = 1;
  const FrameworkProfile& planned = plan_framework(r);
  if (f.export_to) {
    export_to = normalize_name(*f.export_to);
    if (export_to.empty()) {
      // No value: the planned framework's own launch format.
      switch (planned.export_format) {
        case ExportFormat::kMegatron: export_to = "megatron"; break;
        case ExportFormat::kDeepSpeed: export_to = "deepspeed"; break;
        case ExportFormat::kTorchtitan: export_to = "torchtitan"; break;
        case ExportFormat::kNone:
          throw InputError("--export",
                           fmt::format("--export: gpuplan writes no launch configuration for {}; name one of megatron, deepspeed, torchtitan.",
                                       planned.label()),
                           fmt::format("--export：gpuplan 不为 {} 生成启动配置；请指定 megatron、deepspeed 或 torchtitan 之一。", planned.label()));
      }
    }
    if (export_to != "megatron" && export_to != "deepspeed" && export_to != "torchtitan") {
      throw InputError("--export", fmt::format("--export must be megatron, deepspeed or torchtitan (got '{}').", *f.export_to),
                       fmt::format("--export 须为 megatron、deepspeed 或 torchtitan（输入为 '{}'）。", *f.export_to));
    }
    if (r.gpus.size() > 1) {
      throw InputError("--export", fmt::format("--export prints one layout: give one --gpu type, not {} ({}).", r.gpus.size(), f.in.gpu),
                       fmt::format("--export 只输出一个布局：请只给一种 --gpu，而不是 {} 种（{}）。", r.gpus.size(), f.in.gpu));
    }
    if (r.gpu_counts.size() > 1) {
      throw InputError("--export", fmt::format("--export prints one layout: give one --gpus count, not {} ({}).", r.gpu_counts.size(), f.in.gpus.value_or("")),
                       fmt::format("--export 只输出一个布局：请只给一个 --gpus 卡数，而不是 {} 个（{}）。", r.gpu_counts.size(), f.in.gpus.value_or("")));
    }
  }
  if (f.export_rank) {
    if (!f.export_to) {
      throw InputError("--rank", "--rank picks the layout --export prints; give --export megatron, deepspeed or torchtitan too.",
                       "--rank 选择 --export 输出哪个布局；请同时给出 --export megatron、deepspeed 或 torchtitan。");
    }
    if (*f.export_rank < 1 || *f.export_rank > 100) {
      throw InputError("--rank", fmt::format("--rank must be from 1 (the best layout) to 100 (got {}).", *f.export_rank),
                       fmt::format("--rank 须为 1（最优布局）到 100 之间（输入为 {}）。", *f.export_rank));
    }
    export_rank = *f.export_rank;
    r.top_k = std::max(r.top_k, export_rank);  // rank the layouts down to the one asked for
  }
  const PlanResult res = plan(r);
  if (export_to.empty()) {
    print_report(plan_report(r, res), f.out);
    return;
  }
  const PlanGroup& g = res.groups.front();
  if (g.top.empty()) {
    throw InputError("--export",
                     fmt::format("--export: no layout of {} fits in memory on {} × {}, so there is nothing to export.", r.model.id, g.gpus, g.gpu_id),
                     fmt::format("--export：{} 在 {} 张 {} 上没有放得下显存的布局，无可导出。", r.model.id, g.gpus, g.gpu_id));
  }
  if (static_cast<size_t>(export_rank) > g.top.size()) {
    throw InputError("--rank",
                     fmt::format("--rank {} is past the end of the ranking: {} layout{} of {} fit{} in memory on {} × {}.", export_rank,
                                 g.top.size(), g.top.size() == 1 ? "" : "s", r.model.id, g.top.size() == 1 ? "s" : "", g.gpus, g.gpu_id),
                     fmt::format("--rank {} 超出排名范围：{} 在 {} 张 {} 上只有 {} 个布局放得下显存。", export_rank, r.model.id, g.gpus, g.gpu_id,
                                 g.top.size()));
  }
  const Layout& l = g.top[static_cast<size_t>(export_rank - 1)].layout;
  // The stack that will run the export must be able to run the layout: the
  // planned framework when the format is its own, else that format's own
  // framework (its newest profile).
  const ExportFormat format = export_to == "megatron" ? ExportFormat::kMegatron : export_to == "deepspeed" ? ExportFormat::kDeepSpeed
                                                                                                         : ExportFormat::kTorchtitan;
  // A torchtitan export for a plan that named no torchtitan version is read by
  // the newest torchtitan that still loads TOML job configs.
  const FrameworkProfile& runner = planned.export_format == format ? planned
                                   : export_to == "torchtitan"      ? torchtitan_toml_reader()
                                                                    : find_framework(export_to == "megatron" ? "megatron-lm" : export_to);
  const Reason cannot = why_framework_cannot_run(runner, l);
  if (!cannot.empty()) {
    throw InputError("--export",
                     fmt::format("--export {}: {} (the layout ranked {}); plan with --framework {} or export another rank.", export_to, cannot.en,
                                 export_rank, runner.id),
                     fmt::format("--export {}：{}（排名第 {} 的布局）；请用 --framework {} 重新规划，或导出其他名次。", export_to, cannot.zh,
                                 export_rank, runner.id));
  }
  if (export_to == "deepspeed") {
    // A config that would run another layout is refused, with where the missing degrees go.
    const std::string gap = deepspeed_config_gap(l, runner);
    if (!gap.empty()) {
      throw InputError("--export", fmt::format("--export deepspeed: {} (the layout ranked {}); or export a rank without them.", gap, export_rank),
                       fmt::format("--export deepspeed：{}（排名第 {} 的布局）；或导出不含这些并行维度的名次。", gap, export_rank));
    }
  }
  if (export_to == "megatron") {
    const MegatronDialect dialect = megatron_dialect(runner);
    const std::string gap = megatron_arguments_gap(r.model, l, dialect, &runner);
    if (!gap.empty()) {
      throw InputError("--export", fmt::format("--export megatron: {} (the layout ranked {}); export another rank.", gap, export_rank),
                       fmt::format("--export megatron：{}（排名第 {} 的布局）；请导出其他名次。", gap, export_rank));
    }
    const std::string arguments = megatron_arguments(r.model, l, dialect, &runner);
    const std::string unknown = megatron_arguments_unknown(arguments, runner);
    if (!unknown.empty()) {
      throw InputError("--export", fmt::format("--export megatron: {} (the layout ranked {}); plan with a later --framework {} release.", unknown, export_rank, runner.id),
                       fmt::format("--export megatron：{}（排名第 {} 的布局）；请用更新的 --framework {} 版本重新规划。", unknown, export_rank, runner.id));
    }
    emit(arguments);
  }
  else if (export_to == "deepspeed") {
    emit(deepspeed_config(l, deepspeed_config_keys(runner)).dump(2) + "\n");
    // The config's activation_checkpointing section only configures DeepSpeed's
    // checkpointing API (deepspeed/runtime/activation_checkpointing/config.py);
    // the model turns recompute on. Said on stderr, so the JSON stays clean.
    if (l.recompute != Recompute::kNone) {
      const bool zh = parse_lang(f.out.lang) == Lang::kZh;
      fmt::print(stderr, "{}\n",
                 zh ? fmt::format("注意：该布局依赖{}重计算，DeepSpeed 配置无法开启它：请在模型中开启（Hugging Face："
                                  "model.gradient_checkpointing_enable()；Megatron-DeepSpeed：--checkpoint-activations）。",
                                  l.recompute == Recompute::kFull ? "完整" : "选择性")
                    : fmt::format("note: the layout relies on {} activation recompute, which a DeepSpeed config cannot switch on: "
                                  "enable it in the model (Hugging Face: model.gradient_checkpointing_enable(); Megatron-DeepSpeed: "
                                  "--checkpoint-activations).",
                                  l.recompute == Recompute::kFull ? "full" : "selective"));
    }
  }
  else {
    const std::string toml = torchtitan_toml(r.model, l, &runner);
    const std::string unknown = torchtitan_toml_unknown(toml, runner);
    if (!unknown.empty()) {
      throw InputError("--export", fmt::format("--export torchtitan: {} (the layout ranked {}); plan with --framework torchtitan@{}.", unknown, export_rank,
                                               torchtitan_toml_reader().version),
                       fmt::format("--export torchtitan：{}（排名第 {} 的布局）；请用 --framework torchtitan@{} 重新规划。", unknown, export_rank,
                                   torchtitan_toml_reader().version));
    }
    emit(toml);
  }
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
                  help_text("Print the launch configuration of a ranked layout instead of the ranking: megatron (arguments), "
                            "deepspeed (JSON config) or torchtitan (TOML); no value: the --framework's own; one --gpu type and one --gpus count",
                            "不输出排名，改为输出某个排名方案的启动配置：megatron（命令行参数）、deepspeed（JSON 配置）或 "
                            "torchtitan（TOML）；不带值：--framework 自己的格式；只能给一种 --gpu 和一个 --gpus 卡数"))
      ->expected(0, 1);
  cmd->add_option("--rank", flags->export_rank, help_text("Which ranked layout --export prints: 1 (default) is the best", "--export 输出第几名的方案：1（默认）为最优"));
  add_output_options(cmd, &flags->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
