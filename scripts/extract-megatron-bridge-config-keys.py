#!/usr/bin/env python3
"""Lists the dotted override keys ("section.key") a Megatron-Bridge training
launch accepts at each version gpuplan's megatron-bridge profile names, read
from git mirrors of NVIDIA-NeMo/Megatron-Bridge and NVIDIA/Megatron-LM (the
Megatron-Core commit Bridge pins as its 3rdparty/Megatron-LM submodule), and
writes them as data (data/exports/megatron-bridge-config-keys.json) so that
`plan --export megatron-bridge` can be checked against the version it is for.
Only key names are written: facts about the config classes, no code.

    python3 scripts/extract-megatron-bridge-config-keys.py /path/to/Megatron-Bridge /path/to/Megatron-LM \\
        > data/exports/megatron-bridge-config-keys.json

How a launch takes them: scripts/training/run_recipe.py --recipe NAME [--mode pretrain] KEY=VALUE ... loads a recipe
function's ConfigContainer, turns it into an OmegaConf tree (one node per dataclass field of the objects it holds,
training/utils/omegaconf_utils.py _dataclass_to_omegaconf_dict), sets it to struct mode and applies the trailing
overrides with Hydra's parser (parse_hydra_overrides): a KEY=VALUE whose key is not in the tree is an error.

What counts as a key, walking the dataclasses by AST (annotated class-body fields of @dataclass classes, bases
followed across modules and across the two repositories):
- ConfigContainer's fields (src/megatron/bridge/training/config.py) are the sections; a field typed as a dataclass
  (or Optional/Union of dataclasses) contributes "section.field" for every field of that class and of its
  dataclass bases, recursing into fields that are themselves dataclasses ("comm_overlap.tp_comm_overlap_cfg.*");
- `model` is typed as a union of providers; the keys are those of GPTModelProvider (models/gpt_provider.py: what
  AutoBridge.to_megatron_provider builds for Llama/Qwen/GPT recipes, with Bridge's and Megatron-Core's
  TransformerConfig and ModelParallelConfig as bases) and MLAModelProvider (models/mla_provider.py: DeepSeek-V2/V3,
  Kimi; adds MLATransformerConfig's fields). Those exist only on an MLA recipe's model and are also listed
  as mla_only_keys;
- `dataset` is typed as a union; the keys are GPTDatasetConfig's (training/config.py, the class recipes/common.py
  _pretrain_common builds; MockGPTDatasetConfig adds none), with Megatron-Core's GPTDatasetConfig /
  BlendedMegatronDatasetConfig and Bridge's DataloaderConfig as bases;
- a section that also takes a scalar (mixed_precision: a recipe name string) or is a plain dict (env_vars) is also
  listed bare;
- left out: `peft` (its class depends on the PEFT scheme), `optimizer_config_override_provider` (no fields), fields whose name starts with "_", and fields typed
  Callable except model.activation_func (omegaconf_utils.py serialises callables out of the tree; only
  activation_func is written back as a name and resolved by str_to_callable).
A key under an Optional section that a recipe leaves None (comm_overlap, ft, straggler, ...) is settable only on a
recipe that builds that section.
"""
import ast
import json
import subprocess
import sys

from profile_revisions import git, revisions  # scripts/profile_revisions.py

# The profile's versions (data/frameworks/megatron-bridge.json) and the tag each one reads.
VERSIONS = [
    ("0.6.0", "v0.6.0"),
]

SUBMODULE = "3rdparty/Megatron-LM"
CONFIG_MODULE = "megatron.bridge.training.config"
CONFIG_FILE = "src/megatron/bridge/training/config.py"
ENTRY = "torchrun --nnodes N --nproc-per-node G scripts/training/run_recipe.py --recipe RECIPE --mode pretrain KEY=VALUE ..."

# Sections whose annotation is a union: the classes a pre-training recipe puts there.
SECTION_CLASSES = {
    "model": [("megatron.bridge.models.gpt_provider", "GPTModelProvider"),
              ("megatron.bridge.models.mla_provider", "MLAModelProvider")],
    "dataset": [(CONFIG_MODULE, "GPTDatasetConfig"), (CONFIG_MODULE, "MockGPTDatasetConfig")],
}
SKIP_SECTIONS = {"peft", "optimizer_config_override_provider"}  # PEFT class varies; the provider has no fields
# Callable-typed fields that omegaconf_utils.py keeps in the tree as a name (_SERIALIZABLE_CALLABLE_FIELDS).
SERIALIZABLE_CALLABLES = {"activation_func"}
MAX_DEPTH = 4


