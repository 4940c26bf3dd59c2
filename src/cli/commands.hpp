// Registration of every subcommand. Each add_* lives in cmd_<name>.cpp.
#pragma once
#include <CLI/CLI.hpp>

namespace gpuplan::cli {

void add_train_command(CLI::App& app);
void add_models_command(CLI::App& app);
void add_gpus_command(CLI::App& app);
void add_frameworks_command(CLI::App& app);
void add_engines_command(CLI::App& app);
void add_memory_command(CLI::App& app);
void add_web_command(CLI::App& app);
void add_plan_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_infer_command(CLI::App& app);
void add_finetune_command(CLI::App& app);

inline void register_commands(CLI::App& app) {
  add_train_command(app);
  add_models_command(app);
  add_gpus_command(app);
  add_frameworks_command(app);
  add_engines_command(app);
  add_memory_command(app);
  add_web_command(app);
  add_plan_command(app);
  add_validate_command(app);
  add_calibrate_command(app);
  add_infer_command(app);
  add_finetune_command(app);
}

}  // namespace gpuplan::cli
