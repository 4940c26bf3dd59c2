#!/usr/bin/env bash
# Installs gpuplan's build and test dependencies from Debian 12's own packages.
# Nothing is downloaded from anywhere else.
#   --e2e   also what the browser test needs (tests/e2e/): Chromium, a CJK font for its
#           screenshots, and Node.js/npm where the machine has none (scripts/test.sh passes it).
set -euo pipefail
packages=(cmake g++ make python3 pkg-config
          libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev googletest libbenchmark-dev
          libcpp-httplib-dev  # gpuplan web (issue 7)
          python3-dev pybind11-dev python3-pybind11  # the Python module, python/ (issue 17)
          python3-pytest python3-pandas python3-jsonschema  # its tests: pytest, to_dataframe(), the JSON schemas (docs/json-schema)
          clang libclang-rt-14-dev)  # clang + libFuzzer for scripts/fuzz.sh (issue 8)
if [ "${1:-}" = "--e2e" ]; then
  packages+=(chromium fonts-wqy-microhei)
  command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
