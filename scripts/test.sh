#!/usr/bin/env bash
# Installs everything, builds, and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --e2e
# playwright-core for the browser test, exactly as tests/e2e/package-lock.json pins it.
(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
