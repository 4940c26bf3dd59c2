// Runs the gpuplan binary under test as a user would (through the shell) and
// returns its exit status and output. Shared by the tests that drive the CLI.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>

#include <array>
#include <cstdio>
#include <string>

namespace gpuplan_test {

struct Result {
  int status = -1;
  std::string out;
};

// `redirect` says what happens to stderr: "2>&1" keeps it in `out`, "2>/dev/null" drops it.
// `env`: variables set for this run only ("GPUPLAN_LANG=zh LANG=C").
inline Result run_binary(const std::string& args, const char* redirect = "2>&1", const std::string& env = "") {
  const std::string cmd = (env.empty() ? "" : "env " + env + " ") + std::string(GPUPLAN_BINARY) + " " + args + " " + redirect;
  Result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// stdout alone (stderr dropped): what a script piping the output reads.
inline Result run_stdout(const std::string& args) { return run_binary(args, "2>/dev/null"); }

// The CLI's bad-input contract: exit status 2 and one line naming `field`
// (and `also`, where given), never an internal error.
inline void expect_input_error(const std::string& args, const std::string& field, const std::string& also = "") {
  const Result r = run_binary(args, "2>&1");
  EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(field), std::string::npos) << args << "\n" << r.out;
  if (!also.empty()) EXPECT_NE(r.out.find(also), std::string::npos) << args << "\n" << r.out;
  EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "one sentence expected:\n" << r.out;
}

}  // namespace gpuplan_test
