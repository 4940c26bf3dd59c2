// Small helpers several test files share (one definition: the optimised
// build compiles the tests as unity batches, scripts/check-unity-names.py).
#pragma once
#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace gpuplan_test {

// `got` within a relative `tolerance` of `want` (0.005: ±0.5%).
inline void expect_within(double got, double want, double tolerance) {
  EXPECT_NEAR(got / want, 1.0, tolerance) << "got " << got << ", want " << want;
}

// Writes `content` to `name` in GoogleTest's temporary directory; returns the path.
inline std::string temp_file(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << content;
  return path;
}

// `text` holds `line` followed by a newline (a flag and its value in an export).
inline bool has_line(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

}  // namespace gpuplan_test
