"""The benchmark harness (benchmarks/) on the CPU: a smoke run through the Pallas
interpreter with strict JSON, clean errors for bad arguments, no torch in the package, and
the profiler timer's per-call kernel spans (on synthetic events, a synthetic trace, and a
CPU trace that holds no GPU kernel)."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks" / "bench.py"
sys.path.insert(0, str(ROOT))

from benchmarks import bench, cases, spans, timing  # noqa: E402


def _run(*args: str, extra_env: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"} | {"JAX_PLATFORMS": "cpu"}
    return subprocess.run(
        [sys.executable, str(BENCH), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env | (extra_env or {}),
    )


def _strict_json(text: str):
    def reject(constant):
        raise ValueError(f"non-standard JSON constant {constant}")

    return json.loads(text, parse_constant=reject)


def test_cpu_smoke_run_json(tmp_path):
    done = _run(
        "--implementation", "reference", "pallas", "cuda", "flashmla", "--interpret",
        "--cases", "decode:2:8:64,decode:1:16:71:holes",
        "--rotations", "2", "--rounds", "2", "--min-round-ms", "1",
        "--json", "--out", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result = _strict_json(done.stdout)
    assert result == _strict_json((tmp_path / "bench.json").read_text())
    env = result["environment"]
    assert env["jax_backend"] == "cpu" and env["versions"]["jax"] and "git" in env
    assert result["settings"]["interpret"] is True
    rows = result["results"]
    names = ["reference", "pallas", "cuda", "flashmla"]
    assert [(r["case"], r["implementation"]) for r in rows] == [
        (case, name) for case in ("decode:2:8:64", "decode:1:16:71:holes") for name in names
    ]
    # The CPU has neither the CUDA kernels nor FlashMLA: reported with the reason, not raised.
    assert all(r["status"] == "unavailable" and r["reason"] for r in rows if r["implementation"] in names[2:])
    rows = [r for r in rows if r["implementation"] in names[:2]]
    for r in rows:
        assert r["accurate"] is True and r["nonfinite"] == 0  # checked whether timed or not
        assert 0 < r["out_err"] <= 5e-3 and 0 <= r["lse_err"] <= 1e-2  # bf16 out: never exactly 0
        assert r["accuracy_tokens"] == r["tokens"]
        assert math.isfinite(r["loop_us"]) and r["loop_us"] > 0 and len(r["rounds_us"]) == 2
    for r in rows[::2]:  # the reference: XLA's kernels only, timed by the loop
        assert r["status"] == "ok" and r["timer"] == "loop" and r["us"] == r["loop_us"], r
        assert r["tb_s"] > 0 and r["tflop_s"] > 0
    for r in rows[1::2]:  # Pallas is timed by its kernel in the profiler: no GPU, no time, no stand-in
        assert r["status"] == "untimed" and r["timer"] == "profiler", r
        assert r["us"] is None and r["tb_s"] is None and "no GPU kernel events" in r["reason"]
    holes = rows[2]
    assert holes["rotations"] == 2 and holes["active_per_token"] <= 71  # holes are never counted
    assert rows[1]["schedule"]["block_h"] == 16  # the dispatch table's schedule is recorded
    assert result["settings"]["profiled"] == ["pallas", "cuda"]
    assert "| decode T=2 H=8 K=64 | pallas | h16" in done.stderr  # the table
    assert "| profiler | untimed: no GPU kernel events" in done.stderr


def test_batch_invariant_rows_follow_cuda_s_default_rows(tmp_path):
    done = _run(
        "--implementation", "reference", "cuda", "flashmla", "--interpret", "--batch-invariant",
        "--cases", "decode:2:8:64", "--rotations", "2", "--rounds", "1", "--min-round-ms", "1",
        "--json", "--out", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result = _strict_json(done.stdout)
    assert result["settings"]["batch_invariant"] is True
    rows = result["results"]
    assert [r["implementation"] for r in rows] == ["reference", "cuda", "cuda batch_invariant", "flashmla"]
    # no CUDA kernels on the CPU: the invariant row is reported like the default one
    assert rows[2]["status"] == "unavailable" and rows[2]["reason"] == rows[1]["reason"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--cases", "decode:1:0:64"], "H: expected 1..128 heads, got 0"),
        (["--cases", "decode:0:8:64"], "T: expected at least 1"),
        (["--cases", "decode:1:8"], "expected mode:T:H:K"),
        (["--cases", "decode:1:8:x"], "K must be an integer"),
        (["--cases", "verify:1:8:64"], "mode: expected one of"),
        (["--cases", "decode:1:8:64:holez"], "expected mode:T:H:K"),
        (["--cases", "decode:1:8:4:holes"], "at least 7 columns"),
        (["--cases", ","], "cases or presets"),
        (["--rounds", "0"], "--rounds: expected a positive integer, got 0"),
        (["--rotations", "-1"], "--rotations: expected a positive integer"),
        (["--pool-slots", "1000"], "multiple of 64"),
        (["--min-round-ms", "0"], "positive number"),
        (["--implementation", "triton"], "invalid choice"),
    ],
)
def test_bad_arguments_name_the_problem(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench.parser().parse_args(args)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_bad_case_from_the_command_line_has_no_traceback():
    done = _run("--interpret", "--cases", "decode:1:0:64")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "H: expected 1..128 heads, got 0" in done.stderr


def test_sweep_needs_pallas():
    assert bench.main(["--interpret", "--sweep", "--implementation", "reference"]) == 2


def test_cases_round_trip_and_defaults():
    for case in cases.default_cases():
        assert cases.parse_case(case.spec) == case
    full = cases.default_cases()
    assert len(full) == 4 * 5 * 2 + 3 and len(set(full)) == len(full)
    assert [(c.tokens, c.heads, c.candidates) for c in full if c.mode == "prefill"] == [
        (4096, h, 2176) for h in (32, 64, 128)
    ]
    assert cases.parse_cases("decode:1:8:64,decode:1:8:64") == [cases.Case("decode", 1, 8, 64)]
    assert cases.parse_cases("k2048,holes") == full and cases.parse_cases("full") == full
    assert len(cases.parse_cases("quick")) == 9
    assert (
        cases.Case("decode", 128, 8, 2048).flops(2048) == 128 * 8 * 2 * 2 * 512 * 2048
    )  # 4.19 MFLOP x H per token
    assert cases.Case("decode", 1, 8, 2048).io_bytes(2048) == 2048 * 528 + 2 * 8 * 512 * 2


def test_hopper_presets_are_both_issues_matrices():
    decode = {
        (c.tokens, c.heads, c.candidates, c.holes)
        for c in cases.parse_cases("hopper-k2048,hopper-holes")
        if c.mode == "decode"
    }
    assert decode == {
        (b, h, k, k == 2176) for b in (1, 8, 32, 128) for h in (8, 16, 24, 32, 64, 128) for k in (2048, 2176)
    }
    prefill = [c for c in cases.parse_cases("hopper-holes") if c.mode == "prefill"]
    assert [(c.tokens, c.heads, c.candidates, c.holes) for c in prefill] == [
        (4096, h, 2176, True) for h in (16, 32, 64, 128)
    ]


def test_inputs_glm_rows_and_rotations():
    case = cases.Case("decode", 3, 8, 2176, holes=True)
    assert cases.default_rotations(case) > 10  # b=3: many index sets so calls miss L2
    assert cases.default_rotations(cases.Case("prefill", 4096, 64, 2176, True)) == cases.MIN_ROTATIONS
    inputs = cases.make_inputs(case, 1 << 14, rotations=4)
    indices, lens = np.asarray(inputs.indices), np.asarray(inputs.topk_lens)
    assert indices.shape == (4, 3, 2176) and lens.shape == (4, 3)
    assert (indices[..., 2051:] == -1).all() and (lens <= 2051).all()
    groups = indices[..., :2048].reshape(4, 3, 512, 4)
    present = groups[..., 0] >= 0
    assert (np.diff(groups[present], axis=-1) == 1).all()  # a pool group is 4 consecutive slots
    assert not (indices[0] == indices[1]).all()  # the rotations differ
    assert np.asarray(inputs.q).dtype.name == "bfloat16"


def test_package_import_pulls_no_torch(tmp_path):
    """``import jax_glm_nope`` (and every submodule, and the harness without a torch peer)
    must work where importing torch, triton or flash_mla fails."""
    for name in ("torch", "triton", "flash_mla"):
        (tmp_path / f"{name}.py").write_text(f"raise ImportError('{name} was imported')\n")
    code = (
        "import pkgutil, importlib, jax_glm_nope\n"
        "for m in pkgutil.walk_packages(jax_glm_nope.__path__, 'jax_glm_nope.'):\n"
        "    importlib.import_module(m.name)\n"
        "import benchmarks.bench\n"
    )
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]


# ----------------------------------------------------------------------------- profiler spans

US = 1000.0  # ns


def _call(start, attention_us, combine_us=None, overlap_us=1.0):
    """One call as the sm_90a path launches it: XLA's index-set slice, the attention kernel,
    and (with splits) the combine, launched under PDL so it starts before the kernel ends."""
    attention = (
        "void jax_glm_nope::sm90::sparse_mla_block_shared_kernel<1, 4>(jax_glm_nope::sm90::SparseMlaParams)"
    )
    events = [("loop_dynamic_slice_fusion", start, start + 2 * US)]
    kernel_start = start + 3 * US
    kernel_end = kernel_start + attention_us * US
    events.append((attention, kernel_start, kernel_end))
    if combine_us is not None:
        combine_start = kernel_end - overlap_us * US
        events.append(("void jax_glm_nope::sm90::combine_kernel(jax_glm_nope::sm90::SparseMlaParams)",
                       combine_start, combine_start + combine_us * US))  # fmt: skip
    return events


def test_spans_separate_the_calls_and_count_pdl_overlap_once():
    events = []
    for i in range(3):  # calls of 10, 11, 12 us of attention, each 3 us of combine overlapping by 1 us
        events += _call(100 * US * i, 10 + i, combine_us=3)
    found = spans.call_spans(reversed(events), num_calls=3)  # any order in, launch order out
    assert [s / US for s in found.spans_ns] == [12, 13, 14]  # first start to last end, not 13/14/15
    assert found.median_us == 13
    assert len(found.kernels) == 2 and "sparse_mla_block_shared_kernel<" in found.kernels[0]
    assert "combine_kernel(" in found.kernels[1]
    assert [o / US for o in found.other_ns] == [2, 2]  # XLA's slice of the next call, outside the span
    summary = found.summary()
    assert summary["calls"] == 3 and summary["span_min_us"] == 12 and summary["span_max_us"] == 14


def test_spans_leave_xla_kernels_out():
    """The Pallas path: our kernel, then XLA's split merge (a fusion), longer than the kernel."""
    events = []
    for i in range(2):
        start = 1000 * US * i
        events += [
            ("loop_dynamic_slice_fusion", start, start + 1 * US),
            ("sparse_mla_fp8_rows", start + 2 * US, start + 22 * US),
            ("loop_reduce_fusion", start + 22 * US, start + 52 * US),
            ("fusion_sparse_mla_merge", start + 52 * US, start + 60 * US),  # XLA's, whatever its name says
            ("MemcpyDtoH", start + 60 * US, start + 61 * US),
        ]
    found = spans.call_spans(events, num_calls=2)
    assert [s / US for s in found.spans_ns] == [20, 20] and found.kernels == ("sparse_mla_fp8_rows",)
    assert found.other_ns == (40 * US,)  # 30 + 8 + 1 after call 0's kernel, 1 before call 1's