class Sources:
    """Python modules of megatron.bridge (Bridge repo, under src/) and of megatron.core / megatron.training
    (Megatron-LM repo), each at its commit, parsed on demand."""

    def __init__(self, bridge, bridge_commit, mlm, mlm_commit):
        self.repos = {"bridge": (bridge, bridge_commit), "mlm": (mlm, mlm_commit)}
        self.files = {k: set(git(r, "ls-tree", "-r", "--name-only", c).split("\n")) for k, (r, c) in self.repos.items()}
        self.trees = {}
        self.classes = {}

    def module_file(self, module):
        parts = module.split(".")
        if parts[:2] == ["megatron", "bridge"]:
            repo, base = "bridge", "src/" + "/".join(parts)
        elif parts[0] == "megatron":
            repo, base = "mlm", "/".join(parts)
        else:
            return None
        for path in (base + ".py", base + "/__init__.py"):
            if path in self.files[repo]:
                return repo, path
        return None

    def tree(self, module):
        if module not in self.trees:
            where = self.module_file(module)
            if where is None:
                self.trees[module] = None
            else:
                repo, path = where
                r, c = self.repos[repo]
                self.trees[module] = ast.parse(git(r, "show", f"{c}:{path}"))
        return self.trees[module]

    def is_package(self, module):
        where = self.module_file(module)
        return where is not None and where[1].endswith("/__init__.py")

    def absolute(self, module, node):
        """The module an ImportFrom in `module` names (relative imports resolved)."""
        if node.level == 0:
            return node.module
        base = module.split(".")
        if not self.is_package(module):
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))

    def find_class(self, module, name, depth=0):
        """(module, ClassDef) of the class `name` as seen from `module`, following imports and re-exports."""
        key = (module, name)
        if key in self.classes:
            return self.classes[key]
        self.classes[key] = None  # guards import cycles
        found = None
        tree = self.tree(module) if depth < 12 else None
        if tree is not None:
            stmts = list(top_level(tree.body))
            for node in stmts:
                if isinstance(node, ast.ClassDef) and node.name == name:
                    found = (module, node)
            if found is None:
                for node in stmts:
                    if isinstance(node, ast.ImportFrom):
                        for alias in node.names:
                            if (alias.asname or alias.name) == name:
                                found = self.find_class(self.absolute(module, node), alias.name, depth + 1)
                            elif alias.name == "*" and found is None:
                                found = self.find_class(self.absolute(module, node), name, depth + 1)
                        if found is not None:
                            break
        self.classes[key] = found
        return found

    def fields(self, module, name, seen=None):
        """{field: (annotation, module)} of a dataclass and its dataclass bases."""
        seen = set() if seen is None else seen
        hit = self.find_class(module, name)
        if hit is None or (hit[0], name) in seen:
            return {}
        seen.add((hit[0], name))
        mod, node = hit
        out = {}
        for base in reversed(node.bases):  # the first base's fields win, as in the MRO
            base_name = class_name(base)
            if base_name:
                out.update(self.fields(mod, base_name, seen))
        if is_dataclass(node):
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    ann = ast.unparse(stmt.annotation)
                    if ann.startswith(("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar")):
                        continue
                    out[stmt.target.id] = (stmt.annotation, mod)
        return out

    def dataclass_alternatives(self, annotation, module):
        """(module, name) of the dataclasses an annotation's top-level alternatives name, and whether any
        alternative is something else (None aside)."""
        classes, other = [], False
        for alt in alternatives(annotation):
            if alt == "None":
                continue
            hit = self.find_class(module, alt) if alt.isidentifier() else None
            if hit is not None and self.fields(hit[0], alt):
                classes.append((hit[0], alt))
            else:
                other = True
        return classes, other

    def keys(self, classes, prefix, depth=0):
        out = set()
        merged = {}
        for module, name in classes:
            merged.update(self.fields(module, name))
        for field, (annotation, mod) in merged.items():
            if field.startswith("_"):
                continue
            if "Callable" in ast.unparse(annotation) and field not in SERIALIZABLE_CALLABLES:
                continue
            key = prefix + field
            out.add(key)
            if depth < MAX_DEPTH:
                nested, _ = self.dataclass_alternatives(annotation, mod)
                if nested:
                    out |= self.keys(nested, key + ".", depth + 1)
        return out


