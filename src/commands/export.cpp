// The launch configuration of a ranked layout (launch_config.hpp): moved here
// from the CLI's `plan --export` so that the web page and Python take the same
// decision and the same refusals.
#include "gpuplan/launch_config.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "frameworks/launch_config.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/units.hpp"
#include "units/text_match.hpp"

namespace gpuplan {
namespace {

// The formats --export writes, each with the profile export value it is, and
// the framework whose newest profile reads it when the plan names another.
struct FormatEntry {
  const char* name;
  ExportFormat format;
  const char* reader;  // find_framework id; torchtitan: the newest that reads TOML
};
constexpr FormatEntry kFormats[] = {{"megatron", ExportFormat::kMegatron, "megatron-lm"},
                                    {"deepspeed", ExportFormat::kDeepSpeed, "deepspeed"},
                                    {"torchtitan", ExportFormat::kTorchtitan, "torchtitan"},
                                    {"megatron-bridge", ExportFormat::kMegatronBridge, "megatron-bridge"},
                                    {"nemo", ExportFormat::kNemo, "nemo"},
                                    {"megatron-deepspeed", ExportFormat::kMegatronDeepSpeed, "megatron-deepspeed"},
                                    {"gpt-neox", ExportFormat::kGptNeox, "gpt-neox"}};

const FormatEntry* format_entry(const std::string& name) {
  for (const FormatEntry& f : kFormats) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

// "megatron, deepspeed, … or gpt-neox" / "megatron、deepspeed、… 或 gpt-neox".
std::string format_list(bool zh) {
  std::vector<std::string> names;
  for (const FormatEntry& f : kFormats) names.push_back(f.name);
  return zh ? join(names, "、", " 或 ") : join(names, ", ", " or ");
}

// The format asked for, or the planned framework's own.
std::string export_format(const PlanRequest& r, const ExportChoice& c) {
  const FrameworkProfile& planned = plan_framework(r);
  std::string to = c.to ? normalize_name(*c.to) : "";
  if (to.empty()) {
    for (const FormatEntry& f : kFormats) {
      if (f.format == planned.export_format) return f.name;
    }
    throw InputError("--export",
                     fmt::format("--export: gpuplan writes no launch configuration for {}; name one of {}.", planned.label(), format_list(false)),
                     fmt::format("--export：gpuplan 不为 {} 生成启动配置；请指定 {} 之一。", planned.label(), format_list(true)));
  }
  if (!format_entry(to)) {
    throw InputError("--export", fmt::format("--export must be {} (got '{}').", format_list(false), c.to.value_or("")),
                     fmt::format("--export 须为 {}（输入为 '{}'）。", format_list(true), c.to.value_or("")));
  }
  return to;
}

std::string gpu_ids(const PlanRequest& r) {
  std::string s;
  for (const GpuSpec& g : r.gpus) s += (s.empty() ? "" : ",") + g.id;
  return s;
}

std::string counts(const PlanRequest& r) {
  std::string s;
  for (int64_t n : r.gpu_counts) s += (s.empty() ? "" : ",") + std::to_string(n);
  return s;
}

// Where TP does not divide the vocabulary, the Megatron-based stacks pad it (they
// shard the embedding and output rows over the TP ranks): say by how much.
void note_vocab_padding(LaunchConfig& out, const ModelSpec& m, const Layout& l) {
  const MegatronVocab vocab = megatron_vocab(m, l);
  if (m.count_only || vocab.padded == m.vocab) return;
  const int64_t rows = vocab.padded - m.vocab;
  const int64_t params = rows * m.hidden * (m.tied_embeddings ? 1 : 2);
  out.notes.push_back({fmt::format("note: {} shards the embedding over the {} TP ranks, so it pads the {}-token vocabulary to {} "
                                   "({} rows, {} parameters beside the planned model).",
                                   out.runner, l.tp, m.vocab, vocab.padded, rows, params),
                       fmt::format("注意：{} 把嵌入层按 {} 个 TP 分片，因此把 {} 个 token 的词表补齐到 {}"
                                   "（多 {} 行、{} 个参数，规划的模型中没有这些）。",
                                   out.runner, l.tp, m.vocab, vocab.padded, rows, params)});
}

// The refusal of an export: what the reading version lacks, then where to go.
[[noreturn]] void refuse(const LaunchConfig& out, const Reason& why, const char* next_en, const char* next_zh) {
  throw InputError("--export", fmt::format("--export {}: {} (the layout ranked {}){}.", out.format, why.en, out.rank, next_en),
                   fmt::format("--export {}：{}（排名第 {} 的布局）{}。", out.format, why.zh, out.rank, next_zh));
}

// Megatron-Bridge's and NeMo's overrides of a recipe, refused where the version
// cannot build the model or layout or would stop at a key it does not read.
void write_overrides(LaunchConfig& out, const ModelSpec& m, const Layout& l, const FrameworkProfile& runner, const LaunchShape& shape) {
  const std::string& to = out.format;
  const Reason gap = to == "nemo" ? nemo_gap(m, l, runner) : megatron_bridge_gap(m, l);
  if (!gap.empty()) refuse(out, gap, "; export another rank or format", "；请导出其他名次或格式");
  OverrideExport e = to == "nemo" ? nemo_overrides(m, l, runner) : megatron_bridge_overrides(m, l);
  if (to == "nemo") {
    // The machines, as NeMo's trainer counts them (trainer.num_nodes, trainer.devices).
    e.lines.insert(e.lines.begin(), {{"trainer.num_nodes", std::to_string(shape.nodes)}, {"trainer.devices", std::to_string(shape.gpus_per_node)}});
  }
  const Reason unknown = overrides_unknown(e, runner);
  if (!unknown.empty()) refuse(out, unknown, "", "");
  out.text = overrides_text(e);
  out.file_name = to + ".overrides";
  out.media_type = "text/plain";
  out.notes.insert(out.notes.end(), e.notes.begin(), e.notes.end());
  out.launch = launch_command(to, runner, shape, out.file_name, e.recipe);
}

// Megatron-DeepSpeed's script (its arguments and DeepSpeed JSON) and GPT-NeoX's YAML,
// refused where the version cannot build the model or run the layout, or would
// stop at a name it does not take.
void write_deepspeed_stack(LaunchConfig& out, const ModelSpec& m, const Layout& l, const FrameworkProfile& runner, const LaunchShape& shape) {
  const std::string& to = out.format;
  const bool neox = to == "gpt-neox";
  const Reason gap = neox ? neox_gap(m, l, runner) : megatron_deepspeed_gap(m, l, runner);
  if (!gap.empty()) refuse(out, gap, "; export another rank or format", "；请导出其他名次或格式");
  Reason unknown;
  if (neox) {
    const std::vector<OverrideLine> config = neox_config(m, l, shape);
    unknown = neox_unknown(config, runner);
    out.text = neox_yaml(config, runner);
    out.file_name = "neox.yml";
    out.media_type = "application/yaml";
  } else {
    const std::vector<std::string> args = megatron_deepspeed_arguments(m, l, runner);
    unknown = megatron_deepspeed_unknown(args, runner);
    const FrameworkProfile* ds = deepspeed_reading(runner);
    // The JSON holds ZeRO, batch and precision; the degrees are the arguments' (no AutoTP or Ulysses keys).
    DeepSpeedConfigKeys keys;
    keys.bf16 = !ds || deepspeed_config_keys(*ds).bf16;
    const nlohmann::json config = deepspeed_config(l, keys);
    if (unknown.empty() && ds) unknown = deepspeed_config_unknown(config, *ds);
    out.text = megatron_deepspeed_script(args, config.dump(2) + "\n", shape, runner);
    out.file_name = "megatron-deepspeed.sh";
    out.media_type = "text/x-shellscript";
  }
  if (!unknown.empty()) refuse(out, unknown, "", "");
}

LaunchConfig write_layout(const PlanRequest& r, const PlanGroup& g, LaunchConfig out);

}  // namespace

PlanRequest prepare_export(const PlanRequest& request, const ExportChoice& choice) {
  export_format(request, choice);  // throws on an unknown format or a framework without one
  if (request.gpus.size() != 1) {
    throw InputError("--export", fmt::format("--export prints one layout: give one --gpu type, not {} ({}).", request.gpus.size(), gpu_ids(request)),
                     fmt::format("--export 只输出一个布局：请只给一种 --gpu，而不是 {} 种（{}）。", request.gpus.size(), gpu_ids(request)));
  }
  if (request.gpu_counts.size() != 1) {
    throw InputError("--export", fmt::format("--export prints one layout: give one --gpus count, not {} ({}).", request.gpu_counts.size(), counts(request)),
                     fmt::format("--export 只输出一个布局：请只给一个 --gpus 卡数，而不是 {} 个（{}）。", request.gpu_counts.size(), counts(request)));
  }
  PlanRequest r = request;
  if (choice.rank) {
    if (*choice.rank < 1 || *choice.rank > 100) {
      throw InputError("--rank", fmt::format("--rank must be from 1 (the best layout) to 100 (got {}).", *choice.rank),
                       fmt::format("--rank 须为 1（最优布局）到 100 之间（输入为 {}）。", *choice.rank));
    }
    r.top_k = std::max(r.top_k, *choice.rank);  // rank the layouts down to the one asked for
  } else {
    r.top_k = std::max(r.top_k, 100);  // deep enough to find the best layout the reading version can hold
  }
  return r;
}

LaunchConfig launch_config(const PlanRequest& r, const PlanResult& res, const ExportChoice& choice) {
  LaunchConfig out;
  out.format = export_format(r, choice);
  out.rank = choice.rank.value_or(1);
  const int rank = out.rank;
  const PlanGroup& g = res.groups.front();
  if (g.top.empty() && g.over_margin) {
    // One fits the GPU but not the margin: exported once the margin admits it.
    const MemoryBreakdown& m = g.over_margin->memory;
    const double pct = 100 * m.safety_margin_bytes / m.capacity_bytes;
    throw InputError("--export",
                     fmt::format("--export: no layout of {} on {} × {} keeps the {:.0f}% safety margin free, so nothing is exported; the fastest "
                                 "that fits the GPU needs {:.1f} of {:.1f} GiB (--safety-margin at most {:.2f} exports it).",
                                 r.model.id, g.gpus, g.gpu_id, pct, m.peak_bytes / kGiB, m.capacity_bytes / kGiB,
                                 largest_margin_admitting(m)),
                     fmt::format("--export：{} 在 {} 张 {} 上没有能留出 {:.0f}% 显存余量的布局，无可导出；放得进显存的最快布局需要 {:.1f} GiB"
                                 "（共 {:.1f} GiB；--safety-margin 不超过 {:.2f} 时可导出）。",
                                 r.model.id, g.gpus, g.gpu_id, pct, m.peak_bytes / kGiB, m.capacity_bytes / kGiB,
                                 largest_margin_admitting(m)));
  }
  if (g.top.empty()) {
    throw InputError("--export",
                     fmt::format("--export: no layout of {} fits in memory on {} × {}, so there is nothing to export.", r.model.id, g.gpus, g.gpu_id),
                     fmt::format("--export：{} 在 {} 张 {} 上没有放得下显存的布局，无可导出。", r.model.id, g.gpus, g.gpu_id));
  }
  if (static_cast<size_t>(rank) > g.top.size()) {
    throw InputError("--rank",
                     fmt::format("--rank {} is past the end of the ranking: {} layout{} of {} fit{} in memory on {} × {}.", rank,
                                 g.top.size(), g.top.size() == 1 ? "" : "s", r.model.id, g.top.size() == 1 ? "s" : "", g.gpus, g.gpu_id),
                     fmt::format("--rank {} 超出排名范围：{} 在 {} 张 {} 上只有 {} 个布局放得下显存。", rank, r.model.id, g.gpus, g.gpu_id,
                                 g.top.size()));
  }
  if (choice.rank) return write_layout(r, g, out);
  // No rank asked for: the best layout, or where the reading version cannot
  // hold it, the best one it can, saying why and what it costs.
  try {
    return write_layout(r, g, out);
  } catch (const InputError& best) {
    for (size_t k = 2; k <= g.top.size(); ++k) {
      LaunchConfig next = out;
      next.rank = static_cast<int>(k);
      try {
        next = write_layout(r, g, next);
      } catch (const InputError&) {
        continue;
      }
      const double slower = 100 * (g.top[k - 1].time.step_s / g.top[0].time.step_s - 1);
      // The refusal's own words without its "--export X: " lead.
      auto reason = [](const std::string& s) { return s.rfind("--export", 0) == 0 && s.find(": ") != std::string::npos ? s.substr(s.find(": ") + 2) : s; };
      auto reason_zh = [](const std::string& s) { return s.rfind("--export", 0) == 0 && s.find("：") != std::string::npos ? s.substr(s.find("：") + 3) : s; };
      next.notes.insert(next.notes.begin(),
                        {fmt::format("note: exported the layout ranked {} ({:.1f}% slower per step), the best {} can hold; the best one cannot be "
                                     "written: {}", k, slower, next.runner, reason(best.what())),
                         fmt::format("注意：导出的是排名第 {} 的布局（每步慢 {:.1f}%），即 {} 能表达的最优布局；最优布局无法写出：{}", k, slower, next.runner,
                                     reason_zh(best.zh()))});
      return next;
    }
    throw;
  }
}

namespace {

LaunchConfig write_layout(const PlanRequest& r, const PlanGroup& g, LaunchConfig out) {
  const std::string& to = out.format;
  const int rank = out.rank;
  const Layout& l = g.top[static_cast<size_t>(rank - 1)].layout;
  const LaunchShape shape = launch_shape(g.gpus, r.gpus.front().gpus_per_node);  // the machines it starts on
  // The stack that will run the export must be able to run the layout: the
  // planned framework when the format is its own, else that format's own
  // framework (its newest profile). A torchtitan export for a plan that named
  // no torchtitan version is read by the newest torchtitan that still loads
  // TOML job configs.
  const FrameworkProfile& planned = plan_framework(r);
  const FormatEntry& entry = *format_entry(to);
  const FrameworkProfile& runner = planned.export_format == entry.format ? planned
                                   : to == "torchtitan"                  ? torchtitan_toml_reader()
                                                                         : find_framework(entry.reader);
  out.runner = runner.label();
  const Reason cannot = why_framework_cannot_run(runner, l);
  if (!cannot.empty()) {
    throw InputError("--export",
                     fmt::format("--export {}: {} (the layout ranked {}); plan with --framework {} or export another rank.", to, cannot.en, rank, runner.id),
                     fmt::format("--export {}：{}（排名第 {} 的布局）；请用 --framework {} 重新规划，或导出其他名次。", to, cannot.zh, rank, runner.id));
  }
  if (to == "megatron") {
    const MegatronDialect dialect = megatron_dialect(runner);
    const Reason gap = megatron_arguments_gap(r.model, l, dialect, &runner);
    if (!gap.empty()) {
      throw InputError("--export", fmt::format("--export megatron: {} (the layout ranked {}); export another rank.", gap.en, rank),
                       fmt::format("--export megatron：{}（排名第 {} 的布局）；请导出其他名次。", gap.zh, rank));
    }
    out.text = megatron_arguments(r.model, l, dialect, &runner);
    const Reason unknown = megatron_arguments_unknown(out.text, runner);
    if (!unknown.empty()) {
      throw InputError("--export", fmt::format("--export megatron: {} (the layout ranked {}); plan with a later --framework {} release.", unknown.en, rank, runner.id),
                       fmt::format("--export megatron：{}（排名第 {} 的布局）；请用更新的 --framework {} 版本重新规划。", unknown.zh, rank, runner.id));
    }
    out.file_name = "megatron-args.txt";
    out.media_type = "text/plain";
  } else if (to == "deepspeed") {
    // A config that would run another layout is refused, with where the missing degrees go.
    const Reason gap = deepspeed_config_gap(l, runner);
    if (!gap.empty()) {
      throw InputError("--export", fmt::format("--export deepspeed: {} (the layout ranked {}); or export a rank without them.", gap.en, rank),
                       fmt::format("--export deepspeed：{}（排名第 {} 的布局）；或导出不含这些并行维度的名次。", gap.zh, rank));
    }
    const nlohmann::json config = deepspeed_config(l, deepspeed_config_keys(runner));
    const Reason unknown = deepspeed_config_unknown(config, runner);
    if (!unknown.empty()) {
      throw InputError("--export", fmt::format("--export deepspeed: {} (the layout ranked {}); plan with a later --framework deepspeed release.", unknown.en, rank),
                       fmt::format("--export deepspeed：{}（排名第 {} 的布局）；请用更新的 --framework deepspeed 版本重新规划。", unknown.zh, rank));
    }
    out.text = config.dump(2) + "\n";
    out.file_name = "ds_config.json";
    out.media_type = "application/json";
    // The config's activation_checkpointing section only configures DeepSpeed's
    // checkpointing API (deepspeed/runtime/activation_checkpointing/config.py);
    // the model turns recompute on.
    if (l.recompute != Recompute::kNone) {
      const bool full = l.recompute == Recompute::kFull;
      out.notes.push_back(
          {fmt::format("note: the layout relies on {} activation recompute, which a DeepSpeed config cannot switch on: enable it in the model "
                       "(Hugging Face: model.gradient_checkpointing_enable(); Megatron-DeepSpeed: --checkpoint-activations).",
                       full ? "full" : "selective"),
           fmt::format("注意：该布局依赖{}重计算，DeepSpeed 配置无法开启它：请在模型中开启（Hugging Face："
                       "model.gradient_checkpointing_enable()；Megatron-DeepSpeed：--checkpoint-activations）。",
                       full ? "完整" : "选择性")});
    }
  } else if (to == "megatron-bridge" || to == "nemo") {
    write_overrides(out, r.model, l, runner, shape);
  } else if (to == "megatron-deepspeed" || to == "gpt-neox") {
    write_deepspeed_stack(out, r.model, l, runner, shape);
  } else {
    out.text = torchtitan_toml(r.model, l, &runner);
    const Reason unknown = torchtitan_toml_unknown(out.text, runner);
    if (!unknown.empty()) {
      throw InputError("--export", fmt::format("--export torchtitan: {} (the layout ranked {}); plan with --framework torchtitan@{}.", unknown.en, rank,
                                               torchtitan_toml_reader().version),
                       fmt::format("--export torchtitan：{}（排名第 {} 的布局）；请用 --framework torchtitan@{} 重新规划。", unknown.zh, rank,
                                   torchtitan_toml_reader().version));
    }
    out.file_name = "torchtitan.toml";
    out.media_type = "application/toml";
  }
  if (to != "deepspeed" && to != "torchtitan") note_vocab_padding(out, r.model, l);
  if (out.launch.empty()) out.launch = launch_command(to, runner, shape, out.file_name);
  return out;
}

}  // namespace

}  // namespace gpuplan
