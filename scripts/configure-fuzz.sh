#!/usr/bin/env bash
# Configures a libFuzzer build (clang++, -DGPUPLAN_FUZZ=ON, harnesses in fuzz/).
#   bash scripts/configure-fuzz.sh          # build-fuzz: -O1 with line tables, ASan + UBSan and
#                                           # libFuzzer's coverage hooks on everything (finds bugs;
#                                           # also runs the test suite under the sanitizers)
#   bash scripts/configure-fuzz.sh timing   # build-fuzz-timing: -O2 -DNDEBUG, cheap coverage counters,
#                                           # no sanitizers: the harnesses run at about the release
#                                           # build's speed and fail any input over one second of
#                                           # CPU (fuzz_check.hpp: CpuBudget; issue 16 part 6);
#                                           # a unity build (batches of 8 files): only the harnesses
#                                           # run from it, and build-fuzz compiles each file alone
# Used by scripts/fuzz.sh and scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = timing ]; then
  cmake -S . -B build-fuzz-timing -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_CXX_FLAGS="-O2 -DNDEBUG" -DGPUPLAN_FUZZ=ON -DGPUPLAN_FUZZ_SANITIZE=OFF -DGPUPLAN_BUILD_TESTS=OFF \
    -DCMAKE_UNITY_BUILD=ON >/dev/null
else
  cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" -DGPUPLAN_FUZZ=ON -DGPUPLAN_BUILD_TESTS=ON >/dev/null
fi
