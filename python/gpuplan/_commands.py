"""Python functions made from the command line's own declarations.

Every function here (gpuplan.train, gpuplan.plan, ...) is built from the options
the CLI declares (src/cli/cmd_*.cpp, read through _gpuplan.commands()): a keyword
argument is a flag's name with dashes as underscores (--seq-len is seq_len), so a
flag added to the CLI is a keyword argument here without a second list.

Every command runs the library chain itself (_gpuplan.run_json: the arguments
as a JSON object keyed as the flags, read by the inputs' one declaration,
checked by the library, the command's JSON document returned), with no
command-line parser and no state kept between calls; export runs the
library's launch_config (_gpuplan.run_export). The result is the document
`gpuplan <command> --format json` prints, field for field.
"""
from __future__ import annotations

import difflib
import inspect
import json
import math
import numbers
import os
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence

from . import _gpuplan
from ._errors import InputError
from ._results import result_for

# Options the module sets itself or that print something other than a result.
_OUTPUT_OPTIONS = {"--format", "--lang"}          # always JSON; labels are the caller's business
_NOT_A_RESULT = {"plan": {"--export", "--rank"},   # gpuplan.export() prints launch configurations
                 "frameworks": {"--docs"},         # a Markdown document, not a result
                 "engines": {"--docs"}}


def keyword_of(option_name: str) -> str:
    """The keyword argument of a CLI option: --seq-len -> seq_len."""
    return option_name.lstrip("-").replace("-", "_")


class _Option:
    __slots__ = ("name", "keyword", "positional", "flag", "repeatable", "required", "type", "default", "help")

    def __init__(self, spec: Dict[str, Any]):
        self.name = spec["name"]
        self.keyword = keyword_of(spec["name"])
        self.positional = spec["positional"]
        self.flag = spec["flag"]
        self.repeatable = spec["repeatable"]
        self.required = spec["required"]
        self.type = spec["type"]
        self.default = spec["default"]
        self.help = spec["help"]

    def doc_line(self) -> str:
        kind = "switch (True/False)" if self.flag else ("list of " if self.repeatable else "") + (self.type or "TEXT")
        default = f", default {self.default}" if self.default else (", required" if self.required else "")
        return f"    {self.keyword} ({kind}{default}): {self.help}"


def _text(option: _Option, value: Any) -> str:
    """One value as the command line reads it; InputError naming the option for a type it cannot take."""
    if isinstance(value, bool):
        raise InputError(f"{option.keyword} takes a value, not {value} (it is not a switch).", option.name)
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        v = float(value)
        # repr: the shortest text that reads back as the same double (0.4, 1.5e+16, nan)
        return repr(v) if not math.isfinite(v) or not v.is_integer() or abs(v) >= 1e16 else str(int(v))
    raise InputError(f"{option.keyword} must be text or a number (got {type(value).__name__}).", option.name)


