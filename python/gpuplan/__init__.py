"""gpuplan: plan the GPUs a large-model run needs, from Python.

    import gpuplan
    r = gpuplan.train(model="llama-3.1-70b", tokens="15T", gpu="h100", gpus=2048, mfu=0.4)
    r.gpu_hours            # 4824661.94..., the total GPU-hours
    r.time.wall_clock_s    # any field of `gpuplan train --format json`
    r.to_dict()            # that document itself

Each function is one `gpuplan` command; its keyword arguments are the command's
flags with dashes as underscores (--seq-len is seq_len). A result is the
command's `--format json` document, field for field (the module runs the
library's own chain in-process, no command-line parser). Bad input raises
gpuplan.InputError, a ValueError whose message is the CLI's sentence with
inputs named as keyword arguments and whose .field names the argument.
docs/python.md has more.
"""
from __future__ import annotations

from ._commands import COMMANDS, LaunchText, command_function, export
from ._errors import InputError
from ._results import (CalibrationResult, EnginesResult, FinetuneResult, FrameworksResult, GpusResult, InferResult,
                       MemoryResult, ModelsResult, PlanResult, Record, Result, TrainResult, ValidationResult)
from ._gpuplan import version as __version__

train = command_function("train")
memory = command_function("memory")
plan = command_function("plan")
infer = command_function("infer")
finetune = command_function("finetune")
calibrate = command_function("calibrate")
validate = command_function("validate")
models = command_function("models")
gpus = command_function("gpus")
frameworks = command_function("frameworks")
engines = command_function("engines")

__all__ = ["train", "memory", "plan", "infer", "finetune", "calibrate", "validate", "models", "gpus", "frameworks",
           "engines", "export", "LaunchText", "InputError", "Record", "Result", "TrainResult", "MemoryResult", "PlanResult", "InferResult",
           "FinetuneResult", "CalibrationResult", "ValidationResult", "ModelsResult", "GpusResult", "FrameworksResult",
           "EnginesResult",
           "COMMANDS"]
