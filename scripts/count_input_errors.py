#!/usr/bin/env python3
"""Counts the InputError throw sites under src/ and include/: how many give the
Chinese sentence (InputError(field, en, zh)) and how many only the English one
(the old two-argument form); and the require_range calls (each a throw site
too): with the allowed values in both languages (six arguments) or English only
(five). With --list, prints each English-only site.

  python3 scripts/count_input_errors.py [--list]

A site is an `InputError(` call; its arguments are counted at the top level,
skipping strings, character literals and nested brackets.
"""
import pathlib
import re
import sys


def top_level_args(text, start):
    """Number of top-level arguments of the call whose '(' is at text[start]."""
    depth, args, i, n = 0, 1, start, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            if c == '"' and text[i - 1] == 'R' and not text[i - 2].isalnum():  # raw string R"(...)"
                end = text.index('(', i)
                close = ')' + text[i + 1:end] + '"'
                i = text.index(close, end) + len(close)
                continue
            i += 1
            while text[i] != c:
                i += 2 if text[i] == '\\' else 1
        elif c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                return args
        elif c == ',' and depth == 1:
            args += 1
        i += 1
    return args


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    with_zh, without = 0, []
    ranges_zh, ranges_en = 0, []
    for path in sorted(list(root.glob('src/**/*.[ch]pp')) + list(root.glob('include/**/*.hpp'))):
        if path.name == 'error.hpp':
            continue  # the class itself
        text = path.read_text(encoding='utf-8')
        code = re.sub(r'//[^\n]*', lambda m: ' ' * len(m.group(0)), text)  # comments name InputError too
        for m in re.finditer(r'\bInputError\(', code):
            if code[max(0, m.start() - 6):m.start()] == 'const ':
                continue  # a catch clause's type, not a site
            nargs = top_level_args(code, m.end() - 1)
            line = code.count('\n', 0, m.start()) + 1
            if nargs >= 3:
                with_zh += 1
            else:
                without.append(f'{path.relative_to(root)}:{line}')
        for m in re.finditer(r'\brequire_range\(', code):
            if code[m.end():m.end() + 12] == 'double value' or path.name == 'units.cpp':
                continue  # its declarations and definitions (the English-only one forwards to the other)
            line = code.count('\n', 0, m.start()) + 1
            if top_level_args(code, m.end() - 1) >= 6:
                ranges_zh += 1
            else:
                ranges_en.append(f'{path.relative_to(root)}:{line} (require_range)')
    print(f'InputError sites: {with_zh + len(without)}; with a zh sentence: {with_zh}; English only: {len(without)}')
    print(f'require_range calls: {ranges_zh + len(ranges_en)}; with a zh sentence: {ranges_zh}; English only: {len(ranges_en)}')
    if '--list' in sys.argv:
        print('\n'.join(without + ranges_en))


if __name__ == '__main__':
    main()
