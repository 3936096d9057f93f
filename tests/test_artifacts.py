"""What docs/serving.md says an exported artifact needs of the machine that runs it."""

from __future__ import annotations

import functools
import pathlib
import re

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

import jax_glm_nope as jgn
from jax_glm_nope.implementations import pallas

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_stated_jax_range_is_the_packages():
    serving = (ROOT / "docs" / "serving.md").read_text()
    stated = re.search(r"a release that release supports\*\* \(`jax([^`]+)`\)", serving).group(1)
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'"jax{stated}"' in pyproject and f'"jaxlib{stated}"' in pyproject
    assert stated == pallas.SUPPORTED_JAX


def test_the_runner_donates_again_to_update_the_pool_in_place():
    """The recipe of docs/serving.md on the CPU: an exported donating step copies the pool
    under a plain jit of ``exported.call``, and reuses its buffer when donated again."""

    @functools.partial(jax.jit, donate_argnums=0)
    def step(pool, latent, slots):
        return jgn.write_kv(pool, latent, slots)

    pool = jnp.zeros((64, 528), jnp.uint8)
    latent, slots = jnp.ones((2, 512)), jnp.asarray([3, 7], jnp.int32)
    exported = export.deserialize(export.export(step, platforms=("cpu",))(pool, latent, slots).serialize())
    want = np.asarray(jgn.write_kv(pool, latent, slots))

    kept = jnp.zeros((64, 528), jnp.uint8)
    np.testing.assert_array_equal(np.asarray(jax.jit(exported.call)(kept, latent, slots)), want)
    assert not kept.is_deleted()  # copied: two pools alive

    donated = jnp.zeros((64, 528), jnp.uint8)
    before = donated.unsafe_buffer_pointer()
    out = jax.jit(exported.call, donate_argnums=0)(donated, latent, slots)
    assert donated.is_deleted() and out.unsafe_buffer_pointer() == before  # in place
    np.testing.assert_array_equal(np.asarray(out), want)
