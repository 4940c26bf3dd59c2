#!/usr/bin/env python3
"""Lists the command-line flags Megatron-DeepSpeed's pretrain_gpt.py accepts at
each version gpuplan's megatron-deepspeed profile names
(data/frameworks/megatron-deepspeed.json), read from git mirrors of
bigscience-workshop/Megatron-DeepSpeed (2022), microsoft/Megatron-DeepSpeed
(2024) and deepspeedai/DeepSpeed (formerly microsoft/DeepSpeed), and writes them
as data (data/exports/megatron-deepspeed-arguments.json) so that an export of
Megatron-DeepSpeed arguments can be checked against the version it is for.
Only flag names are written: facts about the parser, no code.

    python3 scripts/extract-megatron-deepspeed-arguments.py \
        bigscience-Megatron-DeepSpeed.git microsoft-Megatron-DeepSpeed.git DeepSpeed.git \
        > data/exports/megatron-deepspeed-arguments.json

How pretrain_gpt.py's parser is put together (both versions; the script checks
the parts marked *):
- pretrain_gpt.py calls megatron.training.pretrain(...) without an
  extra_args_provider (*); pretrain calls initialize_megatron, which parses with
  ignore_unknown_args=False (its default), so parser.parse_args() runs and a
  flag outside the set below is an argparse error. The parser is built with
  allow_abbrev=False, so prefixes of flags are not accepted either.
- megatron/arguments.py parse_args calls its _add_*_args functions, then
  deepspeed.add_config_arguments(parser) (*), which adds DeepSpeed's core
  group (deepspeed/__init__.py _add_core_arguments): --deepspeed,
  --deepspeed_config, --deepscale, --deepscale_config and, before DeepSpeed
  v0.13.1 (commit 538ffb4b6, 2024-01-23), --deepspeed_mpi.
- Which DeepSpeed: the repositories pin none. For 2022 the profile's own
  DeepSpeed of that time, v0.7.0 (the same five flags from v0.6.0 to v0.7.7);
  for 2024 v0.16.2, the newest DeepSpeed tag before the 2024-12-24 commit
  (four flags from v0.13.1 on).

What counts as a flag: every option string starting with "--" of an
add_argument call inside a module-level function reachable (by direct calls to
functions of the same module) from megatron/arguments.py parse_args, and from
deepspeed/__init__.py add_config_arguments.
"""
import ast
import json
import sys

from argparse_ast import option_strings, reachable_flags  # scripts/argparse_ast.py
from profile_revisions import git, revisions  # scripts/profile_revisions.py

# The profile's versions (data/frameworks/megatron-deepspeed.json): which mirror
# (argument index), the repository, the commit, and the DeepSpeed tag whose
# add_config_arguments completes the parser.
VERSIONS = [
    ("2022", 0, "bigscience-workshop/Megatron-DeepSpeed", "0f23a729ec5ed6ef46e1fecc8071ac11acdb91c6", "v0.7.0"),
    ("2024", 1, "microsoft/Megatron-DeepSpeed", "f4157bea69f3df8c6cb66f2ebcda66ba03d1288e", "v0.16.2"),
]

ARGS = "megatron/arguments.py"
PRETRAIN = "pretrain_gpt.py"
TRAINING = "megatron/training.py"
DS_INIT = "deepspeed/__init__.py"


def tree_at(repo, commit, path):
    return ast.parse(git(repo, "show", f"{commit}:{path}"))


