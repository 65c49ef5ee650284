"""The wheel (issue 14, problem 2): built from the sources, installed into a fresh virtual
environment, it runs a program, `tri test` and `tri bench` from another directory, with the
standard library and the benches as package data, and puts no top-level name but `tri` into
site-packages.

Offline: the wheel is built without build isolation (setuptools and wheel come from the
`test` extras), and the fresh environment gets the dependencies by a path to the running
interpreter's site-packages, so nothing is downloaded.
"""

import importlib.util
import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import setuptools

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["pyproject.toml", "README.md", "tri", "compiler", "vm", "selfhost", "stdlib", "benches"]
PACKAGES = {"tri": "tri", "compiler": "tri/compiler", "vm": "tri/vm", "selfhost": "tri/selfhost"}


def _can_build() -> bool:
    """setuptools builds wheels by itself from 70.1, before that with the `wheel` package."""
    major, minor = (int(part) for part in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


pytestmark = pytest.mark.skipif(
    not _can_build(), reason="building a wheel offline needs the test extras (setuptools, wheel)"
)


def _run(command: list, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        check=check,
        timeout=900,
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the wheel, the fresh environment's bin directory)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in SOURCES:  # a copy: building writes build/ and *.egg-info beside the sources
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, source / name)
    wheels = work / "wheels"
    pip = [sys.executable, "-m", "pip"]
    _run(
        [*pip, "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-w", wheels, "."],
        source,
    )
    (wheel,) = wheels.glob("tri-*.whl")
    environment = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", environment], work)
    purelib = _run(
        [
            environment / "bin" / "python",
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        work,
    ).stdout.strip()
    # the running interpreter's site-packages, and those its .pth files add
    found = [*site.getsitepackages(), *(path for path in sys.path if path.endswith("-packages"))]
    dependencies = [path for path in dict.fromkeys(found) if Path(path).is_dir()]
    (Path(purelib) / "dependencies.pth").write_text("\n".join(dependencies) + "\n")
    python = environment / "bin" / "python"
    _run([*pip, "--python", python, "install", "--no-deps", "--no-index", wheel], work)
    return wheel, environment / "bin"


def test_the_wheel_holds_every_module_and_the_data_under_tri(installed):
    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {name.split("/")[0] for name in names} == {"tri", "tri-0.1.0.dist-info"}
    for package, inside in PACKAGES.items():
        for module in (ROOT / package).rglob("*.py"):
            relative = module.relative_to(ROOT / package).as_posix()
            assert f"{inside}/{relative}" in names, f"{package}/{relative} is not in the wheel"
    for folder in ("stdlib", "benches"):
        for data in (ROOT / folder).rglob("*"):
            if data.is_file():
                assert f"tri/{data.relative_to(ROOT).as_posix()}" in names
    assert "tri/compiler/syntax/grammar.lark" in names
    assert "tri/commands/explorer.html.j2" in names


def test_the_installed_tri_runs_a_program_tests_and_benches_from_anywhere(installed, tmp_path):
    _, bin_directory = installed
    tri = bin_directory / "tri"
    assert _run([tri, "--version"], tmp_path).stdout == "tri 0.1.0\n"
    where = _run(
        [
            bin_directory / "python",
            "-c",
            "import tri, compiler; print(tri.__file__, compiler.__file__)",
        ],
        tmp_path,
    ).stdout.split()
    assert all(str(bin_directory.parent) in path for path in where), where
    same = _run(
        [
            bin_directory / "python",
            "-c",
            "import tri.compiler.pipeline as a, compiler.pipeline as b; print(a is b)",
        ],
        tmp_path,
    ).stdout
    assert same == "True\n"  # one module under both names, not two copies
    program = tmp_path / "double.tri"
    program.write_text(
        "program double\n\nuse vm.io.io\n\nfn main() {\n    io.write(io.read() * 2)\n}\n"
    )
    assert _run([tri, "run", program, "--input", "21"], tmp_path).stdout == "42\n"
    _run([tri, "cost", program, "--input", "21", "--html", "page.html"], tmp_path)
    assert "<svg" in (tmp_path / "page.html").read_text(encoding="utf-8")
    _run([tri, "new", "hello"], tmp_path)
    tested = _run([tri, "test"], tmp_path / "hello")
    assert "PASS main.tri::doubles" in tested.stdout
    bench = json.loads(_run([tri, "bench", "--json"], tmp_path).stdout)
    assert str(bin_directory.parent) in bench["directory"]
    assert bench["functions"]  # and exit code 0: the compiled code agrees with every baseline
