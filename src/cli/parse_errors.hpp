// CLI11's parse errors (an unknown flag, a missing value, a value of the wrong
// type) in Chinese, for --lang zh. CLI11 builds its messages in English inside
// the library; the kind of error is its exception type and the names are in
// its fixed sentence patterns (CLI11 2.1, CLI/Error.hpp), so each kind is
// re-said here from those parts. A message of a shape not known here keeps
// CLI11's English after a Chinese lead-in rather than being guessed at.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

namespace gpuplan::cli {

// One Chinese sentence (ending in 。) for a CLI11 parse error.
std::string parse_error_zh(const CLI::ParseError& e);

}  // namespace gpuplan::cli
