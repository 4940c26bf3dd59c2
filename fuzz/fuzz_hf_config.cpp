// Fuzz target: a Hugging Face config.json, as `--model ./config.json` reads it.
// Parse, build the ModelSpec, count parameters, count FLOPs per token, and
// estimate memory for one simple layout. InputError and nlohmann::json
// exceptions are the expected answers to bad input; anything else (a crash,
// UB, a NaN or infinite result, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_check.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/flops.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "model/hf_config.hpp"
#include "units/json_input.hpp"

using namespace gpuplan;
using gpuplan::fuzz::check_finite;
using gpuplan::fuzz::check_finite_nonneg;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Up to 256 KiB: room for the array nested 90,000 deep (180 KB) that once
  // crashed the server and the CLI (issue 30; seed deep_nesting_90000).
  if (size > 256 * 1024) return 0;
  const gpuplan::fuzz::CpuBudget budget;  // the timing build: over 1 s of CPU is a finding
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json j;
  try {
    j = parse_json_input(text, "--model", "fuzz/config.json");  // as the CLI reads a config file: nesting bounded
  } catch (const nlohmann::json::exception&) {
    return 0;
  } catch (const InputError&) {
    return 0;
  }
  try {
    const ModelSpec m = model_from_hf_config(j, "fuzz/config.json");
    const ParamCounts p = count_params(m);
    check_finite_nonneg(p.total, "params.total");
    check_finite_nonneg(p.active, "params.active");
    check_finite_nonneg(p.embedding, "params.embedding");
    check_finite(p.non_embedding, "params.non_embedding");
    check_finite_nonneg(p.attention, "params.attention");
    check_finite_nonneg(p.mlp_dense, "params.mlp_dense");
    check_finite_nonneg(p.mlp_experts, "params.mlp_experts");
    check_finite_nonneg(p.norms, "params.norms");
    check_finite_nonneg(p.lm_head, "params.lm_head");
    if (p.active > p.total * (1 + 1e-9)) gpuplan::fuzz::fail("active parameters exceed the total");
    for (int64_t seq : {int64_t{1}, int64_t{2048}, int64_t{1} << 20}) {
      for (Recompute rc : {Recompute::kNone, Recompute::kFull}) {
        FlopOptions o;
        o.seq_len = seq;
        o.recompute = rc;
        o.causal_half = seq == 2048;
        const FlopsPerToken f = flops_per_token(m, o);
        check_finite_nonneg(f.forward_flop, "forward_flop");
        check_finite_nonneg(f.backward_flop, "backward_flop");
        check_finite_nonneg(f.recompute_flop, "recompute_flop");
        check_finite_nonneg(f.model_flop, "model_flop");
        check_finite_nonneg(f.hardware_flop, "hardware_flop");
        check_finite_nonneg(f.six_n_flop, "six_n_flop");
        if (f.hardware_flop < f.model_flop * (1 - 1e-9)) gpuplan::fuzz::fail("hardware FLOPs below model FLOPs");
      }
    }
    // One plain layout on one H100: the memory model must not produce nonsense either.
    Layout l;
    l.seq_len = 2048;
    validate_layout(m, l, 1);
    MemoryOptions mo;
    mo.suggest = false;
    const MemoryBreakdown b = estimate_memory(m, l, find_gpu("h100"), mo);
    check_finite_nonneg(b.peak_bytes, "memory.peak_bytes");
    check_finite_nonneg(b.activations_bytes, "memory.activations_bytes");
    check_finite(b.headroom_bytes, "memory.headroom_bytes");
  } catch (const InputError&) {
  } catch (const nlohmann::json::exception&) {
  }
  return 0;
}
