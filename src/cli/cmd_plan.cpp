// gpuplan plan: the fastest (or cheapest) parallel layouts that fit, for one
// or more GPU types and counts.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "layout_flags.hpp"
#include "gpuplan/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "report/launch_config.hpp"
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
          throw InputError("--export", fmt::format("--export: gpuplan writes no launch configuration for {}; name one of megatron, deepspeed, torchtitan.",
                                                   planned.label()));
      }
    }
    if (export_to != "megatron" && export_to != "deepspeed" && export_to != "torchtitan") {
      throw InputError("--export", fmt::format("--export must be megatron, deepspeed or torchtitan (got '{}').", *f.export_to));
    }
    if (r.gpus.size() > 1) {
      throw InputError("--export", fmt::format("--export prints one layout: give one --gpu type, not {} ({}).", r.gpus.size(), f.in.gpu));
    }
    if (r.gpu_counts.size() > 1) {
      throw InputError("--export", fmt::format("--export prints one layout: give one --gpus count, not {} ({}).", r.gpu_counts.size(), f.in.gpus.value_or("")));
    }
  }
  if (f.export_rank) {
    if (!f.export_to) throw InputError("--rank", "--rank picks the layout --export prints; give --export megatron, deepspeed or torchtitan too.");
    if (*f.export_rank < 1 || *f.export_rank > 100) {
      throw InputError("--rank", fmt::format("--rank must be from 1 (the best layout) to 100 (got {}).", *f.export_rank));
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
    throw InputError("--export", fmt::format("--export: no layout of {} fits in memory on {} × {}, so there is nothing to export.",
                                             r.model.id, g.gpus, g.gpu_id));
  }
  if (static_cast<size_t>(export_rank) > g.top.size()) {
    throw InputError("--rank", fmt::format("--rank {} is past the end of the ranking: {} layout{} of {} fit{} in memory on {} × {}.", export_rank,
                                           g.top.size(), g.top.size() == 1 ? "" : "s", r.model.id, g.top.size() == 1 ? "s" : "",
                                           g.gpus, g.gpu_id));
  }
  const Layout& l = g.top[static_cast<size_t>(export_rank - 1)].layout;
  // The stack that will run the export must be able to run the layout: the
  // planned framework when the format is its own, else that format's own
  // framework (its newest profile).
  const ExportFormat format = export_to == "megatron" ? ExportFormat::kMegatron : export_to == "deepspeed" ? ExportFormat::kDeepSpeed
                                                                                                         : ExportFormat::kTorchtitan;
  const FrameworkProfile& runner = planned.export_format == format ? planned
                                   : find_framework(export_to == "megatron" ? "megatron-lm" : export_to);
  const std::string cannot = framework_cannot_run(runner, l);
  if (!cannot.empty()) {
    throw InputError("--export", fmt::format("--export {}: {} (the layout ranked {}); plan with --framework {} or export another rank.",
                                             export_to, cannot, export_rank, runner.id));
  }
  if (export_to == "deepspeed") {
    // A config that would run another layout is refused, with where the missing degrees go.
    const std::string gap = deepspeed_config_gap(l, runner);
    if (!gap.empty()) {
      throw InputError("--export", fmt::format("--export deepspeed: {} (the layout ranked {}); or export a rank without them.", gap, export_rank));
    }
  }
  if (export_to == "megatron") {
    const MegatronDialect dialect = megatron_dialect(runner);
    const std::string gap = megatron_arguments_gap(r.model, l, dialect);
    if (!gap.empty()) throw InputError("--export", fmt::format("--export megatron: {} (the layout ranked {}); export another rank.", gap, export_rank));
    emit(megatron_arguments(r.model, l, dialect));
  }
  else if (export_to == "deepspeed") emit(deepspeed_config(l, deepspeed_config_keys(runner)).dump(2) + "\n");
  else emit(torchtitan_toml(r.model, l));
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
  cmd->add_option("--model,-m", f->model, help_text("Catalog id or alias (gpuplan models), or a config.json file or folder", "目录中的模型 id 或别名（gpuplan models），或 config.json 文件/所在目录"));
  cmd->add_option("--gpu,-g", f->gpu, "GPU id or alias, or a comma-separated list to compare: h100,h800,a100");
  cmd->add_option("--gpus,-n", f->gpus, "GPU count, list (512,1024) or range of powers of two (256-4096)")->required();
  cmd->add_option("--seq-len,--seq", f->seq_len, help_text("Tokens per sequence", "每条序列 token 数"))->capture_default_str();
  cmd->add_option("--global-batch", f->global_batch, "Sequences per optimizer step (default: about 4M tokens, a multiple of the GPU count's odd part)");
  cmd->add_option("--tp", f->tp, "Pin the tensor-parallel degree");
  cmd->add_option("--pp", f->pp, "Pin the pipeline stages");
  cmd->add_option("--dp", f->dp, "Pin the data-parallel replicas");
  cmd->add_option("--cp", f->cp, "Pin the context-parallel degree");
  cmd->add_option("--ep", f->ep, "Pin the expert-parallel degree");
  cmd->add_option("--vp", f->vp, "Pin the virtual pipeline stages");
  cmd->add_option("--first-stage-layers", f->first_stage_layers, "Pin the layers of the first pipeline stage (Megatron's uneven split)");
  cmd->add_option("--last-stage-layers", f->last_stage_layers, "Pin the layers of the last pipeline stage");
  cmd->add_option("--micro-batch", f->micro_batch, "Pin the micro-batch");
  cmd->add_option("--zero", f->zero, "Pin the ZeRO stage 0–3");
  cmd->add_option("--recompute", f->recompute, "Pin recompute: none, selective, full");
  cmd->add_option("--precision", f->precision, "bf16, fp16, fp8 (default bf16; a GPU without it plans its 16-bit format)");
  cmd->add_flag("--force", f->force, help_text("Plan a --seq-len longer than the model supports", "允许 --seq-len 超过模型支持的上下文长度"));
  cmd->add_option("--optimizer", f->optimizer, "adamw, adamw8bit, sgd")->capture_default_str();
  cmd->add_option("--market", f->market, "Prices from this market only: cn (CNY listings) or us (USD listings); default from --lang");
  cmd->add_option("--currency", f->currency, "Currency of the cost columns: usd or cny (default: the market's)");
  cmd->add_option("--rank-by", f->rank_by, "time or cost (GPU-seconds per step)")->capture_default_str();
  cmd->add_option("--top", f->top, "Layouts shown per GPU type")->capture_default_str();
  cmd->add_flag("--cross-node-tp", f->cross_node_tp, "Also search TP larger than one node");
  cmd->add_flag("--no-flash", f->no_flash, "Attention without FlashAttention (materialised scores)");
  add_zero3_per_module_flag(cmd, &f->zero3_per_module);
  add_eager_flag(cmd, &f->eager);
  add_framework_flags(cmd, &f->software);
  cmd->add_option("--gpus-per-node", f->gpus_per_node, "GPUs per node (default: the GPU's usual node)");
  cmd->add_option("--compare-layout", f->compare_layout,
                  "A layout to rank among the searched ones, e.g. tp=8,pp=16,dp=8,mb=1,recompute=full,sp=off (repeatable; "
                  "also vp, cp, ep, zero, first=, last= for the first/last stage layers; dp may be left out with one --gpus count)");
  cmd->add_option("--export", flags->export_to,
                  "Print the launch configuration of a ranked layout instead of the ranking: megatron (arguments), "
                  "deepspeed (JSON config) or torchtitan (TOML); no value: the --framework's own; one --gpu type and one --gpus count")
      ->expected(0, 1);
  cmd->add_option("--rank", flags->export_rank, "Which ranked layout --export prints: 1 (default) is the best");
  add_output_options(cmd, &flags->out);
  cmd->callback([flags] { run(*flags); });
}

}  // namespace gpuplan::cli
