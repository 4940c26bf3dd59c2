"""For 50 seeded requests per command, the Python result equals the CLI's JSON field for field.

Each request is drawn from pools of values a user would give, valid and not:
a valid one must give the same document as `gpuplan <command> ... --format json`
(compared as parsed JSON: every key, every number bit for bit); a refused one
must raise gpuplan.InputError with the sentence the CLI prints after "error: ".
The command lines here are written independently of the module's own
translation (space-separated "--flag value", where the module passes
"--flag=value"), so a keyword that reaches the wrong flag shows.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest

import gpuplan
from conftest import without_timing

N_REQUESTS = 50

Request = Tuple[Tuple[Any, ...], Dict[str, Any]]


def cli_argv(command: str, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> List[str]:
    argv = [command]
    for k, v in kwargs.items():
        if v is None:
            continue
        flag = "--" + k.replace("_", "-")
        if isinstance(v, bool):
            if v:
                argv.append(flag)
        elif isinstance(v, list):
            for e in v:
                argv += [flag, str(e)]
        elif str(v).startswith("-"):
            argv.append(f"{flag}={v}")  # CLI11 would read a bare -5 as an option
        else:
            argv += [flag, str(v)]
    argv += ["--format", "json"]
    argv += [str(a) for a in args]
    return argv


def maybe(rng: random.Random, p: float, value: Any) -> Any:
    return value if rng.random() < p else None


def pick(rng: random.Random, *values: Any) -> Any:
    return rng.choice(values)


GPUS = ["h100", "a100-80g", "h800", "910b", "4090", "h20", "a800", "h200", "l40s", "a100"]  # a100 is ambiguous: refused
TRAIN_MODELS = ["llama-3.1-8b", "llama-3.1-70b", "gpt3-175b", "mixtral-8x7b", "qwen2.5-72b", "deepseek-v3", "no-such-model"]


def train_request(rng: random.Random) -> Request:
    kw: Dict[str, Any] = {}
    if rng.random() < 0.85:
        kw["model"] = rng.choice(TRAIN_MODELS)
    else:
        kw["params"] = pick(rng, "7B", "70B", 13e9)
    kw["tokens"] = pick(rng, "1T", "15T", "300B", 2e12, "1T", "15T", "300B", "lots")
    kw["gpu"] = rng.choice(GPUS)
    given = rng.sample(["gpus", "deadline", "mfu"], k=pick(rng, 1, 2, 2, 2, 2, 2))
    if "gpus" in given:
        kw["gpus"] = pick(rng, 256, 1024, 2048, "4k", 512, 0)
    if "deadline" in given:
        kw["deadline"] = pick(rng, "90d", "30d", "2w", "1000h")
    if "mfu" in given:
        kw["mfu"] = pick(rng, 0.4, 0.35, "45%", 0.55, 1.5)
    kw["seq_len"] = maybe(rng, 0.4, pick(rng, 2048, 4096, 8192, 0))
    kw["precision"] = maybe(rng, 0.3, pick(rng, "bf16", "fp8", "fp16", "int3"))
    kw["recompute"] = maybe(rng, 0.3, pick(rng, "none", "selective", "full"))
    kw["price"] = maybe(rng, 0.3, pick(rng, "2.49", "15cny", "15-30cny", "$3"))
    kw["currency"] = maybe(rng, 0.15, pick(rng, "usd", "cny"))
    kw["causal"] = maybe(rng, 0.2, True)
    kw["six_n"] = maybe(rng, 0.2, True)
    kw["comm_margin"] = maybe(rng, 0.2, pick(rng, 0.1, 0.2))
    kw["fault_budget"] = maybe(rng, 0.2, pick(rng, 0.1, 0.2))
    kw["framework"] = maybe(rng, 0.3, pick(rng, "megatron-lm", "torchtitan", "deepspeed", "nemo"))
    kw["global_batch"] = maybe(rng, 0.2, pick(rng, 1024, 2048))
    kw["phase"] = maybe(rng, 0.1, ["debug:a100-80g:10:72h:12cny"])
    return (), kw


MEMORY_MODELS = ["llama-3.1-8b", "llama-3.1-70b", "qwen2.5-7b", "mixtral-8x7b", "gpt3-13b"]


def memory_request(rng: random.Random) -> Request:
    tp = pick(rng, 1, 2, 4, 8)
    pp = pick(rng, 1, 1, 2, 4)
    kw: Dict[str, Any] = {
        "model": rng.choice(MEMORY_MODELS), "gpu": rng.choice(GPUS),
        "gpus": pick(rng, 8, 16, 64, 128), "tp": tp, "pp": pp,
        "zero": maybe(rng, 0.6, pick(rng, 0, 1, 2, 3, 4)),
        "seq_len": maybe(rng, 0.5, pick(rng, 2048, 4096, 8192)),
        "micro_batch": maybe(rng, 0.5, pick(rng, 1, 2, 4)),
        "recompute": maybe(rng, 0.4, pick(rng, "none", "selective", "full")),
        "framework": maybe(rng, 0.3, pick(rng, "megatron-lm", "torchtitan", "deepspeed")),
        "sequence_parallel": maybe(rng, 0.2, True),
        "offload_optimizer": maybe(rng, 0.1, True),
        "dropout": maybe(rng, 0.1, True),
        "safety_margin": maybe(rng, 0.2, pick(rng, 0.1, 0.2)),
    }
    return (), kw


PLAN_MODELS = ["llama-3.1-8b", "llama-3.1-70b", "gpt3-175b", "qwen2.5-7b", "mixtral-8x7b", "gpt3-13b"]


def plan_request(rng: random.Random) -> Request:
    kw: Dict[str, Any] = {
        "model": rng.choice(PLAN_MODELS),
        "gpu": pick(rng, "h100", "a100-80g", "h800", "h100,h800", "910b", "4090", "a100"),
        "gpus": pick(rng, 64, 128, 512, 1024, "64,128", "256-1024", 256, None),  # None: --gpus is required
        "seq_len": maybe(rng, 0.5, pick(rng, 2048, 4096, 8192)),
        "global_batch": maybe(rng, 0.4, pick(rng, 512, 1024, 1536)),
        "top": maybe(rng, 0.4, pick(rng, 1, 3, 10)),
        "rank_by": maybe(rng, 0.2, pick(rng, "time", "cost", "speed")),
        "tp": maybe(rng, 0.2, pick(rng, 2, 4, 8)),
        "recompute": maybe(rng, 0.2, pick(rng, "none", "full")),
        "framework": maybe(rng, 0.3, pick(rng, "megatron-lm", "torchtitan", "deepspeed")),
        "precision": maybe(rng, 0.2, pick(rng, "bf16", "fp8")),
    }
    return (), kw


def infer_request(rng: random.Random) -> Request:
    kw: Dict[str, Any] = {
        "model": rng.choice(["llama-3.1-8b", "llama-3.1-70b", "qwen2.5-7b", "mixtral-8x7b", "deepseek-v3", "nope"]),
        "gpu": rng.choice(GPUS),
        "precision": maybe(rng, 0.5, pick(rng, "fp16", "bf16", "fp8", "int8", "int4")),
        "input": maybe(rng, 0.5, pick(rng, 512, 2048, 8192, 0)),
        "output": maybe(rng, 0.5, pick(rng, 128, 512, 2048)),
        "rps": maybe(rng, 0.4, pick(rng, 1, 10, 50.5)),
        "tp": maybe(rng, 0.3, pick(rng, 1, 2, 4, 8)),
        "latency_target_ms": maybe(rng, 0.3, pick(rng, 20, 50, 100)),
        "max_throughput": maybe(rng, 0.15, True),
        "price": maybe(rng, 0.2, pick(rng, "2.49", "15cny")),
    }
    return (), kw


def finetune_request(rng: random.Random) -> Request:
    kw: Dict[str, Any] = {
        "model": rng.choice(["llama-2-7b", "llama-3.1-8b", "qwen2.5-7b", "llama-3.1-70b", "mistral-7b"]),
        "gpu": rng.choice(["a100-80g", "4090", "h100", "l40s", "a10", "910b"]),
        "method": maybe(rng, 0.8, pick(rng, "full", "lora", "qlora", "dora")),
        "rank": maybe(rng, 0.3, pick(rng, 8, 16, 64, 0)),
        "seq_len": maybe(rng, 0.4, pick(rng, 512, 2048, 4096)),
        "samples": maybe(rng, 0.5, pick(rng, "50k", 10000, "1M")),
        "epochs": maybe(rng, 0.3, pick(rng, 1, 3, 0.5)),
        "gpus": maybe(rng, 0.4, pick(rng, 1, 2, 8)),
        "zero": maybe(rng, 0.2, pick(rng, 0, 2, 3)),
        "no_ranking": maybe(rng, 0.5, True),
        "framework": maybe(rng, 0.2, pick(rng, "torchtune", "hf-trainer", "deepspeed")),
        "price": maybe(rng, 0.2, pick(rng, "2.49", "15cny")),
    }
    return (), kw


def calibrate_request(rng: random.Random) -> Request:
    kw: Dict[str, Any] = {
        "model": rng.choice(["llama-3.1-8b", "qwen2.5-7b", "llama-3.1-70b"]),
        "gpu": rng.choice(["h100", "a100-80g", "h800"]),
        "gpus": pick(rng, 8, 16, 64),
        "tp": pick(rng, 1, 2, 8),
        "global_batch": pick(rng, 32, 64, 128),
        "micro_batch": pick(rng, 1, 2),
        "zero": maybe(rng, 0.4, pick(rng, 1, 3)),
    }
    if rng.random() < 0.5:
        kw["step_time"] = pick(rng, 2.4, 5.0, 11.5, -1)
    else:
        kw["tokens_per_s_per_gpu"] = pick(rng, 2000, 3500.5, 9000)
    kw["peak_memory_gib"] = maybe(rng, 0.5, pick(rng, 40, 61, 75.5))
    kw["tokens"] = maybe(rng, 0.5, pick(rng, "1T", "300B"))
    kw["full_gpus"] = maybe(rng, 0.3, pick(rng, 256, 1024))
    kw["deadline"] = maybe(rng, 0.2, pick(rng, "30d", "90d"))
    return (), kw


def catalog_request(names: List[str]) -> Callable[[random.Random], Request]:
    def draw(rng: random.Random) -> Request:
        name = rng.choice(names)
        return ((name,) if name is not None else ()), {}
    return draw


def validate_request_factory(tmp_dir: Path, shared_dir: Path) -> Callable[[random.Random], Request]:
    lines = []
    for f in ("cases.jsonl", "vtrain.jsonl"):
        lines += [l for l in (shared_dir / "validation" / f).read_text().splitlines() if l.strip()]
    counter = [0]

    def draw(rng: random.Random) -> Request:
        counter[0] += 1
        path = tmp_dir / f"cases_{counter[0]}.jsonl"
        path.write_text("\n".join(rng.sample(lines, k=rng.randint(1, 8))) + "\n")
        kind = maybe(rng, 0.4, pick(rng, "train_throughput", "train_memory", "train_total", "inference", "speed"))
        return (str(path),), {"kind": kind}
    return draw


def compare(command: str, request: Request, cli) -> bool:
    """Asserts the Python result equals the CLI's; True when the request was valid."""
    args, kwargs = request
    c = cli(cli_argv(command, args, kwargs))
    fn = getattr(gpuplan, command)
    if c.rc == 0:
        r = without_timing(fn(*args, **kwargs).to_dict())
        expected = without_timing(c.json())
        assert r == expected, f"{command} {args} {kwargs}"
        # and as JSON text, so no int/float difference hides behind == on Python numbers (2048 == 2048.0)
        assert json.dumps(r, sort_keys=True) == json.dumps(expected, sort_keys=True)
        return True
    assert c.rc == 2, f"{c.argv}: exit {c.rc}: {c.stderr}"
    with pytest.raises(gpuplan.InputError) as e:
        fn(*args, **kwargs)
    # A parse error (CLI11's own sentence) ends, on the command line only, with a pointer to --help.
    expected = c.error_in_keywords().removesuffix(" Run 'gpuplan --help' or 'gpuplan <command> --help'.")
    assert str(e.value) == expected, f"{command} {args} {kwargs}"
    return False


