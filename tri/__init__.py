"""tri: a toolchain for a Trident-like language on Triton VM.

The public API lives in `tri.api`; the command line in `tri.cli`.

The repository keeps its top-level folders (compiler/, vm/, selfhost/, stdlib/, benches/);
an installed wheel holds them inside this package (pyproject.toml maps them), so that
nothing but `tri` is installed at the top level of site-packages.  Either way the code
imports them as `compiler` and `vm`: importing `tri` adds a finder that loads those names
from ROOT, the folder that holds them -- the repository in a checkout, this package's
folder when installed -- ahead of any other package of the same name.
"""

import os
import sys
from importlib.machinery import PathFinder

__version__ = "0.1.0"

_HERE = os.path.dirname(os.path.abspath(__file__))
# compiler/, vm/, selfhost/, stdlib/ and benches/ are in ROOT
ROOT = _HERE if os.path.isdir(os.path.join(_HERE, "compiler")) else os.path.dirname(_HERE)
FOLDERS = ("compiler", "vm", "selfhost")  # the packages beside (or inside) tri


class _Folders:
    """A meta path finder: `compiler`, `vm` and `selfhost` from ROOT."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        return PathFinder.find_spec(name, [ROOT]) if name in FOLDERS else None


if not any(isinstance(finder, _Folders) for finder in sys.meta_path):
    sys.meta_path.insert(0, _Folders())