def test_spans_refuse_what_is_not_one_span_per_call():
    kernel, combine = "sparse_mla_heads_major_kernel", "combine_kernel"
    with pytest.raises(spans.SpanError, match="5 kernels of the package for 2 calls"):
        spans.call_spans([(kernel, i * US, i * US + 1) for i in range(5)], num_calls=2)
    events = [(kernel, 0, 1), (combine, 1, 2), (kernel, 10, 11), (kernel, 11, 12)]
    with pytest.raises(spans.SpanError, match="the calls differ"):
        spans.call_spans(events, num_calls=2)
    with pytest.raises(spans.NoKernelEvents, match=r"no kernel of the package .*loop_fusion x2"):
        spans.call_spans([("loop_fusion", 0, 1), ("loop_fusion", 2, 3), ("copy_1", 4, 5)], num_calls=1)


def _kernel_names(path: Path, pattern: str) -> set[str]:
    return set(re.findall(pattern, path.read_text()))


def test_is_our_kernel_knows_every_kernel_of_the_package():
    sm90 = set().union(
        *(
            _kernel_names(p, r"__global__[\s\S]*?(\w+_kernel)\s*\(")
            for p in (ROOT / "ffi/ours/sm90").glob("*.cuh")
        )
    )
    assert {"combine_kernel", "sparse_mla_heads_major_kernel", "sparse_mla_warp_private_kernel"} <= sm90
    flashinfer = set().union(
        *(_kernel_names(p, r"fi::(\w+_kernel)") for p in (ROOT / "ffi/flashinfer/sm120").glob("*.cu"))
    )
    flashinfer |= {
        "sparse_mla_prefill_swapab_kernel",
        "sparse_mla_prefill_mg_kernel",
    }  # its prefill launchers'
    pallas = _kernel_names(ROOT / "jax_glm_nope/implementations/pallas/kernel.py", r'\bname="(\w+)"')
    assert len(flashinfer) >= 4 and len(pallas) == 1
    for name in sm90 | flashinfer | pallas:
        demangled = f"void jax_glm_nope::sm90::{name}<2, 4>(jax_glm_nope::sm90::SparseMlaParams)"
        mangled = f"_ZN12jax_glm_nope4sm90{len(name)}{name}ILi2ELi4EEEvNS0_15SparseMlaParamsE"
        assert all(spans.is_our_kernel(n) for n in (name, demangled, mangled)), name
    xla = ["loop_dynamic_slice_fusion", "input_reduce_fusion_1", "fusion_sparse_mla", "copy_3"]
    xla += ["wrapped_concatenate", "MemcpyDtoH", "Memset", "nvjet_hsh_128x256_2x1", "triton_softmax_1"]
    for name in xla:
        assert not spans.is_our_kernel(name), name


