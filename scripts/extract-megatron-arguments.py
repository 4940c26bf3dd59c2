#!/usr/bin/env python3
"""Lists the command-line flags Megatron-LM's own argument parser accepts at
each release gpuplan's megatron-lm profile names, read from a git mirror of
NVIDIA/Megatron-LM, and writes them as data (data/exports/megatron-lm-arguments.json)
so that `plan --export megatron` can be checked against the version it is for
(issue 29). Only flag names are written: facts about the parser, no code.

    python3 scripts/extract-megatron-arguments.py /path/to/Megatron-LM.git > data/exports/megatron-lm-arguments.json

What counts as a flag:
- every option string of a parser.add_argument / group.add_argument call in
  megatron/arguments.py (until core_v0.5.0) or megatron/training/arguments.py;
- from core_v0.16.0 on, the flags ArgumentGroupFactory(ConfigClass, exclude=...)
  adds for each dataclass field of ConfigClass and its bases
  (megatron/training/argument_utils.py): "--" + name with "_" → "-"; a bool
  field whose default is not False becomes "--no-name" and "--disable-name";
  fields excluded or declared field(init=False) add none; argparse_meta may
  rename them.
"""
import ast
import json
import sys

from argparse_ast import option_strings  # scripts/argparse_ast.py
from profile_revisions import git, revisions  # scripts/profile_revisions.py

# The profile's versions (data/frameworks/megatron-lm.json) and the commit each one reads.
VERSIONS = [
    ("2021", "e269e200"),      # v2.5, the sc21 code of Narayanan et al. 2021
    ("2022", "d07d29df"),      # main, 2022-06-08
    ("0.5.0", "core_v0.5.0"),
    ("0.6.0", "core_v0.6.0"),
    ("0.8.0", "core_v0.8.0"),
    ("0.9.0", "core_v0.9.0"),
    ("0.10.0", "core_v0.10.0"),
    ("0.11.0", "core_v0.11.0"),
    ("0.12.0", "core_v0.12.0"),
    ("0.14.0", "core_v0.14.0"),
    ("0.16.0", "core_v0.16.0"),
    ("0.19.0", "core_v0.19.0"),
]


def find_class(repo, rev, name, cache):
    """The ClassDef of `name` somewhere under megatron/, and its module's tree."""
    if name in cache:
        return cache[name]
    hits = git(repo, "grep", "-l", f"^class {name}\\b", rev, "--", "megatron").split()
    for hit in hits:
        path = hit.split(":", 1)[1]
        tree = ast.parse(git(repo, "show", f"{rev}:{path}"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == name:
                cache[name] = node
                return node
    cache[name] = None
    return None


def dataclass_flags(repo, rev, cls_name, exclude, cache, seen=None):
    seen = seen if seen is not None else set()
    node = find_class(repo, rev, cls_name, cache)
    if node is None or cls_name in seen:
        return []
    seen.add(cls_name)
    flags = []
    for base in node.bases:  # dataclass fields of the bases come first
        if isinstance(base, ast.Name):
            flags += dataclass_flags(repo, rev, base.id, exclude, cache, seen)
    for stmt in node.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        name = stmt.target.id
        if name in exclude or name.startswith("_"):
            continue
        ann = ast.unparse(stmt.annotation)
        if ann.startswith("ClassVar"):
            continue
        default = stmt.value
        names = None
        if isinstance(default, ast.Call) and ast.unparse(default.func) in ("field", "dataclasses.field"):
            kw = {k.arg: k.value for k in default.keywords}
            if "init" in kw and isinstance(kw["init"], ast.Constant) and kw["init"].value is False:
                continue
            meta = kw.get("metadata")
            if isinstance(meta, ast.Dict):
                for k, v in zip(meta.keys, meta.values):
                    if isinstance(k, ast.Constant) and k.value == "argparse_meta" and isinstance(v, ast.Dict):
                        for mk, mv in zip(v.keys, v.values):
                            if isinstance(mk, ast.Constant) and mk.value == "arg_names" and isinstance(mv, (ast.List, ast.Tuple)):
                                names = [e.value for e in mv.elts if isinstance(e, ast.Constant)]
            default = kw.get("default")
        if names is None:
            flag = "--" + name.replace("_", "-")
            is_bool = ann in ("bool", "Optional[bool]", "bool | None", "typing.Optional[bool]")
            default_false = isinstance(default, ast.Constant) and default.value is False
            if is_bool and not default_false:
                names = ["--no-" + name.replace("_", "-"), "--disable-" + name.replace("_", "-")]
            else:
                names = [flag]
        flags += names
    return flags


def flags_at(repo, rev):
    files = git(repo, "ls-tree", "-r", "--name-only", rev).split("\n")
    path = "megatron/training/arguments.py" if "megatron/training/arguments.py" in files else "megatron/arguments.py"
    tree = ast.parse(git(repo, "show", f"{rev}:{path}"))
    flags = set()
    lists = {}  # name -> (lineno, [strings]) of list literals assigned to a name
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    lists.setdefault(t.id, []).append((node.lineno, [e.value for e in node.value.elts if isinstance(e, ast.Constant)]))
    cache = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = ast.unparse(node.func)
        if func.endswith("add_argument"):
            flags.update(option_strings(node))
        elif func == "ArgumentGroupFactory" and node.args and isinstance(node.args[0], ast.Name):
            exclude = []
            for k in node.keywords:
                if k.arg == "exclude":
                    if isinstance(k.value, ast.List):
                        exclude = [e.value for e in k.value.elts if isinstance(e, ast.Constant)]
                    elif isinstance(k.value, ast.Name):
                        before = [x for x in lists.get(k.value.id, []) if x[0] < node.lineno]
                        exclude = max(before)[1] if before else []
            flags.update(dataclass_flags(repo, rev, node.args[0].id, set(exclude), cache))
    return path, sorted(flags)


def main():
    repo = sys.argv[1]
    out = {
        "about": "Command-line flags Megatron-LM's argument parser accepts at each release of the megatron-lm profile "
                 "(data/frameworks/megatron-lm.json), extracted by scripts/extract-megatron-arguments.py from "
                 "NVIDIA/Megatron-LM: add_argument option strings, and from core_v0.16.0 the flags "
                 "ArgumentGroupFactory derives from config dataclass fields (megatron/training/argument_utils.py). "
                 "plan --export megatron is checked against them (issue 29).",
        "versions": [],
    }
    for version, commit, date in revisions(repo, VERSIONS):
        path, flags = flags_at(repo, commit)
        out["versions"].append({"version": version, "commit": commit, "date": date, "file": path, "flags": flags})
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
