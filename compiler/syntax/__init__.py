"""Syntax: the grammar, the AST, the parser and the formatter."""
