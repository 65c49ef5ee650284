"""`tri cost`: exact figures first, the blocks that dominate the tallest table with
`--blocks`, modules on their bench cases, and RC's estimate only with `--estimate`."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import tri

from compiler.check.resolve import DEFAULT_LIBRARY

PROGRAMS = Path(__file__).parents[1] / "programs"
FIB = PROGRAMS / "valid" / "std_fibonacci.tri"
EXECUTED = ("processor", "op_stack", "ram", "jump_stack", "hash")


def cost_json(capsys, *arguments) -> tuple[int, dict]:
    code, out, err = tri(capsys, "cost", *arguments, "--json")
    assert code in (0, 1), err
    return code, json.loads(out)


def test_blocks_add_up_to_the_measured_heights(capsys):
    code, report = cost_json(capsys, FIB, "--input", "10", "--blocks")
    assert code == 0
    blocks, heights = report["blocks"], report["heights"]
    assert blocks["ranked_by"] == "processor"  # cascade, the tallest, is a whole-run figure
    assert blocks["whole_run"] == {name: heights[name] for name in ("u32", "cascade", "lookup")}
    for name in EXECUTED:
        added = sum(entry["contribution"][name] for entry in blocks["entries"])
        assert added + blocks["fixed"].get(name, 0) == heights[name], name
    shares = [entry["share"] for entry in blocks["entries"]]
    assert shares == sorted(shares, reverse=True)
    top = blocks["entries"][0]
    assert top["block"].endswith("__loop__1") and top["function"] == "std_math_fibonacci__pair"
    assert top["contribution"]["processor"] == top["visits"] * top["static"]["processor"]


def test_blocks_as_text(capsys):
    code, out, _ = tri(capsys, "cost", FIB, "--input", "10", "--blocks", "--top", "2")
    assert code == 0
    assert "blocks by processor" in out and "the top 2 of" in out
    assert "the tallest, cascade" in out and "is a whole-run figure" in out
    assert "std_math_fibonacci__pair__loop__1" in out and "%" in out


def test_blocks_of_a_tasm_program_and_of_a_failing_run(capsys):
    code, report = cost_json(capsys, PROGRAMS / "fibonacci.tasm", "--input", "11", "--blocks")
    assert code == 0 and "functions" not in report
    assert report["blocks"]["entries"][0]["block"] == "fib_loop"
    failing = "7,3,1,2,3,4,5,1,2,3,4,5"  # its second assert fails
    code, report = cost_json(
        capsys, PROGRAMS / "valid" / "asserts.tri", "--input", failing, "--blocks"
    )
    assert code == 1 and report["error"] is not None
    for name in EXECUTED:
        added = sum(entry["contribution"][name] for entry in report["blocks"]["entries"])
        assert added + report["blocks"]["fixed"].get(name, 0) == report["heights"][name]


def test_functions_add_up_to_the_cycles(capsys):
    _, report = cost_json(capsys, FIB, "--input", "10")
    rows = report["functions"]
    assert sum(row["rows"]["processor"] for row in rows) + 2 == report["cycles"]  # + call, halt
    assert {row["function"] for row in rows} >= {"std_fibonacci__main", "std_math_fibonacci__pair"}


def test_rc_estimate_only_when_asked_and_labelled(capsys):
    code, out, _ = tri(capsys, "cost", FIB, "--input", "10", "--estimate")
    label = "The Trident compiler's estimate (from the source; not exact; no cascade or lookup"
    assert code == 0 and label in " ".join(out.split())
    assert out.index("per function") < out.index("Trident compiler's estimate")  # exact first
    assert "RC" not in out and ".md" not in out
    _, report = cost_json(capsys, FIB, "--input", "10", "--estimate")
    assert report["estimate"]["program"]["processor"] > 0
    assert "std_math_fibonacci__pair" in report["estimate"]["functions"]


def test_a_module_runs_each_public_function_on_bench_cases(capsys):
    module = DEFAULT_LIBRARY / "math" / "fibonacci.tri"
    _, report = cost_json(capsys, module, "--cases", "2", "--blocks")
    assert report["module"] == "std.math.fibonacci" and report["cases"] == 2
    functions = {row["function"]: row for row in report["functions"]}
    assert "fib" in functions and all(row["cases"] == 2 for row in functions.values())
    row = functions["fib"]
    assert row["failed"] == 0 and row["mean_cycles"] > 0
    assert row["padded_height"] & (row["padded_height"] - 1) == 0 and row["slack"] >= 0
    assert report["blocks"]["entries"][0]["function"].startswith("__")
    code, out, _ = tri(capsys, "cost", module, "--cases", "1")
    assert code == 0 and "built alone" in out and "bench cases" in out


def test_usage_errors(capsys):
    module = DEFAULT_LIBRARY / "math" / "fibonacci.tri"
    for arguments, message in (
        ((module, "--input", "3"), "is a module"),
        ((module, "--estimate"), "--estimate"),
        ((PROGRAMS / "fibonacci.tasm", "--estimate"), "needs Trident source"),
        ((PROGRAMS / "fibonacci.tasm", "--cases", "2"), "--cases applies to a module"),
    ):
        code, _, err = tri(capsys, "cost", *arguments)
        assert code == 2 and message in err, arguments
