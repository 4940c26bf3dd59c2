// Each command's declared inputs (declared_inputs.hpp), and sentences in
// request keys (gpuplan/error.hpp): the inputs layer knows every input each
// command declares, so it alone can tell gpuplan's own --seq-len from a
// Megatron flag a sentence quotes.
#include "inputs/declared_inputs.hpp"

#include <set>
#include <string>

#include "gpuplan/error.hpp"
#include "inputs/command_inputs.hpp"
#include "inputs/finetune_inputs.hpp"
#include "inputs/infer_inputs.hpp"
#include "inputs/input_info.hpp"

namespace gpuplan {

std::vector<DeclaredInputs> declared_inputs() {
  auto list = [](const std::string& command, auto inputs, auto visit) {
    DeclaredInputs d{command, {}};
    visit(inputs, [&d](const InputInfo& input, auto&) { d.inputs.push_back(input); });
    return d;
  };
  // A generic lambda per visitor: a function template cannot be passed by name.
  return {list("train", TrainInputs{}, [](auto& in, auto&& v) { visit_train_inputs(in, v); }),
          list("memory", MemoryInputs{}, [](auto& in, auto&& v) { visit_memory_inputs(in, v); }),
          list("calibrate", CalibrateInputs{}, [](auto& in, auto&& v) { visit_calibrate_inputs(in, v); }),
          list("plan", PlanInputs{}, [](auto& in, auto&& v) { visit_plan_inputs(in, v); }),
          list("infer", InferInputs{}, [](auto& in, auto&& v) { visit_infer_inputs(in, v); }),
          list("finetune", FinetuneInputs{}, [](auto& in, auto&& v) { visit_finetune_inputs(in, v); })};
}

namespace {

std::set<std::string> every_request_key() {
  std::set<std::string> keys;
  for (const DeclaredInputs& d : declared_inputs()) {
    for (const InputInfo& info : d.inputs) keys.insert(input_key(info));
  }
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
