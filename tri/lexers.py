"""The Pygments lexers, as the `pygments.lexers` entry points name them (importing `tri`
first makes `compiler` importable from an installed wheel)."""

from compiler.syntax.highlight import TasmLexer, TridentLexer

__all__ = ["TasmLexer", "TridentLexer"]
