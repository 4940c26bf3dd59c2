"""The module's own behaviour: arguments, errors, result objects, tables, threads."""
from __future__ import annotations

import inspect
import json
from concurrent.futures import ThreadPoolExecutor

import pytest

import gpuplan
from conftest import without_timing

TRAIN = dict(model="llama-3.1-70b", tokens="15T", gpu="h100", gpus=2048, mfu=0.4)
PLAN = dict(model="gpt3-175b", gpu="a100-80g", gpus=1024, seq_len=2048, global_batch=1536)


def test_keyword_arguments_are_the_cli_flags():
    params = inspect.signature(gpuplan.train).parameters
    for kw in ("seq_len", "tokens", "gpus_per_node", "tflops_per_gpu", "six_n", "phase", "framework"):
        assert kw in params, kw
    assert "format" not in params and "lang" not in params  # the module always asks for JSON
    assert "export" not in inspect.signature(gpuplan.plan).parameters  # gpuplan.export() does that
    assert list(inspect.signature(gpuplan.validate).parameters)[0] == "file"
    assert "seq_len (INT (tokens)): Tokens per sequence (default 4,096, or the model's own context where shorter)" in gpuplan.memory.__doc__


def test_every_declared_input_is_a_keyword_argument():
    # Issue 17: the inputs each command declares once in C++ (visit_<command>_inputs)
    # are keyword arguments of its function, named as the CLI flags.
    declared = gpuplan._gpuplan.declared_inputs()
    assert set(declared) == {"train", "memory", "calibrate", "plan", "infer", "finetune"}
    for command, flags in declared.items():
        params = inspect.signature(getattr(gpuplan, command)).parameters
        assert flags, command
        for flag in flags:
            assert gpuplan._commands.keyword_of(flag) in params, f"{command} {flag}"


def test_unknown_keyword_is_a_type_error_with_a_suggestion():
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'seq'; did you mean seq_len"):
        gpuplan.train(seq=4096, **TRAIN)


def test_bad_input_is_a_value_error_naming_the_field(cli):
    with pytest.raises(ValueError) as e:
        gpuplan.train(seq_len=0, **TRAIN)
    assert isinstance(e.value, gpuplan.InputError)
    assert e.value.field == "seq_len" and e.value.flag == "--seq-len"
    c = cli(["train", "--model", "llama-3.1-70b", "--tokens", "15T", "--gpu", "h100", "--gpus", "2048", "--mfu", "0.4",
             "--seq-len", "0"])
    assert c.rc == 2 and c.error_in_keywords() == str(e.value) and str(e.value).startswith("seq_len ")


def test_switches_take_booleans_and_values_do_not():
    with pytest.raises(gpuplan.InputError, match=r"^causal is a switch") as e:
        gpuplan.train(causal="yes", **TRAIN)
    assert e.value.field == "causal"
    with pytest.raises(gpuplan.InputError, match=r"^seq_len takes a value, not True"):
        gpuplan.train(seq_len=True, **TRAIN)
    # False leaves a switch off, exactly as not giving it.
    assert gpuplan.train(causal=False, **TRAIN).to_dict() == gpuplan.train(**TRAIN).to_dict()


def test_a_value_starting_with_a_dash_stays_a_value(cli):
    # "--price -1" would read -1 as an option; the module passes --price=-1.
    with pytest.raises(gpuplan.InputError) as e:
        gpuplan.train(price="-1", **TRAIN)
    c = cli(["train", "--model", "llama-3.1-70b", "--tokens", "15T", "--gpu", "h100", "--gpus", "2048", "--mfu", "0.4",
             "--price=-1"])
    assert c.rc == 2 and c.error_in_keywords() == str(e.value) and e.value.field == "price"


def test_numbers_reach_the_cli_as_it_reads_them():
    # 15e12 (a float) and "15T" are the same token count; 2048.0 and 2048 the same GPU count.
    a = gpuplan.train(model="llama-3.1-70b", tokens=15e12, gpu="h100", gpus=2048.0, mfu=0.4).to_dict()
    b = gpuplan.train(**TRAIN).to_dict()
    # Only the echo of how a typed input was read differs: "15T" is echoed, a plain number is not.
    assert b.pop("inputs_as_read") == {"tokens_as_read": 15000000000000}
    assert "inputs_as_read" not in a
    assert a == b


