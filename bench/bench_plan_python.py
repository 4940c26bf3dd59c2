#!/usr/bin/env python3
"""Planner and memory-command speed from Python against the C++ benchmarks (issue 17: plan at most 2x; issue 31: memory at most 5x).

Times gpuplan.plan() on GPT-3 175B, 1,024 A100-80GB, seq 2048, global batch
1536 -- the search bench/bench_plan.cpp's BM_PlanGpt3_1024A100 times -- and,
given the benchmark binary, runs it for the same figure from C++. A timing, not
a test: the numbers depend on the machine and its load, so nothing asserts them.

  PYTHONPATH=build/python python3 bench/bench_plan_python.py [--bench build/bench/bench_plan] [--repeats 30]

(build/bench/bench_plan exists when CMake is configured with -DGPUPLAN_BUILD_BENCH=ON.)
The Python call does more than the benchmark: it parses the command line, builds
the report and its JSON, and Python reads it into a result; the difference is
that overhead. Both report CPU time too, which a busy machine disturbs less.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time

import gpuplan

REQUEST = dict(model="gpt3-175b", gpu="a100-sxm4-80gb", gpus=1024, seq_len=2048, global_batch=1536)
# bench_plan.cpp's BM_MemoryCommand: the same layout's `gpuplan memory` answer.
MEMORY = dict(model="gpt3-175b", gpu="a100-80g", gpus=1024, tp=8, pp=16, micro_batch=1, global_batch=1536, seq_len=2048)


def time_python(call, repeats: int):
    call()  # warm: catalogs parsed, caches filled, as the benchmark's first iterations do
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def time_cpp(bench: str, name: str, repeats: int):
    out = subprocess.run([bench, f"--benchmark_filter={name}$", "--benchmark_format=json",
                          f"--benchmark_repetitions={max(3, repeats // 10)}", "--benchmark_report_aggregates_only=true"],
                         capture_output=True, text=True, check=True).stdout
    rows = {b["aggregate_name"]: b for b in json.loads(out)["benchmarks"] if b.get("aggregate_name")}
    med = rows["median"]
    scale = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1.0}[med["time_unit"]]
    return med["real_time"] * scale, med["cpu_time"] * scale


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", help="path of bench_plan (C++ Google Benchmark)")
    ap.add_argument("--repeats", type=int, default=30)
    a = ap.parse_args()
    pw, pc = time_python(lambda: gpuplan.plan(**REQUEST), a.repeats)
    print(f"python gpuplan.plan: wall {pw * 1e3:.1f} ms, cpu {pc * 1e3:.1f} ms (median of {a.repeats})")
    mw, mc = time_python(lambda: gpuplan.memory(**MEMORY), a.repeats * 10)
    print(f"python gpuplan.memory: wall {mw * 1e6:.0f} us, cpu {mc * 1e6:.0f} us (median of {a.repeats * 10})")
    if a.bench:
        cw, cc = time_cpp(a.bench, "BM_PlanGpt3_1024A100", a.repeats)
        print(f"c++ BM_PlanGpt3_1024A100: wall {cw * 1e3:.1f} ms, cpu {cc * 1e3:.1f} ms (median)")
        print(f"python / c++: wall {pw / cw:.2f}x, cpu {pc / cc:.2f}x (issue 17 asks for at most 2x)")
        for name in ("BM_MemoryCommand", "BM_MemoryOneLayout"):
            cw, cc = time_cpp(a.bench, name, a.repeats)
            print(f"c++ {name}: wall {cw * 1e6:.0f} us, cpu {cc * 1e6:.0f} us (median)")
            print(f"python memory / c++ {name}: wall {mw / cw:.2f}x, cpu {mc / cc:.2f}x (issue 31 asks for at most 5x)")


if __name__ == "__main__":
    main()
