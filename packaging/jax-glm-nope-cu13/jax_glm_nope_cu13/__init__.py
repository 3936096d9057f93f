"""The prebuilt native library of jax_glm_nope (CUDA 13; sm_90a, sm_120a, sm_121a).

Nothing to import: ``jax_glm_nope.native.library`` finds this folder, checks its
``build.json`` against the installed sources and jaxlib, and loads
``libjax_glm_nope_ffi.so`` from it before it would ever build one.
"""
