// The inputs of `gpuplan finetune` as a front end collects them, and the one
// place that checks them and builds the report: the CLI (src/cli/cmd_finetune.cpp)
// binds its flags to these fields, the web API's POST /api/finetune reads the
// request keys of the same names (`seq_len` is --seq-len).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "gpuplan/command_inputs.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/report.hpp"

namespace gpuplan {

struct FinetuneInputs {
  std::string model;                    // --model: catalog id, alias or config.json path
  std::optional<ModelSpec> model_spec;  // instead: a model the front end built (the web's pasted config.json)
  std::string gpu;
  std::string method = "lora";          // full, lora or qlora
  std::optional<int64_t> rank;          // unset: 8 for LoRA, 64 for QLoRA
  std::string modules;                  // empty: q,k,v,o for LoRA, all for QLoRA
  int64_t seq_len = 2048;               // tokens per sample
  int64_t micro_batch = 1;
  int64_t global_batch = 0;             // 0: micro-batch × GPUs
  std::optional<std::string> samples;   // 50k, 5万; unset (and no tokens): 1,000
  std::optional<std::string> tokens;    // instead of samples: dataset tokens per epoch (samples = tokens / seq_len)
  double epochs = 1;
  std::optional<int64_t> gpus;          // unset: the smallest count that fits (that meets --deadline, with one)
  std::optional<std::string> deadline;  // 3d, 12h, 1周: the GPU count finishing by then (with --gpus: a check)
  std::string optimizer;                // empty: adamw (paged_adamw8bit for QLoRA)
  std::optional<std::string> precision; // unset: bf16, fp16 on a GPU without bf16
  bool no_checkpointing = false;
  std::optional<int> zero;              // unset: 3 on more than one GPU
  bool force = false;
  bool no_ranking = false;
  std::optional<std::string> price;
  // --market cn|us (unset: from lang), --provider, --currency usd|cny.
  std::optional<std::string> market, provider, currency;
  std::string lang = "en";              // --lang: picks the default market (zh: cn)
  FrameworkInputs software;
};

// Checks the inputs (InputError naming the flag), estimates the fine-tune on
// the chosen or smallest fitting GPU count and returns its report. A job that
// fits on no count up to 1,024 (or misses --deadline on every count) is an
// InputError with one sentence saying what to change.
Report finetune_report_for(const FinetuneInputs& in);

}  // namespace gpuplan