def test_result_reads_as_attributes_and_items():
    r = gpuplan.train(**TRAIN)
    assert isinstance(r, gpuplan.TrainResult)
    d = r.to_dict()
    assert r.gpu_hours == d["gpu_hours"]["total_gpu_hours"]
    assert r.time.wall_clock_s == d["time"]["wall_clock_s"] == r.wall_clock_s
    assert r["compute"]["total_flop"] == r.total_flop
    # Hand check: 2048 GPUs × wall-clock hours ≈ GPU-hours (no communication margin, no spot losses here).
    assert r.gpu_hours == pytest.approx(2048 * r.wall_clock_s / 3600, rel=1e-9)
    with pytest.raises(AttributeError, match=r"no field 'wall_clock'"):
        r.time.wall_clock
    with pytest.raises(AttributeError):
        r.time.wall_clock_s = 1.0
    # to_dict() is a copy: changing it leaves the result alone.
    d["time"]["wall_clock_s"] = 0
    assert r.time.wall_clock_s != 0
    assert json.loads(json.dumps(r.to_dict())) == r.to_dict()


def test_plan_layouts_and_dataframe():
    pandas = pytest.importorskip("pandas")
    p = gpuplan.plan(top=3, **PLAN)
    assert isinstance(p, gpuplan.PlanResult)
    assert len(p.layouts) == 3
    df = p.to_dataframe()
    assert isinstance(df, pandas.DataFrame) and len(df) == 3
    assert list(df["step_s"]) == [l.step_s for l in p.layouts]
    assert list(df["step_s"]) == sorted(df["step_s"])  # ranked by time, fastest first
    # Every layout of GPT-3 175B on 1,024 GPUs uses all of them, and says where it ran.
    for l in p.layouts:
        assert l.tp * l.pp * l.dp * l.cp == 1024
        assert (l.gpu, l.gpus) == ("a100-sxm4-80gb", 1024)
    assert [g.gpus for g in p.groups] == [1024]
    assert p.best[0].step_s == p.layouts[0].step_s  # the winner is rank 1


def test_plan_dataframe_is_the_csv(cli):
    pytest.importorskip("pandas")
    import io
    import pandas
    p = gpuplan.plan(top=3, **PLAN)
    c = cli(["plan", "--model", "gpt3-175b", "--gpu", "a100-80g", "--gpus", "1024", "--seq-len", "2048",
             "--global-batch", "1536", "--top", "3", "--format", "csv"])
    csv = pandas.read_csv(io.StringIO(c.stdout), float_precision="round_trip")  # CSV writes 17 digits
    df = p.to_dataframe()
    assert sorted(csv.columns) == sorted(df.columns)  # JSON objects list their keys sorted, CSV in the table's order
    assert len(csv) == 3
    for col in ("gpu", "gpus", "rank", "tp", "pp", "dp", "micro_batch", "zero", "recompute", "step_s", "memory_bytes"):
        assert list(csv[col]) == list(df[col]), col


def test_results_carry_their_schema():
    r = gpuplan.train(**TRAIN)
    assert r.schema_version == 3
    s = gpuplan.TrainResult.schema()
    assert s["title"] == "gpuplan train --format json"
    assert s["properties"]["time"]["properties"]["gpus"]["type"] == "integer"
    assert isinstance(r.time.gpus, int)


def test_validation_rows_as_a_dataframe(shared_dir):
    pandas = pytest.importorskip("pandas")
    v = gpuplan.validate(str(shared_dir / "validation" / "cases.jsonl"), kind="inference")
    df = v.to_dataframe()
    assert isinstance(df, pandas.DataFrame)
    assert len(df) == len(v.cases) == v.summary.inference.count
    assert set(df["kind"]) == {"inference"}


def test_export_prints_what_the_cli_prints(cli):
    text = gpuplan.export("megatron", **PLAN)
    c = cli(["plan", "--model", "gpt3-175b", "--gpu", "a100-80g", "--gpus", "1024", "--seq-len", "2048",
             "--global-batch", "1536", "--export", "megatron"])
    assert c.rc == 0 and text == c.stdout
    assert "--tensor-model-parallel-size" in text
    # The command that starts it, as the CLI's `launch:` line on stderr: 1,024 A100s are 128 nodes of 8.
    assert isinstance(text, gpuplan.LaunchText)
    assert text.launch.startswith("torchrun --nproc_per_node 8 --nnodes 128 ")
    assert "launch: " + text.launch in c.stderr


def test_export_refusals_and_notes_are_the_clis(cli):
    # A format the ranked layout cannot be written in: the CLI's sentence, naming --export.
    with pytest.raises(gpuplan.InputError) as e:
        gpuplan.export("colossalai", **PLAN)
    c = cli(["plan", "--model", "gpt3-175b", "--gpu", "a100-80g", "--gpus", "1024", "--seq-len", "2048",
             "--global-batch", "1536", "--export", "colossalai"])
    assert c.rc == 2 and str(e.value) == c.error_in_keywords() and e.value.flag == "--export"
    with pytest.raises(gpuplan.InputError) as e:
        gpuplan.export("megatron", rank=0, **PLAN)
    assert e.value.flag == "--rank"
    # DeepSpeed with recompute: the CLI's stderr note as a warning, the config as the CLI prints it.
    args = dict(model="llama-3.1-8b", gpu="h100", gpus=8, seq_len=4096, global_batch=64, tp=1, pp=1, recompute="full")
    with pytest.warns(UserWarning, match="recompute"):
        text = gpuplan.export("deepspeed", **args)
    c = cli(["plan", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "8", "--seq-len", "4096", "--global-batch", "64",
             "--tp", "1", "--pp", "1", "--recompute", "full", "--export", "deepspeed"])
    assert c.rc == 0 and text == c.stdout and "recompute" in c.stderr


