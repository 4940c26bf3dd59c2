// Sentences in request keys (gpuplan/error.hpp): the inputs layer knows every
// input each command declares (visit_*_inputs), so it alone can tell gpuplan's
// own --seq-len from a Megatron flag a sentence quotes.
#include <set>
#include <string>

#include "gpuplan/error.hpp"
#include "inputs/command_inputs.hpp"
#include "inputs/finetune_inputs.hpp"
#include "inputs/infer_inputs.hpp"
#include "inputs/input_info.hpp"

namespace gpuplan {

namespace {

std::set<std::string> every_request_key() {
  std::set<std::string> keys;
  const auto add = [&keys](const InputInfo& info, auto&) { keys.insert(input_key(info)); };
  TrainInputs train;
  visit_train_inputs(train, add);
  MemoryInputs memory;
  visit_memory_inputs(memory, add);
  CalibrateInputs calibrate;
  visit_calibrate_inputs(calibrate, add);
  PlanInputs plan;
  visit_plan_inputs(plan, add);
  InferInputs infer;
  visit_infer_inputs(infer, add);
  FinetuneInputs finetune;
  visit_finetune_inputs(finetune, add);
  // The keys a request names besides the declared inputs (inputs/json_inputs.cpp:
  // the model, a pasted config, a GPU file, a calibration, plan's export,
  // calibrate's save, validate's and the catalogs' keys).
  for (const char* k : {"model", "params", "config", "gpu_file", "calibration", "export", "rank", "save", "file", "kind", "interval",
                        "derive_intervals", "framework", "engine"}) {
    keys.insert(k);
  }
  return keys;
}

bool flag_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

}  // namespace

std::string in_request_keys(const std::string& sentence) {
  static const std::set<std::string> keys = every_request_key();
  std::string out;
  out.reserve(sentence.size());
  size_t i = 0;
  while (i < sentence.size()) {
    // A flag starts at "--" + a letter, not inside a word or a longer dash run.
    const bool starts = sentence.compare(i, 2, "--") == 0 && i + 2 < sentence.size() && sentence[i + 2] >= 'a' &&
                        sentence[i + 2] <= 'z' && (i == 0 || !(flag_char(sentence[i - 1]) || sentence[i - 1] == '_'));
    if (!starts) {
      out += sentence[i++];
      continue;
    }
    size_t end = i + 2;
    while (end < sentence.size() && flag_char(sentence[end])) ++end;
    while (end > i + 3 && sentence[end - 1] == '-') --end;  // "--tp-" of "--tp--" is not a flag's end
    const std::string key = InputError::request_key(sentence.substr(i, end - i));
    out += keys.count(key) ? key : sentence.substr(i, end - i);
    i = end;
  }
  return out;
}

std::string what_in_request_keys(const InputError& e) { return in_request_keys(e.what()); }
std::string zh_in_request_keys(const InputError& e) { return in_request_keys(e.zh()); }

}  // namespace gpuplan
