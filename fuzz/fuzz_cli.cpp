// Fuzz target: the command line, in-process (gpuplan::cli::run_cli). The input is
// an argument list, one argument per line (or NUL-separated); "gpuplan" is put in
// front. Every run must end with status 0 (success) or 2 (bad input, one
// sentence on stderr); status 1 (an internal error), a crash, UB, a hang, or
// "nan"/"inf" in the output is a bug.
//
// Not fuzzed: `gpuplan web` (it starts a server) and arguments naming files
// outside the working directory (a path with '/'), so the fuzzer neither serves
// sockets nor reads /dev/zero.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/run_cli.hpp"
#include "fuzz_check.hpp"

namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// "nan" or "inf" (and, for arguments, "infinity", which CLI11 reads as a number)
// as a whole word, any case. Output may say "Infinity" (AMD's Infinity Fabric);
// a non-finite double prints as "inf" or "nan" (and as null in JSON).
bool has_non_finite_word(const std::string& text, bool infinity_too) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_word_char(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && is_word_char(text[j])) ++j;
    std::string w = text.substr(i, j - i);
    for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (w == "nan" || w == "inf" || (infinity_too && w == "infinity")) return true;
    i = j;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const gpuplan::fuzz::CpuBudget budget;  // the timing build: over 1 s of CPU is a finding
  std::vector<std::string> args{"gpuplan"};
  std::string cur;
  for (size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n' || c == '\0') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) args.push_back(cur);
  if (args.size() > 64) return 0;
  for (const std::string& a : args) {
    if (a == "web" || a.find('/') != std::string::npos) return 0;
    // The arguments themselves may say nan or inf; only what gpuplan adds counts.
    if (has_non_finite_word(a, true)) return 0;
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string out, err;
  const int rc = gpuplan::cli::run_cli(static_cast<int>(args.size()), argv.data(), &out, &err);
  if (rc != 0 && rc != 2) gpuplan::fuzz::fail("exit status " + std::to_string(rc) + ": " + err);
  if (rc == 2 && err.empty()) gpuplan::fuzz::fail("exit status 2 without a message");
  if (has_non_finite_word(out, false)) gpuplan::fuzz::fail("non-finite number in the output:\n" + out);
  return 0;
}
