"""The tiered engine (vm.jit.tiers) gives exactly the interpreter's run record.

Every comparison checks output, cycles, final stack and RAM, visits per address, u32
entries, permutation inputs, the error and all nine heights.  Programs: the corpus
(tests/programs/valid, every `// run:` case, compiled at -O0 and -O1, a third of it at
-O2) and generated TASM
programs, with thresholds lowered so that hot functions really are compiled while cold
ones stay interpreted; a compile that fails is retried with backoff, then blacklisted,
and the run is unchanged; and `tri run --engine tiered` at every level.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corpus import corpus, expectations
from program_generator import LARGE, SMALL, generate
from test_jit import assert_same_run, private_cache  # noqa: F401 - the fixture is used

import vm.jit
from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from tri.cli import main
from vm import interp
from vm.jit import tiers
from vm.jit.tiers import Tiers, run_tiered
from vm.tasm import parse

pytestmark = pytest.mark.skipif(not vm.jit.available(), reason="llvmlite is a dependency")


def eager(program, **settings) -> Tiers:
    """Tiers that compile a function on its second entry, from the first cycle on."""
    return Tiers(program, hot_entries=2, first_look=0, **settings)


def tiers_of(result) -> dict[str, int]:
    counted = {"native": 0, "interpreted": 0, "blacklisted": 0}
    for function in result.tiers.functions.values():
        counted[function.tier] += 1
    return counted


CORPUS = [path for path in corpus("valid") if expectations(path).cases]


@pytest.mark.parametrize("level", [0, 1, 2])
def test_corpus_at_every_level(level):
    totals = {"native": 0, "interpreted": 0, "blacklisted": 0}
    for path in CORPUS if level < 2 else CORPUS[::3]:  # -O2's search is the slow part
        checked = check(load_project(path))
        program = compile_program(checked, level).program
        for case in expectations(path).cases:
            inputs = {
                "public_input": case.public,
                "secret_input": case.secret,
                "secret_digests": case.digests,
                "ram": case.ram,
            }
            expected = interp.execute(program, **inputs)
            result = run_tiered(program, **inputs, tiers=eager(program))
            assert_same_run(expected, result.run)
            for tier, count in tiers_of(result).items():
                totals[tier] += count
    # hot units were compiled and cold ones interpreted, in the same runs
    assert totals["native"] > 50 and totals["interpreted"] > 50, totals
    assert totals["blacklisted"] == 0


@pytest.mark.parametrize(("size", "seeds"), [(SMALL, 300), (LARGE, 120)], ids=["small", "large"])
def test_generated_programs(size, seeds):
    native = 0
    for seed in range(seeds):
        case = generate(seed, size=size)
        program = parse(case.text, case.isa)
        expected = interp.execute(program, **case.inputs())
        result = run_tiered(program, **case.inputs(), tiers=Tiers(program, 1, 0))
        assert_same_run(expected, result.run)
        native += tiers_of(result)["native"]
    assert native > 10


LOOP = """
    read_io 1 call count halt
count:
    dup 0 push 0 eq skiz return
    push -1 add dup 0 write_io 1 recurse
"""


def test_a_failing_compile_is_retried_then_blacklisted_and_the_run_unchanged():
    program = parse(LOOP)
    attempts = []

    def failing(program, checkpoints):
        attempts.append(checkpoints)
        raise RuntimeError("LLVM gave up")

    expected = interp.execute(program, public_input=[500])
    table = Tiers(program, hot_entries=4, first_look=0, compile_function=failing)
    result = run_tiered(program, public_input=[500], tiers=table)
    assert_same_run(expected, result.run)
    count = table.functions[dict(program.labels)["count"]]
    assert count.tier == "blacklisted" and "LLVM gave up" in count.reason
    assert len(attempts) == tiers.TRIES  # at 4, 16 and 64 entries: backoff
    assert count.entries == 501  # the call and 500 iterations, all interpreted


def test_a_hot_loop_runs_natively_and_a_short_run_never_compiles():
    program = parse(LOOP)
    short = run_tiered(program, public_input=[100], tiers=Tiers(program))  # under the first look
    assert tiers_of(short)["native"] == 0
    long = run_tiered(program, public_input=[100_000])
    assert_same_run(interp.execute(program, public_input=[100_000]), long.run)
    function = long.tiers.functions[dict(program.labels)["count"]]
    assert function.tier == "native"
    again = run_tiered(program, public_input=[100])  # the program's tiers are kept
    assert again.tiers is long.tiers
    assert_same_run(interp.execute(program, public_input=[100]), again.run)


SUM = """program sum

fn main() {
    let n: U32 = as_u32(pub_read())
    let mut total: Field = 0
    for i in 0..n bounded 100000 {
        total = total + as_field(i)
    }
    pub_write(total)
}
"""


@pytest.mark.parametrize("level", ["-O0", "-O1", "-O2", "-O3"])
def test_tri_run_engine_tiered(level, tmp_path, capsys):
    source = tmp_path / "sum.tri"
    source.write_text(SUM)
    results = {}
    for engine in ("interp", "tiered"):
        status = main(["run", str(source), level, "--engine", engine, "--input", "20000", "--json"])
        results[engine] = (status, json.loads(capsys.readouterr().out))
    assert results["tiered"] == results["interp"]
    assert results["tiered"][1]["output"] == [20000 * 19999 // 2]


def test_the_documented_function_profile(capsys):
    """docs/cli.md's `--function-profile` example prints what the page shows."""
    text = (Path(__file__).parents[2] / "docs" / "cli.md").read_text()
    command = "tri run tests/programs/valid/fib.tri --input 30 --engine tiered --function-profile"
    assert command in text
    shown = text.split("a run this short never leaves the interpreter):\n\n```\n")[1]
    shown = shown.split("```")[0]
    root = Path(__file__).parents[2]
    arguments = command.split()[1:]
    arguments[1] = str(root / arguments[1])
    assert main(arguments) == 0
    captured = capsys.readouterr()
    assert captured.out == "832040\n"
    assert captured.err == shown


def test_speedscope_file_and_json_profile(tmp_path, capsys):
    program = Path(__file__).parents[1] / "programs" / "valid" / "fib.tri"
    target = tmp_path / "fib.speedscope.json"
    assert main(["run", str(program), "--input", "30", "--speedscope", str(target), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = report["profile"]
    assert sum(row["cycles"] for row in rows) == report["cycles"]
    assert rows[0]["function"] == "fib__main__loop__1" and rows[0]["entries"] == 30
    speedscope = json.loads(target.read_text())
    assert speedscope["profiles"][0]["weights"] == [row["cycles"] for row in rows]
    assert [frame["name"] for frame in speedscope["shared"]["frames"]] == [
        row["function"] for row in rows
    ]
