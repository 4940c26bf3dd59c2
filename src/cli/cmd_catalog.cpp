// gpuplan models / gpus: what the built-in catalogs hold.
#include <map>
#include <fmt/format.h>

#include <limits>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "report/catalog_report.hpp"
#include "report/engines_report.hpp"
#include "report/frameworks_report.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/model.hpp"
#include "units/text_match.hpp"
#include "report/train_report.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {

void add_models_command(CLI::App& app) {
  auto out = std::make_shared<OutputOptions>();
  auto show = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("models", help_text("List the built-in models, or show one (gpuplan models llama-3.1-70b, or a config.json path)",
      "列出内置模型，或查看其中一个（gpuplan models llama-3.1-70b，或 config.json 路径）"));
  cmd->add_option("model", *show, help_text("A model id, alias or config.json to describe", "要查看的模型 id、别名或 config.json"));
  add_output_options(cmd, out.get());
  cmd->callback([out, show] { load_gpu_file(*out); print_report(models_report(*show), *out); });
}

void add_frameworks_command(CLI::App& app) {
  auto out = std::make_shared<OutputOptions>();
  auto show = std::make_shared<std::string>();
  auto docs = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("frameworks",
                                     help_text("List the framework profiles (what each training stack runs and defaults to), or show one with sources "
                                     "(gpuplan frameworks torchtitan@2024-12)",
      "列出训练框架档案（每个框架支持什么、默认什么），或带出处查看其中一个"
                                     "（gpuplan frameworks torchtitan@2024-12）"));
  cmd->add_option("framework", *show, help_text("A framework as NAME[@VERSION]", "框架，写作 名称[@版本]"));
  cmd->add_flag("--docs", *docs, help_text("Print docs/frameworks.md (one table, framework × property, every cell with its source)",
                                           "输出 docs/frameworks.md（一张 框架 × 属性 的表，每格附出处）"));
  add_output_options(cmd, out.get());
  cmd->callback([out, show, docs] {
    if (*docs) {
      emit(frameworks_markdown());
      return;
    }
    print_report(frameworks_report(*show), *out);
  });
}

void add_engines_command(CLI::App& app) {
  auto out = std::make_shared<OutputOptions>();
  auto show = std::make_shared<std::string>();
  auto docs = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("engines",
                                     help_text("List the serving-engine profiles (what vLLM, SGLang, TensorRT-LLM, LMDeploy ... do by default at each version), "
                                               "or show one with sources (gpuplan engines vllm@0.6.3)",
                                               "列出推理引擎配置（vLLM、SGLang、TensorRT-LLM、LMDeploy 等各版本的默认行为），或带出处查看其中一个"
                                               "（gpuplan engines vllm@0.6.3）"));
  cmd->add_option("engine", *show, help_text("An engine as NAME[@VERSION]", "推理引擎，写作 名称[@版本]"));
  cmd->add_flag("--docs", *docs, help_text("Print docs/engines.md (every engine version's properties, each with its source)",
                                           "输出 docs/engines.md（每个引擎版本的属性，每项附出处）"));
  add_output_options(cmd, out.get());
  cmd->callback([out, show, docs] {
    if (*docs) {
      emit(engines_markdown());
      return;
    }
    print_report(engines_report(*show), *out);
  });
}

void add_gpus_command(CLI::App& app) {
  auto out = std::make_shared<OutputOptions>();
  auto show = std::make_shared<std::string>();
  auto market = std::make_shared<MarketFlags>();
  CLI::App* cmd = app.add_subcommand("gpus", help_text("List the built-in GPUs with dense peaks and a market's default prices, or show one with sources and every price listing",
      "列出内置 GPU 的稠密峰值与所选市场的默认价格，或带出处与全部报价查看其中一个"));
  cmd->add_option("gpu", *show, help_text("A GPU id or alias to describe", "要查看的 GPU id 或别名"));
  add_market_flags(cmd, market.get(), false);
  add_output_options(cmd, out.get());
  cmd->callback([out, show, market] {
    load_gpu_file(*out);
    PriceInput pi;
    apply_market_flags(*market, *out, &pi);
    print_report(gpus_report(*show, *pi.market, result_currency(pi, market_currency(*pi.market))), *out);
  });
}

}  // namespace gpuplan::cli
