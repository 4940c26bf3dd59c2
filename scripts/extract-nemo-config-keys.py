#!/usr/bin/env python3
"""Lists the configuration keys NVIDIA NeMo takes at each version gpuplan's
nemo profile names (data/frameworks/nemo.json), read from git mirrors, and
writes them as data (data/exports/nemo-config-keys.json) so that
`plan --export nemo` can be checked against the version it is for (issue 29).
Only key names (and where they come from) are written: facts about the
configuration, no code.

    python3 scripts/extract-nemo-config-keys.py NeMo.git Megatron-LM.git \\
        pytorch-lightning.git NeMo-Framework-Launcher.git > data/exports/nemo-config-keys.json

24.07 (NeMo r2.0.0rc1, NeMo 1 style): examples/nlp/language_modeling/megatron_gpt_pretraining.py
  composes conf/megatron_gpt_config.yaml with Hydra, which puts the config in
  struct mode: an override `a.b=v` must name a key of the YAML, other keys need
  `+a.b=v` (or `++a.b=v`). "keys" is every dotted key of the YAML (the Hydra
  `defaults` list is not a key; list values are leaves). Besides:
  - "read_keys_not_in_yaml": model.* names the model code reads although the
    YAML lacks them (so they are set with `+model.x=v`): the string keys of
    cfg.get(...) calls in megatron_gpt_model.py / megatron_base_model.py, and
    the Megatron-Core TransformerConfig / ModelParallelConfig fields (at the
    core commit of NeMo's Dockerfile MCORE_TAG) that build_transformer_config /
    build_model_parallel_config copy from the model config by name, less those
    the builders always set themselves (config_mapping, model_specific_configs);
  - "launcher_keys_not_in_yaml": keys NeMo-Framework-Launcher@24.07's
    conf/training/llama/llama3_1_70b.yaml sets that the YAML lacks.
2.5.0 (NeMo r2.5.0, NeMo 2 + NeMo-Run): `nemo llm pretrain --factory <recipe> a.b=v`
  sets attributes on the recipe's fiddle config tree; NeMo-Run / fiddle accept
  only parameter names of the configured callable (dataclass: its init fields;
  class: its __init__ parameters; any name if it takes **kwargs). "keys" are the
  dotted paths for the sections a launch sets, found by AST (following base
  classes and imports across NeMo, Megatron-LM at the commit NeMo's
  requirements/manifest.json pins, and Lightning at the newest version NeMo's
  requirements_lightning.txt allows). model.config.* depends on the recipe:
  "recipes" gives each recipe's config class and its own model.config keys;
  "keys" holds their union.
"""
import ast
import json
import re
import sys

from profile_revisions import git, revisions  # scripts/profile_revisions.py

# The profile's versions (data/frameworks/nemo.json) and the NeMo commit each one reads.
VERSIONS = [
    ("24.07", "579983fbfc85533df0fb53b30b5e9fca1a1159c9"),  # tag r2.0.0rc1, the NeMo of the 24.07 container
    ("2.5.0", "1b067109c4a2836e579895d179d5d1f0a1deadec"),  # release branch r2.5.0 head
]
LAUNCHER_REV = "24.07"       # NVIDIA/NeMo-Framework-Launcher tag 24.07
LAUNCHER_FILE = "launcher_scripts/conf/training/llama/llama3_1_70b.yaml"
LIGHTNING_REV = "2.4.0"      # NeMo r2.5.0 requirements/requirements_lightning.txt: lightning>2.2.1,<=2.4.0

YAML_24 = "examples/nlp/language_modeling/conf/megatron_gpt_config.yaml"
MODEL_FILES_24 = [
    "nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py",
    "nemo/collections/nlp/models/language_modeling/megatron_base_model.py",
]
# receiver of a .get('name') call in MODEL_FILES_24 -> config section it reads
RECEIVERS_24 = {
    "self.cfg": "model", "self._cfg": "model", "cfg": "model",
    "self.cfg.optim": "model.optim", "self._cfg.optim": "model.optim", "cfg.optim": "model.optim",
    "self.cfg.data": "model.data", "cfg.data": "model.data", "data_cfg": "model.data",
    "self.cfg.tokenizer": "model.tokenizer", "self._cfg.tokenizer": "model.tokenizer",
}