def test_commands_run_from_threads_at_once():
    # The command's output goes to a per-thread buffer: concurrent calls do not mix their documents.
    requests = [dict(PLAN, top=k) for k in (1, 2, 3, 4)]
    alone = [without_timing(gpuplan.plan(**r).to_dict()) for r in requests]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda r: without_timing(gpuplan.plan(**r).to_dict()), requests * 2))
    assert together == alone * 2


def test_serving_layouts_and_cheapest_gpus_as_dataframes():
    pytest.importorskip("pandas")
    i = gpuplan.infer(model="llama-3.1-70b", gpu="h100", precision="fp8", rps=20)
    df = i.to_dataframe()
    assert len(df) == len(i.layouts) > 0 and df["feasible"].dtype == bool
    f = gpuplan.finetune(model="qwen2.5-7b", method="qlora", gpu="4090", samples=50000)
    assert len(f.to_dataframe()) == len(f.cheapest) > 0


def _slower_h100_file(tmp_path):
    # The built-in H100 with half its BF16 peak, under its own id: a --gpu-file
    # entry replaces the catalog's for the call that names the file.
    from pathlib import Path
    catalog = json.loads((Path(__file__).resolve().parents[2] / "data" / "gpus.json").read_text(encoding="utf-8"))
    h100 = next(g for g in catalog["gpus"] if g["id"] == "h100-sxm5-80gb")
    h100["peak_tflops"]["bf16"] /= 2
    path = tmp_path / "slow_h100.json"
    path.write_text(json.dumps({"gpus": [h100]}), encoding="utf-8")
    return str(path)


def test_a_gpu_file_applies_to_its_own_call_only(tmp_path):
    # Issue 31 bug 1: a gpu_file once appended to the process's one catalog, so
    # every later call without it still used the user's GPU (4,824,662 →
    # 9,649,324 GPU-hours, twice). Now a call is independent of earlier calls.
    # At a fixed MFU the GPU-hours scale with 1/peak: half the peak, twice the hours.
    request = dict(model="llama-3.1-70b", tokens="15T", gpu="h100", gpus=2048, mfu=0.4)
    before = gpuplan.train(**request).to_dict()["gpu_hours"]["compute_gpu_hours"]
    with_file = gpuplan.train(**request, gpu_file=_slower_h100_file(tmp_path)).to_dict()["gpu_hours"]["compute_gpu_hours"]
    after = gpuplan.train(**request).to_dict()["gpu_hours"]["compute_gpu_hours"]
    assert with_file == pytest.approx(2 * before, rel=1e-9)
    assert after == before


def test_a_gpu_file_in_one_thread_is_not_seen_by_another(tmp_path):
    # Two threads at once, one naming the file and one not: each gets what it
    # gets alone (the catalog override is per call and per thread).
    slow = _slower_h100_file(tmp_path)
    request = dict(model="llama-3.1-8b", gpu="h100", gpus=64, seq_len=4096, global_batch=256, top=1)
    alone = [without_timing(gpuplan.plan(**request).to_dict()), without_timing(gpuplan.plan(**request, gpu_file=slow).to_dict())]
    assert alone[0] != alone[1]
    with ThreadPoolExecutor(max_workers=2) as pool:
        together = list(pool.map(lambda k: without_timing(gpuplan.plan(**request, **({"gpu_file": slow} if k else {})).to_dict()),
                                 [0, 1] * 4))
    assert together == alone * 4


def test_every_command_with_a_result_is_a_function(cli):
    # Every subcommand that prints a JSON document is a function running the library chain
    # (web serves pages and has no result): engines too, with its --docs Markdown left to the CLI.
    names = {c["name"] for c in gpuplan._gpuplan.commands()} - {"web"}
    assert names <= set(gpuplan.__all__), names - set(gpuplan.__all__)
    assert "docs" not in inspect.signature(gpuplan.engines).parameters
    r = gpuplan.engines("vllm@0.6.3")
    assert isinstance(r, gpuplan.EnginesResult)
    c = cli(["engines", "vllm@0.6.3", "--format", "json"])
    assert c.rc == 0 and r.to_dict() == c.json()