def top_level(body):
    """Module-level statements, descending into if/try/with blocks but not into functions or classes."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.With)):
            yield from top_level(node.body)
            yield from top_level(getattr(node, "orelse", []))
        elif isinstance(node, ast.Try):
            yield from top_level(node.body)
            for handler in node.handlers:
                yield from top_level(handler.body)
            yield from top_level(node.orelse)
            yield from top_level(node.finalbody)


def class_name(expr):
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Subscript):  # Generic[T], ModelProviderMixin[GPTModel]
        return class_name(expr.value)
    return None


def is_dataclass(node):
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if (isinstance(target, ast.Name) and target.id == "dataclass") or (
                isinstance(target, ast.Attribute) and target.attr == "dataclass"):
            return True
    return False


def alternatives(annotation):
    """Names of the top-level alternatives of an annotation: X, Optional[X], Union[X, Y], X | Y, "X"."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return alternatives(ast.parse(annotation.value, mode="eval").body)
        except SyntaxError:
            return [annotation.value]
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return ["None"]
    if isinstance(annotation, ast.Name):
        return [annotation.id]
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return alternatives(annotation.left) + alternatives(annotation.right)
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value).split(".")[-1] in ("Optional", "Union"):
        inner = annotation.slice
        elts = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        return [a for e in elts for a in alternatives(e)]
    return [ast.unparse(annotation)]


def keys_at(bridge, commit, mlm):
    mlm_commit = git(bridge, "ls-tree", commit, SUBMODULE).split()[2]
    try:
        git(mlm, "cat-file", "-e", f"{mlm_commit}^{{commit}}")
    except subprocess.CalledProcessError:
        sys.exit(f"Megatron-LM commit {mlm_commit} (the {SUBMODULE} gitlink at {commit}) is not in {mlm}")
    src = Sources(bridge, commit, mlm, mlm_commit)
    keys = set()
    for section, (annotation, mod) in src.fields(CONFIG_MODULE, "ConfigContainer").items():
        if section.startswith("_") or section in SKIP_SECTIONS:
            continue
        if section in SECTION_CLASSES:
            classes, other = SECTION_CLASSES[section], False
            for module, name in classes:
                if src.find_class(module, name) is None:
                    sys.exit(f"{name} not found from {module} at {commit}")
        else:
            classes, other = src.dataclass_alternatives(annotation, mod)
        if other:
            keys.add(section)
        if classes:
            keys |= src.keys(classes, section + ".")
    gpt, mla = (src.keys([c], "model.") for c in SECTION_CLASSES["model"])
    return mlm_commit, sorted(keys), sorted(mla - gpt)


def main():
    bridge, mlm = sys.argv[1], sys.argv[2]
    out = {
        "about": "Dotted override keys (section.key; a section that also takes a scalar, e.g. mixed_precision=bf16_mixed, "
                 "is listed bare) that a Megatron-Bridge training launch accepts at each version of the megatron-bridge "
                 "profile (data/frameworks/megatron-bridge.json): scripts/training/run_recipe.py loads a recipe's "
                 "ConfigContainer, converts it to a struct-mode OmegaConf tree and applies trailing KEY=VALUE overrides "
                 "with Hydra's parser, so a key outside the tree is an error (training/utils/omegaconf_utils.py). "
                 "Extracted by scripts/extract-megatron-bridge-config-keys.py from NVIDIA-NeMo/Megatron-Bridge "
                 "(src/megatron/bridge/training/config.py ConfigContainer and the dataclasses of its fields) and "
                 "NVIDIA/Megatron-LM at the commit pinned as 3rdparty/Megatron-LM (megatron/core and megatron/training "
                 "config dataclasses they inherit from), walking dataclass fields by AST. model.* = GPTModelProvider "
                 "and MLAModelProvider fields (mla_only_keys: those only an MLA model, DeepSeek-V2/V3 or Kimi, has); "
                 "dataset.* = GPTDatasetConfig "
                 "fields (the pre-training recipes' class); peft, '_' fields and Callable-typed fields other than "
                 "model.activation_func are left out. plan --export megatron-bridge is checked against them.",
        "versions": [],
    }
    for version, commit, date in revisions(bridge, VERSIONS):
        mlm_commit, keys, mla_only = keys_at(bridge, commit, mlm)
        out["versions"].append({"version": version, "commit": commit, "date": date, "megatron_core_commit": mlm_commit,
                                "file": CONFIG_FILE, "format": "overrides", "entry": ENTRY, "keys": keys,
                                "mla_only_keys": mla_only})
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
