"""Module resolution (docs/reference.md): paths, roots, aliases, ambiguity, cycles, visibility."""

import textwrap

import pytest

from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, Resolver, load_project
from compiler.diagnostics import CompileError
from compiler.evaluate import evaluate
from tri.cli import main


def write(root, relative, text):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def diagnostics(path, resolver=None):
    try:
        checked = check(load_project(path, resolver or Resolver()))
        return {(d.code, d.span.line) for d in checked.diagnostics}, checked
    except CompileError as failure:
        return {(d.code, d.span.line) for d in failure.diagnostics}, None


def test_relative_module_and_main_tri(tmp_path):
    write(
        tmp_path, "util/math.tri", "module util.math\npub fn twice(x: Field) -> Field { x + x }\n"
    )
    write(tmp_path, "shapes/main.tri", "module shapes\npub fn side() -> Field { 4 }\n")
    program = write(
        tmp_path,
        "prog.tri",
        """
        program prog
        use util.math
        use shapes
        fn main() { pub_write(math.twice(shapes.side())) }
    """,
    )
    found, checked = diagnostics(program)
    assert found == set()
    assert evaluate(checked).output == [8]


def test_include_directories(tmp_path):
    write(
        tmp_path / "extra", "lib/helpers.tri", "module lib.helpers\npub fn one() -> Field { 1 }\n"
    )
    program = write(
        tmp_path,
        "prog.tri",
        "program prog\nuse lib.helpers\nfn main() { pub_write(helpers.one()) }\n",
    )
    assert ("E0101", 2) in diagnostics(program)[0]
    found, checked = diagnostics(program, Resolver(DEFAULT_LIBRARY, (tmp_path / "extra",)))
    assert found == set() and evaluate(checked).output == [1]


def test_another_library_root_laid_out_like_stdlib_or_like_trident(tmp_path):
    library = tmp_path / "library"
    write(library, "vm/io/io.tri", (DEFAULT_LIBRARY / "vm/io/io.tri").read_text())
    write(library, "math/three.tri", "module std.math.three\npub fn three() -> Field { 3 }\n")
    write(library, "std/math/four.tri", "module std.math.four\npub fn four() -> Field { 4 }\n")
    program = write(
        tmp_path,
        "prog.tri",
        """
        program prog
        use vm.io.io
        use std.math.three
        use std.math.four
        fn main() { io.write(three.three() + four.four()) }
    """,
    )
    found, checked = diagnostics(program, Resolver(library))
    assert found == set() and evaluate(checked).output == [7]
    assert ("E0101", 3) in diagnostics(program)[0]  # the default library has no std.math.three


def test_legacy_alias_warns_and_resolves(tmp_path):
    program = write(tmp_path, "prog.tri", "program prog\nuse std.io\nfn main() { io.write(5) }\n")
    found, checked = diagnostics(program)
    assert found == {("W0005", 2)}
    assert evaluate(checked).output == [5]


def test_ambiguous_short_alias(tmp_path):
    write(tmp_path, "a/util.tri", "module a.util\npub fn f() -> Field { 1 }\n")
    write(
        tmp_path,
        "b/util.tri",
        "module b.util\npub fn f() -> Field { 2 }\npub fn g() -> Field { 3 }\n",
    )
    program = write(
        tmp_path,
        "prog.tri",
        """
        program prog
        use a.util
        use b.util
        fn main() {
            pub_write(util.g())
            pub_write(a.util.f())
            pub_write(util.f())
        }
    """,
    )
    found, _ = diagnostics(program)
    assert found == {("E0106", 7)}


def test_full_paths_disambiguate(tmp_path):
    write(tmp_path, "a/util.tri", "module a.util\npub fn f() -> Field { 1 }\n")
    write(tmp_path, "b/util.tri", "module b.util\npub fn f() -> Field { 2 }\n")
    program = write(
        tmp_path,
        "prog.tri",
        """
        program prog
        use a.util
        use b.util
        fn main() {
            pub_write(a.util.f())
            pub_write(b.util.f())
        }
    """,
    )
    found, checked = diagnostics(program)
    assert found == set() and evaluate(checked).output == [1, 2]


def test_import_cycle(tmp_path):
    write(tmp_path, "x.tri", "module x\nuse y\npub fn f() -> Field { 1 }\n")
    write(tmp_path, "y.tri", "module y\nuse x\npub fn g() -> Field { 2 }\n")
    program = write(tmp_path, "prog.tri", "program prog\nuse x\nfn main() { pub_write(x.f()) }\n")
    assert ("E0102", 2) in diagnostics(program)[0]


def test_private_items_are_not_exported(tmp_path):
    write(
        tmp_path, "m.tri", "module m\nfn hidden() -> Field { 1 }\npub fn shown() -> Field { 2 }\n"
    )
    program = write(
        tmp_path, "prog.tri", "program prog\nuse m\nfn main() { pub_write(m.hidden()) }\n"
    )
    assert diagnostics(program)[0] == {("E0108", 3)}


def test_unused_import_warns(tmp_path):
    program = write(tmp_path, "prog.tri", "program prog\nuse vm.core.field\nfn main() { }\n")
    assert diagnostics(program)[0] == {("W0001", 2)}


def test_transitive_visibility_warns(tmp_path):
    write(tmp_path, "m.tri", "module m\nuse vm.core.field\npub fn f() -> Field { field.neg(1) }\n")
    program = write(
        tmp_path,
        "prog.tri",
        """
        program prog
        use m
        fn main() { pub_write(field.neg(m.f())) }
    """,
    )
    found, checked = diagnostics(program)
    assert found == {("W0003", 3)}
    assert evaluate(checked).output == [1]


@pytest.mark.parametrize("flag", ["-I", "--stdlib"])
def test_cli_flags(tmp_path, capsys, flag):
    root = tmp_path / "root"
    if flag == "-I":
        write(root, "lib/helpers.tri", "module lib.helpers\npub fn one() -> Field { 1 }\n")
        program = write(
            tmp_path,
            "prog.tri",
            "program prog\nuse lib.helpers\nfn main() { pub_write(helpers.one()) }\n",
        )
    else:
        write(root, "math/one.tri", "module std.math.one\npub fn one() -> Field { 1 }\n")
        program = write(
            tmp_path,
            "prog.tri",
            "program prog\nuse std.math.one\nfn main() { pub_write(one.one()) }\n",
        )
    assert main(["check", str(program)]) == 1
    assert "error[E0101]" in capsys.readouterr().err
    assert main(["check", str(program), flag, str(root)]) == 0
    assert main(["run", str(program), "--reference", flag, str(root)]) == 0
    assert capsys.readouterr().out.split()[-1] == "1"
