#!/usr/bin/env python3
"""Splits vTrain's single-node iteration times (and gpuplan's predictions of them) into
per-layer-per-micro-batch, per-micro-batch and per-layer-per-step costs.

  ./build/gpuplan validate ../shared/validation/vtrain.jsonl --format json > /tmp/vt.json
  python3 scripts/vtrain-decompose.py ../shared/validation/vtrain.jsonl /tmp/vt.json

Within one (tp, micro-batch, hidden) group the sweep varies only the layer count L,
the pipeline depth p and the micro-batches per step m, so every row's time is
    T = a·(m + p − 1)·L/p   one layer, one micro-batch (1F1B: m + p − 1 slots on a stage)
      + b·(m + p − 1)       one micro-batch outside the layers (embedding, LM head, loss, batch)
      + c·L/p               one layer, once per step (optimizer, gradient reduction)
fitted by least squares (measured rows fit to 1–5%). The same fit of the predictions
shows which of the three terms the model gets wrong, and comparing a between the
pp = 1 rows and the pp ≥ 2 rows shows whether the two sets ran the same layer
(the pp ≥ 2 rows state full recompute, the pp = 1 rows state none).
It reads no constant back into gpuplan: a diagnostic for people, not an input.
"""
from __future__ import annotations

import argparse
import collections
import json


def lstsq(rows, ys):
    """Least squares by the normal equations (3 unknowns; no numpy on the CI image)."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] + [sum(r[i] * y for r, y in zip(rows, ys))] for i in range(n)]
    for i in range(n):
        piv = max(range(i, n), key=lambda k: abs(a[k][i]))
        a[i], a[piv] = a[piv], a[i]
        if abs(a[i][i]) < 1e-12:
            return None  # one m per group (micro-batch 8): the terms cannot be told apart
        for k in range(n):
            if k != i:
                f = a[k][i] / a[i][i]
                a[k] = [x - f * y for x, y in zip(a[k], a[i])]
    return [a[i][n] / a[i][i] for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", help="vtrain.jsonl")
    ap.add_argument("predictions", help="gpuplan validate vtrain.jsonl --format json output")
    args = ap.parse_args()
    pred = {c["id"]: c["predicted"] for c in json.load(open(args.predictions))["cases"] if c.get("predicted")}
    groups = collections.defaultdict(list)
    for line in open(args.cases):
        d = json.loads(line)
        if "single" not in d["id"] or d["id"] not in pred:
            continue
        t, m = d["train"], d["model"]
        gpus = t["tp"] * t["pp"] * t["dp"]
        p, layers = t["pp"], m["num_hidden_layers"]
        micro = t["global_batch_seqs"] // (t["dp"] * t["micro_batch"])
        predicted_ms = t["global_batch_seqs"] * t["seq_len"] / (pred[d["id"]] * gpus) * 1e3
        x = ((micro + p - 1) * layers / p, micro + p - 1, layers / p)
        groups[(p, t["tp"], t["micro_batch"], m["hidden_size"])].append((x, d["measured"]["step_time_s"] * 1e3, predicted_ms))
    print("pp  tp  mb  hidden | ms per layer per micro-batch  | ms per micro-batch | ms per layer per step | worst fit")
    print("                   |   measured  predicted          | measured predicted | measured predicted    |")
    per_layer = {}
    for key in sorted(groups):
        rows = groups[key]
        xs = [r[0] for r in rows]
        meas, prd = lstsq(xs, [r[1] for r in rows]), lstsq(xs, [r[2] for r in rows])
        if meas is None or prd is None:
            continue
        worst = max(abs(sum(c * v for c, v in zip(meas, x)) / y - 1) for x, y, _ in rows)
        per_layer[key] = (meas[0], prd[0])
        print(f"{key[0]:>2}  {key[1]:>2}  {key[2]:>2}  {key[3]:>6} |   {meas[0]:7.2f}  {prd[0]:7.2f}"
              f"            | {meas[1]:7.2f} {prd[1]:7.2f}    | {meas[2]:7.2f} {prd[2]:7.2f}       | {100 * worst:.1f}%")
    print("\nmeasured per-layer-per-micro-batch cost at pp = 2 and 4 (recompute stated full) over pp = 1 (left out),"
          " and the same ratio of the predictions:")
    for key in sorted(k for k in per_layer if k[0] == 1):
        for pp in (2, 4):
            other = (pp,) + key[1:]
            if other in per_layer:
                print(f"  pp {pp} tp {key[1]} mb {key[2]} hidden {key[3]}: measured {per_layer[other][0] / per_layer[key][0]:.3f}"
                      f"  predicted {per_layer[other][1] / per_layer[key][1]:.3f}")


if __name__ == "__main__":
    main()
