"""The reference evaluator's step limit means about as much work as the VM's (issue 14,
problem 4): a runaway loop stops after about as many iterations on both, at the loop;
`tri test --no-reference` skips the cross-check."""

import json

import pytest
from cli_helpers import tri

RUNAWAY = """program runaway

use vm.io.io
use vm.core.convert

fn main() {
    let n: Field = io.read()
    for i in 0..n bounded 1000000000 {
        io.write(convert.as_field(i))
    }
}
"""


@pytest.mark.parametrize("limit", [1000, 100000])
def test_a_runaway_stops_after_about_the_vm_s_iterations(tmp_path, capsys, limit):
    path = tmp_path / "runaway.tri"
    path.write_text(RUNAWAY)
    common = ["run", path, "--input", "1000000000", "--max-steps", limit, "--json"]
    code, out, _ = tri(capsys, *common, "--reference")
    evaluator = json.loads(out)
    code_vm, out, _ = tri(capsys, *common, "--engine", "interp")
    vm = json.loads(out)
    assert code == code_vm == 1
    assert evaluator["error"]["kind"] == vm["error"]["kind"] == "StepLimitExceeded"
    assert evaluator["error"]["location"]["line"] == 8  # the loop that ran away
    iterations, vm_iterations = len(evaluator["output"]), len(vm["output"])
    assert vm_iterations / 2 <= iterations <= 2 * vm_iterations, (iterations, vm_iterations)


def test_the_reference_check_can_be_skipped(tmp_path, capsys, monkeypatch):
    import compiler.evaluate

    path = tmp_path / "tested.tri"
    path.write_text("module tested\n\n#[test]\nfn adds() {\n    assert_eq(1 + 1, 2)\n}\n")

    def no_evaluator(*arguments, **options):
        raise AssertionError("the reference evaluator ran")

    monkeypatch.setattr(compiler.evaluate, "call_function", no_evaluator)
    code, out, _ = tri(capsys, "test", path, "--no-reference")
    assert code == 0 and f"PASS {path}::adds" in out
    with pytest.raises(AssertionError, match="the reference evaluator ran"):
        tri(capsys, "test", path)