MODEL_NAMES = ["llama-3.1-70b", "llama3-70b", "gpt3-175b", "deepseek-v3", "qwen3-8b", None, "nonesuch", "llama"]
GPU_NAMES = ["h100", "h800", "910b", "4090", "a100-80g", None, "a100", "h9000"]
FRAMEWORK_NAMES = ["megatron-lm", "torchtitan@2024-12", "deepspeed", None, "megatron-lm@1999", "jax"]
ENGINE_NAMES = ["vllm", "vllm@0.6.3", "tensorrt-llm@1.0", "sglang", None, "lmdeploy@0.1.0", "nonesuch"]

GENERATORS: Dict[str, Callable[[random.Random], Request]] = {
    "train": train_request, "memory": memory_request, "plan": plan_request, "infer": infer_request,
    "finetune": finetune_request, "calibrate": calibrate_request,
    "models": catalog_request(MODEL_NAMES), "gpus": catalog_request(GPU_NAMES),
    "frameworks": catalog_request(FRAMEWORK_NAMES),
    "engines": catalog_request(ENGINE_NAMES),
}


@pytest.mark.parametrize("command", sorted(GENERATORS) + ["validate"])
def test_fifty_seeded_requests_match_the_cli(command, cli, shared_dir, tmp_path):
    draw = validate_request_factory(tmp_path, shared_dir) if command == "validate" else GENERATORS[command]
    rng = random.Random(f"issue-17-{command}")
    valid = sum(compare(command, draw(rng), cli) for _ in range(N_REQUESTS))
    # Both outcomes must occur: mostly answers, and some refusals whose sentences are compared.
    floor = 3 if command in ("models", "gpus", "frameworks", "engines") else 20
    assert floor <= valid < N_REQUESTS, f"{command}: {valid} of {N_REQUESTS} valid"
