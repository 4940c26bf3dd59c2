"""Issue 17's acceptance line, exactly as a user types it, against the CLI's JSON."""
from __future__ import annotations

import os
import subprocess
import sys

import gpuplan


def test_train_gpu_hours_one_liner_prints_the_cli_json_value(cli):
    line = ("import gpuplan; r = gpuplan.train(model='llama-3.1-70b', tokens='15T', gpu='h100', gpus=2048, mfu=0.4); "
            "print(r.gpu_hours)")
    proc = subprocess.run([sys.executable, "-c", line], capture_output=True, text=True, env=os.environ.copy(), check=True)
    c = cli(["train", "--model", "llama-3.1-70b", "--tokens", "15T", "--gpu", "h100", "--gpus", "2048", "--mfu", "0.4",
             "--format", "json"])
    assert c.rc == 0, c.stderr
    expected = c.json()["gpu_hours"]["total_gpu_hours"]
    # print() of a float is its repr: the shortest text that reads back as the same double.
    assert float(proc.stdout) == expected
    # Hand check of the order of magnitude: 6.738e24 FLOP / (2048 × 989e12 FLOP/s × 0.4) = 8.317e6 s of compute,
    # × 2048 GPUs / 3600 = 4.731e6 GPU-hours, plus the computed failure budget (2.0%): 4.82e6.
    assert 4.7e6 < expected < 4.9e6


def test_the_module_is_the_one_this_build_made():
    # The tests must import the package the build assembled, not an installed copy.
    assert os.path.dirname(gpuplan.__file__).endswith(os.path.join("python", "gpuplan")), gpuplan.__file__
