"""The release of this package: one line that the build (``pyproject.toml``), the
native library's manifest and ``jax_glm_nope.__version__`` all read."""

__version__ = "0.2.0.dev0"
