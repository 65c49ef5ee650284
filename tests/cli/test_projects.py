"""Projects (issue 14, problem 10): `tri new` / `tri init`, a `tri.toml` found upward from
the current directory and read by every command, building a project or a directory;
`--quiet`, `--color`, and did-you-mean for commands, names and fields."""

import json

import pytest
from cli_helpers import tri

LIBRARY = "module lib.shapes\n\npub fn area(w: Field, h: Field) -> Field {\n    w * h\n}\n"
USER = """program user

use lib.shapes

#[cfg(debug)]
fn mode() -> Field {
    1
}

#[cfg(release)]
fn mode() -> Field {
    2
}

fn main() {
    pub_write(shapes.area(pub_read(), 3))
    pub_write(mode())
}
"""


def test_new_makes_a_project_that_runs_tests_and_builds(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = tri(capsys, "new", "hello")
    assert code == 0 and "created hello/tri.toml" in out and "created hello/main.tri" in out
    monkeypatch.chdir(tmp_path / "hello")
    assert tri(capsys, "run", "--input", "21")[:2] == (0, "42\n")
    code, out, _ = tri(capsys, "test")
    assert code == 0 and "PASS main.tri::doubles" in out
    code, out, _ = tri(capsys, "build")
    assert code == 0 and out.startswith("    call hello__main\n")
    assert tri(capsys, "check")[0] == 0
    (tmp_path / "hello" / "deep" / "er").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "hello" / "deep" / "er")  # the manifest is found upward
    assert tri(capsys, "run", "--input", "1")[:2] == (0, "2\n")


def test_new_and_init_refuse_what_they_cannot_do(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert tri(capsys, "new", "fine")[0] == 0
    code, _, err = tri(capsys, "new", "fine")
    assert code == 2 and "exists already" in err
    code, _, err = tri(capsys, "new", "2fast")
    assert code == 2 and "'_2fast'" in err
    code, _, err = tri(capsys, "init", "fine")
    assert code == 2 and "tri.toml exists already" in err
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "main.tri").write_text("program mine\n\nfn main() {\n}\n")
    code, out, _ = tri(capsys, "init", "plain")
    assert code == 0 and "created plain/tri.toml" in out and "main.tri" not in out
    assert (tmp_path / "plain" / "main.tri").read_text().startswith("program mine")


def _project(tmp_path, manifest: str):
    (tmp_path / "vendor" / "lib").mkdir(parents=True)
    (tmp_path / "vendor" / "lib" / "shapes.tri").write_text(LIBRARY)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "user.tri").write_text(USER)
    (tmp_path / "tri.toml").write_text(manifest)


def test_the_manifest_sets_roots_profile_level_and_entry(tmp_path, capsys, monkeypatch):
    manifest = (
        '[project]\nname = "user"\nentry = "app/user.tri"\nroots = ["vendor"]\n'
        'profile = "release"\nlevel = 0\n'
    )
    _project(tmp_path, manifest)
    monkeypatch.chdir(tmp_path / "app")
    assert tri(capsys, "run", "--input", "5")[:2] == (0, "15\n2\n")  # roots, release
    assert tri(capsys, "run", "--input", "5", "--profile", "debug")[:2] == (0, "15\n1\n")
    level0 = tri(capsys, "build")[1]
    level1 = tri(capsys, "build", "-O1")[1]
    assert level0 == tri(capsys, "build", "-O0")[1] != level1  # the manifest's level, -O wins
    monkeypatch.chdir(tmp_path.parent)
    code, out, _ = tri(capsys, "build", tmp_path.name)  # a project directory: its entry
    assert code == 0 and "call user__main" in out


def test_a_directory_without_a_manifest_builds_its_main(tmp_path, capsys, monkeypatch):
    (tmp_path / "main.tri").write_text("program only\n\nfn main() {\n    pub_write(7)\n}\n")
    monkeypatch.chdir(tmp_path.parent)
    assert tri(capsys, "run", tmp_path.name)[:2] == (0, "7\n")
    code, _, err = tri(capsys, "build")
    assert code == 2 and "no program given" in err


def test_a_broken_manifest_is_a_usage_error(tmp_path, capsys, monkeypatch):
    (tmp_path / "tri.toml").write_text('[project]\nname = "x"\nlevels = 2\n')
    monkeypatch.chdir(tmp_path)
    code, _, err = tri(capsys, "check")
    assert code == 2 and "tri.toml:3:1: error[E0112]: unknown key 'levels'" in err
    assert "did you mean 'level'?" in err


MANIFEST = '[project]\nname = "p"\nentry = "main.tri"\n'
PROGRAM = "program p\n\nfn main() {\n    pub_write(pub_read() + 1)\n}\n"


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("level = 7", "'level' must be 0, 1, 2 or 3 (found 7)"),
        ("level = -1", "'level' must be 0, 1, 2 or 3 (found -1)"),
        ("level = true", "'level' must be 0, 1, 2 or 3 (found true)"),
        ('level = "2"', "'level' must be 0, 1, 2 or 3 (found \"2\")"),
        ('profile = "fast"', "'profile' must be 'debug' or 'release' (found \"fast\")"),
        ("roots = [1]", "'roots' must be a list of directories, as texts (found [1])"),
        ('name = "p"', "a key set a second time"),
        ("level = [", "a value that is missing or not valid"),
    ],
)
@pytest.mark.parametrize("command", ["run", "build", "test", "cost"])
def test_a_bad_setting_is_an_error_at_its_line(
    tmp_path, capsys, monkeypatch, setting, message, command
):
    (tmp_path / "tri.toml").write_text(MANIFEST + setting + "\n")
    (tmp_path / "main.tri").write_text(PROGRAM)
    monkeypatch.chdir(tmp_path)
    code, out, err = tri(capsys, command, *(["--input", "1"] if command in ("run", "cost") else []))
    assert code == 2 and err.startswith("tri.toml:4:") and f"error[E0112]: {message}" in err
    assert "Traceback" not in err and "= hint: " in err


