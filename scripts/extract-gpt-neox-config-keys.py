#!/usr/bin/env python3
"""Lists the top-level YAML config keys GPT-NeoX's NeoXArgs takes at each
version gpuplan's gpt-neox profile names, read from a git mirror of
EleutherAI/gpt-neox, and writes them as data (data/exports/gpt-neox-config-keys.json)
so that a NeoX YAML export can be checked against the version it is for
(issue 29). Only key names are written: facts about the config loader, no code.

    python3 scripts/extract-gpt-neox-config-keys.py /path/to/gpt-neox.git > data/exports/gpt-neox-config-keys.json

How NeoX reads its YAML files (EleutherAI/gpt-neox@v2.0):
- megatron/neox_arguments/arguments.py: NeoXArgs is a dataclass whose bases are
  the list BASE_CLASSES (l.86-98): NeoXArgsDeepspeedRunner and
  NeoXArgsDeepspeedConfig (deepspeed_args.py; the latter's fields become the
  DeepSpeed config JSON, l.546-554) and the NeoXArgs* classes of neox_args.py.
- NeoXArgs.from_ymls (l.165-227) replaces every "-" of a top-level key with "_"
  (l.193-196) and calls cls(**config): a key that is no dataclass field stops
  the launch with the dataclass __init__'s TypeError (unexpected keyword
  argument). Keys nested inside dict-valued fields (zero_optimization, fp16,
  optimizer, ...) are not checked by NeoX; they go to DeepSpeed as written.
- So the keys are every annotated field of those classes (and their dataclass
  bases); class attributes without an annotation (tokenizer,
  tensorboard_writer, adlr_autoresume_object) are not fields and are refused.
  They are written here with "-" for "_"; either spelling is accepted.
- 'required': the names validate_values() insists are not None
  (arguments.py, the list literal required_args).
- The v2.0 tag's deepspeed_args.py does not parse (the autotuning_run
  docstring opened at l.207 is never closed, so l.212 and l.218 are bare
  text: SyntaxError, and `import megatron.neox_arguments` fails). The same
  day's 6edf2418 ("Update deepspeed_args.py (#823)") only closes that
  docstring; where a file of a version does not parse, the file is read at
  the commit PARSE_FIXES names for it, and the version records it under
  'read_from'.
"""
import ast
import json
import sys

from profile_revisions import git, revisions  # scripts/profile_revisions.py

# The profile's versions (data/frameworks/gpt-neox.json) and the tag each one reads.
VERSIONS = [
    ("2023", "v2.0"),
]

ARGS_DIR = "megatron/neox_arguments"

# version -> {path: commit to read it from when the version's copy is not valid Python}
PARSE_FIXES = {
    "2023": {"megatron/neox_arguments/deepspeed_args.py": "6edf241825f5329bcb48eaf779ba2b2486017add"},
}

ENTRY = ("python ./deepy.py train.py [-d CONF_DIR] config1.yml [config2.yml ...] "
         "(README.md l.219-237; deepy.py wraps deepspeed.launcher.runner; hosts from the "
         "'hostfile' key, -H/--hostfile, $DLTS_HOSTFILE or /job/hostfile; 'num_gpus' per node, 'num_nodes')")


def dashed(name):
    return name.replace("_", "-")


def parse(repo, rev, path, fixes, read_from):
    try:
        return ast.parse(git(repo, "show", f"{rev}:{path}"))
    except SyntaxError as e:
        if path not in fixes:
            raise SystemExit(f"{rev}:{path} does not parse ({e}) and PARSE_FIXES names no commit for it")
        fix = fixes[path]
        read_from[path] = f"{fix} ({rev}'s copy is not valid Python)"  # no message: it differs between Pythons
        return ast.parse(git(repo, "show", f"{fix}:{path}"))


def class_defs(repo, rev, fixes, read_from):
    """ClassDef of every class in megatron/neox_arguments/*.py at rev."""
    classes = {}
    for name in git(repo, "ls-tree", "--name-only", f"{rev}:{ARGS_DIR}").split():
        if name.endswith(".py"):
            tree = parse(repo, rev, f"{ARGS_DIR}/{name}", fixes, read_from)
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    classes[node.name] = node
    return classes


