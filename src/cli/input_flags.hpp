// The CLI options of a command's declared inputs (inputs/input_info.hpp):
// each `visit_<command>_inputs(in, BindInputs{cmd})` adds one option per
// input, bound to its field by the field's type, with its help in the help
// language. The flags of every command come from here, so the CLI, the web
// API and the Python module (which reads the CLI's options) name the same inputs.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <type_traits>

#include "common.hpp"
#include "inputs/input_info.hpp"

namespace gpuplan::cli {

// An input's help line in the help language (the English where it has no Chinese).
std::string input_help(const InputInfo& input);
// The value's type as --help writes it, with the input's unit: "FLOAT (ratio)", "数值（比值）".
std::string input_type_name(const std::string& cli11_type, const char* unit);

struct BindInputs {
  CLI::App* cmd;

  // A bool is a switch; every other type an option taking a value. The
  // default is shown where it says something: a set number other than an
  // integer 0 (which means "chosen for you": --global-batch, --tp of plan),
  // a non-empty text (bf16); never for an optional (unset by default).
  template <class T>
  void operator()(const InputInfo& input, T& field) const {
    if constexpr (std::is_same_v<T, bool>) {
      cmd->add_flag(input.flags, field, input_help(input));
    } else {
      CLI::Option* o = cmd->add_option(input.flags, field, input_help(input));
      if (*input.unit) o->type_name(input_type_name(o->get_type_name(), input.unit));
      if constexpr (std::is_floating_point_v<T>) {
        o->capture_default_str();
      } else if constexpr (std::is_integral_v<T>) {
        if (field != 0) o->capture_default_str();
      } else if constexpr (std::is_same_v<T, std::string>) {
        if (!field.empty()) o->capture_default_str();
      }
    }
  }
};

// --model (and, where the command takes a bare count instead, --params).
void add_model_flag(CLI::App* cmd, std::string* model);
void add_params_flag(CLI::App* cmd, std::optional<std::string>* params, const char* help_en, const char* help_zh);

}  // namespace gpuplan::cli
