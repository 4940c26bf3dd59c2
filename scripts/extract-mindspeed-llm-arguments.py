#!/usr/bin/env python3
"""Lists the command-line flags MindSpeed-LLM's pretrain_gpt.py accepts at each
release gpuplan's mindspeed-llm profile names (data/frameworks/mindspeed-llm.json),
read from git mirrors of Ascend/MindSpeed-LLM, Ascend/MindSpeed and
NVIDIA/Megatron-LM, and writes them as data
(data/exports/mindspeed-llm-arguments.json) so that
`plan --export megatron --framework mindspeed-llm` can be checked against the
version it is for. Only flag names are written: facts about the parser, no code.

    python3 scripts/extract-mindspeed-llm-arguments.py MindSpeed-LLM.git MindSpeed.git Megatron-LM.git \
        > data/exports/mindspeed-llm-arguments.json

How pretrain_gpt.py's parser is put together at 2.1.0 (what this script follows):
- pretrain_gpt.py imports mindspeed_llm, whose megatron_adaptor patches
  megatron.training.arguments.parse_args with parse_args_decorator
  (mindspeed_llm/tasks/megatron_adaptor.py patch_miscellaneous); the decorated
  parse_args runs Megatron's own parse_args (megatron/training/arguments.py of
  core_r0.8.0, which MindSpeed-LLM's install guide copies in) with
  extra_args_provider = mindspeed_llm.training.arguments.process_args, and
  parses with ignore_unknown_args=False (mindspeed_llm/training/initialize.py
  initialize_megatron): a flag outside the union below is an argparse error.
- process_args sets conflict_handler='resolve' and calls the _add_*_args
  functions of mindspeed_llm/training/arguments.py, then register_args of each
  feature in mindspeed_llm/features_manager/__init__.py FEATURES_LIST (its own
  features and MindSpeed's UnalignedLinearFeature). A redefinition under
  'resolve' keeps every option string, so the union of option strings is the
  set the parser accepts.
- MindSpeed's own parser additions (mindspeed/arguments.py process_args and
  MindSpeed's FEATURES_LIST) are NOT included: MegatronAdaptation.pre_execute
  replaces mindspeed.arguments.process_args with _process_args_dummy before
  mindspeed.megatron_adaptor is imported, so MindSpeed's exe_adaptation runs
  with --optimization-level defaulting to -1 and never registers its
  parse_args_wrapper (adaptation_l0 -> megatron_training_adaptation_l0). The
  script checks that this bypass is still in megatron_adaptor.py and stops if not.
- MindSpore-only flags (mindspeed_llm/mindspore/training/arguments.py, added
  only with --ai-framework mindspore) are not included.

What counts as a flag: every option string starting with "--" of an
add_argument call inside a function reachable (by direct calls to functions of
the same module) from Megatron's parse_args and MindSpeed-LLM's process_args,
and inside the register_args methods (own or inherited) of the FEATURES_LIST
classes.
"""
import ast
import json
import sys

from argparse_ast import option_strings, reachable_flags  # scripts/argparse_ast.py
from profile_revisions import git, revisions  # scripts/profile_revisions.py

# The profile's versions (data/frameworks/mindspeed-llm.json): the MindSpeed-LLM
# tag, and the MindSpeed and Megatron-LM revisions its docs/pytorch/install_guide.md
# checks out (MindSpeed 2c085cc9 "from MindSpeed core_r0.8.0 in 2025.04.01";
# Megatron-LM core_r0.8.0, whose head is the core_v0.8.0 tag's commit baf94af3).
VERSIONS = [
    ("2.1.0", "v2.1.0", "2c085cc9", "core_v0.8.0"),
]

LLM_ARGS = "mindspeed_llm/training/arguments.py"
LLM_FEATURES = "mindspeed_llm/features_manager/__init__.py"
LLM_ADAPTOR = "mindspeed_llm/tasks/megatron_adaptor.py"
MEGATRON_ARGS = "megatron/training/arguments.py"


def module_path(module):
    return module.replace(".", "/") + ".py"


def imports_of(tree, package):
    """name -> dotted module, from the module's `from X import name` statements."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:  # relative import
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([mod] if mod else []))
            for alias in node.names:
                out[alias.asname or alias.name] = mod
    return out


class Source:
    """Files at one revision of one repository, by module name prefix."""

    def __init__(self, repo, commit, prefix):
        self.repo, self.commit, self.prefix = repo, commit, prefix

    def tree(self, path):
        return ast.parse(git(self.repo, "show", f"{self.commit}:{path}"))


def feature_flags(sources, module, cls_name, depth=0):
    """add_argument option strings of cls_name.register_args (or a base's) in `module`."""
    src = next(s for s in sources if module == s.prefix or module.startswith(s.prefix + "."))
    path = module_path(module)
    tree = src.tree(path)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls_name)
    method = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "register_args"), None)
    if method is not None:
        flags = set()
        for node in ast.walk(method):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
                flags.update(option_strings(node))
        return flags, f"{src.prefix}@{src.commit[:8]}:{path} {cls_name}.register_args"
    if depth > 8 or not cls.bases:
        return set(), f"{src.prefix}@{src.commit[:8]}:{path} {cls_name} (no register_args)"
    base = cls.bases[0]
    name = base.id if isinstance(base, ast.Name) else base.attr
    imports = imports_of(tree, module.rsplit(".", 1)[0])
    return feature_flags(sources, imports.get(name, module), name, depth + 1)