def fields(classes, name, seen):
    """Dataclass field names of class `name` and its bases (annotated, not ClassVar)."""
    node = classes.get(name)
    if node is None or name in seen:
        return []
    seen.add(name)
    out = []
    for base in node.bases:
        if isinstance(base, ast.Name):
            out += fields(classes, base.id, seen)
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            # a name annotated twice in one class body is one dataclass field
            if not ast.unparse(stmt.annotation).startswith(("ClassVar", "typing.ClassVar")) and stmt.target.id not in out:
                out.append(stmt.target.id)
    return out


def neoxargs_bases(args_tree):
    """Names of NeoXArgs' base classes: class NeoXArgs(*BASE_CLASSES) with BASE_CLASSES a list literal."""
    lists = {}
    for node in ast.walk(args_tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    lists[t.id] = [e.id for e in node.value.elts if isinstance(e, ast.Name)]
    for node in ast.walk(args_tree):
        if isinstance(node, ast.ClassDef) and node.name == "NeoXArgs":
            names = []
            for base in node.bases:
                if isinstance(base, ast.Starred) and isinstance(base.value, ast.Name):
                    names += lists[base.value.id]
                elif isinstance(base, ast.Name):
                    names.append(base.id)
            return names
    raise SystemExit("class NeoXArgs not found")


def required_args(args_tree):
    for node in ast.walk(args_tree):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.List)
                and any(isinstance(t, ast.Name) and t.id == "required_args" for t in node.targets)):
            return [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    return []


def keys_at(repo, rev, fixes):
    read_from = {}
    args_tree = parse(repo, rev, f"{ARGS_DIR}/arguments.py", fixes, read_from)
    classes = class_defs(repo, rev, fixes, read_from)
    bases = neoxargs_bases(args_tree)
    by_class = {}
    seen = set()
    for name in bases:
        if name not in classes:
            raise SystemExit(f"base class {name} of NeoXArgs not found under {ARGS_DIR}")
        by_class[name] = fields(classes, name, seen)
    names = [f for fs in by_class.values() for f in fs]
    if len(names) != len(set(names)):
        raise SystemExit("a field is declared by two NeoXArgs bases")  # NeoXArgs.validate_keys refuses that too
    out = {
        "keys": sorted(dashed(n) for n in names),
        "deepspeed_config_keys": sorted(dashed(n) for n in by_class.get("NeoXArgsDeepspeedConfig", [])),
        "deepspeed_runner_keys": sorted(dashed(n) for n in by_class.get("NeoXArgsDeepspeedRunner", [])),
        "required": sorted(dashed(n) for n in required_args(args_tree)),
        "classes": sorted(bases),
    }
    if read_from:
        out["read_from"] = dict(sorted(read_from.items()))
    return out


def main():
    repo = sys.argv[1]
    out = {
        "about": "Top-level YAML config keys GPT-NeoX's NeoXArgs takes at each version of the gpt-neox profile "
                 "(data/frameworks/gpt-neox.json), extracted by scripts/extract-gpt-neox-config-keys.py from "
                 "EleutherAI/gpt-neox: the dataclass fields of NeoXArgs' base classes (megatron/neox_arguments/"
                 "neox_args.py and deepspeed_args.py, listed in arguments.py BASE_CLASSES), written with '-' for '_'. "
                 "NeoXArgs.from_ymls replaces '-' by '_' in each top-level key, so both spellings are accepted, and "
                 "passes the keys to the dataclass constructor, which refuses any other key (TypeError). Keys nested "
                 "in dict-valued keys (zero_optimization, fp16, optimizer, ...) are DeepSpeed's and are not checked by "
                 "NeoX; 'deepspeed_config_keys' are the keys whose values form the DeepSpeed config, "
                 "'deepspeed_runner_keys' those passed to the DeepSpeed launcher, 'required' those validate_values() "
                 "requires. A NeoX YAML export is checked against them (issue 29).",
        "versions": [],
    }
    for version, commit, date in revisions(repo, VERSIONS):
        entry = {"version": version, "commit": commit, "date": date,
                 "file": f"{ARGS_DIR}/neox_args.py", "format": "yaml", "entry": ENTRY}
        entry.update(keys_at(repo, commit, PARSE_FIXES.get(version, {})))
        out["versions"].append(entry)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
