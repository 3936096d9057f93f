"""examples/decode_loop.py: the compact sparse path computes the dense-mask model, sharded or not.

The example is not a package; it is imported by path. Tolerances are explained in
docs/example.md ("Correctness").
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import socket
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
sys.path.insert(0, EXAMPLES)

import decode_loop  # noqa: E402
import glm_nope_model as model_lib  # noqa: E402

DEFAULT = model_lib.Config()
# The correctness tests: the default attention geometry (64 heads, 2051 candidates, two
# layers) around small projections, and 16 decode steps; what they check is agreement.
# test_command_line_summary passes the same model and run as flags, so every program it
# needs except the zero-attention one is already compiled (decode_loop caches them).
CFG = dataclasses.replace(DEFAULT, hidden_size=128, vocab_size=256, ffn_size=128)
RUN = decode_loop.Run(batch=2, prompt_len=64, steps=16, page_size=64)
CLI_FLAGS = (
    f"--layers {CFG.num_layers} --hidden {CFG.hidden_size} --vocab {CFG.vocab_size} --ffn {CFG.ffn_size} "
    f"--heads {CFG.num_heads} --topk-pools {CFG.topk_pools} --batch {RUN.batch} "
    f"--prompt-len {RUN.prompt_len} --steps {RUN.steps} --page-size {RUN.page_size}"
).split()
# Teacher-forced logit tolerances (logits have std ~1): the same FP8 values read densely
# differ only by float32 summation order, carried through later layers' FP8 rounding;
# a BF16 cache differs by the FP8 quantization error itself (~2.6% of each latent).
SAME_VALUES_MAX_ABS = 1e-2
# The dense mask over the compact path's own rows and candidates in the same step
# (attention="paired"): only the attention read differs, and no FP8 write, selection or
# separately compiled program lies downstream of it (1.3e-3 on the CPU).
PAIRED_MAX_ABS = 1e-2
BF16_MAX_ABS = 0.2
BF16_RMS = 0.04
# Sharding changes float32 summation order (the psum over heads; per-shard GEMM shapes),
# and BF16 attention outputs and FP8 writes in later layers round those ulps up.
SHARDED_MAX_ABS = 1e-2


top2_margin = decode_loop.top2_margin


def assert_greedy_agrees(reference, other, max_abs: float, min_decisive: float = 0.9) -> None:
    """Teacher-forced ``other`` picks ``reference``'s token wherever the choice is not a near-tie."""
    diff = np.abs(other.logits - reference.logits)
    assert np.isfinite(other.logits).all() and np.isfinite(reference.logits).all()
    assert diff.max() <= max_abs, f"max |logit diff| {diff.max():.3g} > {max_abs}"
    picked = np.argmax(other.logits, axis=-1).T
    decisive = top2_margin(reference.logits) > 2 * diff.max(axis=-1).T
    assert decisive.mean() >= min_decisive, f"only {decisive.mean():.0%} of the steps are decisive"
    np.testing.assert_array_equal(picked[decisive], reference.tokens[decisive])


def assert_free_running_agrees(reference, free, max_abs: float) -> None:
    """Free-running greedy tokens are equal until a step whose top-2 margin is a near-tie,
    and the logits are within ``max_abs`` up to that step (decode_loop.free_running_agreement).

    After a near-tie the two runs feed different tokens and legitimately diverge.
    """
    agreement = decode_loop.free_running_agreement(reference, free, max_abs)
    assert agreement["ok"], agreement


@pytest.fixture(scope="module")
def compact():
    return decode_loop.generate(CFG, RUN)


def test_default_geometry():
    assert DEFAULT.num_heads == 64 and DEFAULT.q_lora_rank == 1536 and DEFAULT.kv_lora_rank == 512
    assert DEFAULT.qk_nope_head_dim == 256 and DEFAULT.v_head_dim == 256 and DEFAULT.qk_rope_head_dim == 0
    assert DEFAULT.num_candidates == 2051
    assert DEFAULT.sm_scale == 1 / 16


