#!/usr/bin/env bash
# Configures build-fuzz: clang++, -O1 with line tables, and -DGPUPLAN_FUZZ=ON,
# which compiles everything with ASan + UBSan and libFuzzer's coverage hooks and
# adds the harnesses in fuzz/. Used by scripts/fuzz.sh and scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" -DGPUPLAN_FUZZ=ON -DGPUPLAN_BUILD_TESTS=ON >/dev/null
