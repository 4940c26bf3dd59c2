// gpuplan plan: the fastest (or cheapest) parallel layouts that fit, for one
// or more GPU types and counts.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/launch_config.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/text_match.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

struct PlanFlags {
  OutputOptions out;
  std::string model;
  std::string gpu;
  std::string gpus;
  int64_t seq_len = 4096;
  int64_t global_batch = 0;
  int tp = 0, pp = 0, dp = 0, cp = 0, ep = 0, vp = 0;
  int64_t micro_batch = 0;
  std::optional<int> zero;
  std::optional<std::string> recompute;
  std::string precision = "bf16";
  std::string optimizer = "adamw";
  std::string rank_by = "time";
  int top = 5;
  bool cross_node_tp = false;
  bool no_flash = false;
  std::optional<int> gpus_per_node;
  std::vector<std::string> compare;
  std::optional<std::string> export_to;  // megatron, deepspeed, torchtitan
  std::optional<int> export_rank;         // 1-based place in the ranking
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// "1024", "512,1024,2048" or a range "256-4096" (powers of two in it).
std::vector<int64_t> parse_counts(const std::string& text) {
  std::vector<int64_t> out;
  for (const std::string& part : split(text, ',')) {
    const auto dash = part.find('-');
    if (dash != std::string::npos && dash > 0) {
      const double lo = parse_count(part.substr(0, dash), "--gpus");
      const double hi = parse_count(part.substr(dash + 1), "--gpus");
      if (hi < lo || hi > 1e7) throw InputError("--gpus", fmt::format("--gpus: the range {} must run from low to high.", part));
      for (int64_t n = 1; static_cast<double>(n) <= hi; n *= 2) {
        if (static_cast<double>(n) >= lo) out.push_back(n);
      }
      if (out.empty()) throw InputError("--gpus", fmt::format("--gpus: the range {} holds no power of two.", part));
    } else {
      const double n = parse_count(part, "--gpus");
      if (n != static_cast<double>(static_cast<int64_t>(n)) || n > 1e7) {
        throw InputError("--gpus", fmt::format("--gpus must be whole GPU counts (got {}).", part));
      }
      out.push_back(static_cast<int64_t>(n));
    }
  }
  if (out.empty()) throw InputError("--gpus", "--gpus is required: a count (1024), a list (512,1024) or a range (256-4096).");
  return out;
}

// "tp=8,pp=16,dp=8,mb=1,vp=1,zero=0,recompute=full,sp=off": a layout to rank
// among the searched ones. Unset: cp/ep/vp 1, micro-batch 1, ZeRO 0, recompute
// none, SP on when tp > 1; batch, sequence, precision and optimizer from the plan.
Layout parse_compare_layout(const std::string& text, const PlanRequest& r) {
  Layout l;
  l.seq_len = r.seq_len;
  l.global_batch = r.global_batch;
  l.precision = r.precision;
  l.optimizer = r.optimizer;
  l.flash_attention = r.flash_attention;
  std::optional<bool> sp;
  bool have_tp = false, have_pp = false, have_dp = false;
  const char* flag = "--compare-layout";
  for (const std::string& part : split(text, ',')) {
    const auto eq = part.find('=');
    if (eq == std::string::npos) throw InputError(flag, fmt::format("{}: '{}' is not key=value (tp=8,pp=16,dp=8,mb=1,recompute=full).", flag, part));
    const std::string k = normalize_name(part.substr(0, eq));
    const std::string v = part.substr(eq + 1);
    auto integer = [&](double lo, double hi) {
      const double x = parse_count(v, flag);
      if (x != static_cast<double>(static_cast<int64_t>(x)) || x < lo || x > hi) {
        throw InputError(flag, fmt::format("{}: {} must be a whole number from {} to {} (got {}).", flag, k, lo, hi, v));
      }
      return static_cast<int64_t>(x);
    };
    if (k == "tp") { l.tp = static_cast<int>(integer(1, 1e6)); have_tp = true; }
    else if (k == "pp") { l.pp = static_cast<int>(integer(1, 1e6)); have_pp = true; }
    else if (k == "dp") { l.dp = static_cast<int>(integer(1, 1e7)); have_dp = true; }
    else if (k == "cp") l.cp = static_cast<int>(integer(1, 1e6));
    else if (k == "ep") l.ep = static_cast<int>(integer(1, 1e6));
    else if (k == "vp") l.vp = static_cast<int>(integer(1, 1e3));
    else if (k == "mb" || k == "micro-batch" || k == "micro_batch") l.micro_batch = integer(1, 1e7);
    else if (k == "zero") l.zero_stage = static_cast<int>(integer(0, 3));
    else if (k == "recompute") l.recompute = parse_recompute(v, flag);
    else if (k == "sp") {
      const std::string b = normalize_name(v);
      if (b == "on" || b == "true" || b == "1") sp = true;
      else if (b == "off" || b == "false" || b == "0") sp = false;
      else throw InputError(flag, fmt::format("{}: sp must be on or off (got {}).", flag, v));
    } else {
      throw InputError(flag, fmt::format("{}: unknown key '{}' (tp, pp, dp, cp, ep, vp, mb, zero, recompute, sp).", flag, k));
    }
  }
  if (!have_tp || !have_pp || !have_dp) throw InputError(flag, fmt::format("{}: give at least tp, pp and dp ({}).", flag, text));
  l.sequence_parallel = sp ? *sp : l.tp > 1;
  return l;
}

void run(const PlanFlags& f) {
  load_gpu_file(f.out);
  if (f.model.empty()) throw InputError("--model", "--model is required: a catalog id (gpuplan models) or a config.json path.");
  if (f.gpu.empty()) throw InputError("--gpu", "--gpu is required: one GPU or a list such as h100,h800,a100.");
  PlanRequest r;
  r.model = find_model(f.model);
  if (r.model.count_only) throw InputError("--model", "--model: the planner needs an architecture, not a bare parameter count.");
  for (const std::string& g : split(f.gpu, ',')) r.gpus.push_back(find_gpu(g));
  r.gpu_counts = parse_counts(f.gpus);
  require_range(static_cast<double>(f.seq_len), 1, 1e8, "--seq-len", "a positive token count");
  r.seq_len = f.seq_len;
  if (f.global_batch < 0) throw InputError("--global-batch", "--global-batch must be positive.");
  r.global_batch = f.global_batch;
  r.tp = f.tp; r.pp = f.pp; r.dp = f.dp; r.cp = f.cp; r.ep = f.ep; r.vp = f.vp;
  r.micro_batch = f.micro_batch;
  r.zero_stage = f.zero;
  if (f.recompute) r.recompute = parse_recompute(*f.recompute, "--recompute");
  r.precision = parse_precision(f.precision, "--precision");
  r.optimizer = parse_optimizer(f.optimizer, "--optimizer");
  const std::string rank = normalize_name(f.rank_by);
  if (rank == "time") r.rank_by = PlanRank::kTime;
  else if (rank == "cost") r.rank_by = PlanRank::kCost;
  else throw InputError("--rank-by", fmt::format("--rank-by must be time or cost (got '{}').", f.rank_by));
  if (f.top < 1 || f.top > 100) throw InputError("--top", "--top must be from 1 to 100.");
  r.top_k = f.top;
  r.cross_node_tp = f.cross_node_tp;
  r.flash_attention = !f.no_flash;
  if (f.gpus_per_node) {
    if (*f.gpus_per_node < 1 || *f.gpus_per_node > 1024) throw InputError("--gpus-per-node", "--gpus-per-node must be from 1 to 1024.");
    r.step_options.gpus_per_node = *f.gpus_per_node;
  }
  // --export prints one layout's launch configuration instead of the ranking.
  std::string export_to;
  int export_rank = 1;
  if (f.export_to) {
    export_to = normalize_name(*f.export_to);
    if (export_to != "megatron" && export_to != "deepspeed" && export_to != "torchtitan") {
      throw InputError("--export", fmt::format("--export must be megatron, deepspeed or torchtitan (got '{}').", *f.export_to));
    }
    if (r.gpus.size() > 1) {
      throw InputError("--export", fmt::format("--export prints one layout: give one --gpu type, not {} ({}).", r.gpus.size(), f.gpu));
    }
    if (r.gpu_counts.size() > 1) {
      throw InputError("--export", fmt::format("--export prints one layout: give one --gpus count, not {} ({}).", r.gpu_counts.size(), f.gpus));
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
  for (const std::string& c : f.compare) {
    const Layout l = parse_compare_layout(c, r);
    bool used = false;
    for (int64_t n : r.gpu_counts) used = used || l.gpus() == n;
    if (!used) {
      throw InputError("--compare-layout", fmt::format("--compare-layout {} uses {} GPUs; --gpus does not include that count.", c, l.gpus()));
    }
    r.references.push_back(l);
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
  if (export_to == "megatron") emit(megatron_arguments(r.model, l));
  else if (export_to == "deepspeed") emit(deepspeed_config(l).dump(2) + "\n");
  else emit(torchtitan_toml(r.model, l));
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto f = std::make_shared<PlanFlags>();
  CLI::App* cmd = app.add_subcommand("plan",
                                     "Search every parallel layout (TP, PP, DP, CP, EP, micro-batch, ZeRO, recompute) that fits, "
                                     "ranked by predicted step time.\n"
                                     "Example: gpuplan plan --model gpt3-175b --gpu a100-80g --gpus 1024 --seq-len 2048 --global-batch 1536");
  cmd->add_option("--model,-m", f->model, "Catalog id or alias (gpuplan models), or a config.json file or folder");
  cmd->add_option("--gpu,-g", f->gpu, "GPU id or alias, or a comma-separated list to compare: h100,h800,a100");
  cmd->add_option("--gpus,-n", f->gpus, "GPU count, list (512,1024) or range of powers of two (256-4096)")->required();
  cmd->add_option("--seq-len,--seq", f->seq_len, "Tokens per sequence")->capture_default_str();
  cmd->add_option("--global-batch", f->global_batch, "Sequences per optimizer step (default: ~4M tokens)");
  cmd->add_option("--tp", f->tp, "Pin the tensor-parallel degree");
  cmd->add_option("--pp", f->pp, "Pin the pipeline stages");
  cmd->add_option("--dp", f->dp, "Pin the data-parallel replicas");
  cmd->add_option("--cp", f->cp, "Pin the context-parallel degree");
  cmd->add_option("--ep", f->ep, "Pin the expert-parallel degree");
  cmd->add_option("--vp", f->vp, "Pin the virtual pipeline stages");
  cmd->add_option("--micro-batch", f->micro_batch, "Pin the micro-batch");
  cmd->add_option("--zero", f->zero, "Pin the ZeRO stage 0–3");
  cmd->add_option("--recompute", f->recompute, "Pin recompute: none, selective, full");
  cmd->add_option("--precision", f->precision, "bf16, fp16, fp8")->capture_default_str();
  cmd->add_option("--optimizer", f->optimizer, "adamw, adamw8bit, sgd")->capture_default_str();
  cmd->add_option("--rank-by", f->rank_by, "time or cost (GPU-seconds per step)")->capture_default_str();
  cmd->add_option("--top", f->top, "Layouts shown per GPU type")->capture_default_str();
  cmd->add_flag("--cross-node-tp", f->cross_node_tp, "Also search TP larger than one node");
  cmd->add_flag("--no-flash", f->no_flash, "Attention without FlashAttention (materialised scores)");
  cmd->add_option("--gpus-per-node", f->gpus_per_node, "GPUs per node (default: the GPU's usual node)");
  cmd->add_option("--compare-layout", f->compare,
                  "A layout to rank among the searched ones, e.g. tp=8,pp=16,dp=8,mb=1,recompute=full,sp=off (repeatable)");
  cmd->add_option("--export", f->export_to,
                  "Print the launch configuration of a ranked layout instead of the ranking: megatron (arguments), "
                  "deepspeed (JSON config) or torchtitan (TOML); one --gpu type and one --gpus count");
  cmd->add_option("--rank", f->export_rank, "Which ranked layout --export prints: 1 (default) is the best");
  add_output_options(cmd, &f->out);
  cmd->callback([f] { run(*f); });
}

}  // namespace gpuplan::cli
