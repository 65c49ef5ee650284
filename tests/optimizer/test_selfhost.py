"""`tri selfhost` (issue 15): the compiler's identity, and the -O3 model's program compiled
by the compiler it is the model of until the identity repeats.

The iteration here is reduced (the model guides one block per stage build, the stages'
programs run on the interpreter): what is checked is the machinery -- stage 0 at -O2,
later stages at -O3 with the previous stage's program as the model, the stop at the first
repeated identity, the check that every stage computes the same function -- not the
figures of a full run (docs/neural.md, "Self-hosting").
"""

import json

import numpy as np
import pytest
from corpus import corpus

from compiler.blocks.dag import build_dag
from compiler.neural.model import PARAMETERS, initial_parameters
from compiler.neural.weights import save_weights
from compiler.search.moves import PolicyDeclined
from selfhost.stages import FirstBlocks
from tri.cli import main


def tri(capsys, *arguments):
    code = main([str(argument) for argument in arguments])
    out, err = capsys.readouterr()
    return code, out, err


STATUS: list[str] = []  # what the module's iteration said it was doing


@pytest.fixture(scope="module")
def iteration():
    from selfhost.stages import iterate

    return iterate(max_stages=3, check=1, blocks=1, engine="interp", status=STATUS.append)


def test_the_iteration_stops_at_the_first_repeated_identity(iteration):
    stages = iteration.stages
    assert [stage.level for stage in stages] == [2] + [3] * (len(stages) - 1)
    assert iteration.fixed_point is not None and iteration.fixed_point == len(stages) - 1
    fixed = iteration.fixed_point
    assert stages[fixed].identity == stages[fixed - 1].identity
    # no earlier repetition: the iteration stopped at the first one
    identities = [stage.identity for stage in stages[:fixed]]
    assert len(set(identities)) == len(identities)
    assert iteration.same_function
    for stage in stages:
        assert stage.block_cycles > 0 and stage.state_cycles > 0
        assert stage.block_padded_height >= stage.block_cycles
    report = iteration.as_json()
    assert report["fixed_point"] == fixed and len(report["stages"]) == len(stages)
    assert json.loads(json.dumps(report)) == report
    # the status line: every stage's build and check runs, the one block each -O3 build
    # let the model guide
    assert STATUS[:2] == [
        "stage 0: building at -O2",
        "stage 0: running the program on the check blocks",
    ]
    for number in range(1, len(stages)):
        assert f"stage {number}: building at -O3, the model guiding block 1" in STATUS
    assert not any("guiding block 2" in text for text in STATUS)


def test_the_identity_is_stage_zero_s_and_follows_the_weights(iteration, capsys, tmp_path):
    code, out, err = tri(capsys, "selfhost", "--identity")
    assert code == 0, err
    assert out.strip() == iteration.stages[0].identity
    assert len(out.strip()) == 64 and int(out.strip(), 16) >= 0
    other = tmp_path / "other.weights"
    parameters = initial_parameters(3)
    save_weights(other, {name: np.asarray(parameters[name]) for name, _ in PARAMETERS})
    code, changed, err = tri(capsys, "selfhost", "--identity", "--weights", other)
    assert code == 0, err
    assert changed.strip() != out.strip()


def test_first_blocks_guides_so_many_blocks_then_declines():
    class Counting:
        identity = "counting"

        def block(self, dag, u32_entry=()):
            return dag

    limited = FirstBlocks(Counting(), 2)
    dag = build_dag([("push", 1), ("push", 2), ("add", None)])
    assert limited.block(dag) is dag and limited.block(dag) is dag
    with pytest.raises(PolicyDeclined):
        limited.block(dag)
    assert limited.identity == "counting"


@pytest.mark.parametrize(
    "arguments",
    [
        ("--iterate", "--max-stages", "1"),
        ("--iterate", "--blocks", "0"),
        ("--identity", "--weights", "/no/such/file.weights"),
        ("--identity", "--retrain"),
        ("--iterate", "--retrain", "--generations", "0"),
        ("--iterate", "--retrain", "--retrain-blocks", "0"),
        ("--iterate", "--retrain", "--workers", "many"),
        ("--iterate", "--generations", "2"),
        ("--iterate", "--workers", "2"),
    ],
)
def test_bad_selfhost_settings_are_usage_errors(capsys, arguments):
    code, _, err = tri(capsys, "selfhost", *arguments)
    assert code == 2 and err.startswith("error:"), err


def test_selfhost_needs_an_action(capsys):
    with pytest.raises(SystemExit) as stopped:
        tri(capsys, "selfhost")
    assert stopped.value.code == 2


