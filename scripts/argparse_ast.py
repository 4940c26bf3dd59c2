"""The argparse reading the flag extractors share (scripts/extract-megatron-arguments.py,
extract-megatron-deepspeed-arguments.py, extract-mindspeed-llm-arguments.py): the option
strings of an add_argument call, and those of every module-level function reachable from
a parser's entry points. Source is parsed, never imported."""
import ast


def option_strings(call):
    """The "--flag" strings of one parser.add_argument(...) / group.add_argument(...) call."""
    return [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--")]


def reachable_flags(tree, entries):
    """add_argument option strings in the module-level functions reachable from `entries`:
    (flags, the functions reached, the functions with add_argument calls that were not)."""
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    seen, stack, flags = set(), list(entries), set()
    while stack:
        name = stack.pop()
        if name in seen or name not in funcs:
            continue
        seen.add(name)
        for node in ast.walk(funcs[name]):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Name) and node.func.id in funcs:
                stack.append(node.func.id)
            elif isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
                flags.update(option_strings(node))
    unreached = sorted(n for n, f in funcs.items() if n not in seen and any(
        isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "add_argument" for c in ast.walk(f)))
    return flags, sorted(seen), unreached
