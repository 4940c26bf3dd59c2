#!/usr/bin/env bash
# Regenerates data/intervals.json, the prediction-interval table (issue 15,
# docs/intervals.md), from gpuplan's own residuals on the published cases.
# Run it from anywhere after building, and again whenever the physics
# changes; tests/estimate/test_intervals.cpp fails while the committed table is stale.
#   bash scripts/derive-intervals.sh [build-dir]   (default: build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}"
cd "$root"
"$build/gpuplan" validate ../shared/validation/cases.jsonl --derive-intervals > data/intervals.json.new
mv data/intervals.json.new data/intervals.json
echo "wrote data/intervals.json; rebuild so the binary embeds it ($build/gpuplan validate ../shared/validation/cases.jsonl shows the coverage)"
