"""gpuplan.InputError: bad input, as the command line reports it."""
from __future__ import annotations

from typing import Optional


class InputError(ValueError):
    """Bad input: the sentence `gpuplan` prints after "error: ", and the field it names.

    flag:  the CLI option the sentence is about ("--seq-len"), or None.
    field: the keyword argument of that option ("seq_len"), or None.
    """

    def __init__(self, message: str, flag: Optional[str] = None):
        super().__init__(message)
        self.flag = flag or None
        self.field = flag.lstrip("-").replace("-", "_") if flag else None
