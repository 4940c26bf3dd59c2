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
# DESTDIR=/some/root (a staged install, for packaging) is honoured by cmake --install and by the check.
if [ -n "${DESTDIR:-}" ]; then
  export PYTHONPATH="$DESTDIR$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_path("platlib"))')"
fi
(cd / && /usr/bin/python3 -c "import gpuplan; r = gpuplan.train(model='llama-3.1-70b', tokens='15T', gpu='h100', gpus=2048, mfu=0.4); print('gpuplan', gpuplan.__version__, 'at', gpuplan.__file__, '- Llama 3.1 70B on 2,048 H100:', round(r.gpu_hours), 'GPU-hours')")
