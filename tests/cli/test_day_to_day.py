"""The small things a new user meets first: starting a project (`tri new`, `--lib`, git),
names it rejects, a module with nothing to build, and mistyped options -- each said in
one line with what to do, never silence and never a page of usage."""

import shutil
import subprocess

import pytest
from cli_helpers import tri


def test_new_suggests_a_name_it_accepts(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = tri(capsys, "new", "fn")
    assert code == 2 and "'fn' is a keyword (for example 'fn_project')" in err
    assert tri(capsys, "new", "fn_project", "--vcs", "none")[0] == 0
    code, _, err = tri(capsys, "new", "my-app")
    assert code == 2 and "(for example 'my_app')" in err
    assert not (tmp_path / "fn").exists() and not (tmp_path / "my-app").exists()


def test_init_names_the_option_for_another_name(tmp_path, capsys):
    directory = tmp_path / "3d"
    directory.mkdir()
    code, _, err = tri(capsys, "init", directory)
    assert code == 2 and "--name NAME gives another" in err and "'_3d'" in err
    assert tri(capsys, "init", directory, "--name", "three_d")[0] == 0
    assert 'name = "three_d"' in (directory / "tri.toml").read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_new_makes_a_git_repository_with_a_gitignore(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = tri(capsys, "new", "hello")
    assert code == 0 and "created hello/.gitignore" in out and "created hello/.git" in out
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=tmp_path / "hello", capture_output=True, text=True
    )
    assert status.returncode == 0
    assert sorted(status.stdout.split()[1::2]) == [".gitignore", "main.tri", "tri.toml"]
    # inside a repository already (this one), no nested repository
    monkeypatch.chdir(tmp_path / "hello")
    code, out, _ = tri(capsys, "new", "inner")
    assert code == 0 and "created inner/.gitignore" in out and "inner/.git\n" not in out
    assert not (tmp_path / "hello" / "inner" / ".git").exists()


def test_new_vcs_none_writes_no_git_files(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert tri(capsys, "new", "plain", "--vcs", "none")[0] == 0
    assert sorted(path.name for path in (tmp_path / "plain").iterdir()) == ["main.tri", "tri.toml"]


def test_new_lib_makes_a_library_project(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = tri(capsys, "new", "shapes", "--lib", "--vcs", "none")
    assert code == 0 and "created shapes/shapes.tri" in out and "tri test && tri build" in out
    monkeypatch.chdir(tmp_path / "shapes")
    assert (tmp_path / "shapes" / "shapes.tri").read_text().startswith("module shapes\n")
    code, out, _ = tri(capsys, "test")
    assert code == 0 and "PASS shapes.tri::doubles" in out
    code, out, _ = tri(capsys, "build")
    assert code == 0 and out.startswith("__double:\n")
    code, _, err = tri(capsys, "run")
    assert code == 2 and "is a module; only a program can run" in err
    # a program of another project uses it through -I
    program = tmp_path / "user.tri"
    program.write_text(
        "program user\n\nuse shapes\n\nfn main() {\n    pub_write(shapes.double(pub_read()))\n}\n"
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = tri(capsys, "run", program, "-I", tmp_path / "shapes", "--input", "4")
    assert (code, out) == (0, "8\n")


def test_a_module_with_nothing_to_build_says_so(tmp_path, capsys):
    path = tmp_path / "generic.tri"
    path.write_text("module generic\n\npub fn id<N>(x: [Field; N]) -> [Field; N] {\n    x\n}\n")
    code, _, err = tri(capsys, "build", path)
    assert code == 0 and "warning:" in err and "nothing to build" in err
    assert "a generic function is compiled where a program uses it" in err
    path.write_text("module plain\n\npub fn one() -> Field {\n    1\n}\n")
    code, out, err = tri(capsys, "build", path)
    assert code == 0 and "nothing to build" not in err and "__one:" in out


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--input", "1,x"], "tri run: error: argument --input: 'x' is not an integer"),
        (["--inputs", "1"], "unrecognized arguments: --inputs 1; did you mean '--input'?"),
        (["-O", "7"], "tri run: error: argument -O: invalid choice: 7"),
    ],
)
def test_a_bad_option_is_one_line_and_where_to_look(tmp_path, capsys, arguments, message):
    path = tmp_path / "p.tri"
    path.write_text("program p\n\nfn main() {\n}\n")
    with pytest.raises(SystemExit) as stopped:
        tri(capsys, "run", path, *arguments)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [err.splitlines()[0], "  (see 'tri run --help')"]
    assert message in err.splitlines()[0] and "usage:" not in err


def test_the_quickstart_is_two_commands_and_ci_runs_the_second():
    """The README's Quickstart: exactly two commands, one running a program and one the
    suite, which .ci/run runs; development commands live under Contributing."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    quickstart = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = [block.split("\n", 1)[1] for block in quickstart.split("```sh")[1:]]
    commands = [block.split("```", 1)[0].strip() for block in blocks]
    assert len(commands) == 2 and all("\n" not in command for command in commands)
    assert "tri run" in commands[0] and "pytest" in commands[1]
    assert commands[1].split("&& ", 1)[1] in (root / ".ci" / "run").read_text()
    assert "golden_tasm.py --update" in readme.split("## Contributing", 1)[1]