def test_fuzzed_manifests_never_end_in_a_traceback(tmp_path, capsys, monkeypatch):
    """Random keys (known and not), values of every TOML kind and damaged text: every
    command answers with exit 0 or 2 (1 for a failing run), never an exception."""
    import random

    generator = random.Random(39)
    keys = ["name", "entry", "roots", "profile", "level", "stdlib", "levle", "x"]
    values = [
        "0",
        "1",
        "3",
        "4",
        "-1",
        "true",
        "false",
        "1.5",
        '""',
        '"main.tri"',
        '"debug"',
        '"release"',
        '"nowhere"',
        "[]",
        '["lib"]',
        "[1, 2]",
        "{}",
        "{ a = 1 }",
        "1979-05-27",
    ]
    (tmp_path / "main.tri").write_text(PROGRAM)
    monkeypatch.chdir(tmp_path)
    for _ in range(60):
        lines = ["[project]"] + [
            f"{generator.choice(keys)} = {generator.choice(values)}"
            for _ in range(generator.randint(0, 4))
        ]
        text = "\n".join(lines) + "\n"
        if generator.random() < 0.2:
            text = text[: generator.randint(0, len(text))]
        (tmp_path / "tri.toml").write_text(text)
        for command in ("run", "build", "check", "cost"):
            code, _, err = tri(
                capsys, command, *(["--input", "1"] if command in ("run", "cost") else [])
            )
            assert code in (0, 1, 2), (text, err)
            assert code == 0 or err.strip(), (text, command)


def test_quiet_prints_only_what_was_asked_for_and_errors(tmp_path, capsys):
    path = tmp_path / "loud.tri"
    path.write_text("program loud\n\nfn main() {\n    let unused: Field = 1\n}\n")
    code, out, err = tri(capsys, "check", path)
    assert code == 0 and "W0006" in err and "checked 1 file" in out
    code, out, err = tri(capsys, "check", path, "--quiet")
    assert (code, out, err) == (0, "", "")
    code, out, err = tri(capsys, "--quiet", "check", path)
    assert (code, out, err) == (0, "", "")


def test_color_is_asked_for_or_off_off_a_terminal(tmp_path, capsys):
    path = tmp_path / "wrong.tri"
    path.write_text("program wrong\n\nfn main() {\n    let x: U32 = 0\n}\n")
    assert "\033[" not in tri(capsys, "check", path)[2]  # not a terminal
    colored = tri(capsys, "check", path, "--color", "always")[2]
    assert "\033[1;31merror[E0201]\033[0m" in colored
    assert "\033[" not in tri(capsys, "--color", "never", "check", path)[2]


def test_did_you_mean(tmp_path, capsys):
    code, _, err = tri(capsys, "buidl", "x.tri")
    assert code == 2 and "'buidl' is not a tri command; did you mean 'build'?" in err
    path = tmp_path / "typos.tri"
    path.write_text(
        "program typos\n\nstruct Point {\n    x: Field,\n    height: Field,\n}\n\n"
        "fn double(v: Field) -> Field {\n    v + v\n}\n\nfn main() {\n"
        "    let total: Field = pub_read()\n"
        "    let p: Point = Point { x: totl, height: 1 }\n"
        "    pub_write(doubel(p.hieght))\n"
        "    let q: Pont = p\n}\n"
    )
    _, _, err = tri(capsys, "check", path)
    for hint in ("'total'", "'double'", "'height'", "'Point'"):
        assert f"= hint: did you mean {hint}?" in err


def test_the_new_main_is_formatted_and_checks_clean(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert tri(capsys, "new", "tidy")[0] == 0
    monkeypatch.chdir(tmp_path / "tidy")
    assert tri(capsys, "fmt", "--check")[0] == 0
    code, out, err = tri(capsys, "check")
    assert (code, err) == (0, "") and "0 warnings" in out


def test_bench_in_a_project_benches_the_project(tmp_path, capsys, monkeypatch):
    """`tri bench` in a project reads the project's benches/, with its modules; without
    one it says how to make one, and never benches the bundled library instead."""
    monkeypatch.chdir(tmp_path)
    tri(capsys, "new", "demo")
    monkeypatch.chdir(tmp_path / "demo")
    code, out, err = tri(capsys, "bench")
    assert code == 2 and out == "" and "benches: no such directory" in err
    assert "benches/<module path>.baseline.tasm" in err
    (tmp_path / "demo" / "mathy.tri").write_text(
        "module mathy\n\npub fn double(x: Field) -> Field {\n    x + x\n}\n"
    )
    (tmp_path / "demo" / "benches").mkdir()
    baseline = tmp_path / "demo" / "benches" / "mathy.baseline.tasm"
    baseline.write_text("__double:\n    dup 0\n    add\n    return\n")
    code, out, err = tri(capsys, "bench", "--json")
    assert code == 0, err
    report = json.loads(out)
    names = [(row["module"], row["function"]) for row in report["functions"]]
    assert names == [("mathy", "double")] and report["functions"][0]["mismatches"] == 0
    baseline.write_text("__double:\n    dup 0\n    mul\n    return\n")  # x * x: wrong
    assert tri(capsys, "bench")[0] == 1