def test_indexer_candidates_are_causal_pools_and_tail():
    cfg = model_lib.Config(num_layers=1, hidden_size=64, vocab_size=64, ffn_size=64, topk_pools=5)
    layer = model_lib.init_params(cfg, seed=3)["layers"][0]
    max_len, num_requests = 32, 2
    table = np.arange(1, 1 + num_requests * max_len, dtype=np.int32).reshape(num_requests, max_len)
    positions = np.array([[0, 2, 3, 7, 13, 19, 27, 31]] * num_requests, np.int32)
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((num_requests, positions.shape[1], cfg.hidden_size)), jnp.float32)
    keys = jnp.asarray(rng.standard_normal((1 + num_requests * max_len, cfg.index_head_dim)), jnp.bfloat16)
    select = jax.jit(lambda *args: model_lib.indexer_candidates(cfg, *args))
    local = np.asarray(select(x, layer, keys, jnp.asarray(table), jnp.asarray(positions)))
    assert local.shape == (num_requests, positions.shape[1], 5 * 4 + 3)
    for r in range(num_requests):
        for c, pos in enumerate(positions[r]):
            groups, tail = local[r, c, :20].reshape(5, 4), local[r, c, 20:]
            complete = (pos + 1) // 4
            chosen = groups[groups[:, 0] >= 0]
            assert len(chosen) == min(5, complete)  # missing pools are runs of four -1
            assert (groups[len(chosen) :] == -1).all()
            np.testing.assert_array_equal(chosen % 4, np.tile(np.arange(4), (len(chosen), 1)))
            assert len(set(chosen[:, 0] // 4)) == len(chosen) and (chosen[:, 3] <= pos).all()
            expected_tail = [p if p <= pos else -1 for p in range(4 * complete, 4 * complete + 3)]
            np.testing.assert_array_equal(tail, expected_tail)


def test_compact_reads_what_dense_mask_reads(compact):
    """Same FP8 values in a dense float32 cache, top-k as a dense mask: same model."""
    forced = decode_loop.generate(CFG, RUN, "dense-fp8", forced=compact.tokens)
    assert_greedy_agrees(compact, forced, SAME_VALUES_MAX_ABS)


def test_compact_and_dense_mask_over_the_same_rows_in_one_step(compact):
    """What --check-dense reports first: in one step, the compact path and a second stream
    whose layers read the compact path's own rows and candidates with the dense mask."""
    paired = decode_loop.generate(CFG, RUN, "paired")
    assert paired.logits.shape[2] == 2
    np.testing.assert_array_equal(paired.tokens, compact.tokens)  # stream 1 is the compact model
    ours = dataclasses.replace(paired, logits=paired.logits[:, :, 0])
    theirs = dataclasses.replace(paired, logits=paired.logits[:, :, 1])
    assert_greedy_agrees(ours, theirs, PAIRED_MAX_ABS)


def test_compact_against_bf16_dense_model(compact):
    """What JAX models run today: a BF16 cache and a dense mask. The gap is FP8 quantization."""
    dense = decode_loop.generate(CFG, RUN, "dense", forced=compact.tokens)
    assert_greedy_agrees(compact, dense, BF16_MAX_ABS, min_decisive=0.5)
    rms = np.sqrt(np.mean((dense.logits - compact.logits) ** 2)) / compact.logits.std()
    assert rms <= BF16_RMS, f"relative RMS logit diff {rms:.3g} > {BF16_RMS}"


def test_sparse_selection_matters_and_still_matches(compact):
    """topk_pools=4 over a 64-token prompt: the indexer drops most of the context."""
    cfg = dataclasses.replace(CFG, topk_pools=4)
    few = decode_loop.generate(cfg, RUN)  # the same prompt and page table as the fixture
    assert np.abs(few.logits[0] - compact.logits[0]).max() > 0.1  # the selection changes the model
    forced = decode_loop.generate(cfg, RUN, "dense-fp8", forced=few.tokens)
    assert_greedy_agrees(few, forced, SAME_VALUES_MAX_ABS)


SHARDED_SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, {examples!r})
    import numpy as np
    import decode_loop, glm_nope_model
    cfg = glm_nope_model.Config(**{config!r})
    result = decode_loop.generate(cfg, decode_loop.Run(**{run!r}))
    np.savez({out!r}, tokens=result.tokens, logits=result.logits)
    """
)


def sharded_run(tmp_path):
    """data=2 x model=4 on 8 devices: in this process when conftest gave it 8 CPU devices."""
    run = dataclasses.replace(RUN, data=2, model=4)
    if jax.device_count() >= 8:
        return decode_loop.generate(CFG, run)
    out = str(tmp_path / "sharded.npz")
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    config, run = dataclasses.asdict(CFG), dataclasses.asdict(run)
    script = SHARDED_SCRIPT.format(examples=EXAMPLES, out=out, config=config, run=run)
    subprocess.run([sys.executable, "-c", script], check=True, env=env, timeout=600)
    saved = np.load(out)
    return decode_loop.Result(tokens=saved["tokens"], logits=saved["logits"], implementation="", timings={})


def test_sharded_mesh_matches_single_device(compact, tmp_path):
    """Batch split 2-way, heads 4-way (16 per device): same tokens, logits within 1e-2."""
    sharded = sharded_run(tmp_path)
    assert_free_running_agrees(compact, sharded, SHARDED_MAX_ABS)


MULTI_PROCESS_SCRIPT = textwrap.dedent(
    """
    import sys
    import jax
    try:  # cross-process collectives on CPU (process_allgather of the outputs)
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    except (AttributeError, KeyError, ValueError):
        pass  # a JAX without the option
    jax.distributed.initialize({address!r}, num_processes=2, process_id=int(sys.argv[1]))
    sys.path.insert(0, {examples!r})
    import numpy as np
    import decode_loop, glm_nope_model
    cfg = glm_nope_model.Config(**{config!r})
    result = decode_loop.generate(cfg, decode_loop.Run(**{run!r}))
    assert jax.process_count() == 2 and jax.device_count() == 8
    np.savez({out!r} + sys.argv[1] + ".npz", tokens=result.tokens, logits=result.logits)
    """
)


@pytest.mark.slow
def test_two_processes_like_two_hosts(tmp_path):
    """``jax.distributed`` with 2 processes of 4 CPU devices: requests split across processes."""
    config = dict(num_layers=1, hidden_size=128, vocab_size=256, ffn_size=128, num_heads=8, topk_pools=8)
    run = dict(batch=2, prompt_len=32, steps=4, page_size=16)
    with socket.socket() as probe:
        probe.bind(("localhost", 0))
        port = probe.getsockname()[1]
    script = MULTI_PROCESS_SCRIPT.format(
        address=f"localhost:{port}",
        examples=EXAMPLES,
        config=config,
        run=dict(run, data=2, model=4),
        out=str(tmp_path / "process"),
    )
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4", JAX_PLATFORMS="cpu")
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(rank)], env=env, stderr=subprocess.PIPE, text=True
        )
        for rank in range(2)
    ]
    errors = [worker.communicate(timeout=600)[1] for worker in workers]
    assert all(worker.returncode == 0 for worker in workers), errors
    single = decode_loop.generate(model_lib.Config(**config), decode_loop.Run(**run))
    for rank in range(2):
        saved = np.load(tmp_path / f"process{rank}.npz")
        both = decode_loop.Result(
            tokens=saved["tokens"], logits=saved["logits"], implementation="", timings={}
        )
        assert_free_running_agrees(single, both, SHARDED_MAX_ABS)


def test_command_line_summary(tmp_path, capsys):
    out = tmp_path / "summary.json"
    argv = [*CLI_FLAGS, "--attention-share", "--check-dense", "--json", str(out)]
    summary = decode_loop.main(argv)
    assert summary["run"] == dataclasses.asdict(RUN) and summary["config"] == dataclasses.asdict(CFG)
    printed = capsys.readouterr().out
    assert "tokens/s" in printed and "528 B/token/layer" in printed and "656 B/token/layer" in printed
    assert "paired   dense mask over the same FP8 rows" in printed
    assert "dense    dense mask over a BF16" in printed
    assert summary["dense"]["paired"]["max_abs_logit_diff"] <= PAIRED_MAX_ABS
    assert summary["dense"]["dense"]["max_abs_logit_diff"] <= BF16_MAX_ABS
    assert json.loads(out.read_text())["candidates"] == 2051
    kv = {row["cache"]: row for row in summary["kv"]}
    assert kv["COMPACT fp8"]["vs_padded"] == pytest.approx(656 / 528, rel=1e-6)
    assert kv["BF16 latent"]["bytes_per_token"] == CFG.num_layers * 1024
    assert np.isfinite(summary["attention_share"])  # a timing: reported, never judged in a test


def test_free_running_agreement_refuses_decisive_divergence_and_large_differences():
    logits = np.zeros((3, 1, 4), np.float32)
    logits[:, 0, 0] = 1.0  # token 0 wins every step by 1.0

    def result(tokens, lg):
        return decode_loop.Result(tokens=np.array([tokens]), logits=lg, implementation="", timings={})

    reference = result([0, 0, 0], logits)
    same = decode_loop.free_running_agreement(reference, result([0, 0, 0], logits.copy()), 1e-2)
    assert same["ok"] and same["requests"][0]["first_difference"] is None
    # diverging where the margin is 1.0: not a near-tie
    assert not decode_loop.free_running_agreement(reference, result([0, 1, 1], logits.copy()), 1e-2)["ok"]
    # diverging at a near-tie (margin 0.01 <= 2 x 1e-2): allowed
    tie = logits.copy()
    tie[1, 0, 1] = 0.99
    near_tie_flip = result([0, 1, 1], tie.copy())
    assert decode_loop.free_running_agreement(result([0, 0, 0], tie), near_tie_flip, 1e-2)["ok"]
    # equal tokens but logits beyond the tolerance
    off = logits.copy()
    off[0, 0, 2] = 0.5
    assert not decode_loop.free_running_agreement(reference, result([0, 0, 0], off), 1e-2)["ok"]


def test_multi_gpu_script_rehearses_on_8_cpu_devices(tmp_path):
    """scripts/multi_gpu_example.py (the multi-GPU run's one command) end to end on 8 CPU devices:
    TP4 x DP2 against one device, decode with the attention share and the scaling."""
    root = os.path.dirname(EXAMPLES)
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    subprocess.run(
        [
            sys.executable,
            os.path.join(root, "scripts", "multi_gpu_example.py"),
            "--out",
            str(tmp_path),
            "--host-devices",
            "8",
            "--small",
            "--layouts",
            "2x4",
            "--batches",
            "2",
            "--skip",
            "long",
        ],
        check=True,
        env=env,
        timeout=900,
    )
    summary = json.load(open(tmp_path / "multi_gpu.json"))
    assert summary["layouts"] == [[2, 4]]
    (agreement,) = summary["agreement"]
    assert agreement["ok"] and len(agreement["requests"]) == 4
    rows = {(r["data"], r["model"]): r for r in summary["decode"]}
    assert set(rows) == {(1, 1), (2, 4)}
    assert rows[(2, 4)]["heads_per_device"] == 16 and rows[(2, 4)]["batch_per_data_rank"] == 2
    assert rows[(2, 4)]["vs_one_device"] > 0 and 0 <= rows[(2, 4)]["attention_share"] < 1
    kv = {k["cache"]: k for k in summary["kv_per_device"]}
    assert kv["COMPACT fp8"]["tokens"] > kv["PADDED fp8"]["tokens"]


def test_prefill_steps_beyond_sparse_mla_token_limit_are_refused_with_the_fix():
    """A prefill step of batch x chunk tokens past sparse_mla's T limit (65536 per device):
    a clear error naming the largest chunk that fits, before anything is compiled."""
    cfg = model_lib.Config(num_heads=8)
    with pytest.raises(ValueError, match=r"262144 tokens .* prefill_chunk <= 256"):
        decode_loop.generate(cfg, decode_loop.Run(batch=256, prompt_len=4096, prefill_chunk=1024, steps=1))
    # per data rank: 2 ranks of 128 requests fit 512 tokens per request
    with pytest.raises(ValueError, match=r"prefill_chunk <= 512"):
        run = decode_loop.Run(batch=256, prompt_len=4096, prefill_chunk=1024, data=2, steps=1)
        decode_loop.generate(cfg, run)


def _run_example(script, *args):
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}  # one CPU device
    return subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_help_gives_every_option_a_text_and_its_default(capsys):
    with pytest.raises(SystemExit):
        decode_loop.parse_args(["--help"])
    text = capsys.readouterr().out
    for flag, default in [
        ("--layers", DEFAULT.num_layers),
        ("--hidden", DEFAULT.hidden_size),
        ("--vocab", DEFAULT.vocab_size),
        ("--ffn", DEFAULT.ffn_size),
        ("--param-dtype", "float32"),
        ("--prompt-len", RUN.prompt_len),
        ("--page-size", 64),
        ("--seed", 0),
    ]:
        option = re.search(rf"^  {flag}[^\n]*(?:\n {{10,}}[^\n]*)*", text, re.MULTILINE).group(0)
        assert f"(default: {default})" in " ".join(option.split()), option


def test_a_mesh_larger_than_the_devices_hints_at_host_devices():
    done = _run_example("decode_loop.py", "--model", "2")
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr
    assert "--model 2 needs 2 devices, found 1" in done.stderr and "--host-devices 2" in done.stderr


def test_the_model_module_run_alone_says_what_it_is():
    done = _run_example("glm_nope_model.py")
    assert done.returncode == 0, done.stderr
    assert "decode_loop.py" in done.stdout and "2051 candidates" in done.stdout
