"""Where a population's fitness is computed: here, on local processes, or on a Ray cluster.

Input: an evaluator (a picklable callable: weights -> fitness tuple, deterministic) and
a `workers` setting: `1` (this process), `N` (N local processes), `ray` (a Ray cluster
started here for the run) or `ray://HOST:PORT` (an existing cluster).  Output: a `Pool`
whose `map(population)` returns the fitnesses in population order.  The evaluator is
deterministic and results are gathered in order, so every setting gives the same
fitnesses, and evolution (compiler.neural.evolution) the same weights.

Ray is an optional extra (`pip install 'tri[distributed]'`); asking for it without it
installed, or for a cluster that does not answer, raises `WorkersError` with a clear
message.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor


class WorkersError(RuntimeError):
    """A workers setting that cannot be used (bad text, Ray missing or unreachable)."""


def parse_workers(text: str) -> int | str:
    """`--workers`: a positive number of local processes, `ray`, or `ray://HOST:PORT`."""
    if text == "ray" or text.startswith("ray://"):
        return text
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise WorkersError(
        f"--workers takes a positive number, 'ray' or 'ray://HOST:PORT', not {text!r}"
    )


_installed = None  # the evaluator of this worker process


def _install(evaluator) -> None:
    global _installed
    _installed = evaluator


def _evaluate_installed(weights):
    return tuple(_installed(weights))


class Pool:
    """`map(population) -> fitnesses`, in order; a context manager that frees its workers."""

    def __init__(self, evaluator, workers: int | str = 1):
        self.evaluator = evaluator
        self.workers = workers
        self._executor = None
        self._ray = None
        self._remote = None
        if isinstance(workers, str):
            self._start_ray(workers)
        elif workers > 1:
            self._executor = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_install,
                initargs=(evaluator,),
            )

    def _start_ray(self, setting: str) -> None:
        try:
            import ray
        except ImportError:
            raise WorkersError("--workers ray needs Ray: pip install 'tri[distributed]'") from None
        address = None if setting == "ray" else setting
        try:
            ray.init(
                address=address,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
        except Exception as error:  # Ray raises many kinds; all mean the same here
            raise WorkersError(f"cannot use the Ray cluster {setting!r}: {error}") from None
        self._ray = ray
        self._evaluator_reference = ray.put(self.evaluator)
        self._remote = ray.remote(_evaluate_with)

    def map(self, population: list) -> list[tuple[int, ...]]:
        if self._ray is not None:
            tasks = [self._remote.remote(self._evaluator_reference, w) for w in population]
            return [tuple(fitness) for fitness in self._ray.get(tasks)]
        if self._executor is not None:
            return list(self._executor.map(_evaluate_installed, population))
        return [tuple(self.evaluator(weights)) for weights in population]

    __call__ = map

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown()
            self._executor = None
        if self._ray is not None:
            self._ray.shutdown()
            self._ray = None

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exception) -> None:
        self.close()


def _evaluate_with(evaluator, weights):
    return tuple(evaluator(weights))
