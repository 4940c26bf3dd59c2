// A command's inputs from a JSON object whose keys are its flags ("--seq-len"
// is "seq_len"), read from the same declarations (visit_*_inputs) the CLI
// binds its flags from, checked and turned into requests by the same library
// functions, and run to the command's report: the object
// `gpuplan <command> --format json` prints is to_json() of it. The web API
// (src/web/api.cpp) and the Python module (python/_gpuplan.cpp) call it; the
// Python module so, and not through CLI11 (issue 31).
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "gpuplan/launch_config.hpp"
#include "report/report.hpp"

namespace gpuplan {

// Who sent the object, which decides what it may name besides the declared inputs.
enum class JsonCaller {
  // A web page: a model is a catalog id ("model"), a bare parameter count
  // ("params") or a pasted config.json object ("config"); a calibration is the
  // object `gpuplan calibrate --save` writes; no key names a file; a plan
  // compares at most 8 GPU type × count pairs (the server's threads).
  kWeb,
  // A program on this machine (the Python module), as the CLI: "model" may be
  // a config.json file or folder, "gpu_file" adds or overrides GPUs for this
  // call only, "calibration" is the path of a calibrate --save file.
  kLocal,
};

// The commands report_from_json runs: train, memory, plan, infer, finetune.
bool is_json_command(const std::string& command);

// The report of `command` for these inputs. Bad input throws InputError whose
// field() is the request key ("seq_len"); its sentence names inputs as the
// command line does until a front end renders it with in_request_keys(); a key
// no input reads is bad input.
Report report_from_json(const std::string& command, const nlohmann::json& request, JsonCaller caller);

// The JSON document `gpuplan <command> --format json` prints, for every
// command with a result: the five above, calibrate, validate (a local caller's
// file only), models, gpus, frameworks and engines. What the Python module
// calls: no command-line parser, no state between calls.
nlohmann::json document_from_json(const std::string& command, const nlohmann::json& request, JsonCaller caller);

// The launch configuration `gpuplan plan ... --export TO --rank N` prints, from
// the plan's keys and "export" (TO; absent or "": the framework's own format)
// and "rank" (N, default 1). Bad input throws InputError as report_from_json.
LaunchConfig launch_config_from_json(const nlohmann::json& request, JsonCaller caller);

// "a string", "a number", ...: a JSON value's type in an error sentence (and 字符串, 数字, ...).
const char* json_type_name(const nlohmann::json& v);
const char* json_type_name_zh(const nlohmann::json& v);

}  // namespace gpuplan