def same_tasm_both_engines(capsys, program, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("TRI_CACHE", str(tmp_path))  # each engine's decisions are its own
    outputs = {}
    for engine in ("numpy", "vm"):
        code, outputs[engine], err = tri(capsys, "build", program, "-O3", "--model-engine", engine)
        assert code == 0, err
    assert outputs["vm"] == outputs["numpy"]


@pytest.mark.parametrize("name", ["let_forms", "alias_collision"])
def test_the_model_on_the_vm_builds_the_same_tasm(capsys, name, monkeypatch, tmp_path):
    """`-O3 --model-engine vm` runs std.nn.optimizer as the model: the same scores as numpy, so
    the same TASM, on programs where the model's schedule is taken."""
    program = f"tests/programs/valid/{name}.tri"
    same_tasm_both_engines(capsys, program, monkeypatch, tmp_path)
    code, report, err = tri(capsys, "build", program, "-O3", "--model-engine", "vm", "--report")
    assert code == 0, err
    search = next(line for line in report.splitlines() if line.startswith("search:"))
    identity = tri(capsys, "selfhost", "--identity")[1].strip()
    assert f"model {identity[:16]}: 1 blocks from its schedules" in search, search


def test_a_terminal_is_told_when_the_model_s_program_is_compiled(capsys, monkeypatch):
    """The first `-O3 --model-engine vm` build on a machine compiles std.nn.optimizer for the JIT
    (about 25 s): a user at a terminal gets a note, only while it is not cached."""
    import vm.jit.compiler
    from tri.commands.build import note_model_compile

    monkeypatch.setattr(vm.jit.compiler, "is_cached", lambda key: False)
    note_model_compile()
    assert "compiling std.nn.optimizer for the JIT" in capsys.readouterr().err
    monkeypatch.setattr(vm.jit.compiler, "is_cached", lambda key: True)
    note_model_compile()
    assert capsys.readouterr().err == ""


@pytest.fixture(scope="module")
def random_weights(tmp_path_factory):
    path = tmp_path_factory.mktemp("weights") / "random.weights"
    parameters = initial_parameters(3)
    save_weights(path, {name: np.asarray(parameters[name]) for name, _ in PARAMETERS})
    return path


def test_retraining_improves_the_weights_until_they_settle(random_weights):
    """From untrained weights evolution finds fitter ones, stage after stage, until a
    stage's weights come back unchanged; the fixed point then follows."""
    from selfhost.retrain import Retraining, weights_identity
    from selfhost.stages import iterate, load_model_weights

    loaded = load_model_weights(str(random_weights))
    assert weights_identity(loaded.tensors) == loaded.identity
    iteration = iterate(
        str(random_weights), 5, check=1, blocks=1, engine="interp", retrain=Retraining(1, 3)
    )
    stages = iteration.stages
    assert stages[0].fitness is None and stages[0].weights_identity == loaded.identity
    assert iteration.own_blocks == 3 and iteration.same_function
    fitness = [stage.fitness for stage in stages[1:]]
    assert all(a <= b for a, b in zip(fitness, fitness[1:]))
    for before, after in zip(stages[1:], stages[2:]):
        changed = after.weights_identity != before.weights_identity
        assert changed == (after.fitness > before.fitness)
        assert after.weights_identity == weights_identity(after.parameters)
    # untrained weights are improved at least once, then settle within the limit
    assert stages[1].weights_identity != loaded.identity
    assert iteration.weights_settled is not None and iteration.fixed_point is not None
    assert iteration.fixed_point >= iteration.weights_settled >= 2
    report = iteration.as_json()
    assert report["weights_settled"] == iteration.weights_settled
    assert report["stages"][1]["fitness"] == list(stages[1].fitness)


def test_the_optimizer_s_own_blocks_are_training_entries():
    from compiler.blocks.schedule import cost
    from compiler.neural.dataset import trajectory
    from selfhost.retrain import OWN_MODULE, own_blocks

    found = own_blocks(4)
    assert len(found) == 4
    for entry in found:
        assert entry["module"] == OWN_MODULE
        dag = build_dag([tuple(item) for item in entry["start"]], frozenset(entry["dont_care"]))
        schedule = [tuple(item) for item in entry["schedule"]]
        assert trajectory(dag, schedule) == entry["steps"]
        baseline = [tuple(item) for item in entry["baseline"]]
        assert cost(schedule) <= cost(baseline)
        assert entry["cheaper"] == (cost(schedule) < cost(baseline))


@pytest.mark.slow
@pytest.mark.parametrize("program", corpus("valid"), ids=lambda path: path.stem)
def test_the_model_on_the_vm_builds_the_same_tasm_on_the_whole_corpus(
    capsys, program, monkeypatch, tmp_path
):
    """The acceptance check: byte-identical `-O3` TASM from both engines on every corpus
    program (about half a minute each: every block and search state is a VM run)."""
    same_tasm_both_engines(capsys, program, monkeypatch, tmp_path)
