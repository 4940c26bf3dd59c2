// A planned layout written as the launch configuration of the tools that run it.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

// Megatron-LM command-line arguments (megatron/training/arguments.py names).
std::string megatron_arguments(const ModelSpec& model, const Layout& layout);

// A DeepSpeed config (deepspeed.ai/docs/config-json): batch sizes, precision, ZeRO, offload.
nlohmann::json deepspeed_config(const Layout& layout);

// A torchtitan job config in TOML (torchtitan/config/job_config.py section and key names).
std::string torchtitan_toml(const ModelSpec& model, const Layout& layout);

}  // namespace gpuplan