def features_list(src):
    """(class name, defining module) of each FEATURES_LIST entry of mindspeed_llm/features_manager."""
    tree = src.tree(LLM_FEATURES)
    imports = imports_of(tree, "mindspeed_llm.features_manager")
    out = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "FEATURES_LIST" for t in node.targets):
            for e in node.value.elts:
                if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
                    out.append((e.func.id, imports[e.func.id]))
    return out


def check_mindspeed_bypass(llm):
    """MindSpeed's parser additions stay out only while megatron_adaptor replaces its process_args."""
    text = git(llm.repo, "show", f"{llm.commit}:{LLM_ADAPTOR}")
    if "register('mindspeed.arguments.process_args', _process_args_dummy)" not in text:
        sys.exit(f"{LLM_ADAPTOR} at {llm.commit[:8]} no longer replaces mindspeed.arguments.process_args: "
                 "MindSpeed's own arguments (mindspeed/arguments.py) may be in the parser; extend this script")


def main():
    llm_repo, ms_repo, mg_repo = sys.argv[1:4]
    out = {
        "about": "Command-line flags MindSpeed-LLM's pretrain_gpt.py accepts at each release of the mindspeed-llm profile "
                 "(data/frameworks/mindspeed-llm.json), extracted by scripts/extract-mindspeed-llm-arguments.py: the option "
                 "strings of the add_argument calls reachable from (1) NVIDIA/Megatron-LM core_r0.8.0 "
                 "megatron/training/arguments.py parse_args (its _add_*_args), which MindSpeed-LLM's parse_args_decorator "
                 "wraps (mindspeed_llm/tasks/megatron_adaptor.py patch_miscellaneous; parsed with ignore_unknown_args=False, "
                 "mindspeed_llm/training/initialize.py), (2) Ascend/MindSpeed-LLM mindspeed_llm/training/arguments.py "
                 "process_args, passed as extra_args_provider (its _add_*_args, conflict_handler='resolve'), and (3) the "
                 "register_args of every class in mindspeed_llm/features_manager/__init__.py FEATURES_LIST, MindSpeed's "
                 "UnalignedLinearFeature (--unaligned-linear) among them. Not included: Ascend/MindSpeed "
                 "mindspeed/arguments.py process_args and MindSpeed's own FEATURES_LIST, because "
                 "MegatronAdaptation.pre_execute replaces mindspeed.arguments.process_args with _process_args_dummy and "
                 "MindSpeed's exe_adaptation then never registers its parse_args_wrapper (--optimization-level -1); "
                 "nor the MindSpore-only flags (mindspeed_llm/mindspore/training/arguments.py, --ai-framework mindspore). "
                 "plan --export megatron --framework mindspeed-llm is checked against them.",
        "versions": [],
    }
    for version, llm_rev, ms_rev, mg_rev in VERSIONS:
        (_, llm_commit, llm_date), = revisions(llm_repo, [(version, llm_rev)])
        (_, ms_commit, _), = revisions(ms_repo, [(version, ms_rev)])
        (_, mg_commit, _), = revisions(mg_repo, [(version, mg_rev)])
        llm = Source(llm_repo, llm_commit, "mindspeed_llm")
        ms = Source(ms_repo, ms_commit, "mindspeed")
        mg = Source(mg_repo, mg_commit, "megatron")
        check_mindspeed_bypass(llm)
        flags, sources = set(), []
        for src, path, entry in ((mg, MEGATRON_ARGS, "parse_args"), (llm, LLM_ARGS, "process_args")):
            found, reached, unreached = reachable_flags(src.tree(path), [entry])
            flags |= found
            sources.append({"file": path, "commit": src.commit, "from": entry, "functions": len(reached), "flags": len(found)})
            if unreached:
                print(f"{path}@{src.commit[:8]}: add_argument in functions not reached from {entry}: {', '.join(unreached)}", file=sys.stderr)
        for cls_name, module in features_list(llm):
            found, where = feature_flags([llm, ms], module, cls_name)
            flags |= found
            sources.append({"feature": cls_name, "file": where, "flags": len(found)})
        out["versions"].append({
            "version": version,
            "commit": llm_commit,
            "date": llm_date,
            "mindspeed_commit": ms_commit,
            "megatron_commit": mg_commit,
            "file": LLM_ARGS,
            "format": "flags",
            "sources": sources,
            "flags": sorted(flags),
        })
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
