// A planned layout written as the launch configuration of the tools that run it.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

// Megatron-LM command-line arguments (megatron/training/arguments.py names),
// one flag and its value per line: parallel degrees, batch, sequence
// parallelism, recompute, optimizer sharding, precision and the architecture.
std::string megatron_arguments(const ModelSpec& model, const Layout& layout);

// A DeepSpeed config (deepspeed.ai/docs/config-json): batch sizes, precision, ZeRO, offload.
// train_batch_size = train_micro_batch_size_per_gpu × gradient_accumulation_steps × dp.
nlohmann::json deepspeed_config(const Layout& layout);

// A torchtitan job config in TOML (torchtitan/config/job_config.py section and key names).
std::string torchtitan_toml(const ModelSpec& model, const Layout& layout);

}  // namespace gpuplan