def _xspace(planes: dict[str, dict[str, list[tuple[str, int, int]]]]) -> str:
    """A text-format XSpace: plane -> line -> (event name, start ns, duration ns)."""
    text = []
    for p, (plane, lines) in enumerate(planes.items()):
        names = sorted({e[0] for events in lines.values() for e in events})
        ids = {name: i + 1 for i, name in enumerate(names)}
        body = [f'id: {p} name: "{plane}"']
        for n, (line, events) in enumerate(lines.items()):
            body.append(
                f'lines {{ id: {n} name: "{line}" timestamp_ns: 1000 '
                + " ".join(
                    f"events {{ metadata_id: {ids[e]} offset_ps: {s * 1000} duration_ps: {d * 1000} }}"
                    for e, s, d in events
                )
                + " }"
            )
        body += [
            f'event_metadata {{ key: {i} value {{ id: {i} name: "{name}" }} }}' for name, i in ids.items()
        ]
        text.append("planes { " + " ".join(body) + " }")
    return "\n".join(text)


def test_device_events_read_the_stream_lines_of_the_gpu_plane():
    kernel, combine = "sparse_mla_heads_major_kernel", "combine_kernel"
    stream = [("loop_fusion", 0, 500), (kernel, 1000, 9000), (combine, 9500, 1000)]
    stream += [("loop_fusion", 20000, 500), (kernel, 21000, 7000), (combine, 27500, 1000)]
    data = jax.profiler.ProfileData.from_text_proto(
        _xspace(
            {
                "/host:CPU": {"python": [(kernel, 0, 10**6)]},
                "/device:GPU:0": {
                    "Stream #7(Kernel,MemcpyD2H)": stream,
                    "XLA Ops": [(kernel, 0, 30000)],  # derived from the streams: never counted twice
                },
                "/device:GPU:1": {"Stream #3(Kernel)": []},
            }
        )
    )
    planes = spans.device_events(data)
    assert sorted(planes) == ["/device:GPU:0", "/device:GPU:1"] and len(planes["/device:GPU:0"]) == 6
    found = spans.trace_spans(planes, num_calls=2)
    assert found.spans_ns == (9500.0, 7500.0) and found.kernels == (kernel, combine)
    with pytest.raises(
        spans.NoKernelEvents, match=r"among the 2 GPU kernel events of /device:GPU:0.*loop_fusion x2"
    ):
        spans.trace_spans({"/device:GPU:0": [e for e in planes["/device:GPU:0"] if "fusion" in e[0]]}, 2)
    with pytest.raises(spans.SpanError, match="several GPUs"):
        spans.trace_spans(
            {"/device:GPU:0": planes["/device:GPU:0"], "/device:GPU:1": planes["/device:GPU:0"]}, 2
        )


