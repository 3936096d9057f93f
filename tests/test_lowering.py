"""What the public API lowers to for the native implementations, on a CPU host.

``jax.jit(f).trace(*specs).lower(lowering_platforms=("cuda",))`` (jax 0.10.2) lowers for
CUDA without a GPU, so these tests read the StableHLO of ``sparse_mla(...,
implementation="flashinfer" | "cuda")`` and ``write_kv(..., implementation="cuda")``
themselves: custom-call target names, the ``sm_scale`` attribute, operand and result
shapes (FlashInfer's decode scratch, our SM90 scratch), the pool aliased from operand 0
to result 0, and the decode/prefill boundary at T = 64 that
:func:`jax_glm_nope.implementations.flashinfer.plan` draws.

The dispatch decides on the device a call runs on, so the tests stand in a device record
(an H200 or an SM120 card) for ``jax_glm_nope.device.current``. Lowering needs no
native library (XLA resolves custom-call targets when it compiles), so the library's
availability and loading are stubbed too: nothing here needs nvcc, and it runs in seconds.
The library itself is tested in test_native_build.py; the kernels in test_kv_rows_gpu.py
and test_attention.py.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_glm_nope as jgn
from jax_glm_nope import device, layout, native
from jax_glm_nope.candidates import last_writer_only
from jax_glm_nope.implementations import flashinfer
from jax_glm_nope.native import kv_rows, library, targets

H200 = device.Device("cuda", "NVIDIA H200", (9, 0), 132)
SM120 = device.Device("cuda", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", (12, 0), 188)
MLIR_TYPES = {"bfloat16": "bf16", "float32": "f32", "float16": "f16", "int32": "i32", "uint8": "ui8"}


@pytest.fixture
def on(monkeypatch):
    """``on(SM120)``: calls dispatch as on that device, with the native library taken as
    built (``library=False``: its real availability check runs)."""

    def use(record, *, library: bool = True):
        monkeypatch.setattr(device, "local", lambda: record)
        if library:
            monkeypatch.setattr(native, "unavailable_reason", lambda **_: None)
        monkeypatch.setattr(targets, "load_library", lambda *args, **kwargs: None)

    return use


# ---------------------------------------------------------------- helpers


def spec(shape, dtype):
    return jax.ShapeDtypeStruct(shape, dtype)


def tensor(shape, dtype) -> str:
    name = MLIR_TYPES[jnp.dtype(dtype).name]
    return "x".join([*(str(d) for d in shape), name])


def lowered(fn, *args, donate=()) -> str:
    traced = jax.jit(fn, donate_argnums=donate).trace(*args)
    return traced.lower(lowering_platforms=("cuda",)).as_text()


class Call:
    """One ``stablehlo.custom_call`` line: target, attributes text, operand and result types."""

    def __init__(self, line: str):
        self.line = line
        self.target = re.search(r"stablehlo\.custom_call @([\w$.]+)\(", line).group(1)
        head, signature = line.rsplit(" : ", 1)
        operands, results = signature.split(" -> ")
        self.attributes = head
        self.operands = re.findall(r"tensor<([^>]*)>", operands)
        self.results = re.findall(r"tensor<([^>]*)>", results)

    def attribute(self, name: str) -> str | None:
        match = re.search(rf"\b{name} = ([^,}}]+)", self.attributes)
        return match.group(1).strip() if match else None

    def sm_scale(self) -> np.float32:
        """The ``sm_scale`` attribute, which must be an f32."""
        value, kind = self.attribute("sm_scale").split(" : ")
        assert kind == "f32", self.attributes
        return np.float32(float(value))


def custom_calls(text: str) -> list[Call]:
    return [Call(line) for line in text.splitlines() if "stablehlo.custom_call @" in line]


def attention_specs(num_tokens, num_heads, num_candidates, *, row_bytes=528, num_slots=4096, page_size=None):
    pool_shape = (
        (num_slots, row_bytes) if page_size is None else (num_slots // page_size, page_size, row_bytes)
    )
    return (
        spec((num_tokens, num_heads, 512), jnp.bfloat16),
        spec(pool_shape, jnp.uint8),
        spec((num_tokens, num_candidates), jnp.int32),
        spec((num_tokens,), jnp.int32),
    )


def attention(implementation, sm_scale, **options):
    def fn(q, pool, indices, topk_lens):
        return jgn.sparse_mla(q, pool, indices, sm_scale, topk_lens, implementation=implementation, **options)

    return fn


def decode_scratch(num_tokens, num_heads, num_candidates):
    """FlashInfer's decode_scratch_heads rule, written out again here."""
    heads = 8 if num_heads == 8 else -(-num_heads // 16) * 16
    splits = -(-num_candidates // 64)
    return (num_tokens, heads, splits, 512), (num_tokens, heads, splits)


# ---------------------------------------------------------------- FlashInfer (SM120)


@pytest.mark.parametrize("num_candidates", [1, 64, 2051, 2112, 2176])
@pytest.mark.parametrize("num_heads", [1, 8, 16, 24, 32, 64, 100, 128])
def test_flashinfer_decode_custom_call(on, num_heads, num_candidates):
    on(SM120)
    specs = attention_specs(5, num_heads, num_candidates)
    (call,) = custom_calls(lowered(attention("flashinfer", 0.0625), *specs))
    assert call.target == targets.FLASHINFER_DECODE == "jax_glm_nope_flashinfer_sm120_decode"
    assert call.sm_scale() == np.float32(0.0625)
    assert call.attribute("api_version") in (None, "4 : i32")
    assert call.operands == [
        tensor((5, num_heads, 512), jnp.bfloat16),
        tensor((4096, 528), jnp.uint8),
        tensor((5, num_candidates), jnp.int32),  # decode takes K as it is
        tensor((5,), jnp.int32),
    ]
    mid_out, mid_lse = decode_scratch(5, num_heads, num_candidates)
    assert targets.flashinfer_scratch_shapes(5, num_heads, num_candidates) == (mid_out, mid_lse)
    assert call.results == [
        tensor((5, num_heads, 512), jnp.bfloat16),
        tensor((5, num_heads), jnp.float32),
        tensor(mid_out, jnp.bfloat16),
        tensor(mid_lse, jnp.float32),
    ]
    assert flashinfer.plan(5, num_heads, num_candidates) == flashinfer.Plan(
        targets.FLASHINFER_DECODE, num_heads, num_candidates, (mid_out, mid_lse)
    )


@pytest.mark.parametrize(
    ("num_heads", "kernel_heads"),
    [(1, 8), (8, 8), (16, 16), (24, 32), (32, 32), (64, 64), (100, 128), (128, 128)],
)
@pytest.mark.parametrize(("num_candidates", "padded"), [(1, 64), (2051, 2112), (2112, 2112), (2176, 2176)])
@pytest.mark.parametrize("page_size", [None, 64], ids=["flat", "paged"])
def test_flashinfer_prefill_custom_call(on, num_heads, kernel_heads, num_candidates, padded, page_size):
    on(SM120)
    specs = attention_specs(65, num_heads, num_candidates, row_bytes=656, page_size=page_size)
    fn = attention("flashinfer", 0.125)
    (call,) = custom_calls(lowered(fn, *specs))
    assert call.target == targets.FLASHINFER_PREFILL == "jax_glm_nope_flashinfer_sm120_prefill"
    assert call.sm_scale() == np.float32(0.125)
    assert call.operands == [
        tensor((65, kernel_heads, 512), jnp.bfloat16),  # heads padded with zero queries
        tensor((4096, 656), jnp.uint8),  # a paged pool reaches the kernel flat
        tensor((65, padded), jnp.int32),  # K padded with -1 to a multiple of 64
        tensor((65,), jnp.int32),
    ]
    assert call.results == [
        tensor((65, kernel_heads, 512), jnp.bfloat16),
        tensor((65, kernel_heads), jnp.float32),
    ]
    assert flashinfer.plan(65, num_heads, num_candidates) == flashinfer.Plan(
        targets.FLASHINFER_PREFILL, kernel_heads, padded, ()
    )
    out, lse = jax.eval_shape(fn, *specs)  # the caller's shapes again
    assert (out.shape, out.dtype, lse.shape, lse.dtype) == (
        (65, num_heads, 512),
        jnp.bfloat16,
        (65, num_heads),
        jnp.float32,
    )


@pytest.mark.parametrize("num_tokens", [1, 63, 64, 65, 66, 300])
def test_decode_prefill_boundary_is_64_tokens(on, num_tokens):
    on(SM120)
    assert targets.FLASHINFER_MAX_DECODE_TOKENS == 64
    launch = flashinfer.plan(num_tokens, 16, 2051)
    assert launch.target == (targets.FLASHINFER_DECODE if num_tokens <= 64 else targets.FLASHINFER_PREFILL)
    (call,) = custom_calls(lowered(attention("flashinfer", 0.1), *attention_specs(num_tokens, 16, 2051)))
    assert call.target == launch.target
    assert call.operands[2] == tensor((num_tokens, launch.candidates), jnp.int32)
    assert len(call.results) == 2 + len(launch.scratch)


@pytest.mark.parametrize(
    ("batch", "target"), [(2, targets.FLASHINFER_DECODE), (3, targets.FLASHINFER_PREFILL)]
)
def test_vmap_folds_the_batch_into_one_call(on, batch, target):
    """A vmapped batch is one call over batch * T tokens (2 x 30 decodes, 3 x 30 prefills)
    over the stacked pools."""
    on(SM120)
    specs = [spec((batch, *s.shape), s.dtype) for s in attention_specs(30, 16, 2051, num_slots=512)]
    fn = jax.vmap(attention("flashinfer", 0.1))
    (call,) = custom_calls(lowered(fn, *specs))
    assert call.target == target
    assert call.operands[0].startswith(f"{batch * 30}x16x512") and call.operands[1] == tensor(
        (batch * 512, 528), jnp.uint8
    )
    out, lse = jax.eval_shape(fn, *specs)
    assert out.shape == (batch, 30, 16, 512) and lse.shape == (batch, 30, 16)


@pytest.mark.parametrize("implementation", ["flashinfer", "cuda"])
def test_empty_batch_lowers_without_a_call(on, implementation):
    on(SM120 if implementation == "flashinfer" else H200)
    specs = attention_specs(0, 8, 2051)
    assert custom_calls(lowered(attention(implementation, 0.1), *specs)) == []
    out, lse = jax.eval_shape(attention(implementation, 0.1), *specs)
    assert out.shape == (0, 8, 512) and lse.shape == (0, 8)


# ---------------------------------------------------------------- ours (SM90)


@pytest.mark.parametrize("batch_invariant", [False, True], ids=["batch_sized", "invariant"])
@pytest.mark.parametrize("num_heads", [1, 8, 16, 24, 32, 40, 64, 128])  # above 32: head groups
@pytest.mark.parametrize("num_tokens", [1, 64, 65, 4096])
def test_cuda_custom_call(on, num_tokens, num_heads, batch_invariant):
    on(H200)
    specs = attention_specs(num_tokens, num_heads, 2051, page_size=16)
    fn = attention("cuda", 0.04419417, batch_invariant=batch_invariant)
    (call,) = custom_calls(lowered(fn, *specs))
    assert call.target == targets.SM90_SPARSE_MLA == "jax_glm_nope_sm90_sparse_mla"
    assert call.sm_scale() == np.float32(0.04419417)
    assert call.operands == [
        tensor((num_tokens, num_heads, 512), jnp.bfloat16),
        tensor((4096, 528), jnp.uint8),  # a paged pool reaches the kernel flat
        tensor((num_tokens, 2051), jnp.int32),
        tensor((num_tokens,), jnp.int32),
    ]
    # The split count travels as the scratch shape: the invariant rule, or one wave of
    # the device's 132 SMs.
    if batch_invariant:
        splits = targets.sm90_num_splits(num_heads, 2051)
    else:
        splits = targets.sm90_batch_num_splits(num_tokens, num_heads, 2051, H200.sm_count)
    part_out, part_lse = targets.sm90_scratch_shapes(num_tokens, num_heads, splits)
    assert part_lse == (num_tokens, splits if splits > 1 else 0, num_heads)
    assert call.results == [
        tensor((num_tokens, num_heads, 512), jnp.bfloat16),
        tensor((num_tokens, num_heads), jnp.float32),
        tensor(part_out, jnp.float32),
        tensor(part_lse, jnp.float32),
    ]
    out, lse = jax.eval_shape(fn, *specs)
    assert out.shape == (num_tokens, num_heads, 512) and lse.shape == (num_tokens, num_heads)


@pytest.mark.parametrize("with_lens", [False, True], ids=["no_topk_lens", "topk_lens"])
@pytest.mark.parametrize("num_tokens", [1, 8, 128])
def test_a_cuda_call_is_its_custom_call_alone(on, num_tokens, with_lens):
    """Nothing of XLA's runs before the kernel: without topk_lens an empty vector stands in
    (a [T] constant, which XLA's simplifier turns into a broadcast kernel at T > 1), and
    given ones reach the kernel unclamped (it clamps them). Under XLA's defaults each
    kernel before ours was a launch the GPU waited for."""
    on(H200)
    specs = attention_specs(num_tokens, 64, 2176)
    fn = attention("cuda", 0.0625)
    text = lowered(fn, *specs) if with_lens else lowered(lambda q, p, i, n: fn(q, p, i, None), *specs)
    (call,) = custom_calls(text)
    assert call.operands[3] == tensor((num_tokens,) if with_lens else (0,), jnp.int32)
    ops = set(re.findall(r"(stablehlo\.\w+)", text))
    assert ops <= {"stablehlo.custom_call", "stablehlo.constant"}, ops


# ---------------------------------------------------------------- the device decides


def test_flashinfer_refused_off_sm120_naming_the_device(on):
    on(H200)
    q, pool, indices, _ = (np.zeros(s.shape, s.dtype) for s in attention_specs(2, 8, 64))
    with pytest.raises(
        ValueError,
        match=r"implementation='flashinfer' cannot serve this call on NVIDIA H200, compute capability 9\.0: "
        r".*SM120",
    ):
        jgn.sparse_mla(q, pool, indices, 0.1, implementation="flashinfer")
    on(SM120)
    with pytest.raises(
        ValueError,
        match=r"implementation='cuda' cannot serve this call on NVIDIA RTX PRO 6000 "
        r".*compute capability 12\.0: "
        r".*sm_90a",
    ):
        jgn.sparse_mla(q, pool, indices, 0.1, implementation="cuda")


def test_native_implementations_refused_on_the_cpu():
    q, pool, indices, _ = (np.zeros(s.shape, s.dtype) for s in attention_specs(2, 8, 64))
    for name in ("flashinfer", "cuda"):
        with pytest.raises(
            ValueError, match=rf"implementation='{name}' cannot serve this call on .*platform 'cpu'"
        ):
            jgn.sparse_mla(q, pool, indices, 0.1, implementation=name)
    with pytest.raises(
        ValueError, match=r"implementation='cuda' cannot serve this call on .*NVIDIA GPUs only"
    ):
        jgn.write_kv(
            np.zeros((4, 528), np.uint8),
            np.zeros((1, 512), np.float32),
            np.zeros((1,), np.int32),
            implementation="cuda",
        )


def test_missing_flashinfer_headers_named_through_the_dispatch(on, tmp_path, monkeypatch):
    on(SM120, library=False)
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_LIBRARY", raising=False)
    monkeypatch.setenv("JAX_GLM_NOPE_CACHE_DIR", str(tmp_path / "cache"))  # nothing built
    monkeypatch.setattr(library, "prebuilt_dir", lambda: None)  # no companion wheel
    monkeypatch.setenv("JAX_GLM_NOPE_FLASHINFER_DATA", str(tmp_path))
    q, pool, indices, _ = (np.zeros(s.shape, s.dtype) for s in attention_specs(2, 8, 64))
    with pytest.raises(
        ValueError,
        match=r"capability 12\.0: FlashInfer 0\.7\.4's headers not found.*JAX_GLM_NOPE_FLASHINFER_DATA",
    ):
        jgn.sparse_mla(q, pool, indices, 0.1, implementation="flashinfer")


# ---------------------------------------------------------------- KV rows


@pytest.mark.parametrize("fmt", layout.FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16, jnp.float16])
@pytest.mark.parametrize("pool_shape", [(1000,), (125, 8)], ids=["flat", "paged"])
def test_write_kv_custom_call_aliases_the_pool(on, fmt, dtype, pool_shape):
    on(H200)
    pool = spec((*pool_shape, fmt.bytes_per_token), jnp.uint8)
    args = (pool, spec((7, 512), dtype), spec((7,), jnp.int32))

    def write(pool, latent, slots):
        return jgn.write_kv(pool, latent, slots, implementation="cuda")

    text = lowered(write, *args, donate=(0,))
    (call,) = custom_calls(text)
    assert call.target == targets.WRITE_KV == "jax_glm_nope_write_kv"
    assert re.search(
        r"output_operand_aliases = \[#stablehlo\.output_operand_alias<"
        r"output_tuple_indices = \[\], operand_index = 0,",
        call.line,
    )
    rows = tensor((1000, fmt.bytes_per_token), jnp.uint8)
    assert call.operands == [rows, tensor((7, 512), dtype), tensor((7,), jnp.int32)]
    assert call.results == [rows]
    main = next(line for line in text.splitlines() if "func.func public @main" in line)
    assert "tf.aliasing_output = 0" in main  # the donated pool is the result buffer
    assert jax.eval_shape(write, *args).shape == pool.shape


def test_write_kv_without_rows_lowers_without_a_call(on):
    on(H200)
    args = (spec((10, 528), jnp.uint8), spec((0, 512), jnp.float32), spec((0,), jnp.int32))
    assert custom_calls(lowered(lambda p, x, s: jgn.write_kv(p, x, s, implementation="cuda"), *args)) == []


A100 = device.Device("cuda", "NVIDIA A100-SXM4-80GB", (8, 0), 108)
L40S = device.Device("cuda", "NVIDIA L40S", (8, 9), 142)
RTX_4090 = device.Device("cuda", "NVIDIA GeForce RTX 4090", (8, 9), 128)
T4 = device.Device("cuda", "Tesla T4", (7, 5), 40)
V100 = device.Device("cuda", "Tesla V100-SXM2-16GB", (7, 0), 80)


@pytest.mark.parametrize(
    ("record", "kernel"),
    [(A100, True), (L40S, True), (RTX_4090, True), (T4, False), (V100, False)],
    ids=["A100", "L40S", "RTX4090", "T4", "V100"],
)
def test_write_kv_lowers_the_kernel_only_for_gpus_the_library_has_code_for(record, kernel):
    """The KV-row unit carries PTX for compute_80 and newer: Ampere and Ada get the kernel,
    older GPUs the scatter, and naming ``cuda`` for them says why."""
    args = (spec((64, 528), jnp.uint8), spec((7, 512), jnp.float32), spec((7,), jnp.int32))
    with jgn.lowering_for(record):
        text = lowered(lambda p, x, s: jgn.write_kv(p, x, s), *args)
    assert [call.target for call in custom_calls(text)] == ([targets.WRITE_KV] if kernel else [])
    assert jgn.write_kv_implementation(7, device=record).implementation == ("cuda" if kernel else "xla")
    if not kernel:
        with (
            jgn.lowering_for(record),
            pytest.raises(
                ValueError,
                match=r"implementation='cuda' .*compute capability 7\.\d: .*needs compute capability 8\.0",
            ),
        ):
            lowered(lambda p, x, s: jgn.write_kv(p, x, s, implementation="cuda"), *args)


@pytest.mark.parametrize("row_bytes", [528, 656])
def test_dequantize_custom_call(on, row_bytes):
    on(H200)
    (call,) = custom_calls(lowered(kv_rows.dequantize, spec((33, row_bytes), jnp.uint8)))
    assert call.target == targets.DEQUANTIZE == "jax_glm_nope_dequantize"
    assert call.operands == [tensor((33, row_bytes), jnp.uint8)] and call.results == [
        tensor((33, 512), jnp.float32)
    ]


def test_last_writer_only_keeps_one_row_per_slot():
    """What write_kv hands the CUDA target: out-of-range and earlier duplicate slots -1."""
    slots = jnp.asarray([5, 3, 5, -1, 9, 3, 10, 5], jnp.int32)
    np.testing.assert_array_equal(np.asarray(last_writer_only(slots, 10)), [-1, -1, -1, -1, 9, 3, -1, 5])
    extremes = jnp.asarray([-(2**31), 2**31 - 1, 0, 0], jnp.int32)
    np.testing.assert_array_equal(np.asarray(last_writer_only(extremes, 10)), [-1, -1, -1, 0])
    rng = np.random.default_rng(0)
    unique = jax.jit(last_writer_only, static_argnums=1)
    for num_slots in (1, 7, 40):
        slots = rng.integers(-5, num_slots + 5, 64).astype(np.int32)
        got = np.asarray(unique(jnp.asarray(slots), num_slots))
        want = np.full_like(slots, -1)
        last = {int(s): t for t, s in enumerate(slots) if 0 <= s < num_slots}
        for slot, t in last.items():
            want[t] = slot
        np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- batch_invariant, automatic


@pytest.mark.parametrize("num_tokens", [1, 2, 4, 128])
def test_auto_batch_invariant_takes_one_implementation_at_every_batch(on, num_tokens):
    """Under implementation=None a token alone (T = 1, where the table otherwise takes
    Pallas on Hopper) and the same token in a batch reach the same kernel, with the
    invariant split rule (the same split count whatever T)."""
    on(H200)
    specs = attention_specs(num_tokens, 64, 2048)
    with jgn.lowering_for(H200):
        (call,) = custom_calls(lowered(attention(None, 0.0625, batch_invariant=True), *specs))
    assert call.target == targets.SM90_SPARSE_MLA
    splits = targets.sm90_num_splits(64, 2048)
    assert call.results[3] == tensor((num_tokens, splits, 64), jnp.float32)


def test_auto_batch_invariant_false_is_the_plain_choice(on):
    on(H200)
    specs = attention_specs(1, 64, 2048)
    with jgn.lowering_for(H200):
        plain = custom_calls(lowered(attention(None, 0.0625), *specs))
        explicit = custom_calls(lowered(attention(None, 0.0625, batch_invariant=False), *specs))
    assert [c.target for c in explicit] == [c.target for c in plain]
    assert targets.SM90_SPARSE_MLA not in [c.target for c in plain]  # T = 1: Pallas on Hopper


def test_auto_batch_invariant_where_nothing_honours_it_says_so():
    """On an SM120 card and on this CPU host no implementation honours it: a clear error,
    not a silent call without the promise."""
    specs = attention_specs(1, 8, 64)
    fn = jax.jit(attention(None, 0.0625, batch_invariant=True))
    pattern = r"batch_invariant=True\) with implementation=None: no implementation that honours it.*cuda: "
    with jgn.lowering_for(SM120), pytest.raises(ValueError, match=pattern):
        fn.trace(*specs)
    with pytest.raises(ValueError, match=pattern):
        fn.trace(*specs)


# ---------------------------------------------------------------- scratch for a memory planner

ITEMSIZE = {"bf16": 2, "f16": 2, "f32": 4, "i32": 4, "ui8": 1}


def _elements_and_type(result: str) -> tuple[int, str]:
    *dims, dtype = result.split("x")
    return int(np.prod([int(d) for d in dims])), dtype


def scratch_in_hlo(text: str, num_tokens: int, num_heads: int) -> int:
    """Bytes of every custom call's results but the call's own out and lse (a result of
    their element count and type: a one-split kernel writes them with a leading axis of 1)."""
    final = [(num_tokens * num_heads * 512, "bf16"), (num_tokens * num_heads, "f32")]
    total = 0
    for call in custom_calls(text):
        for result in call.results:
            elements, dtype = _elements_and_type(result)
            if (elements, dtype) in final:
                final.remove((elements, dtype))
            else:
                total += elements * ITEMSIZE[dtype]
    return total


@pytest.mark.parametrize(
    "record, num_tokens, num_heads, num_candidates, implementation, options",
    [
        (H200, 1, 64, 2176, None, {}),  # pallas, split over the SMs
        (H200, 8, 64, 2176, None, {}),  # cuda, batch-sized splits
        (H200, 1, 8, 2051, None, {}),  # cuda at one token, few heads
        (H200, 256, 64, 2048, None, {}),  # cuda, one split: none
        (H200, 1, 64, 2048, None, {"batch_invariant": True}),
        (H200, 1, 8, 2051, "pallas", {}),  # heads padded to the 16-row block
        (H200, 512, 64, 2048, "pallas", {}),  # one split of 64 heads: the kernel writes out itself
        (H200, 512, 8, 2048, "pallas", {}),  # one split, 8 heads padded to 16: sliced after
        (SM120, 5, 24, 2051, None, {}),  # FlashInfer decode: mid_out, mid_lse
        (SM120, 100, 16, 2051, None, {}),  # FlashInfer prefill: none
    ],
)
def test_scratch_bytes_match_the_lowered_custom_calls(
    on, record, num_tokens, num_heads, num_candidates, implementation, options
):
    on(record)
    want = jgn.sparse_mla_scratch_bytes(
        num_tokens, num_heads, num_candidates, device=record, implementation=implementation, **options
    )
    specs = attention_specs(num_tokens, num_heads, num_candidates)
    with jgn.lowering_for(record):
        text = lowered(attention(implementation, 0.0625, **options), *specs)
    assert custom_calls(text)
    assert scratch_in_hlo(text, num_tokens, num_heads) == want


def test_scratch_bytes_per_bucket_are_bounded():
    """The figures a planner reads for a 64-head, 2176-candidate layer on an H200: a few
    MiB at decode, none once one split fills the GPU."""
    sizes = {t: jgn.sparse_mla_scratch_bytes(t, 64, 2176, device=H200) for t in (1, 8, 64, 256)}
    assert 4 * 2**20 < sizes[1] < 5 * 2**20
    assert sizes[8] < sizes[64] <= 16.1 * 2**20
    assert sizes[256] == 0
    assert jgn.sparse_mla_scratch_bytes(1, 64, 2176, implementation="reference") == 0