RECIPE_MODULE = "nemo.collections.llm.recipes.{}"
RECIPES_25 = ["llama31_70b", "llama31_8b", "deepseek_v3", "qwen3_30b_a3b", "qwen25_72b", "mixtral_8x7b"]
# section -> (module whose imports name the class, expression naming it there)
SECTIONS_25 = [
    ("trainer", "nemo.collections.llm.recipes.llama31_70b", "nl.Trainer"),
    ("trainer.strategy", "nemo.collections.llm.recipes.llama31_70b", "nl.MegatronStrategy"),
    ("trainer.strategy.ddp", "nemo.collections.llm.recipes.llama31_70b", "DistributedDataParallelConfig"),
    ("trainer.plugins", "nemo.collections.llm.recipes.precision.mixed_precision", "MegatronMixedPrecision"),
    ("data", "nemo.collections.llm.recipes.llama31_70b", "MockDataModule"),
    ("optim", "nemo.collections.llm.recipes.optim.adam", "MegatronOptimizerModule"),
    ("optim.config", "nemo.collections.llm.recipes.optim.adam", "OptimizerConfig"),
    ("optim.lr_scheduler", "nemo.collections.llm.recipes.optim.adam", "CosineAnnealingScheduler"),
]
CALLBACKS_25 = [
    ("MegatronCommOverlapCallback", "nemo.collections.llm.recipes.llama31_70b", "MegatronCommOverlapCallback"),
    ("DeepEPCallback", "nemo.collections.llm.recipes.deepseek_v3", "DeepEPCallback"),
]


# --- a small YAML reader: enough for Hydra config files (mappings, block/flow lists, scalars, comments) ---

def yaml_keys(text, skip=("defaults",)):
    """Dotted keys of every mapping entry; list values and scalars are leaves."""
    keys, stack = [], []  # stack of (indent, key)
    for raw in text.split("\n"):
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if body.startswith("- ") or body == "-":
            continue  # list item: part of a leaf value
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_\-]*)\s*:(\s|$)", body)
        if not m:
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = [k for _, k in stack] + [m.group(1)]
        if path[0] in skip:
            stack.append((indent, m.group(1)))
            continue
        keys.append(".".join(path))
        stack.append((indent, m.group(1)))
    # a key with children is a section, not a leaf: keep both (a section may be replaced whole)
    return keys


# --- Python sources across mirrors, by module name ---

