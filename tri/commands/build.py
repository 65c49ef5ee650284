"""`tri build`: compile a .tri program (or a module alone) to TASM or TIR, or to a
WebAssembly module (`--target wasm`: text, or binary in a `.wasm` file).

Also what `tri run` and `tri cost` need for .tri files: compiling a source
file for the VM.
"""

from __future__ import annotations

import sys
from pathlib import Path

from compiler.levels import DEFAULT_LEVEL
from tri.commands.common import EXIT_OK, OUTPUT, UsageError, is_tasm
from tri.commands.source import (
    add_budget_options,
    add_level_options,
    add_model_options,
    add_profile_option,
    add_source_options,
    budget_plan,
    load_checked,
    profile_for,
    render_all,
)
from vm.isa import ISAS

# The compiler is imported when a command needs it, so that `tri run X.tasm` stays quick.
EMIT = ("tir", "tasm", "wat")
TARGETS = ("vm", "wasm")


def register(commands) -> None:
    build = commands.add_parser("build")
    build.add_argument(
        "program",
        nargs="?",
        help="a Trident program or module, or a project directory (default: the project's entry)",
    )
    build.add_argument(
        "-o",
        dest="output",
        metavar="OUT.tasm",
        help="write here, not stdout (with --target wasm: OUT.wasm the binary module, any "
        "other name its text)",
    )
    build.add_argument(
        "--target",
        choices=TARGETS,
        default="vm",
        help="vm (default): TASM for Triton VM; wasm: that TASM as one WebAssembly module "
        "(docs/vm.md, WebAssembly target)",
    )
    build.add_argument(
        "--emit",
        choices=EMIT,
        help="what to print or write: the final TIR (the unroll step), TASM (the default), or "
        "the WebAssembly text of the TASM (the default with --target wasm)",
    )
    build.add_argument(
        "--dump",
        metavar="STEP[,STEP...]",
        help="print these pipeline steps' output instead, in pipeline order, each under a "
        "header (ast, contracts, checked, inline, tir, tir-inline, tir-rules, tir-moves, unroll, "
        "tasm-lowered, tasm-rules, tasm-selects, tasm); -o "
        "still gets the --emit output",
    )
    build.add_argument(
        "--report",
        action="store_true",
        help="print what the optimizer did to each function (inlined, specialized, updated "
        "in place, laid out inline) instead; -o still gets the --emit output",
    )
    add_level_options(build)
    add_profile_option(build)
    add_budget_options(build)
    add_model_options(build)
    build.add_argument(
        "--decisions",
        metavar="FILE.json",
        help="at -O2 and -O3, a decision table: its frozen entries are used without a search, "
        "every other block is decided and recorded in it (tri decisions freeze, check)",
    )
    build.add_argument("--isa", choices=ISAS, default="rel", help="instruction set (default: rel)")
    add_source_options(build)
    build.set_defaults(handler=command_build)


def compile_source(path_text: str, arguments, level: int = DEFAULT_LEVEL, isa="rel", dump=None):
    """(checked, compiled) for a .tri file; every problem becomes a UsageError (exit 2).
    `dump` sees every step, front end included (compiler.pipeline.run_steps)."""
    if is_tasm(path_text):
        raise UsageError(f"error: {path_text} is TASM already; this command compiles Trident")
    from compiler.diagnostics import CompileError
    from compiler.driver import compile_program

    model, weights = getattr(arguments, "model", None), getattr(arguments, "weights", None)
    model_errors = ()  # what a model program or its weight file raises (loaded on use)
    if model is not None:
        if level != 3:
            raise UsageError("error: --model is the -O3 model; add -O3")
        if weights is None:
            raise UsageError("error: --model needs --weights FILE (tri train --model writes one)")
        from compiler.neural.program_model import ProgramModelError
        from compiler.neural.weights import WeightsError

        model_errors = (ProgramModelError, WeightsError)
    table_path = getattr(arguments, "decisions", None)
    table = None
    if table_path is not None:
        if level < 2:
            raise UsageError(
                "error: --decisions records the -O2 and -O3 search's decisions; add -O2 or -O3"
            )
        from tri.commands.decisions import read_table

        table = read_table(table_path, must_exist=False)
    plan = budget_plan(arguments, level)
    checked = load_checked(path_text, arguments, dump)
    engine = getattr(arguments, "model_engine", "numpy")
    if level == 3 and engine == "vm" and model is None and sys.stderr.isatty():
        note_model_compile()
    try:
        lowerer = None
        if table is not None or plan is not None:
            from compiler.driver import search_lowerer

            lowerer = search_lowerer(level, weights, engine, model, table=table, plan=plan)
        compiled = compile_program(
            checked,
            level,
            lowerer=lowerer,
            isa=isa,
            dump=dump,
            engine=engine,
            weights=weights,
            model=model,
            profile=profile_for(arguments, checked),
        )
    except CompileError as failure:
        raise UsageError(render_all(failure.diagnostics)) from None
    except model_errors as problem:
        raise UsageError(f"error: --model {problem}") from None
    if table is not None:
        finish_table(table, table_path, lowerer)
    return checked, compiled


def finish_table(table, path_text: str, lowerer) -> None:
    """Write the decision table back and say on stderr what the build did with it."""
    from tri.commands.common import OUTPUT
    from tri.commands.decisions import write_table

    write_table(table, path_text)
    if OUTPUT.quiet:
        return
    summary = table.summary()
    print(
        f"decisions: {path_text}: {summary['hits']} blocks from the table, "
        f"{summary['decided']} decided ({lowerer.searches} searched, the model asked "
        f"{lowerer.model_runs} times), {summary['refused']} frozen entries refused; "
        f"{summary['entries']} entries, {summary['frozen']} frozen",
        file=sys.stderr,
    )


