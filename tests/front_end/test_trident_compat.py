"""Trident's own library checks unchanged (issue 14): a library root of our own, laid out
like Trident's (tests/trident_compat), uses the three constructs that kept 11 of its 48
files from checking -- the dot-step intrinsics, `sponge_squeeze` declared to return a
`Digest`, a module function named `sub` called as `poly.sub` -- and every file checks with
`tri check --stdlib ROOT FILE`; its programs build and run alike on the VM and the
reference evaluator.  Checking the real library (rebuilt from public copies, never
shipped) found a fourth construct its recursive verifier uses once the dot steps
check: a function declared `-> Digest` that returns a tuple of five Fields."""

import json
import re
from pathlib import Path

import pytest
from cli_helpers import tri
from corpus import expectations

from compiler.check.resolve import Resolver
from compiler.driver import compile_program
from compiler.evaluate import evaluate
from compiler.pipeline import Options, check_source
from vm import interp

ROOT = Path(__file__).parents[1] / "trident_compat"
FILES = sorted(ROOT.rglob("*.tri"))
PROGRAMS = [path for path in FILES if re.search(r"^program ", path.read_text(), re.M)]


def test_the_corpus_exercises_the_three_constructs():
    text = {path.relative_to(ROOT).as_posix(): path.read_text() for path in FILES}
    assert "#[intrinsic(xx_dot_step)]" in text["os/neptune/xfield.tri"]
    assert "#[intrinsic(xb_dot_step)]" in text["os/neptune/xfield.tri"]
    assert "pub fn sponge_squeeze() -> Digest" in text["vm/crypto/hash.tri"]
    assert "pub fn sub(" in text["private/poly.tri"] and "poly.sub(" in text["fhe/ring.tri"]
    inner = text["os/neptune/inner.tri"]
    assert "-> Digest {" in inner and "(acc0, acc1, acc2, left, right)\n}" in inner
    assert "return (left, right, a0, a1, a2)" in inner
    assert len(PROGRAMS) >= 3


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_file_checks_clean(capsys, path):
    code, _, err = tri(capsys, "check", "--stdlib", ROOT, path)
    assert code == 0, err
    assert "error[" not in err


def test_the_narrowed_squeeze_is_a_documented_warning(capsys):
    _, _, err = tri(capsys, "check", "--stdlib", ROOT, ROOT / "vm" / "crypto" / "hash.tri")
    assert "warning[W0011]: 'sponge_squeeze' narrows builtin 'sponge_squeeze' to Digest" in err


@pytest.mark.parametrize("level", [0, 1])
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda path: path.stem)
def test_the_programs_run_alike_on_the_vm_and_the_evaluator(path, level):
    checked = check_source(path, Options(resolver=Resolver(ROOT)))
    program = compile_program(checked, level).program
    cases = expectations(path).cases
    assert cases
    for case in cases:
        run = interp.execute(program, case.public, case.secret, case.digests, case.ram)
        reference = evaluate(checked, case.public, case.secret, case.digests, case.ram)
        assert run.error is None and reference.error is None
        assert run.output == reference.output == case.output


def test_an_unqualified_call_of_a_builtin_named_function_is_warned_about(tmp_path, capsys):
    module = tmp_path / "shadow.tri"
    module.write_text(
        "module shadow\n\nfn sub(a: Field, b: Field) -> Field {\n    a + b\n}\n\n"
        "pub fn twice(a: Field) -> Field {\n    sub(a, a)\n}\n"
    )
    code, _, err = tri(capsys, "check", module)
    assert code == 0
    assert "shadow.tri:8:5: warning[W0012]: 'sub' here calls this module's function" in err
    program = tmp_path / "user.tri"
    program.write_text("program user\n\nfn sub(a: Field) -> Field {\n    a\n}\n\nfn main() {\n}\n")
    code, _, err = tri(capsys, "check", program)
    assert code == 1 and "error[E0111]" in err  # a program's functions cannot be qualified


def test_a_tuple_of_five_fields_is_a_digest_only_as_a_declared_result(tmp_path, capsys):
    module = tmp_path / "pack.tri"
    module.write_text(
        "module pack\n\npub fn five(a: Field) -> Digest {\n    (a, a, a, a, a)\n}\n\n"
        "pub fn four(a: Field) -> Digest {\n    (a, a, a, a)\n}\n\n"
        "pub fn kept(a: Field) -> Field {\n    let d: Digest = (a, a, a, a, a)\n    a\n}\n"
    )
    code, _, err = tri(capsys, "check", module)
    assert code == 1
    assert "pack.tri:8:5: error[E0201]: return value: expected Digest, found (Field, Field, " in err
    assert "pack.tri:12:21: error[E0201]: expected Digest, found (Field, " in err
    assert err.count("error[") == 2  # five(...) is accepted


def test_a_module_named_like_a_bundled_one_costs_on_its_own_parameters(capsys):
    """`tri cost MODULE --cases` on another library's std.crypto.merkle, whose functions
    take other parameters than the bundled module's (the bundled bench cases read `depth`)."""
    path = ROOT / "crypto" / "merkle.tri"
    code, out, err = tri(capsys, "cost", "--stdlib", ROOT, path, "--cases", "2", "--json")
    assert code == 0, err
    assert [row["function"] for row in json.loads(out)["functions"]] == ["bind"]
