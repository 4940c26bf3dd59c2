#!/usr/bin/env bash
# Installs everything, builds, and runs the whole test suite: once optimised,
# once under AddressSanitizer + UndefinedBehaviorSanitizer, then a bounded fuzz
# run of each libFuzzer harness. Stays under 20 minutes on 2 cores (see the closing notes for the latest measured wall time).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --e2e
# playwright-core for the browser test, exactly as tests/e2e/package-lock.json pins it.
(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)

# 1. The suite as users build it (-O2; no debug info, which costs a third of the compile time),
# compiled as unity batches of 8 files (4.7 -> 3.3 min on 2 cores, measured 2026-12-03).
# Every file still compiles on its own in step 2's build, which is not a unity build, so
# a file that leans on another's includes or names still fails CI.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure --no-tests=error -j"$(nproc)"

# 2. Hostile input (issue 8, docs/fuzzing.md). One clang build, build-fuzz, serves
# both: the library, CLI and tests compiled with ASan + UBSan (and libFuzzer's
# coverage counters, a small slowdown outside a fuzzer), the suite run on it, then
# each fuzz harness for FUZZ_SECONDS (12 s here); fuzz.sh also builds
# build-fuzz-timing (-O2, no sanitizers: the harnesses alone) and replays and
# fuzzes each harness there, failing on any input that takes over a second of
# CPU optimised (FUZZ_TIMING_SECONDS, 4 s here); the harnesses run side by
# side, one per core. The browser test (label e2e)
# is left out of the sanitizer run: it spends its time in Chromium, and the
# server code it reaches is the handle_request that fuzz_web_api fuzzes.
bash scripts/configure-fuzz.sh
cmake --build build-fuzz -j"$(nproc)"
ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-fuzz --output-on-failure --no-tests=error -j"$(nproc)" -LE e2e
FUZZ_SECONDS="${FUZZ_SECONDS:-12}" FUZZ_TIMING_SECONDS="${FUZZ_TIMING_SECONDS:-4}" bash scripts/fuzz.sh