def note_model_compile() -> None:
    """Tell a user at a terminal when `-O3 --model-engine vm` is about to compile the model's
    program for the JIT, which takes about 25 s once per machine (then its disk cache)."""
    import vm.jit

    if not vm.jit.available():
        return
    from compiler.driver import model_program
    from compiler.neural.language_model import VM_LEVEL
    from vm.jit.compiler import is_cached
    from vm.jit.runtime import program_key

    if not is_cached(program_key(model_program(VM_LEVEL))):
        print(
            "note: compiling std.nn.optimizer for the JIT: about 25 s, once per machine",
            file=sys.stderr,
        )


def dump_printer(text: str | None, level: int):
    """The `dump` callback that prints the steps named in `text` (None: no dump) to stdout
    as they finish; an unknown name is a UsageError listing the valid ones."""
    if text is None:
        return None
    from compiler.pipeline import STEP_NAMES

    wanted = [name.strip() for name in text.split(",")]
    unknown = [name for name in wanted if name not in STEP_NAMES]
    if unknown or not text.strip():
        shown = ", ".join(unknown) if unknown else "(none)"
        steps = ", ".join(STEP_NAMES)
        raise UsageError(f"error: --dump: unknown step {shown}; the steps are {steps}")

    def dump(name: str, output: str, ran: bool) -> None:
        if name in wanted:
            sys.stdout.write(f";; --- dump: {name} ---\n")
            if not ran:
                sys.stdout.write(f";; (not run at -O{level}: its input, unchanged)\n")
            sys.stdout.write(output if output.endswith("\n") else output + "\n")

    return dump


def build_output(arguments, dump=None) -> str:
    """What `tri build` prints or writes (the --emit text), from its parsed arguments; the
    golden files (tests/golden_tasm.py) are made by this function too."""
    return build_compiled(arguments, dump).emit(emit_of(arguments))


def emit_of(arguments) -> str:
    """What the build emits: --emit, else the target's own output (TASM, or WebAssembly
    text); a usage error where the two disagree or `-o` names a file of another kind."""
    target = getattr(arguments, "target", "vm")
    what = arguments.emit or ("wat" if target == "wasm" else "tasm")
    if target == "wasm" and what != "wat":
        raise UsageError(
            f"error: --emit {what} is an output of the VM target; --target wasm emits the "
            "WebAssembly module"
        )
    output = getattr(arguments, "output", None)
    if output and Path(output).suffix == ".wasm" and what != "wat":
        raise UsageError(
            f"error: -o {output}: a .wasm file holds a WebAssembly module; add --target wasm"
        )
    return what


def build_compiled(arguments, dump=None):
    _, compiled = compile_source(arguments.program, arguments, arguments.level, arguments.isa, dump)
    return compiled


def refuse_to_overwrite_source(output: str, source: str) -> None:
    """A UsageError if `-o` names the source file or any other .tri file."""
    target = Path(output)
    same = target.exists() and Path(source).exists() and target.samefile(source)
    if same or target.suffix == ".tri":
        what = "the source file" if same else "a .tri file"
        raise UsageError(
            f"error: -o {output}: refusing to overwrite {what} with TASM; "
            "write to a .tasm file instead"
        )


def command_build(arguments) -> int:
    if arguments.output:
        refuse_to_overwrite_source(arguments.output, arguments.program)
    what = emit_of(arguments)
    dump = dump_printer(arguments.dump, arguments.level)
    compiled = build_compiled(arguments, dump)
    text = emitted(compiled, what)
    if not compiled.program.ops and not OUTPUT.quiet:
        print(
            f"warning: {arguments.program}: nothing to build: a module's code is its public "
            "functions that are not generic; a generic function is compiled where a program "
            "uses it, at each size it is used with",
            file=sys.stderr,
        )
    if getattr(arguments, "report", False):
        sys.stdout.write(compiled.report())
    if arguments.output:
        target = Path(arguments.output)
        try:
            if target.suffix == ".wasm":
                target.write_bytes(wasm_binary(text))
            else:
                target.write_text(text, encoding="utf-8")
        except OSError as problem:
            reason = problem.strerror
            raise UsageError(f"error: cannot write {arguments.output}: {reason}") from None
    elif dump is None and not getattr(arguments, "report", False):
        sys.stdout.write(text)
    return EXIT_OK


def emitted(compiled, what: str) -> str:
    """The --emit text; a program the WebAssembly target refuses is a usage error."""
    from vm.wasm.translate import WasmUnsupported

    try:
        return compiled.emit(what)
    except WasmUnsupported as refusal:
        raise UsageError(f"error: --target wasm: {refusal}") from None


def wasm_binary(text: str) -> bytes:
    """The binary encoding of a WebAssembly module's text (wasmtime's assembler)."""
    try:
        import wasmtime
    except ImportError:
        raise UsageError(
            "error: a .wasm file needs the wasmtime package to encode the module: "
            "pip install 'tri[wasm]' (or write its text: -o OUT.wat)"
        ) from None
    return bytes(wasmtime.wat2wasm(text))


def source_program(arguments):
    """The assembled program of a .tri file for `tri run` / `tri cost` (kept on `arguments`)."""
    checked, compiled = compile_source(arguments.program, arguments, arguments.level, arguments.isa)
    if checked.entry is None:
        raise UsageError(f"error: {arguments.program} is a module; only a program can run")
    arguments.checked, arguments.compiled = checked, compiled
    return compiled.program
