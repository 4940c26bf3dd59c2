// The whole command line, callable in-process: parse argv, run the subcommand,
// turn bad input into one sentence and exit status 2. main() is a thin caller;
// the CLI fuzz harness (fuzz/fuzz_cli.cpp), tests and the Python module
// (python/gpuplan_module.cpp) call it directly.
#pragma once
#include <string>
#include <vector>

#include "inputs/declared_inputs.hpp"

namespace gpuplan::cli {

// Runs `gpuplan argv[1..]`. With `out`/`err` non-null, what the command would
// print to stdout/stderr is appended there instead. Returns the exit status:
// 0 success, 2 bad input, 1 internal error.
int run_cli(int argc, char** argv, std::string* out = nullptr, std::string* err = nullptr);

// Runs `gpuplan args...` (no program name) and appends what it prints to *out.
// Bad input throws gpuplan::InputError with the sentence run_cli prints after
// "error: "; a CLI11 parse error (an unknown option, a value of the wrong type)
// becomes an InputError naming the option. Help and version requests are bad
// input here: they print nothing useful to a caller that wants a result.
void run_command(const std::vector<std::string>& args, std::string* out);

// One option of a subcommand, as the CLI declares it (src/cli/cmd_*.cpp).
// The Python module builds its functions' keyword arguments from these, so a
// flag added to the CLI is a keyword argument there without a second list.
struct OptionSpec {
  std::string name;         // "--seq-len", or the positional's name ("file")
  bool positional = false;
  bool flag = false;        // a switch: present or not
  bool repeatable = false;  // may be given more than once (--phase)
  bool required = false;
  std::string type;         // CLI11's type name: TEXT, INT, FLOAT, UINT, ...
  std::string default_text; // the default as --help shows it, empty when none is stated
  std::string help;
};

struct CommandSpec {
  std::string name;         // "train"
  std::string help;         // the subcommand's description
  std::vector<OptionSpec> options;
};

// Every subcommand and its options, in the order --help lists them.
std::vector<CommandSpec> command_specs();

// Each command's declared inputs (inputs/declared_inputs.hpp), under the names the tests and Python call them by.
using gpuplan::DeclaredInputs;
using gpuplan::declared_inputs;

}  // namespace gpuplan::cli
