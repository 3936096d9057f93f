"""The benchmark harness of jax_glm_nope, kept out of the installed package.

Run ``python benchmarks/bench.py --help``; method and commands: docs/benchmarks.md.
"""
