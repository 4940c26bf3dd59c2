// Shared checks for the fuzz harnesses: a result that is not finite is a bug,
// reported by aborting so libFuzzer saves the input.
#pragma once
#include <cmath>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

namespace gpuplan::fuzz {

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "gpuplan fuzz: %s\n", what.c_str());
  std::abort();
}

inline void check_finite(double v, const char* what) {
  if (!std::isfinite(v)) fail(std::string("not finite: ") + what + " = " + std::to_string(v));
}

inline void check_finite_nonneg(double v, const char* what) {
  check_finite(v, what);
  if (v < 0) fail(std::string("negative: ") + what + " = " + std::to_string(v));
}

// Every number anywhere in a JSON document is finite.
inline void check_json_finite(const nlohmann::json& j, const std::string& path = "$") {
  if (j.is_number_float()) {
    if (!std::isfinite(j.get<double>())) fail("not finite in JSON at " + path);
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) check_json_finite(it.value(), path + "." + it.key());
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) check_json_finite(j[i], path + "[" + std::to_string(i) + "]");
  }
}

// In the timing build (-DGPUPLAN_FUZZ_TIMING, scripts/configure-fuzz.sh
// timing) an input that takes more than one second of CPU is a finding: no
// request may hold the CLI or the web server (issue 16). CPU time, not wall
// time, so a loaded machine does not make findings; libFuzzer's -timeout is
// the wall-clock backstop. Elsewhere it does nothing.
class CpuBudget {
 public:
  CpuBudget() : start_(std::clock()) {}
  ~CpuBudget() {
#ifdef GPUPLAN_FUZZ_TIMING
    const double cpu_s = static_cast<double>(std::clock() - start_) / CLOCKS_PER_SEC;
    if (cpu_s > 1.0) fail("one input took " + std::to_string(cpu_s) + " s of CPU (limit 1 s)");
#endif
  }
  CpuBudget(const CpuBudget&) = delete;
  CpuBudget& operator=(const CpuBudget&) = delete;

 private:
  std::clock_t start_;
};

}  // namespace gpuplan::fuzz