class Sources:
    """Module name -> AST, over several (package prefix, mirror, commit, path prefix) roots."""

    def __init__(self, roots):
        self.roots = roots  # list of (package prefix, repo, commit, path prefix)
        self.files = {}
        self.cache = {}

    def _files(self, repo, commit):
        if (repo, commit) not in self.files:
            self.files[(repo, commit)] = set(git(repo, "ls-tree", "-r", "--name-only", commit).split("\n"))
        return self.files[(repo, commit)]

    def module(self, name):
        """(repo, commit, path, ast.Module, is_package) or None."""
        if name in self.cache:
            return self.cache[name]
        hit = None
        for prefix, repo, commit, pathprefix in self.roots:
            if name != prefix and not name.startswith(prefix + "."):
                continue
            base = pathprefix + name.replace(".", "/")
            files = self._files(repo, commit)
            for path, is_pkg in ((base + ".py", False), (base + "/__init__.py", True)):
                if path in files:
                    hit = (repo, commit, path, ast.parse(git(repo, "show", f"{commit}:{path}")), is_pkg)
                    break
            if hit:
                break
        self.cache[name] = hit
        return hit

    def _absolute(self, modname, node):
        """The absolute module an ImportFrom in modname refers to."""
        if not node.level:
            return node.module
        mod = self.module(modname)
        parts = modname.split(".")
        if not (mod and mod[4]):  # a module (not a package): relative to its package
            parts = parts[:-1]
        parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
        return ".".join(parts + ([node.module] if node.module else []))

    def alias_target(self, modname, alias):
        """What a bare name means in modname through its imports: ('module', name) or ('from', module, name)."""
        mod = self.module(modname)
        if not mod:
            return None
        for node in ast.walk(mod[3]):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if (a.asname or a.name.split(".")[0]) == alias:
                        return ("module", a.name if a.asname else a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if (a.asname or a.name) == alias:
                        return ("from", self._absolute(modname, node), a.name)
        return None

    def find_class(self, modname, name, depth=0):
        """(module name, ClassDef) of class `name` as seen from module modname."""
        if depth > 12:
            return None
        mod = self.module(modname)
        if not mod:
            return None
        for node in ast.walk(mod[3]):
            if isinstance(node, ast.ClassDef) and node.name == name:
                return modname, node
        target = self.alias_target(modname, name)
        if target and target[0] == "from":
            found = self.find_class(target[1], target[2], depth + 1)
            if found:
                return found
            if self.module(target[1] + "." + target[2]):  # `from pkg import submodule`
                return None
        return None

    def find_function(self, modname, name, depth=0):
        if depth > 12:
            return None
        mod = self.module(modname)
        if not mod:
            return None
        for node in mod[3].body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return modname, node
        target = self.alias_target(modname, name)
        if target and target[0] == "from":
            return self.find_function(target[1], target[2], depth + 1)
        return None

    def resolve(self, modname, expr):
        """(module name, ClassDef) for a Name / dotted Attribute expression (string or AST) in modname."""
        dotted = expr if isinstance(expr, str) else ast.unparse(expr)
        parts = dotted.split(".")
        if len(parts) == 1:
            return self.find_class(modname, parts[0])
        target = self.alias_target(modname, parts[0])
        if not target:
            return None
        base = target[1] if target[0] == "module" else target[1] + "." + target[2]
        return self.find_class(".".join([base] + parts[1:-1]), parts[-1])


def is_dataclass(node):
    return any(ast.unparse(d).split("(")[0] in ("dataclass", "dataclasses.dataclass") for d in node.decorator_list)


def mro(src, key, node, seen=None):
    """C3 linearisation over the bases the sources resolve (others, e.g. Generic, are left out)."""
    seen = seen or set()
    if key in seen:
        return [(key, node)]
    seen = seen | {key}
    bases = []
    for b in node.bases:
        found = src.resolve(key[0], b)
        if found:
            bases.append(((found[0], found[1].name), found[1]))
    seqs = [mro(src, k, n, seen) for k, n in bases] + [list(bases)]
    out = [(key, node)]
    seqs = [list(s) for s in seqs if s]
    while seqs:
        for s in seqs:
            head = s[0]
            if not any(head[0] in [x[0] for x in t[1:]] for t in seqs):
                break
        else:
            head = seqs[0][0]  # inconsistent hierarchy: fall back to depth-first
        out.append(head)
        seqs = [[x for x in t if x[0] != head[0]] for t in seqs]
        seqs = [t for t in seqs if t]
    return out


def dataclass_init_fields(src, key, node):
    fields = {}
    for (k, n) in reversed(mro(src, key, node)):
        if not is_dataclass(n):
            continue
        for stmt in n.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            ann = ast.unparse(stmt.annotation)
            if ann.split("[")[0] in ("ClassVar", "typing.ClassVar") or ann.endswith("KW_ONLY"):
                continue
            init = True
            v = stmt.value
            if isinstance(v, ast.Call) and ast.unparse(v.func) in ("field", "dataclasses.field"):
                for kw in v.keywords:
                    if kw.arg == "init" and isinstance(kw.value, ast.Constant) and kw.value.value is False:
                        init = False
            fields[stmt.target.id] = init
    return [f for f, init in fields.items() if init]


def init_params(src, key, node):
    """(parameter names, takes **kwargs, where) of the __init__ a call to the class runs."""
    for (k, n) in mro(src, key, node):
        for stmt in n.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
                a = stmt.args
                names = [x.arg for x in a.args[1:]] + [x.arg for x in a.kwonlyargs]
                return names, a.kwarg is not None, f"{k[0]}.{k[1]}.__init__"
        if is_dataclass(n):
            return dataclass_init_fields(src, k, n), False, f"{k[0]}.{k[1]} (dataclass fields)"
    return [], True, "object"


def where(src, modname, node):
    mod = src.module(modname)
    return f"{mod[2]} l.{node.lineno}"


def is_transformer_config(src, key, node):
    return any(k[1] == "TransformerConfig" and k[0].startswith("megatron.core") for k, _ in mro(src, key, node))


def recipe_config_class(src, name):
    """(config class (module, ClassDef), model class name) a recipe's model() factory builds."""
    modname = RECIPE_MODULE.format(name)
    mod = src.module(modname)
    recipe_name = name
    for node in mod[3].body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "NAME" for t in node.targets):
            recipe_name = node.value.value
    fn = next(n for n in mod[3].body if isinstance(n, ast.FunctionDef) and n.name == "model")

    def configs_in(fnmod, body_nodes):
        found, models = [], []
        for stmt in body_nodes:
            for call in ast.walk(stmt):
                if isinstance(call, ast.Call) and ast.unparse(call.func) in ("run.Config", "Config") and call.args:
                    cls = src.resolve(fnmod, call.args[0])
                    if not cls:
                        continue
                    key = (cls[0], cls[1].name)
                    if is_dataclass(cls[1]) and is_transformer_config(src, key, cls[1]):
                        found.append(cls)
                    elif any(kw.arg == "config" for kw in call.keywords):
                        models.append(cls[1].name)
        return found, models

    found, models = configs_in(modname, fn.body)
    if not found:  # model() delegates, e.g. qwen3_model(version=NAME): take the branch for this recipe
        for call in ast.walk(fn):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                target = src.find_function(modname, call.func.id)
                if not target:
                    continue
                for node in ast.walk(target[1]):
                    if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and any(
                        isinstance(c, ast.Constant) and c.value == recipe_name for c in node.test.comparators
                    ):
                        found, _ = configs_in(target[0], node.body)
                _, models = configs_in(target[0], [target[1]])
                if found:
                    break
    classes = {(m, c.name): (m, c) for m, c in found}
    assert len(classes) == 1, (name, list(classes))
    return next(iter(classes.values())), (models[0] if models else None), recipe_name