def _tiny(q, pool, indices, topk_lens):
    return q * 2, jnp.sum(indices, axis=-1).astype(jnp.float32)


def test_profiler_on_the_cpu_says_no_gpu_kernel_events():
    """The profiler path runs where there is no GPU, and says so instead of timing."""
    q, pool = jnp.ones((2, 4), jnp.bfloat16), jnp.zeros((8, 4), jnp.uint8)
    indices = jnp.ones((2, 2, 3), jnp.int32)
    options = timing.TimingOptions(rounds=1, min_round_s=1e-4, profile_calls=3)
    measured, (out, _) = timing.time_jax(_tiny, q, pool, indices, None, options, profile=True)
    assert measured.timer == "profiler" and measured.us is None and measured.profile is None
    assert measured.error.startswith("no GPU kernel events in the profile") and "'cpu'" in measured.error
    assert measured.loop_us > 0 and float(out[0, 0]) == 2.0  # the loop still ran and gave its outputs
    loop, _ = timing.time_jax(_tiny, q, pool, indices, None, options)
    assert loop.timer == "loop" and loop.us == loop.loop_us > 0 and loop.error is None


def test_a_gpu_run_stops_when_the_profiler_times_none_of_ours():
    untimed = {"status": "untimed", "reason": "no kernel of the package among the 9 GPU kernel events"}
    rows = [{"implementation": "cuda"} | untimed, {"implementation": "pallas sweep"} | untimed]
    rows.append({"implementation": "flashmla", "status": "ok", "reason": None})
    reason = bench.untimed_everywhere(rows, interpret=False)
    assert reason.startswith("the profiler timed none of cuda, pallas sweep (no kernel of the package")
    assert bench.untimed_everywhere(rows, interpret=True) is None  # the CPU smoke run: expected
    timed = [{"implementation": "pallas", "status": "ok", "reason": None}]
    assert bench.untimed_everywhere(rows + timed, interpret=False) is None  # one timed: keep going
    unavailable = [{"implementation": "flashinfer", "status": "unavailable", "reason": "SM120 only"}]
    assert bench.untimed_everywhere(unavailable + rows[2:], interpret=False) is None
