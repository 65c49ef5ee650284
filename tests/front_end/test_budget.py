"""The stack-width budget (`tri check --stack`), on functions whose peak is easy to count."""

import textwrap

from compiler.check.budget import stack_budget
from compiler.check.checker import check
from compiler.check.resolve import load_project
from tri.cli import main

SOURCE = """
    program budget

    fn pair(a: Field, b: Field) -> Field {
        let c = a + b
        c * c
    }

    fn wide(d: Digest) -> Digest {
        let e = hash(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
        for i in 0..3 {
            pub_write(as_field(i))
        }
        e
    }

    fn main() {
        pub_write(pair(1, 2))
        let d = wide(divine5())
        assert_digest(d, d)
    }
"""


def checked_program(tmp_path):
    path = tmp_path / "budget.tri"
    path.write_text(textwrap.dedent(SOURCE))
    return path, check(load_project(path))


def test_peaks(tmp_path):
    _, checked = checked_program(tmp_path)
    budgets = {key.split("__")[-1]: stack_budget(i) for key, i in checked.instances.items()}
    # pair: 2 parameters + c (1) + the two copies of c multiplied
    assert budgets["pair"] == 2 + 1 + 2
    # wide: the 5-element parameter plus the 10 hash arguments
    assert budgets["wide"] == 5 + 10
    # main: d (5) plus both digest arguments of assert_digest (10)
    assert budgets["main"] == 5 + 10


def test_cli_reports_spills(tmp_path, capsys):
    path, _ = checked_program(tmp_path)
    assert main(["check", "--stack", str(path)]) == 0
    out = capsys.readouterr().out
    assert "fn budget__wide: 15 live elements\n" in out
    assert "fn budget__pair: 5 live elements\n" in out
