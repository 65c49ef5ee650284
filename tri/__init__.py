"""tri: a toolchain for a Trident-like language on Triton VM.

The public API lives in `tri.api`; the command line in `tri.cli`.

The repository keeps its top-level folders (compiler/, vm/, selfhost/, stdlib/, benches/);
an installed wheel holds them inside this package (pyproject.toml maps them), so that
nothing but `tri` is installed at the top level of site-packages.  Either way the code
imports them as `compiler` and `vm`: importing `tri` adds a finder that loads those names
from ROOT, the folder that holds them -- the repository in a checkout, this package's
folder when installed -- ahead of any other package of the same name.

The same finder makes `tri.compiler`, `tri.vm` and `tri.selfhost` (and their submodules)
other names for those modules, in a checkout as in a wheel: `import tri.compiler.pipeline`
gives the very module `import compiler.pipeline` gives, never a second copy with its own
tables and caches.
"""

import importlib
import os
import sys
from importlib.abc import Loader
from importlib.machinery import ModuleSpec, PathFinder

__version__ = "0.1.0"

_HERE = os.path.dirname(os.path.abspath(__file__))
# compiler/, vm/, selfhost/, stdlib/ and benches/ are in ROOT
ROOT = _HERE if os.path.isdir(os.path.join(_HERE, "compiler")) else os.path.dirname(_HERE)
FOLDERS = ("compiler", "vm", "selfhost")  # the packages beside (or inside) tri


class _Alias(Loader):
    """Loads `tri.X...` as `module`, the module `X...` (already imported)."""

    def __init__(self, module):
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        module.__spec__ = self.spec  # the import system stamped the alias's spec on it


class _Folders:
    """A meta path finder: `compiler`, `vm` and `selfhost` from ROOT, and `tri.compiler`,
    `tri.vm` and `tri.selfhost` as other names for them."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name in FOLDERS:
            return PathFinder.find_spec(name, [ROOT])
        head, _, rest = name.partition(".")
        if head == "tri" and rest.split(".")[0] in FOLDERS:
            module = importlib.import_module(rest)
            return ModuleSpec(name, _Alias(module), is_package=hasattr(module, "__path__"))
        return None


if not any(isinstance(finder, _Folders) for finder in sys.meta_path):
    sys.meta_path.insert(0, _Folders())
