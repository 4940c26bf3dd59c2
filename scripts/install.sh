#!/usr/bin/env bash
# Installs gpuplan on this machine: the Debian packages it builds with, then
# /usr/local/bin/gpuplan and the Python module for the system python3
# (/usr/local/lib/python3.X/dist-packages/gpuplan, on Debian's default sys.path).
# Run as root from the repository root. Afterwards:
#   gpuplan train --model llama-3.1-70b --tokens 15T --gpu h100 --gpus 2048 --mfu 0.4
#   python3 -c "import gpuplan; print(gpuplan.train(model='llama-3.1-70b', tokens='15T', gpu='h100', gpus=2048, mfu=0.4).gpu_hours)"
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
cmake --build build -j"$(nproc)" --target gpuplan gpuplan_python
cmake --install build
# From another directory, so the check imports the installed package and not python/ of this checkout.
(cd / && /usr/bin/python3 -c "import gpuplan; print('gpuplan', gpuplan.__version__, 'for Python at', gpuplan.__file__)")