# --- 24.07 ---

def version_2407(nemo, commit, mlm, launcher):
    text = git(nemo, "show", f"{commit}:{YAML_24}")
    keys = yaml_keys(text)
    keyset = set(keys)
    dockerfile = git(nemo, "show", f"{commit}:Dockerfile")
    core = re.search(r"^ARG MCORE_TAG=([0-9a-f]{40})", dockerfile, re.M).group(1)
    core_version = core_version_at(mlm, core)

    # names the model code reads with <receiver>.get('name')
    read, fixed = set(), set()
    for path in MODEL_FILES_24:
        tree = ast.parse(git(nemo, "show", f"{commit}:{path}"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                section = RECEIVERS_24.get(ast.unparse(node.func.value))
                if section:
                    read.add(f"{section}.{node.args[0].value}")
            if isinstance(node, ast.FunctionDef) and node.name == "build_transformer_config":
                for sub in ast.walk(node):  # keys the builder sets itself, whatever the config says
                    if (isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Dict) and any(
                            isinstance(t, ast.Name) and t.id in ("config_mapping", "model_specific_configs") for t in sub.targets)):
                        fixed.update(k.value for k in sub.value.keys if isinstance(k, ast.Constant))
    src = Sources([("megatron", mlm, core, "")])
    tc = src.find_class("megatron.core.transformer.transformer_config", "TransformerConfig")
    mpc = src.find_class("megatron.core.model_parallel_config", "ModelParallelConfig")
    tc_fields = set(dataclass_init_fields(src, (tc[0], "TransformerConfig"), tc[1]))
    mpc_fields = set(dataclass_init_fields(src, (mpc[0], "ModelParallelConfig"), mpc[1]))
    copied = {f"model.{f}" for f in (tc_fields - fixed) | mpc_fields if not f.startswith("_")}
    read_not_in_yaml = sorted((read | copied) - keyset)

    lkeys = yaml_keys(git(launcher, "show", f"{LAUNCHER_REV}:{LAUNCHER_FILE}"), skip=("defaults", "hydra", "run"))
    launcher_extra = sorted(set(lkeys) - keyset)
    return {
        "file": YAML_24,
        "format": "hydra",
        "entry": "python3 examples/nlp/language_modeling/megatron_gpt_pretraining.py "
                 "[--config-path=DIR --config-name=NAME] key=value ... +key=value (keys not in the YAML); "
                 "one process per GPU (srun --ntasks-per-node=<devices> or torchrun --nproc_per_node=<devices>)",
        "megatron_core": f"{core_version} (NVIDIA/Megatron-LM@{core}; NVIDIA/NeMo@{commit[:8]}:Dockerfile ARG MCORE_TAG)",
        "megatron_core_commit": core,
        "keys": keys,
        "read_keys_not_in_yaml": read_not_in_yaml,
        "launcher_file": f"NVIDIA/NeMo-Framework-Launcher@{LAUNCHER_REV}:{LAUNCHER_FILE}",
        "launcher_keys_not_in_yaml": launcher_extra,
    }


def core_version_at(mlm, commit):
    info = git(mlm, "show", f"{commit}:megatron/core/package_info.py")
    v = {k: re.search(rf"^{k} = (.+)$", info, re.M).group(1).strip().strip("'\"") for k in ("MAJOR", "MINOR", "PATCH", "PRE_RELEASE")}
    return f"{v['MAJOR']}.{v['MINOR']}.{v['PATCH']}{v['PRE_RELEASE']}"


# --- 2.5.0 ---

def version_250(nemo, commit, mlm, lightning):
    manifest = json.loads(git(nemo, "show", f"{commit}:requirements/manifest.json"))
    core = git(mlm, "rev-parse", manifest["vcs-dependencies"]["megatron-lm"]["ref"] + "^{commit}").strip()
    lcommit = git(lightning, "rev-parse", f"{LIGHTNING_REV}^{{commit}}").strip()
    src = Sources([
        ("nemo", nemo, commit, ""),
        ("megatron", mlm, core, ""),
        ("lightning", lightning, lcommit, "src/"),
    ])
    keys, sections, open_sections = [], {}, []
    for section, modname, expr in SECTIONS_25:
        found = src.resolve(modname, expr)
        assert found, (section, expr)
        names, var_kw, origin = init_params(src, (found[0], found[1].name), found[1])
        sections[section] = {"class": f"{found[0]}.{found[1].name}", "defined": where(src, found[0], found[1]),
                             "params_from": origin, "takes_kwargs": var_kw}
        if var_kw:
            open_sections.append(section)
        keys += [f"{section}.{n}" for n in names]
    callbacks = {}
    for label, modname, expr in CALLBACKS_25:
        found = src.resolve(modname, expr)
        assert found, expr
        names, var_kw, _ = init_params(src, (found[0], found[1].name), found[1])
        callbacks[label] = {"class": f"{found[0]}.{found[1].name}", "defined": where(src, found[0], found[1]), "params": names}
    recipes, model_keys = [], set()
    for name in RECIPES_25:
        (cmod, cnode), model_cls, recipe_name = recipe_config_class(src, name)
        fields = dataclass_init_fields(src, (cmod, cnode.name), cnode)
        chain = [f"{k[0]}.{k[1]}" for k, n in mro(src, (cmod, cnode.name), cnode)]
        mk = [f"model.config.{f}" for f in fields]
        model_keys.update(mk)
        recipes.append({
            "factory": recipe_name,
            "file": src.module(RECIPE_MODULE.format(name))[2],
            "model_class": model_cls,
            "config_class": f"{cmod}.{cnode.name}",
            "defined": where(src, cmod, cnode),
            "bases": chain[1:],
            "model_config_keys": mk,
        })
    keys += sorted(model_keys)
    version = core_version_at(mlm, core)
    return {
        "file": "nemo/collections/llm/recipes/<factory>.py",
        "format": "nemo-run",
        "entry": "nemo llm pretrain --factory <recipe> [--yes] trainer.num_nodes=N trainer.devices=G "
                 "trainer.strategy.tensor_model_parallel_size=T ... (one dotted path=value per setting)",
        "megatron_core": f"{version} (NVIDIA/Megatron-LM@{core}; NVIDIA/NeMo@{commit[:8]}:requirements/manifest.json "
                         "vcs-dependencies.megatron-lm.ref, megatron/core/package_info.py)",
        "megatron_core_commit": core,
        "lightning": f"{LIGHTNING_REV} (Lightning-AI/pytorch-lightning@{lcommit}; requirements/requirements_lightning.txt "
                     "lightning>2.2.1,<=2.4.0)",
        "keys": keys,
        "sections": sections,
        "sections_taking_any_key": open_sections,
        "callbacks": callbacks,
        "recipes": recipes,
    }


def main():
    nemo, mlm, lightning, launcher = sys.argv[1:5]
    out = {
        "about": "Configuration keys NVIDIA NeMo takes at each version of the nemo profile (data/frameworks/nemo.json), "
                 "extracted by scripts/extract-nemo-config-keys.py from NVIDIA/NeMo, NVIDIA/Megatron-LM, "
                 "Lightning-AI/pytorch-lightning and NVIDIA/NeMo-Framework-Launcher. 24.07 ('hydra'): every dotted key of "
                 "megatron_gpt_config.yaml; Hydra's struct mode rejects an override of any other key unless it is "
                 "written +key=value ('read_keys_not_in_yaml' lists model keys the code reads that need it). 2.5.0 "
                 "('nemo-run'): dotted paths a `nemo llm pretrain --factory <recipe>` override may set (parameter names "
                 "of the configured classes; NeMo-Run rejects others unless the class takes **kwargs, see "
                 "'sections_taking_any_key'); model.config.* is per recipe ('recipes'), 'keys' holds their union. "
                 "plan --export nemo is checked against them (issue 29).",
        "versions": [],
    }
    for version, commit, date in revisions(nemo, VERSIONS):
        entry = {"version": version, "commit": commit, "date": date}
        if version == "24.07":
            entry.update(version_2407(nemo, commit, mlm, launcher))
        else:
            entry.update(version_250(nemo, commit, mlm, lightning))
        out["versions"].append(entry)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
