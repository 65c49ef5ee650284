"""tri: a toolchain for a Trident-like language on Triton VM.

The public API lives in `tri.api`; the command line in `tri.cli`.
"""

__version__ = "0.1.0"