def check_parser_assembly(repo, commit):
    """Stops unless parse_args calls deepspeed.add_config_arguments and
    pretrain_gpt.py passes no extra_args_provider (the assumptions above)."""
    tree = tree_at(repo, commit, ARGS)
    parse_args = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "parse_args")
    if not any(isinstance(c, ast.Call) and ast.unparse(c.func) == "deepspeed.add_config_arguments" for c in ast.walk(parse_args)):
        sys.exit(f"{ARGS}@{commit[:8]}: parse_args no longer calls deepspeed.add_config_arguments; extend this script")
    training = tree_at(repo, commit, TRAINING)
    pretrain = next(n for n in training.body if isinstance(n, ast.FunctionDef) and n.name == "pretrain")
    position = [a.arg for a in pretrain.args.args].index("extra_args_provider")
    calls = [c for c in ast.walk(tree_at(repo, commit, PRETRAIN))
             if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "pretrain"]
    if not calls:
        sys.exit(f"{PRETRAIN}@{commit[:8]}: no pretrain(...) call; extend this script")
    for c in calls:
        if len(c.args) > position or any(k.arg in ("extra_args_provider", None) for k in c.keywords):
            sys.exit(f"{PRETRAIN}@{commit[:8]}: pretrain() may be given an extra_args_provider; extend this script")


def main():
    mirrors = sys.argv[1:3]
    ds_repo = sys.argv[3]
    out = {
        "about": "Command-line flags Megatron-DeepSpeed's pretrain_gpt.py accepts at each version of the "
                 "megatron-deepspeed profile (data/frameworks/megatron-deepspeed.json), extracted by "
                 "scripts/extract-megatron-deepspeed-arguments.py: the option strings of the add_argument calls "
                 "reachable from megatron/arguments.py parse_args (its _add_*_args; pretrain_gpt.py passes no "
                 "extra_args_provider, and initialize_megatron parses with ignore_unknown_args=False and "
                 "allow_abbrev=False, so any other flag or abbreviation is an argparse error), plus what "
                 "deepspeed.add_config_arguments, which parse_args calls last, adds (deepspeed/__init__.py "
                 "_add_core_arguments: --deepspeed, --deepspeed_config, --deepscale, --deepscale_config, and "
                 "--deepspeed_mpi before DeepSpeed v0.13.1), read at the DeepSpeed tag named in each version's "
                 "sources (the repositories pin none: v0.7.0 for 2022, the profile's DeepSpeed of that "
                 "time; v0.16.2, the newest tag before the 2024-12-24 commit, for 2024).",
        "versions": [],
    }
    for version, index, repo_name, rev, ds_tag in VERSIONS:
        repo = mirrors[index]
        (_, commit, date), = revisions(repo, [(version, rev)])
        check_parser_assembly(repo, commit)
        mds_flags, reached, unreached = reachable_flags(tree_at(repo, commit, ARGS), ["parse_args"])
        if unreached:
            print(f"{ARGS}@{commit[:8]}: add_argument in functions not reached from parse_args: {', '.join(unreached)}", file=sys.stderr)
        (_, ds_commit, ds_date), = revisions(ds_repo, [(ds_tag, ds_tag)])
        ds_flags, _, _ = reachable_flags(tree_at(ds_repo, ds_commit, DS_INIT), ["add_config_arguments"])
        if not {"--deepspeed", "--deepspeed_config"} <= ds_flags:
            sys.exit(f"{DS_INIT}@{ds_tag}: add_config_arguments no longer adds --deepspeed/--deepspeed_config; extend this script")
        clash = sorted(mds_flags & ds_flags)
        if clash:  # argparse would refuse the conflicting option strings at start-up
            sys.exit(f"{repo_name}@{commit[:8]} and DeepSpeed {ds_tag} both define {', '.join(clash)}")
        out["versions"].append({
            "version": version,
            "repo": repo_name,
            "commit": commit,
            "date": date,
            "file": ARGS,
            "format": "flags",
            "sources": [
                {"file": ARGS, "commit": commit, "from": "parse_args", "functions": len(reached), "flags": len(mds_flags)},
                {"repo": "deepspeedai/DeepSpeed", "tag": ds_tag, "commit": ds_commit, "date": ds_date,
                 "file": DS_INIT, "from": "add_config_arguments", "flags": sorted(ds_flags)},
            ],
            "flags": sorted(mds_flags | ds_flags),
        })
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
