#!/usr/bin/env python3
"""Fails (exit 1) when a function in the given folders is longer than LIMIT lines (issue 31: 200).

  python3 scripts/check-function-length.py [LIMIT] [FOLDER ...]   # default: 200 src include

A function is a brace block opened at namespace level (outside any class,
struct, enum or initialiser) by a line that is not a namespace, type or
variable declaration; its length counts from the line that opens it to the
line that closes it. Strings, character literals and // comments are blanked
first, so braces inside them do not count. Prints each offender, longest
first, as LINES PATH:LINE SIGNATURE.
"""
from __future__ import annotations

import pathlib
import re
import sys


def code_of(line: str) -> str:
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return line.split("//")[0]


def long_functions(path: pathlib.Path, limit: int):
    depth = ns_depth = 0
    start = None  # (kind, line, signature) of the open block at namespace level
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = code_of(raw)
        for ch in line:
            if ch == "{":
                if start is None and depth == ns_depth:
                    head = line.strip()
                    if re.match(r"(namespace|extern)\b", head):
                        ns_depth += 1
                    elif re.match(r"(struct|class|enum|union)\b", head) or ("=" in head.split("{")[0] and "(" not in head):
                        start = ("type", number, "")
                    else:
                        start = ("function", number, raw.strip()[:100])
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth < ns_depth:
                    ns_depth = depth
                if start is not None and depth == ns_depth:
                    kind, first, signature = start
                    if kind == "function" and number - first + 1 > limit:
                        yield number - first + 1, f"{path}:{first}", signature
                    start = None


def main() -> int:
    args = sys.argv[1:]
    limit = int(args.pop(0)) if args and args[0].isdigit() else 200
    folders = [pathlib.Path(a) for a in args] or [pathlib.Path("src"), pathlib.Path("include")]
    found = []
    for folder in folders:
        for path in sorted(list(folder.rglob("*.cpp")) + list(folder.rglob("*.hpp"))):
            found += list(long_functions(path, limit))
    for lines, where, signature in sorted(found, reverse=True):
        print(f"{lines} {where} {signature}")
    if found:
        print(f"{len(found)} function(s) over {limit} lines: split them at their section comments.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
