"""Typed results: a command's JSON document with attribute access.

A result holds exactly the document `gpuplan <command> --format json` prints
(to_dict() returns it); its sections and their fields read as attributes
(r.time.wall_clock_s) or items (r["time"]["wall_clock_s"]). Each command's
class adds the few headline values a script asks for first (TrainResult.gpu_hours)
and, for tables of records, to_dataframe() when pandas is importable.
"""
from __future__ import annotations

import copy
import json
import os
from typing import Any, Dict, Iterator, List, Mapping

from ._errors import InputError

__all__ = ["Record", "Result", "TrainResult", "MemoryResult", "PlanResult", "InferResult", "FinetuneResult",
           "CalibrationResult", "ValidationResult", "ModelsResult", "GpusResult", "FrameworksResult", "InputError",
           "result_for"]


def _wrap(value: Any) -> Any:
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class Record(Mapping):
    """A JSON object, read-only, whose keys are also attributes."""

    __slots__ = ("_data",)

    def __init__(self, data: Dict[str, Any]):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name: str) -> Any:
        data = object.__getattribute__(self, "_data")
        if name in data:
            return _wrap(data[name])
        raise AttributeError(f"{type(self).__name__} has no field '{name}'; it has: {', '.join(sorted(data))}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __getitem__(self, key: str) -> Any:
        return _wrap(self._data[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | {k for k in self._data if k.isidentifier()})

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Record):
            return self._data == other._data
        if isinstance(other, dict):
            return self._data == other
        return NotImplemented

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={self._data[k]!r}" for k in list(self._data)[:8])
        return f"{type(self).__name__}({inner}{', ...' if len(self._data) > 8 else ''})"

    def to_dict(self) -> Dict[str, Any]:
        """The JSON object itself (a deep copy), as `--format json` prints it."""
        return copy.deepcopy(self._data)


def _dataframe(rows: List[Dict[str, Any]]):
    try:
        import pandas  # noqa: PLC0415 - optional: only to_dataframe() needs it
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("to_dataframe() needs pandas (Debian: apt-get install python3-pandas)") from e
    return pandas.DataFrame([dict(r) for r in rows])


class Result(Record):
    """A command's whole JSON document."""

    __slots__ = ()
    command_name = ""

    @classmethod
    def schema(cls) -> Dict[str, Any]:
        """The JSON Schema (draft 2020-12) of this command's document (docs/json-schema/<command>.json)."""
        path = os.path.join(os.path.dirname(__file__), "schema", f"{cls.command_name}.json")
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    @property
    def schema_version(self) -> int:
        return self._data["schema_version"]

    @property
    def assumptions(self) -> List[str]:
        return list(self._data.get("assumptions", []))

    @property
    def warnings(self) -> List[str]:
        return list(self._data.get("warnings", []))


class TrainResult(Result):
    """gpuplan train: FLOPs, time, GPU count, GPU-hours and cost of a training run."""

    __slots__ = ()
    command_name = "train"

    @property
    def gpu_hours(self) -> float:
        """Total GPU-hours (compute, communication margin, failures, spot losses): gpu_hours.total_gpu_hours."""
        return self._data["gpu_hours"]["total_gpu_hours"]

    @property
    def wall_clock_s(self) -> float:
        return self._data["time"]["wall_clock_s"]

    @property
    def gpus(self):
        return self._data["time"]["gpus"]

    @property
    def total_flop(self) -> float:
        return self._data["compute"]["total_flop"]


class MemoryResult(Result):
    """gpuplan memory: per-GPU memory of one training layout."""

    __slots__ = ()
    command_name = "memory"


class PlanResult(Result):
    """gpuplan plan: ranked parallel layouts per GPU type and count."""

    __slots__ = ()
    command_name = "plan"

    def _rankings(self) -> List[Dict[str, Any]]:
        # Each layout with its group's gpu and gpus first, as the CSV has them.
        return [dict({"gpu": g["gpu"], "gpus": g["gpus"]}, **layout)
                for g in self._data.get("groups", []) for layout in g.get("ranking", [])]

    @property
    def groups(self) -> List[Record]:
        """One per GPU type and count: gpu, gpus, search, ranking, winner (and reference with compare_layout)."""
        return [Record(g) for g in self._data.get("groups", [])]

    @property
    def layouts(self) -> List[Record]:
        """Every ranked layout of every GPU type and count (with its gpu and gpus), best first within each."""
        return [Record(r) for r in self._rankings()]

    @property
    def best(self) -> List[Record]:
        """Each group's winner (its layout's fields and where its step goes); a group where nothing fits has none."""
        return [Record(dict({"gpu": g["gpu"], "gpus": g["gpus"]}, **g["winner"])) for g in self._data.get("groups", []) if "winner" in g]

    def to_dataframe(self):
        """The ranked layouts, one row each (pandas.DataFrame): the rows of `gpuplan plan --format csv`."""
        return _dataframe(self._rankings())


class InferResult(Result):
    """gpuplan infer: serving memory, latency, GPUs and cost per million tokens."""

    __slots__ = ()
    command_name = "infer"

    def to_dataframe(self):
        """One row per serving layout searched (TP, PP, EP, DP-attention) (pandas.DataFrame)."""
        return _dataframe(self._data.get("layouts", []))


class FinetuneResult(Result):
    """gpuplan finetune: memory, time and cost of full, LoRA and QLoRA fine-tuning."""

    __slots__ = ()
    command_name = "finetune"

    def to_dataframe(self):
        """One row per catalog GPU ranked by cost (pandas.DataFrame)."""
        return _dataframe(self._data.get("cheapest", []))


class CalibrationResult(Result):
    """gpuplan calibrate: factors fitted to a trial run, and the full run re-planned with them."""

    __slots__ = ()
    command_name = "calibrate"


class ValidationResult(Result):
    """gpuplan validate: each case's prediction, measurement and error; per kind the median and MAPE."""

    __slots__ = ()
    command_name = "validate"

    def to_dataframe(self):
        """One row per scored case (pandas.DataFrame)."""
        return _dataframe(self._data.get("cases", []))


class ModelsResult(Result):
    """gpuplan models: the built-in models, or one model."""

    __slots__ = ()
    command_name = "models"

    def to_dataframe(self):
        """The catalog list, one row per entry (pandas.DataFrame); a single entry's document has no list."""
        if "models" not in self._data:
            raise ValueError("to_dataframe() needs the whole list: call gpuplan.models() without an argument")
        return _dataframe(self._data["models"])


class GpusResult(Result):
    """gpuplan gpus: the built-in GPUs, or one GPU."""

    __slots__ = ()
    command_name = "gpus"

    def to_dataframe(self):
        """The catalog list, one row per entry (pandas.DataFrame); a single entry's document has no list."""
        if "gpus" not in self._data:
            raise ValueError("to_dataframe() needs the whole list: call gpuplan.gpus() without an argument")
        return _dataframe(self._data["gpus"])


class FrameworksResult(Result):
    """gpuplan frameworks: the framework profiles, or one profile's properties."""

    __slots__ = ()
    command_name = "frameworks"


class EnginesResult(Result):
    """gpuplan engines: the serving-engine profiles, or one engine version's properties."""

    __slots__ = ()
    command_name = "engines"


_CLASSES = {"train": TrainResult, "memory": MemoryResult, "plan": PlanResult, "infer": InferResult,
            "finetune": FinetuneResult, "calibrate": CalibrationResult, "validate": ValidationResult,
            "models": ModelsResult, "gpus": GpusResult, "frameworks": FrameworksResult, "engines": EnginesResult}


def result_for(command: str, document: Dict[str, Any]) -> Result:
    return _CLASSES.get(command, Result)(document)
