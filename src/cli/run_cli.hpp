// The whole command line, callable in-process: parse argv, run the subcommand,
// turn bad input into one sentence and exit status 2. main() is a thin caller;
// the CLI fuzz harness (fuzz/fuzz_cli.cpp) and tests call it directly.
#pragma once
#include <string>

namespace gpuplan::cli {

// Runs `gpuplan argv[1..]`. With `out`/`err` non-null, what the command would
// print to stdout/stderr is appended there instead. Returns the exit status:
// 0 success, 2 bad input, 1 internal error.
int run_cli(int argc, char** argv, std::string* out = nullptr, std::string* err = nullptr);

}  // namespace gpuplan::cli
