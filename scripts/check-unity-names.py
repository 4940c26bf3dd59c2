#!/usr/bin/env python3
"""Fails when two source files of one target define the same file-scope name.

scripts/test.sh compiles the optimised build as unity batches (several .cpp
files in one translation unit). There, two files' helpers of one name either
fail to compile or, worse, compile silently into the other one: a constant in
one file's anonymous namespace hides the header's constant of the same name in
the next file (finetune.cpp's kMaxGpus = 1024 once capped train's --gpus at
1,024 in a unity build), and an overload from a neighbouring file can win. So a
helper, a constant or a formula lives in one file, and a second one with the
same meaning includes it; one with another meaning takes another name.

Checked per target: src/ and include/ (the library and the CLI), tests/ (the
GoogleTest program), fuzz/. The scan reads definitions that start a line
(constants named k..., functions with their body on the same or next lines);
it is a lint, not a parser.

  python3 scripts/check-unity-names.py      # exit 1 and the clashes, or exit 0
"""
from __future__ import annotations

import collections
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONST = re.compile(r"^(?:inline\s+)?(?:static\s+)?constexpr\s+[\w:<>,\s]+?\s+(k\w+)\s*(?:=|\{|\[)")
FUNC = re.compile(r"^(?:static\s+|inline\s+|\[\[[\w:]+\]\]\s+)*(?:const\s+)?[\w:<>,]+(?:\s*[&*])?\s+(\w+)\([^;]*$")
# A one-line function (`bool boolean(const json& v) { return ...; }`), a type alias and a
# struct, class or enum at file scope clash the same way (two readers' `using Setter =` and
# `struct Property` once stopped the unity build).
ONE_LINE = re.compile(r"^(?:static\s+|inline\s+|\[\[[\w:]+\]\]\s+)*(?:const\s+)?[\w:<>,]+(?:\s*[&*])?\s+(\w+)\([^()]*(?:\([^()]*\)[^()]*)*\)\s*(?:const\s*)?\{.*\}\s*$")
TYPE = re.compile(r"^(?:using\s+(\w+)\s*=|(?:struct|class|enum(?:\s+class)?)\s+(\w+)\s*(?:final\s*)?(?::[^;]*)?\{)")
NOT_NAMES = {"if", "for", "while", "switch", "return", "operator", "TEST", "TEST_F", "TEST_P", "INSTANTIATE_TEST_SUITE_P"}
# Overloads on distinct types by design: each CLI command's run(const XFlags&).
ALLOWED = {"run"}
TARGETS = {
    "library and CLI": ["src/**/*.cpp", "src/**/*.hpp", "include/**/*.hpp"],
    "tests": ["tests/*/test_*.cpp", "tests/*.hpp", "tests/*.inc"],
    "fuzz harnesses": ["fuzz/*.cpp", "fuzz/*.hpp"],
}


def definitions(path: Path):
    for line in path.read_text(encoding="utf-8").splitlines():
        m = CONST.match(line) or FUNC.match(line) or ONE_LINE.match(line)
        if m and m.group(1) not in NOT_NAMES:
            yield m.group(1)
        t = TYPE.match(line)
        if t:
            yield t.group(1) or t.group(2)


def clashes(globs):
    where = collections.defaultdict(set)
    for pattern in globs:
        for p in ROOT.glob(pattern):
            for name in definitions(p):
                where[name].add(str(p.relative_to(ROOT)))
    for name, files in sorted(where.items()):
        sources = [f for f in files if f.endswith(".cpp")]
        headers = [f for f in files if f.endswith(".hpp")]
        # Two .cpp files, or a .cpp constant shadowing a header's constant of the same name.
        if name not in ALLOWED and (len(sources) > 1 or (sources and headers and name.startswith("k"))):
            yield name, sorted(files)


def main() -> int:
    found = 0
    for target, globs in TARGETS.items():
        for name, files in clashes(globs):
            print(f"{target}: `{name}` is defined in {', '.join(files)}")
            found += 1
    if found:
        print(f"{found} name(s) defined twice in one target: give one file the definition, or each its own name "
              "(a unity build puts these files in one translation unit).")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
