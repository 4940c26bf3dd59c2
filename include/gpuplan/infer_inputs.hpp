// The inputs of `gpuplan infer` as a front end collects them, and the one
// place that checks them and builds the report: the CLI (src/cli/cmd_infer.cpp)
// binds its flags to these fields, the web API's POST /api/infer reads the
// request keys of the same names (`latency_target_ms` is --latency-target-ms).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "gpuplan/model.hpp"
#include "gpuplan/report.hpp"

namespace gpuplan {

struct InferInputs {
  std::string model;                    // --model: catalog id, alias or config.json path
  std::optional<ModelSpec> model_spec;  // instead: a model the front end built (the web's pasted config.json)
  std::string gpu;
  std::string precision = "fp16";
  std::string kv_precision;             // empty: 16-bit (bf16 with bf16 weights)
  int64_t input = 2048;
  int64_t output = 512;
  double rps = 0;
  double confidence = 0.8;              // --confidence: with --rps, replicas keep up with this probability (issue 15)
  int64_t batch = 0;
  int tp = 0;
  int pp = 0;
  int ep = 0;
  std::optional<double> latency_target_ms;  // unset: kDefaultTpotTargetS (unless a fixed batch); 0: none
  bool disaggregate = false;
  int64_t group_size = 128;
  double memory_utilization = 0.90;
  bool no_int4 = false;
  bool force = false;
  bool max_throughput = false;
  std::string engine;
  std::optional<std::string> price;
  // --market cn|us (unset: from lang), --provider, --currency usd|cny.
  std::optional<std::string> market, provider, currency;
  std::string lang = "en";              // --lang: picks the default market (zh: cn)
};

// Checks the inputs (InputError naming the flag), plans the deployment or the
// max-throughput run and returns its report. An infeasible deployment is an
// InputError with one sentence saying why.
Report infer_report_for(const InferInputs& in);

}  // namespace gpuplan
