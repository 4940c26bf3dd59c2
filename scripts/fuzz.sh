#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/) twice and runs each harness in both:
#  1. build-fuzz (clang++ with ASan + UBSan), for FUZZ_SECONDS on its seed
#     corpus: fails on a crash, leak, UB, non-finite result or a hang (25 s);
#  2. build-fuzz-timing (-O2, no sanitizers, cheap coverage counters), first
#     replaying every input the first run kept, then fuzzing for
#     FUZZ_TIMING_SECONDS: fails on any single input that takes more than one
#     second of CPU in the optimised build (each harness checks its own CPU
#     time there, fuzz_check.hpp: CpuBudget; -timeout=10 is the wall-clock
#     backstop), issue 16: no request may hold the CLI or the server.
# Exit 1 on any finding; the input that triggered it is left in build-fuzz/findings/.
#
#   bash scripts/fuzz.sh            # 60 s + 20 s per harness (CI: 30 s + 10 s, from scripts/test.sh)
#   FUZZ_SECONDS=600 FUZZ_TIMING_SECONDS=600 bash scripts/fuzz.sh cli   # one harness, 10 minutes each
# docs/fuzzing.md has longer runs and how to reproduce a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
timing_seconds="${FUZZ_TIMING_SECONDS:-$(( seconds / 3 ))}"
jobs="${FUZZ_BUILD_JOBS:-$(nproc)}"
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(hf_config validate_case cli web_api)

bash scripts/configure-fuzz.sh
bash scripts/configure-fuzz.sh timing
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build build-fuzz -j"$jobs" --target "${targets[@]}"
cmake --build build-fuzz-timing -j"$jobs" --target "${targets[@]}"

mkdir -p build-fuzz/findings
# One harness: the sanitized run, then the optimised replay + run. Its lines go
# to build-fuzz/fuzz_$h.summary, printed when it ends, so that harnesses run
# side by side (FUZZ_JOBS at a time, one core each) still report one by one.
fuzz_one() {
  local h="$1" work="build-fuzz/corpus/$1"
  # Inputs up to 8 KiB, except the two JSON readers a hostile body reaches
  # (the web API and a --model config): 256 KiB, so that a mutation of the
  # 90,000-deep seed (180 KB, issue 30) is still an input they take.
  local max_len=8192
  case "$h" in web_api|hf_config) max_len=262144 ;; esac
  # A scratch corpus: the seeds in fuzz/corpus/ stay as committed.
  mkdir -p "$work"
  echo "== fuzz_$h: ${seconds}s under ASan + UBSan"
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       "build-fuzz/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 -max_len="$max_len" \
       -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$h-" "$work" "fuzz/corpus/$h" \
       >"build-fuzz/fuzz_$h.log" 2>&1; then
    echo "fuzz_$h FAILED: see build-fuzz/fuzz_$h.log and build-fuzz/findings/"
    tail -n 40 "build-fuzz/fuzz_$h.log"
    return 1
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec)" "build-fuzz/fuzz_$h.log" | tr '\n' ' '
  echo
  # The optimised build: every kept input once, then more fuzzing, one second each at most.
  echo "== fuzz_$h: replay + ${timing_seconds}s optimised, at most 1 s of CPU per input"
  if ! "build-fuzz-timing/fuzz/fuzz_$h" -max_total_time="$timing_seconds" -timeout=10 -rss_limit_mb=4096 -max_len="$max_len" \
       -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$h-slow-" "$work" "fuzz/corpus/$h" \
       >"build-fuzz/fuzz_${h}_timing.log" 2>&1; then
    echo "fuzz_$h FAILED in the optimised build (an input over one second?): see build-fuzz/fuzz_${h}_timing.log and build-fuzz/findings/"
    tail -n 40 "build-fuzz/fuzz_${h}_timing.log"
    return 1
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|slowest_unit_time_sec)" "build-fuzz/fuzz_${h}_timing.log" | tr '\n' ' '
  echo
}

# Each harness is one single-threaded process: FUZZ_JOBS (default: the core
# count) run at once. The one-second check is CPU time, which a neighbour on
# another core does not change.
fuzz_jobs="${FUZZ_JOBS:-$(nproc)}"
pids=()
for h in "${harnesses[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$fuzz_jobs" ]; do wait -n || true; done
  ( fuzz_one "$h" >"build-fuzz/fuzz_$h.summary" 2>&1 ) &
  pids+=("$!")
done
status=0
for i in "${!harnesses[@]}"; do
  wait "${pids[$i]}" || status=1
  cat "build-fuzz/fuzz_${harnesses[$i]}.summary"
done
exit $status
