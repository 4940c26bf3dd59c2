// A planned layout written as the launch configuration of the tools that run it.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "gpuplan/framework.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

// Megatron-LM command-line arguments (megatron/training/arguments.py names),
// one flag and its value per line: parallel degrees, batch, sequence
// parallelism, recompute, optimizer sharding, precision and the architecture.
std::string megatron_arguments(const ModelSpec& model, const Layout& layout);

// The parallel degrees a DeepSpeed config can hold, by the DeepSpeed that reads it.
struct DeepSpeedConfigKeys {
  bool autotp = false;            // "tensor_parallel": {"autotp_size": tp}, AutoTP training (DeepSpeed >= 0.16.4)
  bool sequence_parallel = false; // "sequence_parallel_size" / "data_parallel_size", Ulysses' mesh (DeepSpeed >= 0.15.0)
};
// What the config of `runner` (a DeepSpeed or Megatron-DeepSpeed profile) can hold.
DeepSpeedConfigKeys deepspeed_config_keys(const FrameworkProfile& runner);

// A DeepSpeed config (deepspeed.ai/docs/config-json): batch sizes, precision, ZeRO, offload,
// and TP / CP where `keys` says the reading DeepSpeed takes them from the config.
// train_batch_size = train_micro_batch_size_per_gpu × gradient_accumulation_steps × dp.
nlohmann::json deepspeed_config(const Layout& layout, DeepSpeedConfigKeys keys = {});

// Why a DeepSpeed config for `runner` cannot carry this layout (its pipeline
// stages, or TP / CP the config has no key for), naming what to use instead;
// empty when the config carries the whole layout.
std::string deepspeed_config_gap(const Layout& layout, const FrameworkProfile& runner);

// A torchtitan job config in TOML (torchtitan/config/job_config.py section and key names).
std::string torchtitan_toml(const ModelSpec& model, const Layout& layout);

}  // namespace gpuplan
