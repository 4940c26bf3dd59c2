// Fuzz target: validation-case lines (shared/validation/README.md format), as
// `gpuplan validate FILE` reads them. Parse the lines, build each case's inputs,
// predict it with its kind's predictor, score and render the result. InputError
// and nlohmann::json exceptions are expected; a crash, UB, a non-finite
// prediction or a hang is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_check.hpp"
#include "gpuplan/error.hpp"
#include "report/report.hpp"
#include "validate/validate.hpp"
#include "report/validation_report.hpp"

using namespace gpuplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  const gpuplan::fuzz::CpuBudget budget;  // the timing build: over 1 s of CPU is a finding
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const std::vector<ValidationCase> cases = parse_cases(text, "fuzz.jsonl");
    for (const ValidationCase& c : cases) {
      for (const PredictorEntry& p : predictors()) {
        if (p.kind != c.kind) continue;
        try {
          CaseInputs in = case_inputs(c);
          for (const Prediction& pr : p.predict(c, in)) {
            gpuplan::fuzz::check_finite_nonneg(pr.value, pr.metric.c_str());
          }
        } catch (const InputError&) {
        }
      }
    }
    const ValidationResult r = run_validation(cases);
    (void)render(validation_report(r, "fuzz.jsonl"), Format::kTable, Lang::kEn);
    (void)validation_json(r, "fuzz.jsonl").dump();
  } catch (const InputError&) {
  } catch (const nlohmann::json::exception&) {
  }
  return 0;
}
