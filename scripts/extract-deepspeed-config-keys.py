#!/usr/bin/env python3
"""Lists the DeepSpeed config keys ("section.key") each version of gpuplan's
deepspeed profile reads, from a git mirror of deepspeedai/DeepSpeed, and writes
them as data (data/exports/deepspeed-config-keys.json) so that
`plan --export deepspeed` can be checked against the version it is for
(issue 29). Only key names are written: facts about the config reader, no code.

    python3 scripts/extract-deepspeed-config-keys.py /path/to/DeepSpeed.git > data/exports/deepspeed-config-keys.json

Where the keys come from, per section of the JSON config:
- top level: the string constants of deepspeed/runtime/constants.py and
  runtime/config.py (DeepSpeedConfig reads each with get_scalar_param(d, KEY, ...)),
  the section names zero_optimization and activation_checkpointing (their
  readers' ZERO_OPTIMIZATION and ACT_CHKPT constants),
  and the two deepspeed/__init__.py reads from the config dict
  ("sequence_parallel_size", "data_parallel_size", from v0.15);
- "bf16", "fp16": runtime/constants.py's constants ("enabled", "loss_scale", ...);
- "zero_optimization": DeepSpeedZeroConfig's fields and their aliases
  (runtime/zero/config.py, pydantic, v0.6.x on; it forbids unknown keys), or
  runtime/zero/constants.py's string constants before it;
- "zero_optimization.offload_optimizer" / ".offload_param": the offload
  configs' fields (runtime/zero/offload_config.py) or offload_constants.py;
- "activation_checkpointing": runtime/activation_checkpointing/config.py's constants;
- "tensor_parallel": TPTrainingConfig's fields (runtime/tensor_parallel/config.py, v0.16.4).
"""
import ast
import json
import sys

from profile_revisions import git, revisions  # scripts/profile_revisions.py

# The profile's versions (data/frameworks/deepspeed.json) and the tag each one reads.
VERSIONS = [
    ("2021", "v0.3.16"),
    ("0.5.0", "v0.5.0"),
    ("0.6.0", "v0.6.0"),
    ("0.9.2", "v0.9.2"),
    ("0.10.2", "v0.10.2"),
    ("0.16.4", "v0.16.4"),
]


def show(repo, commit, path, files):
    return git(repo, "show", f"{commit}:{path}") if path in files else None


def string_constants(source):
    """Values of module-level NAME = 'text' assignments (identifier-like text only)."""
    out = set()
    if source is None:
        return out
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            text = node.value.value
            if text and text.replace("_", "").isalnum() and text == text.lower():
                out.add(text)
    return out


def model_fields(source, class_names):
    """Field names and Field(alias=...) of the named pydantic classes."""
    out = set()
    if source is None:
        return out
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ClassDef) and node.name in class_names):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                out.add(stmt.target.id)
                if isinstance(stmt.value, ast.Call):
                    for kw in stmt.value.keywords:
                        if kw.arg == "alias" and isinstance(kw.value, ast.Constant):
                            out.add(kw.value.value)
    return out


def init_reads(source):
    """Keys deepspeed/__init__.py reads from the config dict: `"key" in config` tests."""
    out = set()
    if source is None:
        return out
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            if any(isinstance(op, ast.In) for op in node.ops) and ast.unparse(node.comparators[0]) == "config":
                out.add(node.left.value)
    return out


def keys_at(repo, commit):
    files = set(git(repo, "ls-tree", "-r", "--name-only", commit).split("\n"))
    rt = "deepspeed/runtime/"
    constants = string_constants(show(repo, commit, rt + "constants.py", files))
    top = constants | string_constants(show(repo, commit, rt + "config.py", files)) | init_reads(show(repo, commit, "deepspeed/__init__.py", files))
    zero_src = show(repo, commit, rt + "zero/config.py", files)
    zero_constants = string_constants(zero_src) | string_constants(show(repo, commit, rt + "zero/constants.py", files))
    zero = model_fields(zero_src, {"DeepSpeedZeroConfig"}) | string_constants(show(repo, commit, rt + "zero/constants.py", files))
    offload_src = show(repo, commit, rt + "zero/offload_config.py", files)
    offload_old = string_constants(show(repo, commit, rt + "zero/offload_constants.py", files))
    zero |= {n for n in offload_old if n.startswith("offload_")}  # OFFLOAD_OPTIMIZER / OFFLOAD_PARAM before pydantic
    offload_opt = model_fields(offload_src, {"DeepSpeedZeroOffloadOptimizerConfig"}) | offload_old
    offload_par = model_fields(offload_src, {"DeepSpeedZeroOffloadParamConfig"}) | offload_old
    if offload_src is not None and not offload_opt:
        offload_opt = offload_par = string_constants(offload_src)  # constants-style offload_config.py (before pydantic)
    act = string_constants(show(repo, commit, rt + "activation_checkpointing/config.py", files))
    # The section names are their readers' own constants (ZERO_OPTIMIZATION, ACT_CHKPT).
    top |= {n for n in ("zero_optimization", "activation_checkpointing") if n in zero_constants | act}
    tp = model_fields(show(repo, commit, rt + "tensor_parallel/config.py", files), {"TPTrainingConfig"})
    keys = set(top)
    sections = {"zero_optimization": zero, "activation_checkpointing": act,
                "zero_optimization.offload_optimizer": offload_opt, "zero_optimization.offload_param": offload_par}
    for precision in ("bf16", "fp16"):  # a section only where its constant exists (BFLOAT16 from v0.6.0)
        if precision in constants:
            sections[precision] = constants
    if tp:
        sections["tensor_parallel"] = tp
        keys.add("tensor_parallel")
    for section, names in sections.items():
        keys |= {f"{section}.{n}" for n in names}
    return sorted(keys)


def main():
    repo = sys.argv[1]
    out = {
        "about": "Config keys (section.key; top-level keys bare) DeepSpeed's config reader takes at each version of the "
                 "deepspeed profile (data/frameworks/deepspeed.json), extracted by scripts/extract-deepspeed-config-keys.py "
                 "from deepspeedai/DeepSpeed: runtime/constants.py and runtime/config.py constants, DeepSpeedZeroConfig's "
                 "fields and aliases (runtime/zero/config.py) or runtime/zero/constants.py, the offload configs, "
                 "activation_checkpointing/config.py, TPTrainingConfig (runtime/tensor_parallel/config.py), and the keys "
                 "deepspeed/__init__.py tests in the config. plan --export deepspeed is checked against them (issue 29).",
        "versions": [],
    }
    for version, commit, date in revisions(repo, VERSIONS):
        out["versions"].append({"version": version, "commit": commit, "date": date, "file": "deepspeed/runtime/config.py",
                                "format": "json", "keys": keys_at(repo, commit)})
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
