#!/usr/bin/env python3
"""Writes docs/json-schema/<command>.json, the JSON Schema (draft 2020-12) of each command's --format json.

  PYTHONPATH=build/python python3 scripts/json-schema.py          # regenerate after changing a report
  PYTHONPATH=build/python python3 scripts/json-schema.py --check  # exit 1 if a file would change

A schema is read off the documents themselves: every command is run on the
seeded requests of python/tests/test_parity.py (drawn here with other seeds and
more of them) and on fixed examples, and the schema records every key seen,
its JSON type (integer where every value was one: counts are never floats),
the keys present in every document (required) and no others
(additionalProperties: false), so a key that appears or disappears fails
python/tests/test_json_schema.py until this script is run again and the diff
reviewed. Descriptions state each key's unit from its suffix (docs/json-output.md).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python" / "tests"))

import gpuplan  # noqa: E402
import test_parity  # noqa: E402  the request pools

SCHEMA_DIR = ROOT / "docs" / "json-schema"
COMMANDS = ["train", "memory", "plan", "infer", "finetune", "calibrate", "validate", "models", "gpus", "frameworks", "engines"]
DRAWS = 150  # requests per command; the test draws 50 others

# Requests every schema must cover beyond the random ones: each output shape a command has.
FIXED: Dict[str, List[Dict[str, Any]]] = {
    "train": [dict(model="llama-3.1-70b", tokens="15T", gpu="h100", gpus=2048, mfu=0.4),
              dict(params="7B", tokens="1T", gpu="a100-80g", gpus=64, mfu=0.4, price="15-30cny"),
              dict(model="llama-3.1-8b", tokens="1T", gpu="h100", gpus=256),
              dict(model="llama-3.1-70b", tokens="15T", gpu="h100", deadline="90d", mfu=0.4),
              dict(model="llama-3.1-70b", tokens="15T", gpu="h100", gpus=2048, deadline="90d"),
              dict(model="llama-3.1-70b", tokens="15T", gpu="h100", gpus=2048, mfu=0.4, phase=["debug:a100-80g:10:72h:12cny"]),
              dict(samples="1M", flops_per_sample=1e15, gpu="h100", gpus=8, mfu=0.3),
              # MFU predicted: prediction ranges beside the predicted rows (<key>_low/_high, interval_level)
              dict(model="llama-3.1-70b", tokens="15T", gpu="h100", gpus=2048),
              dict(model="llama-3.1-70b", tokens="15T", gpu="h100", deadline="90d"),
              dict(model="llama-3.1-70b", tokens="15T", gpu="h100", gpus=2048, deadline="90d", confidence=0.9),
              dict(model="qwen2.5-72b", tokens="2T", gpu="h800", gpus=512, price="15cny"),
              dict(model="llama-3.1-8b", tokens="1T", gpu="a100-80g", gpus=64, spot=True),
              dict(model="mixtral-8x7b", tokens="1T", gpu="910b", gpus=256)],
    "plan": [dict(model="gpt3-175b", gpu="a100-80g", gpus=1024, seq_len=2048, global_batch=1536),
             dict(model="llama-3-70b", gpu="h100,a100-80g,h800", gpus=64, seq_len=4096, global_batch=256),
             dict(model="llama-3.1-8b", gpu="h100", gpus=8, global_batch=64, compare_layout=["tp=2,pp=1,dp=4,mb=1,recompute=full"]),
             dict(model="llama-3.1-405b", gpu="h100", gpus=8, seq_len=8192),
             # pinned uneven stages: first_stage_layers / last_stage_layers in the layouts
             dict(model="llama-3.1-8b", gpu="h100", gpus=64, pp=4, first_stage_layers=7, last_stage_layers=7),
             dict(model="llama-3.1-8b", gpu="h100", gpus=64, pp=4, last_stage_layers=5),
             dict(model="llama-3.1-8b", gpu="h100", gpus=64, pp=4, first_stage_layers=5)],
    "infer": [dict(model="llama-3.1-70b", gpu="h100", precision="fp8", input=2048, output=512, rps=20),
              dict(model="llama-3.1-8b", gpu="h100", precision="fp8", kv_precision="fp8", input=128, output=128, max_throughput=True)],
    "finetune": [dict(model="qwen2.5-7b", method="qlora", gpu="4090", samples=50000, seq_len=2048, epochs=3),
                 # dataset tokens and a deadline: inputs as read, the deadline rows (issue 16)
                 dict(model="llama-3.1-8b", gpu="a100-80g", tokens="1亿", deadline="1d", seq_len=2048, epochs=2)],
    "calibrate": [dict(model="llama-3.1-8b", gpu="h100", gpus=8, tp=2, global_batch=32, micro_batch=2, step_time=2.4,
                       peak_memory_gib=61, tokens="1T", full_gpus=256)],
    "models": [dict(), dict(model="llama-3.1-70b"), dict(model="qwen3-30b-a3b")],
    "gpus": [dict(), dict(gpu="h20"), dict(gpu="h100")],
    "frameworks": [dict(), dict(framework="megatron-lm"), dict(framework="torchtitan@2024-12")],
    "engines": [dict(), dict(engine="vllm"), dict(engine="tensorrt-llm@1.0")],
}
POSITIONAL = {"models": "model", "gpus": "gpu", "frameworks": "framework", "engines": "engine"}

UNITS = [("_flop_per_s", "FLOP/s"), ("_flop_per_token", "FLOP per token"), ("_flop", "FLOP"), ("_bytes_per_s", "bytes/s"),
         ("_bytes_per_token", "bytes per token"), ("_bytes", "bytes"), ("_gpu_hours", "GPU-hours"), ("_gpu_days", "GPU-days"),
         ("_per_gpu_hour", "per GPU-hour, in the object's currency"), ("_usd", "US dollars"), ("_cny", "Chinese yuan"),
         ("_ms", "milliseconds"), ("_s", "seconds"), ("_gib", "GiB"), ("_pct", "percent"), ("_share", "fraction 0-1"),
         ("mfu", "fraction 0-1"), ("hfu", "fraction 0-1")]


# Amounts in an object (or record) that carries "currency" (schema 3, issue 17): their keys never name it.
MONEY_KEYS = {"total", "total_low", "total_high", "total_at_price_high", "total_at_price_high_low", "total_at_price_high_high",
              "per_gpu_hour", "per_gpu_hour_high", "compute", "comm_margin", "fault_budget", "spot_overhead", "run", "run_low",
              "run_high", "per_hour", "per_million_output_tokens", "per_million_tokens", "cost", "cost_per_m_tokens", "cost_per_step",
              "owned", "on_demand", "reserved", "spot"}


def is_money(key: str) -> bool:
    return key in MONEY_KEYS or key.startswith("own_") or (key.startswith("rent_") and key.endswith("_run_cost"))


def describe(key: str, in_money_object: bool = False) -> Optional[str]:
    if in_money_object and is_money(key):
        return "money, in this object's currency"
    for suffix, unit in UNITS:
        if key.endswith(suffix):
            return unit
    return None


ONLY_WHEN_KNOWN = {"cost", "rent_options"}


class Shape:
    """What was seen at one place of the documents."""

    def __init__(self):
        self.types: set = set()
        self.props: Dict[str, "Shape"] = {}
        self.seen_objects = 0
        self.key_counts: Dict[str, int] = {}
        self.items: Optional["Shape"] = None
        self.consts: set = set()

    def add(self, v: Any) -> None:
        if v is None:
            self.types.add("null")
        elif isinstance(v, bool):
            self.types.add("boolean")
        elif isinstance(v, int):
            self.types.add("integer")
        elif isinstance(v, float):
            self.types.add("number")
        elif isinstance(v, str):
            self.types.add("string")
            if len(self.consts) < 8:
                self.consts.add(v)
        elif isinstance(v, list):
            self.types.add("array")
            if self.items is None:
                self.items = Shape()
            for e in v:
                self.items.add(e)
        elif isinstance(v, dict):
            self.types.add("object")
            self.seen_objects += 1
            for k, e in v.items():
                self.key_counts[k] = self.key_counts.get(k, 0) + 1
                self.props.setdefault(k, Shape()).add(e)

    def schema(self, key: str = "", in_money_object: bool = False) -> Dict[str, Any]:
        types = set(self.types)
        if {"integer", "number"} <= types:
            types.discard("integer")  # some values were fractional: a number (a whole one may still print as an integer)
        out: Dict[str, Any] = {}
        d = describe(key, in_money_object)
        if d and types & {"integer", "number"}:
            out["description"] = d
        if in_money_object and key == "currency" and types == {"string"} and self.consts <= {"CNY", "USD"}:
            out["description"] = "the currency of every amount in this object"
            out["enum"] = ["CNY", "USD"]
        if types:
            out["type"] = sorted(types)[0] if len(types) == 1 else sorted(types)
        if "object" in types:
            money = "currency" in self.props
            out["properties"] = {k: self.props[k].schema(k, money) for k in sorted(self.props)}
            if {"tp", "pp", "dp", "recompute"} <= set(self.props):
                # A layout (src/report/layout_rows.cpp): the uneven pipeline split, expert TP apart
                # from TP and a custom stage layout are there only where set.
                for k in ("first_stage_layers", "last_stage_layers", "etp"):
                    out["properties"].setdefault(k, {"type": "integer"})
                out["properties"].setdefault("pipeline_layout", {"type": "string"})
                out["properties"] = dict(sorted(out["properties"].items()))
            req = sorted(k for k, n in self.key_counts.items() if n == self.seen_objects)
            if key == "":
                # A top-level section present only when its numbers are known (a GPU with no rental
                # listing and no --price has no cost): never required, whichever GPUs the seeds drew.
                req = [k for k in req if k not in ONLY_WHEN_KNOWN]
            if req:
                out["required"] = req
            out["additionalProperties"] = False
        if "array" in types:
            out["items"] = self.items.schema(key) if self.items and self.items.types else {}
        return out


def documents(command: str, tmp: Path) -> List[Dict[str, Any]]:
    docs = []
    fn = getattr(gpuplan, command)
    if command == "validate":
        draw = test_parity.validate_request_factory(tmp, test_parity_shared())
        whole = [((str(test_parity_shared() / "validation" / f),), {}) for f in ("cases.jsonl", "vtrain.jsonl")]
    else:
        draw = test_parity.GENERATORS[command]
        whole = []
    rng = random.Random(f"json-schema-{command}")
    requests = whole + [draw(rng) for _ in range(DRAWS)]
    fixed = list(FIXED.get(command, []))
    # Every catalog entry once: a single GPU's, model's or framework's document has keys from its data.
    if command == "gpus":
        fixed += [dict(gpu=g["id"]) for g in gpuplan.gpus().to_dict()["gpus"]]
    if command == "models":
        fixed += [dict(model=m["id"]) for m in gpuplan.models().to_dict()["models"]]
    if command == "frameworks":
        fixed += [dict(framework=f["id"] + "@" + v) for f in gpuplan.frameworks().to_dict()["frameworks"] for v in f["versions"]]
    if command == "engines":
        fixed += [dict(engine=e["id"] + "@" + v) for e in gpuplan.engines().to_dict()["engines"] for v in e["versions"]]
    for kw in fixed:
        kw = dict(kw)
        args = (kw.pop(POSITIONAL[command]),) if command in POSITIONAL and POSITIONAL[command] in kw else ()
        requests.append((args, kw))
    for args, kwargs in requests:
        try:
            docs.append(fn(*args, **kwargs).to_dict())
        except gpuplan.InputError:
            pass
    return docs


def test_parity_shared() -> Path:
    import conftest  # noqa: PLC0415
    return conftest.SHARED_DIR


def schema_for(command: str, docs: List[Dict[str, Any]]) -> Dict[str, Any]:
    shape = Shape()
    for d in docs:
        shape.add(d)
    body = shape.schema()
    body["properties"]["schema_version"] = {"const": docs[0]["schema_version"],
                                            "description": "the version of this schema; raised when a key is removed or changes meaning"}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"urn:gpuplan:json-schema:{command}",
            "title": f"gpuplan {command} --format json",
            "description": (f"The document `gpuplan {command} ... --format json` prints (and gpuplan.{command}() returns). "
                            "Written by scripts/json-schema.py from the documents themselves; docs/json-output.md explains the keys."),
            **body}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="exit 1 when a schema file would change")
    a = ap.parse_args()
    SCHEMA_DIR.mkdir(parents=True, exist_ok=True)
    changed = []
    with tempfile.TemporaryDirectory() as tmp:
        for command in COMMANDS:
            docs = documents(command, Path(tmp))
            text = json.dumps(schema_for(command, docs), indent=2, ensure_ascii=False) + "\n"
            path = SCHEMA_DIR / f"{command}.json"
            if not path.exists() or path.read_text() != text:
                changed.append(path.name)
                if not a.check:
                    path.write_text(text)
            print(f"{command}: {len(docs)} documents", file=sys.stderr)
    if changed:
        print(("would change: " if a.check else "wrote: ") + ", ".join(changed), file=sys.stderr)
    return 1 if a.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
