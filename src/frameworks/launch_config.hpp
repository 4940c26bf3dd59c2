// A planned layout written as the launch configuration of the tools that run it.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuplan/bilingual.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

// Megatron-LM command-line arguments (megatron/training/arguments.py names),
// one flag and its value per line: parallel degrees, batch, sequence
// parallelism, recompute, optimizer sharding, precision and the architecture.
// `dialect`: the Megatron-based stack that reads them. kMindSpeedLlm is
// MindSpeed-LLM 2.1.0 on Megatron core_r0.8.0 (Ascend/MindSpeed-LLM@v2.1.0
// mindspeed_llm/training/arguments.py): an uneven split as --num-layer-list,
// its NPU fused kernels, the context-parallel algorithm gpuplan timed.
enum class MegatronDialect { kMegatronLm, kMindSpeedLlm };
// `runner`: the Megatron-LM release that reads them, where its flags are known
// (data/exports/megatron-lm-arguments.json): sharded data parallelism is then
// written in the flags that release has; nullptr: the newest release's flags.
std::string megatron_arguments(const ModelSpec& model, const Layout& layout, MegatronDialect dialect = MegatronDialect::kMegatronLm,
                               const FrameworkProfile* runner = nullptr);

// Why `dialect`'s arguments cannot carry this layout; empty when they can.
// MindSpeed-LLM 2.1.0's Megatron core_r0.8.0 interleaves only by
// --num-layers-per-virtual-pipeline-stage (equal chunks) and its
// --num-layer-list does not combine with virtual stages.
// With `runner`, also a sharding its release cannot run (ZeRO-2/3 before
// Megatron's FSDP implementations; FSDP2 with PP or EP).
Reason megatron_arguments_gap(const ModelSpec& model, const Layout& layout, MegatronDialect dialect, const FrameworkProfile* runner = nullptr);

// Megatron's embedding and output layer hold the tokenizer's vocabulary padded
// to a multiple of --make-vocab-size-divisible-by × TP
// (megatron/training/tokenizer/tokenizer.py _vocab_size_with_padding; the flag
// defaults to 128): Llama 3's 128,256 at TP 8 became 129,024. The export sets
// the largest power of two up to 128 whose multiple with TP divides the
// model's vocabulary, so the model built is the one planned; where TP does not
// divide it (GPT-3's 50,257), 1, and Megatron adds the fewest rows it must.
struct MegatronVocab {
  int64_t divisible_by = 128;
  int64_t padded = 0;  // the rows Megatron builds
};
MegatronVocab megatron_vocab(const ModelSpec& model, const Layout& layout);

// The flags of `arguments` (megatron_arguments' text) that the parser of
// `runner`'s release does not take, as one sentence naming them and the file and
// commit they were checked against (data/exports/megatron-lm-arguments.json);
// empty when every flag is known, or when `runner` is not a Megatron-LM release
// gpuplan has the parser's flags for.
Reason megatron_arguments_unknown(const std::string& arguments, const FrameworkProfile& runner);

// The machines a launch spans: whole nodes of the GPU's node size, or one
// machine with fewer GPUs than that.
struct LaunchShape {
  int64_t nodes = 1;
  int gpus_per_node = 8;
};
LaunchShape launch_shape(int64_t gpus, int gpus_per_node);

// The command that starts the configuration saved as `file_name` (`format`:
// megatron, deepspeed, torchtitan, megatron-bridge, nemo, megatron-deepspeed, gpt-neox; `recipe`: the
// recipe the overrides start from) on `shape`, as `runner`'s own launch scripts
// start it; placeholders in capitals for what gpuplan does not plan (data,
// tokenizer, hosts). Empty for a format without one.
std::string launch_command(const std::string& format, const FrameworkProfile& runner, const LaunchShape& shape, const std::string& file_name,
                           const std::string& recipe = "");

// MindSpeed-LLM 2.1.0's flags for the same run (src/frameworks/export_mindspeed.cpp):
// its own spellings of Llama 3's RoPE scaling, multi-latent attention, shared
// experts, DeepSeek's router and YaRN; its layer specs; no-op layers where an
// uneven split meets dense and MoE layers. megatron_arguments(..., kMindSpeedLlm) calls it.
std::string mindspeed_arguments(const ModelSpec& model, const Layout& layout);
// What MindSpeed-LLM 2.1.0 cannot run of the layout; empty when it can.
Reason mindspeed_arguments_gap(const ModelSpec& model, const Layout& layout);

// A launch configuration as dotted overrides of a recipe (src/frameworks/export_overrides.cpp):
// Megatron-Bridge's run_recipe.py and NeMo's `nemo llm pretrain` / megatron_gpt_pretraining.py
// take `key=value` words after the recipe they start from ("+key=value": a key
// NeMo 24.07's YAML lacks but its code reads).
struct OverrideLine {
  std::string key, value;
};
struct OverrideExport {
  std::string recipe;               // --recipe / --factory; empty for NeMo 24.07 (its YAML)
  std::vector<OverrideLine> lines;
  std::vector<Bilingual> notes;     // what the overrides cannot say
};
// Megatron-Bridge 0.6.0: the parallel layout, batch, recompute, sharding,
// precision, overlaps and every architecture field under the chosen recipe.
OverrideExport megatron_bridge_overrides(const ModelSpec& model, const Layout& layout);
Reason megatron_bridge_gap(const ModelSpec& model, const Layout& layout);
// NeMo: 24.07's Hydra keys over megatron_gpt_config.yaml, 2.x's NeMo-Run
// overrides of a recipe (by runner's version).
OverrideExport nemo_overrides(const ModelSpec& model, const Layout& layout, const FrameworkProfile& runner);
Reason nemo_gap(const ModelSpec& model, const Layout& layout, const FrameworkProfile& runner);
// The keys of `overrides` that `runner`'s version does not read, as one
// sentence naming them and the file and commit checked against
// (data/exports/megatron-bridge-config-keys.json, nemo-config-keys.json).
Reason overrides_unknown(const OverrideExport& overrides, const FrameworkProfile& runner);
// One `key=value` per line.
std::string overrides_text(const OverrideExport& overrides);

