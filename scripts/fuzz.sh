#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, clang++ with ASan + UBSan) into
# build-fuzz and runs each one for a bounded time on its seed corpus.
# Fails (exit 1) if any harness finds a crash, leak, UB, non-finite result or a
# hang; the input that triggered it is left in build-fuzz/findings/.
#
#   bash scripts/fuzz.sh            # 60 s per harness (CI: 45 s, from scripts/test.sh)
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh cli   # one harness, 10 minutes
# docs/fuzzing.md has longer runs and how to reproduce a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
jobs="${FUZZ_BUILD_JOBS:-$(nproc)}"
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(hf_config validate_case cli web_api)

bash scripts/configure-fuzz.sh
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build build-fuzz -j"$jobs" --target "${targets[@]}"

mkdir -p build-fuzz/findings
status=0
for h in "${harnesses[@]}"; do
  # A scratch corpus: the seeds in fuzz/corpus/ stay as committed.
  work="build-fuzz/corpus/$h"
  mkdir -p "$work"
  echo "== fuzz_$h: ${seconds}s"
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       "build-fuzz/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 -max_len=8192 \
       -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$h-" "$work" "fuzz/corpus/$h" \
       >"build-fuzz/fuzz_$h.log" 2>&1; then
    echo "fuzz_$h FAILED: see build-fuzz/fuzz_$h.log and build-fuzz/findings/"
    tail -n 40 "build-fuzz/fuzz_$h.log"
    status=1
  else
    grep -E "^stat::(number_of_executed_units|average_exec_per_sec)" "build-fuzz/fuzz_$h.log" | tr '\n' ' '
    echo
  fi
done
exit $status
