"""``python -m jax_glm_nope``: the ``jax-glm-nope`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