// Megatron-DeepSpeed (src/frameworks/export_deepspeed_stacks.cpp): its
// Megatron-style arguments in each version's spelling (bigscience 2022,
// microsoft 2024), what a version cannot build or run, a bash script that writes
// the DeepSpeed JSON beside them and starts `deepspeed pretrain_gpt.py`, and the
// flags its parser does not take (data/exports/megatron-deepspeed-arguments.json).
Reason megatron_deepspeed_gap(const ModelSpec& model, const Layout& layout, const FrameworkProfile& runner);
std::vector<std::string> megatron_deepspeed_arguments(const ModelSpec& model, const Layout& layout, const FrameworkProfile& runner);
std::string megatron_deepspeed_script(const std::vector<std::string>& arguments, const std::string& ds_config, const LaunchShape& shape,
                                      const FrameworkProfile& runner);
Reason megatron_deepspeed_unknown(const std::vector<std::string>& arguments, const FrameworkProfile& runner);
// GPT-NeoX v2.0: the NeoXArgs YAML of the layout and model (key: value lines),
// what it cannot build, and the keys its NeoXArgs lack (data/exports/gpt-neox-config-keys.json).
Reason neox_gap(const ModelSpec& model, const Layout& layout, const FrameworkProfile& runner);
std::vector<OverrideLine> neox_config(const ModelSpec& model, const Layout& layout, const LaunchShape& shape);
std::string neox_yaml(const std::vector<OverrideLine>& config, const FrameworkProfile& runner);
Reason neox_unknown(const std::vector<OverrideLine>& config, const FrameworkProfile& runner);

// The dialect of a Megatron-argument stack's profile.
MegatronDialect megatron_dialect(const FrameworkProfile& runner);

// The parallel degrees a DeepSpeed config can hold, by the DeepSpeed that reads it.
struct DeepSpeedConfigKeys {
  bool autotp = false;            // "tensor_parallel": {"autotp_size": tp}, AutoTP training (DeepSpeed >= 0.16.4)
  bool sequence_parallel = false; // "sequence_parallel_size" / "data_parallel_size", Ulysses' mesh (DeepSpeed >= 0.15.0)
  bool bf16 = true;               // a "bf16" section (DeepSpeed >= 0.6.0)
};
// What the config of `runner` (a DeepSpeed or Megatron-DeepSpeed profile) can hold.
DeepSpeedConfigKeys deepspeed_config_keys(const FrameworkProfile& runner);

// The DeepSpeed release whose config reader checks `runner`'s DeepSpeed export:
// DeepSpeed itself, or for a stack that takes a DeepSpeed config the newest
// release gpuplan has read at or below its deepspeed_release pin (unpinned:
// dated at or before the stack's version). nullptr: none.
const FrameworkProfile* deepspeed_reading(const FrameworkProfile& runner);

// A DeepSpeed config (deepspeed.ai/docs/config-json): batch sizes, precision, ZeRO, offload,
// and TP / CP where `keys` says the reading DeepSpeed takes them from the config.
// train_batch_size = train_micro_batch_size_per_gpu × gradient_accumulation_steps × dp.
nlohmann::json deepspeed_config(const Layout& layout, DeepSpeedConfigKeys keys = {});

// Why a DeepSpeed config for `runner` cannot carry this layout (its pipeline
// stages, or TP / CP the config has no key for), naming what to use instead;
// empty when the config carries the whole layout.
Reason deepspeed_config_gap(const Layout& layout, const FrameworkProfile& runner);

// The keys of `config` (deepspeed_config's output) that `runner`'s DeepSpeed
// does not read (data/exports/deepspeed-config-keys.json, extracted from its
// source at the tag), as one sentence naming them and the commit; empty when
// every key is known or `runner` is not a DeepSpeed version with known keys.
Reason deepspeed_config_unknown(const nlohmann::json& config, const FrameworkProfile& runner);

// A torchtitan job config in TOML (torchtitan/config/job_config.py section and key names).
// `runner`: the torchtitan version that reads it, where its keys are known
// (data/exports/torchtitan-config-keys.json): the float8 section is named as
// that version names it.
std::string torchtitan_toml(const ModelSpec& model, const Layout& layout, const FrameworkProfile* runner = nullptr);

// The keys of `toml` (torchtitan_toml's text) that `runner`'s job config does not
// have, as one sentence naming them and the file and commit they were checked
// against; or that `runner` reads no TOML at all. Empty when every key is known
// or `runner` is not a torchtitan version gpuplan has the keys for.
Reason torchtitan_toml_unknown(const std::string& toml, const FrameworkProfile& runner);

// The newest torchtitan version whose loader reads TOML job configs: the reader
// of an export from a plan that named no torchtitan version.
const FrameworkProfile& torchtitan_toml_reader();

}  // namespace gpuplan
