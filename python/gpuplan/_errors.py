"""gpuplan.InputError: bad input, in the command line's sentence with inputs named as keyword arguments."""
from __future__ import annotations

from typing import Optional


class InputError(ValueError):
    """Bad input: the sentence `gpuplan` prints after "error: ", each of its inputs spelled as the keyword
    argument ("seq_len must be ..." where the CLI says "--seq-len must be ..."), and the field it names.

    flag:  the CLI option the sentence is about ("--seq-len"), or None.
    field: the keyword argument of that option ("seq_len"), or None.
    """

    def __init__(self, message: str, flag: Optional[str] = None):
        # `flag` is the option ("--seq-len") or the library's request key
        # ("seq_len", what gpuplan::InputError::field() names); both are kept.
        super().__init__(message)
        if flag and not flag.startswith("-") and "." not in flag and flag.isidentifier():
            flag = "--" + flag.replace("_", "-")
        self.flag = flag or None
        self.field = flag.lstrip("-").replace("-", "_") if flag else None
