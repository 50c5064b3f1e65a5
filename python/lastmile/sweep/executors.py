"""Where chunks of runs execute: in this process, a local process pool, or a Dask cluster.

Each executor is a generator that takes chunks of `RunTask` and yields each chunk's
records as soon as the chunk finishes, in completion order. All three call the same
`run_chunk`, so a run's metrics do not depend on which executor ran it. The caller (the
campaign loop, the only writer of the store) commits each yielded chunk before asking for
the next; closing the generator early (Ctrl-C) cancels what has not started.

- `execute_serial`: in this process (``jobs=1``), no pickling.
- `execute_pool`: `concurrent.futures.ProcessPoolExecutor` with the ``spawn`` start method
  (the same on every platform, and safe with DuckDB's threads in the parent). Workers
  ignore SIGINT. When a worker process dies (a crash in a run, the OOM killer), the pool
  is rebuilt and the runs that were in flight are retried one by one: the run that kills
  its worker again is recorded as failed, the others complete.
- `execute_dask`: futures on a `distributed.Client`. Dask itself re-runs the tasks of a
  lost worker; a chunk Dask gives up on (`KilledWorker`) is recorded as failed.

Any other exception escaping a chunk (the runner cannot be unpickled, lastmile is missing
on a Dask worker) is not a run's failure: it stops the sweep, and what is stored stays.
"""

from __future__ import annotations

import importlib
import math
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from lastmile.sweep.runner import Runner, RunTask, failed_records, ignore_sigint, run_chunk

__all__ = [
    "ExecutorError",
    "chunk_size_for",
    "chunked",
    "connect_dask",
    "dask_workers",
    "distributed",
    "execute_dask",
    "execute_pool",
    "execute_serial",
]

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

Records = list[dict[str, Any]]


def chunk_size_for(runs: int, workers: int) -> int:
    """Runs per task: about 8 tasks per worker (load balance), 1 to 64 runs each.

    64 millisecond runs amortise a task's round trip (pickling, a pipe or network hop, a
    store commit) to well under a percent while keeping a crash's loss and the progress
    bar's steps small.
    """
    return max(1, min(64, math.ceil(runs / (max(1, workers) * 8))))


def chunked(tasks: Sequence[RunTask], size: int) -> list[list[RunTask]]:
    """`tasks` cut into lists of `size` (the last one shorter)."""
    return [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]


def execute_serial(runner: Runner, chunks: Sequence[list[RunTask]]) -> Iterator[Records]:
    """Run every chunk here, in order."""
    for chunk in chunks:
        yield run_chunk(runner, chunk)


class ExecutorError(RuntimeError):
    """The workers themselves cannot run (not one run's failure): the sweep stops."""


def _new_pool(jobs: int) -> ProcessPoolExecutor:
    """A started pool whose workers have proved they can run a task.

    A pool whose fresh workers die before doing anything (an unguarded ``__main__`` under
    spawn, a broken install) would otherwise pass for a run that crashes its worker.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=ignore_sigint)
    try:
        pool.submit(int).result()
    except BrokenProcessPool:
        pool.shutdown(wait=False, cancel_futures=True)
        raise ExecutorError(
            "worker processes died on start-up; a script that starts a sweep must guard "
            "it with `if __name__ == '__main__':` (workers are spawned)"
        ) from None
    return pool


def execute_pool(runner: Runner, chunks: Sequence[list[RunTask]], jobs: int) -> Iterator[Records]:
    """Run the chunks on a pool of `jobs` spawned worker processes.

    At most ``2 x jobs`` chunks are in flight, so a broken pool (a worker died) only
    loses those; their runs are then retried one at a time on a fresh pool, which finds
    the run that kills its worker and records it as failed.
    """
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    queue = deque(chunks)
    running: dict[Future[Records], list[RunTask]] = {}
    pool = _new_pool(jobs)
    try:
        while queue or running:
            lost: list[RunTask] = []
            broken = False
            try:
                while queue and len(running) < 2 * jobs:
                    running[pool.submit(run_chunk, runner, queue[0])] = queue[0]
                    queue.popleft()
            except BrokenProcessPool:  # it broke while we were storing results
                broken = True
            if not broken:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    chunk = running.pop(future)
                    try:
                        records = future.result()
                    except BrokenProcessPool:
                        lost.extend(chunk)
                        broken = True
                        continue
                    yield records
            if broken:
                # Every chunk still in flight went down with the pool.
                lost.extend(task for chunk in running.values() for task in chunk)
                running.clear()
                pool.shutdown(wait=False, cancel_futures=True)
                pool = yield from _one_by_one(runner, lost, jobs)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _one_by_one(
    runner: Runner, tasks: list[RunTask], jobs: int
) -> Generator[Records, None, ProcessPoolExecutor]:
    """Run `tasks` singly on fresh pools; return the pool left standing."""
    from concurrent.futures.process import BrokenProcessPool

    pool = _new_pool(jobs)
    try:
        for task in tasks:
            try:
                records = pool.submit(run_chunk, runner, [task]).result()
            except BrokenProcessPool:
                records = failed_records([task], "worker process died during this run")
                pool.shutdown(wait=False)
                pool = _new_pool(jobs)
            yield records
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    return pool


def distributed() -> Any:
    """The `distributed` module, typed as Any (its API is not annotated)."""
    return importlib.import_module("distributed")


def connect_dask(address: str, stack: ExitStack) -> Any:
    """A `distributed.Client` for `address`, closed when `stack` closes.

    ``local:N`` starts a LocalCluster of N single-threaded worker processes; anything
    else is a scheduler address (``tcp://host:8786``).
    """
    dask = distributed()
    if address.startswith("local:"):
        count = address.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--dask local:N needs a worker count N ≥ 1, got {address!r}")
        cluster = stack.enter_context(
            dask.LocalCluster(
                n_workers=int(count),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
        )
        return stack.enter_context(dask.Client(cluster))
    return stack.enter_context(dask.Client(address))


def dask_workers(client: Any) -> int:
    """Worker threads of a Dask cluster (at least 1)."""
    info = client.scheduler_info()
    return max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))


def execute_dask(runner: Runner, chunks: Sequence[list[RunTask]], client: Any) -> Iterator[Records]:
    """Run the chunks as futures on `client` (a `distributed.Client`)."""
    dask = distributed()
    futures = client.map(run_chunk, [runner] * len(chunks), chunks, pure=False)
    index = {future.key: i for i, future in enumerate(futures)}
    try:
        for future in dask.as_completed(futures):
            if future.status == "error":
                error = future.exception()
                if not isinstance(error, dask.KilledWorker):
                    raise error
                chunk = chunks[index[future.key]]
                yield failed_records(chunk, f"Dask worker lost while running: {error}")
            else:
                yield future.result()
    finally:
        client.cancel(futures)
