"""Every command's JSON validates against its schema (docs/json-schema/*.json), and no count is a float.

The validator is Debian's python3-jsonschema (Draft202012Validator): the whole
of draft 2020-12, maintained, and already a Debian package, where a hand-written
validator for the subset used here would be one more thing to get wrong. The
documents are drawn with seeds other than those scripts/json-schema.py wrote the
schemas from, so a key the schema does not know, a missing required key or a
changed type fails here.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Dict, Iterator, Tuple

import jsonschema
import pytest

import gpuplan
import test_parity
from conftest import SOURCE_DIR

SCHEMA_DIR = SOURCE_DIR / "docs" / "json-schema"
COMMANDS = ["train", "memory", "plan", "infer", "finetune", "calibrate", "validate", "models", "gpus", "frameworks", "engines"]
# Keys that are counts wherever they appear: never a float.
COUNT_KEYS = {"gpus", "nodes", "tp", "pp", "dp", "cp", "ep", "vp", "micro_batch", "global_batch", "rank", "layers", "zero",
              "replicas", "seq_len", "count", "failed", "not_predicted", "layouts_evaluated", "layouts_fitting", "gpus_per_node",
              "schema_version", "total_steps", "steps_per_epoch", "params_total", "params_active"}


def schema(command: str) -> Dict[str, Any]:
    return json.loads((SCHEMA_DIR / f"{command}.json").read_text())


def walk(doc: Any, sch: Dict[str, Any], path: str = "$") -> Iterator[Tuple[str, Any, Dict[str, Any]]]:
    yield path, doc, sch
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from walk(v, sch.get("properties", {}).get(k, {}), f"{path}.{k}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from walk(v, sch.get("items", {}), f"{path}[{i}]")


def check(command: str, doc: Dict[str, Any]) -> None:
    sch = schema(command)
    jsonschema.Draft202012Validator(sch).validate(doc)
    assert doc["schema_version"] == 3
    for path, value, s in walk(doc, sch):
        # JSON Schema's "integer" also admits 2048.0; the documents must write counts as integers.
        types = s.get("type")
        if types == "integer" or (isinstance(types, list) and set(types) == {"integer", "null"}):
            assert isinstance(value, int) or value is None, f"{command} {path}: {value!r} is not an integer"
        if path.rsplit(".", 1)[-1].split("[")[0] in COUNT_KEYS and isinstance(value, float):
            pytest.fail(f"{command} {path}: the count {value!r} is a float")


@pytest.mark.parametrize("command", COMMANDS)
def test_schemas_are_draft_2020_12(command):
    sch = schema(command)
    assert sch["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(sch)
    assert sch["properties"]["schema_version"] == {"const": 3, "description": sch["properties"]["schema_version"]["description"]}
    assert "schema_version" in sch["required"] and "command" in sch["required"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_document_validates(command, shared_dir, tmp_path):
    if command == "validate":
        draw = test_parity.validate_request_factory(tmp_path, shared_dir)
        docs = [gpuplan.validate(str(shared_dir / "validation" / f)).to_dict() for f in ("cases.jsonl", "vtrain.jsonl")]
    else:
        draw = test_parity.GENERATORS[command]
        docs = []
    rng = random.Random(f"schema-check-{command}")
    for _ in range(50):
        args, kwargs = draw(rng)
        try:
            docs.append(getattr(gpuplan, command)(*args, **kwargs).to_dict())
        except gpuplan.InputError:
            pass
    assert len(docs) >= 3
    for d in docs:
        check(command, d)


def test_a_document_with_a_float_count_or_an_unknown_key_is_refused():
    # The checks above can fail: a GPU count written 2048.0, and a key the schema does not list.
    doc = gpuplan.train(model="llama-3.1-70b", tokens="15T", gpu="h100", gpus=2048, mfu=0.4).to_dict()
    check("train", doc)
    bad = json.loads(json.dumps(doc))
    bad["time"]["gpus"] = 2048.0
    with pytest.raises(AssertionError, match="not an integer"):
        check("train", bad)
    bad = json.loads(json.dumps(doc))
    bad["time"]["gpus_total"] = 1
    with pytest.raises(jsonschema.ValidationError):
        check("train", bad)

# That the committed schemas are what scripts/json-schema.py writes today is the
# CTest json_schema_up_to_date (python/CMakeLists.txt), run beside these.
