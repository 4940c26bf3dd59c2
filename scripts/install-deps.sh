#!/usr/bin/env bash
# Installs gpuplan's build and test dependencies from Debian 12's own packages.
# Nothing is downloaded from anywhere else.
set -euo pipefail
packages=(cmake g++ make python3
          libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev googletest libbenchmark-dev
          clang libclang-rt-14-dev)  # clang + libFuzzer for scripts/fuzz.sh (issue 8)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