class Command:
    """One subcommand: its options, and the turning of Python arguments into its command line."""

    def __init__(self, spec: Dict[str, Any]):
        self.name = spec["name"]
        self.help = spec["help"]
        skip = _OUTPUT_OPTIONS | _NOT_A_RESULT.get(self.name, set())
        self.options = [_Option(o) for o in spec["options"] if o["name"] not in skip]
        self.by_keyword = {o.keyword: o for o in self.options}
        self.positionals = [o for o in self.options if o.positional]

    def keywords(self, args: Sequence[Any], kwargs: Dict[str, Any]) -> Dict[str, Any]:
        """The keyword arguments of a call, its positionals (a catalog's entry, validate's file) among them."""
        if len(args) > len(self.positionals):
            raise TypeError(f"{self.name}() takes {len(self.positionals)} positional argument"
                            f"{'' if len(self.positionals) == 1 else 's'} but {len(args)} were given")
        values: Dict[str, Any] = {o.keyword: v for o, v in zip(self.positionals, args)}
        for k, v in kwargs.items():
            if k in values:
                raise TypeError(f"{self.name}() got multiple values for argument '{k}'")
            values[k] = v
        return values

    def request(self, kwargs: Dict[str, Any]) -> Dict[str, Any]:
        """The JSON request of _gpuplan.run_json for these keyword arguments."""
        for k in kwargs:
            if k not in self.by_keyword:
                near = difflib.get_close_matches(k, self.by_keyword, n=3)
                hint = f"; did you mean {', '.join(near)}?" if near else f"; help(gpuplan.{self.name}) lists them"
                raise TypeError(f"{self.name}() got an unexpected keyword argument '{k}'{hint}")
        request: Dict[str, Any] = {}
        for o in self.options:  # in the CLI's order, so errors come in the order the CLI checks
            v = kwargs.get(o.keyword)
            if v is None:
                if o.required:
                    raise InputError(f"{o.keyword} is required", o.name)  # CLI11's sentence for a required option
                continue
            if o.flag:
                if not isinstance(v, bool):
                    raise InputError(f"{o.keyword} is a switch: give True or False (got {v!r}).", o.name)
                if v:
                    request[o.keyword] = True  # False: left out, as a switch not given
            elif o.repeatable:
                request[o.keyword] = [_text(o, e) for e in v] if isinstance(v, (list, tuple)) else [_text(o, v)]
            else:
                request[o.keyword] = _text(o, v)  # the text the CLI would read, through the same parsers
        return request

    def __call__(self, *args: Any, **kwargs: Any):
        out, error, field = _gpuplan.run_json(self.name, json.dumps(self.request(self.keywords(args, kwargs))))
        if error is not None:
            raise InputError(error, field or None)  # field: the request key ("seq_len")
        return result_for(self.name, json.loads(out))


def _commands() -> Dict[str, Command]:
    return {c["name"]: Command(c) for c in _gpuplan.commands()}


COMMANDS = _commands()


def command_function(name: str) -> Callable[..., Any]:
    """The Python function of `gpuplan NAME`, with a signature and help built from the CLI's options."""
    cmd = COMMANDS[name]

    def call(*args: Any, **kwargs: Any):
        return cmd(*args, **kwargs)

    params = [inspect.Parameter(o.keyword, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None) for o in cmd.positionals]
    params += [inspect.Parameter(o.keyword, inspect.Parameter.KEYWORD_ONLY, default=None)
               for o in cmd.options if not o.positional]
    call.__name__ = call.__qualname__ = name
    call.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    call.__doc__ = (f"gpuplan {name}: {cmd.help}\n\n"
                    f"Keyword arguments are the flags of `gpuplan {name}` (--seq-len is seq_len); None leaves one unset.\n"
                    f"Returns the command's JSON document as a typed result; bad input raises gpuplan.InputError (a ValueError).\n\n"
                    + "\n".join(o.doc_line() for o in cmd.options))
    return call


class LaunchText(str):
    """An exported launch configuration: the text itself (a str, as the CLI prints it),
    with `.launch`, the command that starts it on the planned nodes (the CLI's
    `launch:` line on stderr; placeholders in capitals)."""

    launch: str = ""


def export(to: Optional[str] = None, rank: Optional[int] = None, **plan_arguments: Any) -> LaunchText:
    """The launch configuration of a ranked layout, as `gpuplan plan ... --export TO --rank RANK` prints it.

    to: megatron (arguments), deepspeed (JSON config), torchtitan (TOML), megatron-bridge or nemo (recipe overrides),
        megatron-deepspeed (a script: arguments and DeepSpeed JSON), gpt-neox (YAML);
        None: the --framework's own.
    rank: 1 (the default) is the best layout. The other keyword arguments are gpuplan.plan's.
    Returns the text the CLI prints, with the command that starts it as `.launch`; the notes the CLI adds
    on stderr (DeepSpeed cannot switch on recompute) come as UserWarnings. Runs the library's launch_config, as the web page's export does.
    """
    request = COMMANDS["plan"].request(plan_arguments)
    if to is not None:
        request["export"] = str(to)
    if rank is not None:
        if isinstance(rank, bool) or not isinstance(rank, numbers.Integral):
            raise InputError(f"rank must be a whole number (got {rank!r}).", "--rank")
        request["rank"] = int(rank)
    text, notes, error, field, launch = _gpuplan.run_export(json.dumps(request))
    if error is not None:
        raise InputError(error, field or None)
    for note in notes:
        warnings.warn(note, stacklevel=2)
    out = LaunchText(text)
    out.launch = launch
    return out
