"""``python -m jax_glm_nope.bridge [--archs ...]``: build the bridge library (= build-ffi)."""

import sys

from .build import main

sys.exit(main())
