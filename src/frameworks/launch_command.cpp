// The command line that starts an exported configuration on the planned nodes
// (issue 29: "the launch line (nodes × GPUs per node) beside it"). Each form is
// the one the stack's own launch scripts use, cited beside it; what gpuplan does
// not plan (data, tokenizer, hosts) stays an upper-case placeholder to fill in.
#include <fmt/format.h>

#include <algorithm>

#include "frameworks/launch_config.hpp"

namespace gpuplan {

namespace {

// torchrun's static rendezvous over `nodes` machines, written as Megatron-LM's
// examples write it (examples/gpt3/train_gpt3_175b_distributed.sh @core_v0.14.0
// l.21-26: --nproc_per_node, --nnodes, --master_addr, --master_port); with more
// than one node each machine runs it with its own --node_rank.
std::string torchrun(const LaunchShape& s) {
  std::string t = fmt::format("torchrun --nproc_per_node {} --nnodes {}", s.gpus_per_node, s.nodes);
  if (s.nodes > 1) t += " --node_rank $NODE_RANK --master_addr $MASTER_ADDR --master_port $MASTER_PORT";
  return t;
}

}  // namespace

LaunchShape launch_shape(int64_t gpus, int gpus_per_node) {
  LaunchShape s;
  const int64_t per_node = std::max<int64_t>(1, gpus_per_node);
  s.gpus_per_node = static_cast<int>(std::min(gpus, per_node));
  s.nodes = (gpus + per_node - 1) / per_node;
  return s;
}

std::string launch_command(const std::string& format, const FrameworkProfile& runner, const LaunchShape& shape, const std::string& file_name,
                           const std::string& recipe) {
  // The override files hold one key=value a line; bash's mapfile passes each line
  // as one argument, quotes and all, as Hydra and NeMo-Run expect them.
  const std::string read = fmt::format("mapfile -t OVERRIDES < {} && ", file_name);
  if (format == "megatron-bridge") {
    // NVIDIA-NeMo/Megatron-Bridge@v0.6.0 scripts/training/run_recipe.py l.168-176 (--recipe, --mode),
    // trailing KEY=VALUE overrides (l.263-272), under torchrun (docs/recipe-usage.md l.170-188).
    return fmt::format("{}{} scripts/training/run_recipe.py --recipe {} --mode pretrain \"${{OVERRIDES[@]}}\"", read, torchrun(shape), recipe);
  }
  if (format == "nemo" && recipe.empty()) {
    // NeMo 24.07: one process per GPU (srun --ntasks-per-node), Hydra overrides after the script
    // (NVIDIA/NeMo@579983fb examples/nlp/language_modeling/megatron_gpt_pretraining.py l.35).
    return fmt::format("{}srun --nodes {} --ntasks-per-node {} python3 examples/nlp/language_modeling/megatron_gpt_pretraining.py "
                       "\"${{OVERRIDES[@]}}\" $DATA_AND_TOKENIZER_OVERRIDES", read, shape.nodes, shape.gpus_per_node);
  }
  if (format == "nemo") {
    // NeMo 2: NeMo-Run's CLI runs the recipe in-process, so srun starts one per GPU
    // (NVIDIA/NeMo@1b067109 nemo/collections/llm/api.py l.141-149; NeMo-Run v0.4.0 nemo_run/cli/api.py l.870-891, l.1046-1052).
    return fmt::format("{}srun --nodes {} --ntasks-per-node {} nemo llm pretrain --factory {} --yes \"${{OVERRIDES[@]}}\"", read, shape.nodes,
                       shape.gpus_per_node, recipe);
  }
  if (format == "megatron") {
    // Megatron-LM and MindSpeed-LLM both start pretrain_gpt.py under torchrun
    // (MindSpeed-LLM@v2.1.0 examples/mcore/*/pretrain_*.sh: torchrun $DISTRIBUTED_ARGS pretrain_gpt.py ...).
    // The data and tokenizer arguments are the user's.
    return fmt::format("{} pretrain_gpt.py $(< {}) $DATA_AND_TOKENIZER_ARGS", torchrun(shape), file_name);
  }
  if (format == "megatron-deepspeed") return "bash " + file_name;  // the script starts DeepSpeed's launcher itself
  if (format == "gpt-neox") {
    // EleutherAI/gpt-neox@v2.0 README.md l.219-237: deepy.py merges the YAMLs (the user's data, tokenizer and
    // optimizer beside this one); -H names the hosts.
    return fmt::format("python ./deepy.py train.py{} {} DATA_TOKENIZER_AND_OPTIMIZER.yml", shape.nodes > 1 ? " -H HOSTFILE" : "", file_name);
  }
  if (format == "torchtitan") {
    // torchtitan's run script: `train.py --job.config_file` until 2025-02
    // (run_llama_train.sh @3f20451b l.23-25), `-m torchtitan.train` from 2025-04
    // (run_train.sh @bbb1b616 l.26-28, @e5ef99aa l.22-24).
    const bool module = runner.version >= "2025-04";
    return fmt::format("{} {} --job.config_file {}", torchrun(shape), module ? "-m torchtitan.train" : "train.py", file_name);
  }
  if (format == "deepspeed") {
    // DeepSpeed's own launcher (deepspeed/launcher/runner.py --num_nodes, --num_gpus,
    // --hostfile) runs a script that takes the config as --deepspeed_config
    // (Megatron-DeepSpeed's pretrain_gpt.py with its Megatron arguments); Hugging
    // Face Trainer-based stacks take the file as TrainingArguments.deepspeed
    // (--deepspeed ds_config.json) under torchrun.
    if (runner.id == "deepspeed" || runner.id == "megatron-deepspeed") {
      const std::string hosts = shape.nodes > 1 ? " --hostfile HOSTFILE" : "";
      const std::string script = runner.id == "megatron-deepspeed" ? "pretrain_gpt.py $MEGATRON_ARGS $DATA_AND_TOKENIZER_ARGS" : "TRAIN_SCRIPT";
      return fmt::format("deepspeed --num_nodes {} --num_gpus {}{} {} --deepspeed --deepspeed_config {}", shape.nodes, shape.gpus_per_node,
                         hosts, script, file_name);
    }
    return fmt::format("{} TRAIN_SCRIPT --deepspeed {}", torchrun(shape), file_name);
  }
  return {};
}

}  // namespace gpuplan
