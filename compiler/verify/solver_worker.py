"""The cvc5 side of compiler.verify.solver, run in a child process.

Input (standard input, JSON): `{"nodes": [...], "root": i, "report": [j, ...],
"resource_limit": n, "prime": p}`, a formula over F_p as a list of nodes, each
`[operation, *operands]` naming earlier nodes by index:

    ["var", name]  ["const", value]  ["add", i, j, ...]  ["mul", i, j]
    ["eq", i, j]  ["not", i]  ["and", i, ...]  ["or", i, ...]  ["ite", c, i, j]
    ["true"]  ["false"]

Output (standard output, JSON): `{"status": "sat" | "unsat" | "unknown",
"values": {j: value}}`, the model's value of each reported node when sat.

A child process because cvc5 (1.4) can abort the whole process on some finite-field
systems (a failed internal check): the parent then reads an exit status, not a
verdict, and answers `unknown`.  cvc5's resource limit (`rlimit-per`, in solver
steps) bounds each query where cvc5 counts; its finite-field solvers do not count
inside their Groebner-basis steps, so the parent also bounds the child's time
(compiler.verify.solver.FIELD_SOLVERS).
"""

from __future__ import annotations

import json
import sys


def solve(query: dict) -> dict:
    import cvc5

    kind = cvc5.Kind
    solver = cvc5.Solver()
    solver.setOption("produce-models", "true")
    solver.setOption("rlimit-per", str(query["resource_limit"]))
    if "ff_solver" in query:
        solver.setOption("ff-solver", query["ff_solver"])
    solver.setLogic("QF_FF")
    field = solver.mkFiniteFieldSort(str(query["prime"]))
    terms: list = []
    for node in query["nodes"]:
        operation, operands = node[0], node[1:]
        inner = [terms[index] for index in operands] if operation not in ("var", "const") else []
        if operation == "var":
            term = solver.mkConst(field, operands[0])
        elif operation == "const":
            term = solver.mkFiniteFieldElem(str(operands[0]), field)
        elif operation == "true":
            term = solver.mkTrue()
        elif operation == "false":
            term = solver.mkFalse()
        elif operation in ("add", "and", "or") and len(inner) == 1:
            term = inner[0]
        else:
            operator = {
                "add": kind.FINITE_FIELD_ADD,
                "mul": kind.FINITE_FIELD_MULT,
                "eq": kind.EQUAL,
                "not": kind.NOT,
                "and": kind.AND,
                "or": kind.OR,
                "ite": kind.ITE,
            }[operation]
            term = solver.mkTerm(operator, *inner)
        terms.append(term)
    solver.assertFormula(terms[query["root"]])
    result = solver.checkSat()
    if result.isUnsat():
        return {"status": "unsat", "values": {}}
    if not result.isSat():
        return {"status": "unknown", "values": {}}
    values = {
        str(index): int(solver.getValue(terms[index]).getFiniteFieldValue()) % query["prime"]
        for index in query["report"]
    }
    return {"status": "sat", "values": values}


def main() -> None:
    query = json.load(sys.stdin)
    json.dump(solve(query), sys.stdout)


if __name__ == "__main__":
    main()
