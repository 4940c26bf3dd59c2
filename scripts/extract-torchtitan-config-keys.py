#!/usr/bin/env python3
"""Lists the job-config keys ("section.key") torchtitan's TOML loader takes at
each version gpuplan's torchtitan profile names, read from a git mirror of
pytorch/torchtitan, and writes them as data (data/exports/torchtitan-config-keys.json)
so that `plan --export torchtitan` can be checked against the version it is for
(issue 29). torchtitan's loader sets known keys and ignores the rest, so a key
the version does not have would silently leave its default in place. Only key
names are written: facts about the loader, no code.

    python3 scripts/extract-torchtitan-config-keys.py /path/to/torchtitan.git > data/exports/torchtitan-config-keys.json

- Until 2025-04: torchtitan/config_manager.py declares each key as an argparse
  option "--section.key"; the TOML file's sections and keys map onto them.
- 2025-10: torchtitan/config/job_config.py, dataclasses: JobConfig's fields are
  the sections, each section class's fields its keys (nested classes nest).
- 2026-08: jobs are Python configs (--module/--config, torchtitan/config/configs.py);
  no TOML file is read, so no key is listed and the format is "python".
"""
import ast
import json
import sys

from profile_revisions import git, revisions  # scripts/profile_revisions.py

# The profile's versions (data/frameworks/torchtitan.json) and the commit each one reads.
VERSIONS = [
    ("2024-04", "258f60828f42fa617bfc2dd5c8ed488d7ab9f3bf"),
    ("2024-12", "3f20451bc3b0de6d292946b1774581856014a0a9"),
    ("2025-02", "5940ddeb532c60928314aa1a19b54e043eec2a44"),
    ("2025-04", "bbb1b616ef4d01b0ea745c13b03c192910a166c9"),
    ("2025-10", "e5ef99aab"),
    ("2026-08", "b5bcd76c66d0acb1a08b176d9639425bc55e0b2a"),
]


def argparse_keys(source):
    keys = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("add_argument"):
            for a in node.args:
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--") and "." in a.value:
                    keys.add(a.value[2:])
    return keys


def dataclass_keys(source, root="JobConfig"):
    classes = {n.name: n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)}
    keys = set()

    def walk(name, prefix, depth):
        if depth > 6 or name not in classes:
            return
        for stmt in classes[name].body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            ann = stmt.annotation
            inner = ann.id if isinstance(ann, ast.Name) else None
            path = prefix + stmt.target.id
            if inner in classes:
                walk(inner, path + ".", depth + 1)
            else:
                keys.add(path)

    walk(root, "", 0)
    return keys


def main():
    repo = sys.argv[1]
    out = {
        "about": "Job-config keys (section.key) torchtitan's TOML loader takes at each version of the torchtitan profile "
                 "(data/frameworks/torchtitan.json), extracted by scripts/extract-torchtitan-config-keys.py from "
                 "pytorch/torchtitan: argparse options of torchtitan/config_manager.py until 2025-04, JobConfig's "
                 "dataclass fields in torchtitan/config/job_config.py at 2025-10; format 'python' where jobs are "
                 "Python configs and no TOML is read. plan --export torchtitan is checked against them (issue 29).",
        "versions": [],
    }
    for version, commit, date in revisions(repo, VERSIONS):
        files = git(repo, "ls-tree", "-r", "--name-only", commit).split("\n")
        if "torchtitan/config_manager.py" in files:
            path, fmt, keys = "torchtitan/config_manager.py", "toml", argparse_keys(git(repo, "show", f"{commit}:torchtitan/config_manager.py"))
        elif "torchtitan/config/job_config.py" in files:
            path, fmt, keys = "torchtitan/config/job_config.py", "toml", dataclass_keys(git(repo, "show", f"{commit}:torchtitan/config/job_config.py"))
        else:
            path, fmt, keys = "torchtitan/config/configs.py", "python", set()
        out["versions"].append({"version": version, "commit": commit, "date": date, "file": path, "format": fmt, "keys": sorted(keys)})
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
