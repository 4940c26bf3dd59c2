#!/usr/bin/env python3
"""A ratchet on text in the estimators and the planner (issue 31).

The estimators, the execution rules and the planner return values and reason
codes; the sentences, in en and zh, are made in src/report/. What text remains
in them (fmt::format calls, and string literals naming CLI flags such as
"--seq-len") is the sentences of InputErrors, built where they are thrown
(include/gpuplan/error.hpp), plus three canonical strings of values
(StageSplit::describe, a calibration's layout record, the derived interval
table's source line). This check fails (exit 1) when a file of src/execution/,
src/estimate/ or src/plan/ holds more of either than
tests/estimator_text_baseline.json records, or a new file holds any: text moves
out, never in. A file that holds fewer is reported so its baseline can be
lowered with --write.

  python3 scripts/check-estimator-text.py            # check
  python3 scripts/check-estimator-text.py --write    # record the current counts (after moving text out)
"""
from __future__ import annotations

import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
FOLDERS = ["src/execution", "src/estimate", "src/plan"]
BASELINE = ROOT / "tests" / "estimator_text_baseline.json"
FLAG = re.compile(r'"[^"\n]*?--[a-z][a-z0-9-]*')  # a string literal that names a CLI flag


def counts() -> dict:
    out = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".cpp", ".hpp"):
                continue
            code = "\n".join(line.split("//")[0] if not line.lstrip().startswith('"') else line
                             for line in path.read_text(encoding="utf-8").splitlines())
            n_format = code.count("fmt::format(")
            n_flags = len(FLAG.findall(code))
            if n_format or n_flags:
                out[str(path.relative_to(ROOT))] = {"fmt_format": n_format, "flag_literals": n_flags}
    return out


def main() -> int:
    now = counts()
    if "--write" in sys.argv[1:]:
        BASELINE.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {BASELINE.relative_to(ROOT)}: {len(now)} files")
        return 0
    base = json.loads(BASELINE.read_text(encoding="utf-8"))
    worse, better = [], []
    for path, c in sorted(now.items()):
        b = base.get(path, {"fmt_format": 0, "flag_literals": 0})
        for key in ("fmt_format", "flag_literals"):
            if c[key] > b[key]:
                worse.append(f"{path}: {key} {c[key]} > {b[key]}")
            elif c[key] < b[key]:
                better.append(f"{path}: {key} {c[key]} < {b[key]}")
    for path in sorted(set(base) - set(now)):
        better.append(f"{path}: none left")
    for line in better:
        print("fewer (lower the baseline with --write):", line)
    for line in worse:
        print("more text in an estimator or the planner (make it a value or a reason code; the sentence goes in src/report/):", line)
    total = {k: sum(c[k] for c in now.values()) for k in ("fmt_format", "flag_literals")}
    print(f"src/execution + src/estimate + src/plan: {total['fmt_format']} fmt::format calls, {total['flag_literals']} CLI-flag literals")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
