"""The checker: a loaded `Project` -> `Checked` (every function instance, typed).

It builds each module's symbol table, validates items (attributes,
intrinsics, duplicates, `main`), resolves types and names across modules,
monomorphizes size-generic functions on demand (one `FunctionInstance` per
distinct size binding, labelled like RC: `sum__N3`), type-checks every body
(`compiler.check.bodies`) and rejects recursion.  Every error found is
collected; `check` raises one `CompileError` with all of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.builtins import BUILTINS, Builtin, narrowed
from compiler.check import events
from compiler.check.bodies import BodyChecker
from compiler.check.resolve import Project, Resolver, canonical_module_name, load_project
from compiler.check.symbols import ModuleScope, lookup_qualified, mangle
from compiler.check.types import PRIMITIVES, UNIT, ArrayType, StructType, TupleType, Type, width
from compiler.diagnostics import CompileError, Diagnostic, did_you_mean, error, warning
from compiler.syntax import ast

MAX_INSTANCES_PER_FUNCTION = 256  # more means size-generic recursion
KNOWN_ATTRIBUTES = {"intrinsic", "test", "pure", "cfg", "requires", "ensures"}
INTRINSIC_PREFIXES = ("std.", "vm.", "os.", "ext.")
UNUSED_WARNINGS = frozenset({"W0006", "W0007", "W0008"})  # shown only when nothing is wrong


@dataclass(eq=False)
class FunctionInstance:
    """One function with its size parameters bound, and its checked tables."""

    key: str
    module: str
    path: str
    function: ast.Function
    sizes: dict[str, int]
    params: list[tuple[str, Type]]
    result: Type
    types: dict = field(default_factory=dict)  # expression -> Type
    variables: dict = field(default_factory=dict)  # Var -> LocalRef | ConstRef
    calls: dict = field(default_factory=dict)  # Call -> Builtin | instance key
    valued_ifs: dict = field(default_factory=dict)  # If -> Type
    # The body later stages compile: the function's own, or a copy in which each `match`
    # is the if-chain it means (compiler.check.matches).
    body: ast.Block | None = None

    def __post_init__(self):
        if self.body is None:
            self.body = self.function.body


@dataclass
class Checked:
    project: Project
    instances: dict[str, FunctionInstance]
    entry: str | None  # the key of `main` for a program
    exported: list[str]  # keys of the entry module's public non-generic functions
    diagnostics: list[Diagnostic]

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]


class Checker:
    def __init__(self, project: Project, flags: frozenset[str] = frozenset({"debug"})):
        self.project = project
        self.flags = flags
        self.diagnostics: list[Diagnostic] = list(project.diagnostics)
        self.scopes: dict[str, ModuleScope] = {}
        self.instances: dict[str, FunctionInstance] = {}
        self.pending: list[FunctionInstance] = []
        self.struct_types: dict[tuple[str, str], StructType | None] = {}
        self.reported_structs: set[tuple[str, str]] = set()
        self.instance_counts: dict[int, int] = {}  # id(function) -> instances made

    # --- reporting
    def error(self, code, message, path, span, hint=None) -> None:
        self.diagnostics.append(error(code, message, path, span, hint))

    def warn(self, code, message, path, span, hint=None) -> None:
        found = warning(code, message, path, span, hint)
        if found not in self.diagnostics:  # an instance of a generic function is checked again
            self.diagnostics.append(found)

    # --- the run
    def run(self) -> Checked:
        for name, module in self.project.modules.items():
            self.scopes[name] = self.collect(name, module.source)
        for scope in self.scopes.values():
            events.validate(self, scope)
        for scope in self.scopes.values():
            for function in scope.functions.values():
                self.validate_function(scope, function)
                if not function.size_parameters and function.body is not None:
                    self.instantiate(scope, function, {})
        while self.pending:
            instance = self.pending.pop()
            BodyChecker(self, instance).check()
        self.check_recursion()
        entry_scope = self.scopes[self.project.entry.name]
        entry = self.check_entry(entry_scope)
        self.warn_unused_functions(entry_scope)
        for scope in self.scopes.values():
            for module_name, use in scope.imports.items():
                if module_name not in scope.used_imports:
                    self.warn("W0001", f"unused import '{use.path}'", scope.path, use.span)
        exported = [  # what a module-alone build emits: #[test] functions are not (§4.1)
            self.key(entry_scope.name, function.name, {})
            for function in entry_scope.functions.values()
            if function.public
            and not function.size_parameters
            and function.body is not None
            and function.attribute("test") is None
        ]
        if any(diagnostic.is_error for diagnostic in self.diagnostics):
            # like rustc's lints: what is unused is worth saying once the program checks
            self.diagnostics = [d for d in self.diagnostics if d.code not in UNUSED_WARNINGS]
        return Checked(self.project, self.instances, entry, exported, self.diagnostics)

    def warn_unused_functions(self, scope: ModuleScope) -> None:
        """W0008: a private function of the checked file that nothing calls."""
        called = {
            id(self.instances[target].function)
            for instance in self.instances.values()
            for target in instance.calls.values()
            if isinstance(target, str)
        }
        for function in scope.functions.values():
            if function.public or function.body is None or id(function) in called:
                continue
            if getattr(function, "contract_of", None):  # a contract's (compiler.contracts)
                continue
            if function.attribute("test") or (
                function.name == "main" and scope.source.kind == "program"
            ):
                continue
            self.warn(
                "W0008",
                f"function '{function.name}' is never called",
                scope.path,
                function.span,
                "remove it, or make it 'pub' if other modules are meant to call it",
            )

    def collect(self, name: str, source: ast.SourceFile) -> ModuleScope:
        scope = ModuleScope(name, source.path, source)
        for use in source.uses:
            module = canonical_module_name(use.path)
            if module in scope.imports:
                first = scope.imports[module].path
                message = f"'{module}' is imported twice"
                if first != use.path:
                    message = f"'{use.path}' is '{module}', already imported as '{first}'"
                self.warn("W0009", message, source.path, use.span, "remove this line")
                continue
            scope.imports[module] = use
        kinds = {
            ast.Function: "functions",
            ast.Struct: "structs",
            ast.Const: "constants",
            ast.Event: "events",
        }
        defined: set[str] = set()  # names of every kind share one namespace
        for item in source.items:
            if not self.active(item, source.path):
                continue
            if item.name in defined:
                self.error(
                    "E0107", f"'{item.name}' is defined more than once", source.path, item.span
                )
                continue
            defined.add(item.name)
            getattr(scope, kinds[type(item)])[item.name] = item
        return scope

    def active(self, item, path: str) -> bool:
        for attribute in item.attributes:
            if attribute.name not in KNOWN_ATTRIBUTES:
                self.error(
                    "E0218", f"unknown attribute '#[{attribute.name}]'", path, attribute.span
                )
            elif attribute.name == "cfg" and (attribute.argument or "") not in self.flags:
                return False
        return True

    def validate_function(self, scope: ModuleScope, function: ast.Function) -> None:
        intrinsic = function.attribute("intrinsic")
        path = scope.path
        if intrinsic is not None:
            if not scope.name.startswith(INTRINSIC_PREFIXES):
                self.error(
                    "E0211",
                    "#[intrinsic] is only allowed in std., vm., os. and ext. modules",
                    path,
                    intrinsic.span,
                )
            builtin = BUILTINS.get(intrinsic.argument or "")
            if builtin is None:
                self.error(
                    "E0212", f"unknown intrinsic '{intrinsic.argument}'", path, intrinsic.span
                )
            elif function.body is None:
                self.validate_intrinsic(scope, function, builtin)
        elif function.body is None:
            self.error("E0223", f"function '{function.name}' has no body", path, function.span)
        elif function.name in BUILTINS and scope.source.kind == "program":
            self.error(
                "E0111",
                f"'{function.name}' is a builtin and cannot be redefined",
                path,
                function.span,
            )
        if function.attribute("test") and (function.params or function.return_type):
            self.error(
                "E0213",
                "a #[test] function takes no parameters and returns nothing",
                path,
                function.span,
            )

    def declared_signature(self, scope: ModuleScope, function: ast.Function) -> tuple:
        params = tuple(self.resolve_type(p.type, scope=scope) for p in function.params)
        result = UNIT
        if function.return_type:
            result = self.resolve_type(function.return_type, scope=scope)
        return params, result

    def validate_intrinsic(self, scope: ModuleScope, function: ast.Function, builtin) -> None:
        """E0212 unless the declaration has the builtin's signature, or one that narrows
        its result as compiler.builtins.NARROWINGS allows (W0011)."""
        params, result = self.declared_signature(scope, function)
        if params == builtin.params and result == builtin.result:
            return
        if narrowed(builtin, params, result) is not None:
            self.warn(
                "W0011",
                f"'{function.name}' narrows builtin '{builtin.name}' to {result}: "
                f"it keeps the top {width(result)} of the {width(builtin.result)} words "
                "the instruction pushes",
                scope.path,
                function.span,
                f"declare it as returning {builtin.result} to keep them all",
            )
            return
        self.error(
            "E0212",
            f"'{function.name}' does not match the signature of builtin "
            f"'{builtin.name}': {_signature(builtin.params, builtin.result)}",
            scope.path,
            function.span,
        )

    def intrinsic_builtin(self, owner: ModuleScope, function: ast.Function):
        """The builtin a call of an intrinsic declaration means (narrowed if declared so)."""
        builtin = BUILTINS.get(function.attribute("intrinsic").argument or "")
        if builtin is None:
            return None
        params, result = self.declared_signature(owner, function)
        if params == builtin.params and result == builtin.result:
            return builtin
        return narrowed(builtin, params, result) or builtin

    def check_entry(self, scope: ModuleScope) -> str | None:
        source = scope.source
        if source.kind != "program":
            return None
        main = scope.functions.get("main")
        if main is None:
            self.error(
                "E0110", f"program '{source.name}' has no 'fn main()'", scope.path, source.name_span
            )
            return None
        if main.params or main.return_type is not None or main.size_parameters:
            self.error(
                "E0110", "'main' takes no parameters and returns nothing", scope.path, main.span
            )
        return self.key(scope.name, "main", {})

    # --- instances
    def key(self, module: str, name: str, sizes: dict[str, int]) -> str:
        suffix = "__" + "_".join(f"{k}{v}" for k, v in sizes.items()) if sizes else ""
        return f"{mangle(module)}__{name}{suffix}"

    def instantiate(self, scope: ModuleScope, function: ast.Function, sizes: dict[str, int]):
        key = self.key(scope.name, function.name, sizes)
        if key in self.instances:
            return self.instances[key]
        params = [
            (p.name, self.resolve_type(p.type, scope=scope, sizes=sizes)) for p in function.params
        ]
        result = (
            self.resolve_type(function.return_type, scope=scope, sizes=sizes)
            if function.return_type
            else UNIT
        )
        instance = FunctionInstance(key, scope.name, scope.path, function, sizes, params, result)
        self.instances[key] = instance
        if function.body is None or any(t is None for _, t in params) or result is None:
            return instance
        self.pending.append(instance)
        return instance

    def check_recursion(self) -> None:
        state: dict[str, int] = {}  # 1 = on the path, 2 = done

        def visit(key: str, path: list[str]) -> None:
            state[key] = 1
            instance = self.instances[key]
            for call, target in instance.calls.items():
                if isinstance(target, Builtin):
                    continue
                if state.get(target) == 1:
                    cycle = " -> ".join(
                        self.instances[k].function.name for k in [*path, key, target]
                    )
                    self.error(
                        "E0209", f"recursion is not allowed: {cycle}", instance.path, call.span
                    )
                elif target not in state:
                    visit(target, [*path, key])
            state[key] = 2

        for key in list(self.instances):
            if key not in state:
                visit(key, [])

    # --- types
    def resolve_type(self, type_expr, instance=None, scope=None, sizes=None) -> Type | None:
        if instance is not None:
            scope, sizes = self.scopes[instance.module], instance.sizes
        sizes = sizes or {}
        match type_expr:
            case ast.NamedType(name=name) if name in PRIMITIVES:
                return PRIMITIVES[name]
            case ast.NamedType():
                return self.struct_by_path(scope, type_expr.name, type_expr.span)
            case ast.ArrayType():
                element = self.resolve_type(type_expr.element, scope=scope, sizes=sizes)
                length = self.size(type_expr.size, sizes, scope.path)
                return None if element is None or length is None else ArrayType(element, length)
            case ast.TupleType():
                elements = [
                    self.resolve_type(e, scope=scope, sizes=sizes) for e in type_expr.elements
                ]
                return None if None in elements else TupleType(tuple(elements))
        raise AssertionError(f"unknown type expression {type_expr!r}")

    def size(self, size_expr, sizes: dict[str, int], path: str) -> int | None:
        match size_expr:
            case ast.SizeLiteral():
                return size_expr.value
            case ast.SizeName():
                if size_expr.name not in sizes:
                    self.error(
                        "E0220",
                        f"unknown size '{size_expr.name}'",
                        path,
                        size_expr.span,
                        "array sizes are integer literals or size parameters",
                    )
                return sizes.get(size_expr.name)
            case ast.SizeBinary():
                left, right = (
                    self.size(size_expr.left, sizes, path),
                    self.size(size_expr.right, sizes, path),
                )
                if left is None or right is None:
                    return None
                return left + right if size_expr.operator == "+" else left * right
        raise AssertionError(f"unknown size expression {size_expr!r}")

    def struct_by_path(self, scope: ModuleScope, path: str, span) -> StructType | None:
        prefix, _, name = path.rpartition(".")
        if not prefix:
            owner, item = scope, scope.structs.get(name)
            if item is None:
                hint = did_you_mean(name, [*scope.structs, *PRIMITIVES])
                self.error("E0105", f"undefined type '{name}'", scope.path, span, hint)
                return None
        else:
            found = lookup_qualified(self.scopes, scope, prefix, name, "structs")
            owner, item = found.module, found.item
            if not self.report_lookup(found, scope, prefix, name, "struct", span):
                return None
        return self.struct_type(owner, item)

    def struct_type(self, owner: ModuleScope, struct: ast.Struct) -> StructType | None:
        key = (owner.name, struct.name)
        if key in self.struct_types:
            if self.struct_types[key] is None:
                self.error(
                    "E0105", f"struct '{struct.name}' contains itself", owner.path, struct.span
                )
            return self.struct_types[key]
        self.struct_types[key] = None
        fields = [(f.name, self.resolve_type(f.type, scope=owner)) for f in struct.fields]
        if any(t is None for _, t in fields):
            return None
        names = [name for name, _ in fields]
        if len(set(names)) != len(names):
            self.error(
                "E0107", f"struct '{struct.name}' has a duplicate field", owner.path, struct.span
            )
        result = StructType(owner.name, struct.name, tuple(fields))
        self.struct_types[key] = result
        return result

    def lookup_struct(self, instance, path: str, span) -> StructType | None:
        return self.struct_by_path(self.scopes[instance.module], path, span)

    def report_lookup(self, found, scope, prefix, name, what, span) -> bool:
        match found.problem:
            case None:
                return True
            case "transitive":
                self.warn(
                    "W0003",
                    f"'{prefix}' is not imported here; add 'use {found.module.name}'",
                    scope.path,
                    span,
                )
                return True
            case "ambiguous":
                self.error(
                    "E0106",
                    f"'{prefix}.{name}' is ambiguous: {' and '.join(found.candidates)} "
                    f"both export '{name}'",
                    scope.path,
                    span,
                    "write the full module path",
                )
            case "private":
                self.error(
                    "E0108",
                    f"{what} '{name}' of module '{found.module.name}' is not public",
                    scope.path,
                    span,
                )
            case "missing":
                kind = {"function": "functions", "constant": "constants", "struct": "structs"}
                exported = [
                    item
                    for item, value in getattr(found.module, kind.get(what, "functions")).items()
                    if getattr(value, "public", True)
                ]
                self.error(
                    "E0104" if what == "function" else "E0103",
                    f"module '{found.module.name}' has no {what} '{name}'",
                    scope.path,
                    span,
                    did_you_mean(name, exported),
                )
            case "no-module":
                self.error(
                    "E0101",
                    f"no imported module is called '{prefix}'",
                    scope.path,
                    span,
                    f"add a 'use' line for the module that defines '{name}'",
                )
        return False

    # --- names in bodies
    def lookup_constant(self, instance, var: ast.Var, visible=()) -> int | None:
        """A constant's value; `visible` are the local names (for a did-you-mean)."""
        scope = self.scopes[instance.module]
        prefix, _, name = var.path.rpartition(".")
        if not prefix:
            constant = scope.constants.get(name)
            if constant is None:
                hint = did_you_mean(name, [*visible, *scope.constants])
                self.error("E0103", f"undefined variable '{name}'", scope.path, var.span, hint)
                return None
        else:
            found = lookup_qualified(self.scopes, scope, prefix, name, "constants")
            if not self.report_lookup(found, scope, prefix, name, "constant", var.span):
                return None
            constant = found.item
        if not isinstance(constant.value, ast.IntLiteral):
            self.error(
                "E0201", f"constant '{name}' must be an integer literal", scope.path, constant.span
            )
            return None
        return constant.value.value

    def resolve_call(self, instance, call: ast.Call, arguments: list):
        scope = self.scopes[instance.module]
        prefix, _, name = call.callee.rpartition(".")
        if not prefix:
            function = scope.functions.get(name)
            if function is None:
                if name in BUILTINS:
                    return BUILTINS[name]
                hint = did_you_mean(name, [*scope.functions, *BUILTINS])
                self.error("E0104", f"undefined function '{name}'", scope.path, call.span, hint)
                return None
            redefined = name in BUILTINS and function.attribute("intrinsic") is None
            if redefined and scope.source.kind != "program":  # a program's is E0111
                self.warn(
                    "W0012",
                    f"'{name}' here calls this module's function '{name}', not the builtin",
                    scope.path,
                    call.span,
                    f"to call the builtin, write it through its vm module (e.g. field.{name})",
                )
            owner = scope
        else:
            found = lookup_qualified(self.scopes, scope, prefix, name, "functions")
            if not self.report_lookup(found, scope, prefix, name, "function", call.span):
                return None
            owner, function = found.module, found.item
        if function.attribute("intrinsic") is not None:
            return self.intrinsic_builtin(owner, function)
        sizes = self.call_sizes(instance, call, owner, function, arguments)
        if sizes is None:
            return None
        if sizes and self.key(owner.name, function.name, sizes) not in self.instances:
            made = self.instance_counts.get(id(function), 0) + 1
            self.instance_counts[id(function)] = made
            if made > MAX_INSTANCES_PER_FUNCTION:
                if made == MAX_INSTANCES_PER_FUNCTION + 1:
                    self.error(
                        "E0209",
                        f"'{function.name}' is instantiated with ever new sizes: "
                        "size-generic recursion is not allowed",
                        instance.path,
                        call.span,
                    )
                return None
        return self.instantiate(owner, function, sizes)

    def call_sizes(self, instance, call, owner, function, arguments) -> dict[str, int] | None:
        names = function.size_parameters
        if not names:
            return {}
        if call.size_arguments:
            if len(call.size_arguments) != len(names):
                self.error(
                    "E0220",
                    f"'{function.name}' takes {len(names)} size arguments",
                    instance.path,
                    call.span,
                )
                return None
            values = [self.size(s, instance.sizes, instance.path) for s in call.size_arguments]
            return None if None in values else dict(zip(names, values, strict=True))
        sizes: dict[str, int] = {}
        for param, argument in zip(function.params, arguments, strict=False):
            _infer(param.type, argument, sizes)
        if set(sizes) != set(names):
            self.error(
                "E0220",
                f"cannot infer the sizes of '{function.name}'",
                instance.path,
                call.span,
                f"write them explicitly: {call.callee}<{', '.join(names)}>(...)",
            )
            return None
        return {name: sizes[name] for name in names}


def _infer(type_expr, argument: Type | None, sizes: dict[str, int]) -> None:
    if isinstance(type_expr, ast.ArrayType) and isinstance(argument, ArrayType):
        if isinstance(type_expr.size, ast.SizeName):
            sizes.setdefault(type_expr.size.name, argument.length)
        _infer(type_expr.element, argument.element, sizes)


def _signature(params, result) -> str:
    return f"({', '.join(map(str, params))}) -> {result}"


def check(project: Project, flags: frozenset[str] = frozenset({"debug"})) -> Checked:
    """Check a loaded project; raise `CompileError` carrying every diagnostic if any is an error."""
    try:
        checked = Checker(project, flags).run()
    except RecursionError:
        path = project.entry.source.path
        message = "the source is nested too deeply to check"
        raise CompileError([error("E0006", message, path, ast.Span(1, 1, 1, 1))]) from None
    if checked.errors:
        raise CompileError(checked.diagnostics)
    return checked


def check_file(path, resolver: Resolver | None = None) -> Checked:
    """Load and check the file at `path` and everything it uses."""
    return check(load_project(path, resolver or Resolver()))


__all__ = ["Checked", "FunctionInstance", "check", "check_file", "width"]
