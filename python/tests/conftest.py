"""Shared fixtures: the built CLI, the source tree, and the case files.

CTest (python/CMakeLists.txt) sets GPUPLAN_BINARY, GPUPLAN_SOURCE_DIR,
GPUPLAN_SHARED_DIR and PYTHONPATH=build/python; run by hand from the
repository root they default to build/gpuplan and ../shared.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

# Run by hand (no CTest environment): import the package this checkout built.
if "GPUPLAN_BINARY" not in os.environ:
    import sys
    _built = str(Path(__file__).resolve().parents[2] / "build" / "python")
    sys.path.insert(0, _built)
    os.environ["PYTHONPATH"] = _built + os.pathsep + os.environ.get("PYTHONPATH", "")

# The CLI's language (and so its default market) follows GPUPLAN_LANG and the
# locale; the module's answers do not. Compared with the module, the CLI runs in en.
os.environ["GPUPLAN_LANG"] = "en"
SOURCE_DIR = Path(os.environ.get("GPUPLAN_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BINARY = Path(os.environ.get("GPUPLAN_BINARY", SOURCE_DIR / "build" / "gpuplan"))
SHARED_DIR = Path(os.environ.get("GPUPLAN_SHARED_DIR", SOURCE_DIR.parent / "shared"))


def without_timing(document):
    """The document with the planner's own search time blanked: the one value that differs run to run."""
    text = json.dumps(document, sort_keys=True)
    return json.loads(re.sub(r"Search took \d+ ms\.", "Search took N ms.", text))


class CliRun:
    def __init__(self, argv: List[str], proc: subprocess.CompletedProcess):
        self.argv = argv
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def json(self):
        return json.loads(self.stdout)

    def error(self) -> Optional[str]:
        """The sentence after "error: " on stderr, when the run was refused (exit status 2)."""
        if self.rc != 2:
            return None
        line = self.stderr.strip()
        assert line.startswith("error: "), line
        return line[len("error: "):]

    def error_in_keywords(self) -> Optional[str]:
        """error() as the Python module words it: each of gpuplan's own flags spelled as its keyword argument
        (--seq-len as seq_len); another program's flags the sentence quotes (Megatron's) stay."""
        e = self.error()
        return None if e is None else in_keywords(e)


def _every_keyword() -> set:
    import gpuplan._commands as c
    return {o.keyword for cmd in c.COMMANDS.values() for o in cmd.options} | {
        "model", "params", "config", "gpu_file", "calibration", "export", "rank"}


def in_keywords(sentence: str) -> str:
    """Written apart from the C++ (in_request_keys), so the two check each other."""
    keywords = _every_keyword()

    def one(m: "re.Match[str]") -> str:
        key = m.group(1).rstrip("-").replace("-", "_")
        tail = m.group(1)[len(m.group(1).rstrip("-")):]
        return key + tail if key in keywords else m.group(0)
    return re.sub(r"(?<![a-z0-9_-])--([a-z][a-z0-9-]*)", one, sentence)


def run_cli(argv: List[str]) -> CliRun:
    proc = subprocess.run([str(BINARY)] + argv, capture_output=True, text=True, timeout=300)
    return CliRun(argv, proc)


@pytest.fixture(scope="session")
def cli():
    assert BINARY.exists(), f"the gpuplan binary is not built: {BINARY}"
    return run_cli


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    assert (SHARED_DIR / "validation" / "cases.jsonl").exists(), f"no validation cases under {SHARED_DIR}"
    return SHARED_DIR
