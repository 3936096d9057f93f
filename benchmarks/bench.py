"""Thin entry point: ``python benchmarks/bench.py [args]`` == ``jax-glm-nope bench [args]``."""

import sys

from jax_glm_nope.bench import main

if __name__ == "__main__":
    sys.exit(main())
