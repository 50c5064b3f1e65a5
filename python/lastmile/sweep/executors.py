"""Where chunks of runs execute: in this process, a local process pool, or a Dask cluster.

Each executor is a generator that draws chunks of `RunTask` from a `Chunker` and yields
each chunk's rows (an Arrow table) as soon as the chunk finishes, in completion order;
chunks that finish together come as one table. All three call the same `run_chunk`, so
a run's metrics do not depend on which executor ran it. The caller (the campaign loop,
the only writer of the store) commits each yielded table and reports its run times to
the chunker before asking for the next; closing the generator early (Ctrl-C) cancels
what has not started.

Chunks are sized by time, not count: after a few probe runs, each chunk holds about
`TARGET_CHUNK_S` of work (never more than a share of what is left, so the last chunks
balance the workers). Millisecond runs then travel hundreds to a task, which amortises a
task's round trip and, above all, the store's per-commit cost (a few milliseconds for a
wide row set, whatever its length); long runs travel one or a few to a task, so each is
committed soon after it ends. At most two chunks per worker are in flight: a crash loses
at most that much work.

- `execute_serial`: in this process (``jobs=1``), no pickling.
- `execute_pool`: `concurrent.futures.ProcessPoolExecutor` with the ``spawn`` start method
  (the same on every platform, and safe with DuckDB's threads in the parent). Workers
  ignore SIGINT and die with the parent (`runner.init_worker`): a SIGKILLed sweep leaves
  no worker, and so no resource tracker, behind. When a worker process dies (a crash in
  a run, the OOM killer), the pool is rebuilt and the runs that were in flight are
  retried one by one: the run that kills its worker again is recorded as failed, the
  others complete.
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

from lastmile._errors import LastmileError
from lastmile.sweep.runner import (
    Columns,
    Runner,
    RunTask,
    failed_rows,
    init_worker,
    run_chunk,
    to_table,
)

__all__ = [
    "MAX_CHUNK",
    "MIN_CHUNK_S",
    "TARGET_CHUNK_S",
    "Chunker",
    "ExecutorError",
    "connect_dask",
    "dask_workers",
    "distributed",
    "execute_dask",
    "execute_pool",
    "execute_serial",
]

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    import pyarrow as pa

#: Seconds of work a chunk aims at once run times are known.
TARGET_CHUNK_S = 0.25
#: The least work a chunk holds once run times are known (the last chunks shrink to it).
MIN_CHUNK_S = 0.05
#: The most runs one chunk holds.
MAX_CHUNK = 2000


class Chunker:
    """Hands out the runs in chunks of about `target_s` seconds of work each.

    `fixed` forces a size. Until run times are known, chunks hold `PROBE` runs.
    """

    PROBE = 2

    def __init__(
        self,
        tasks: Sequence[RunTask],
        workers: int,
        *,
        target_s: float = TARGET_CHUNK_S,
        fixed: int | None = None,
    ) -> None:
        self._tasks = deque(tasks)
        self.workers = max(1, workers)
        self.target_s = target_s
        self.fixed = fixed
        self._seconds = 0.0
        self._runs = 0

    def __len__(self) -> int:
        return len(self._tasks)

    def observe(self, rows: pa.Table) -> None:
        """Learn from finished runs (their ``wall_s``) how long a run takes."""
        import pyarrow.compute as pc

        if "wall_s" in rows.column_names:  # rows of a lost worker have no time
            self._seconds += float(pc.sum(rows["wall_s"]).as_py() or 0.0)
            self._runs += pc.count(rows["wall_s"]).as_py()

    def size(self) -> int:
        """How many runs the next chunk takes."""
        if self.fixed is not None:
            return self.fixed
        if self._runs == 0:
            return self.PROBE
        per_run = max(self._seconds / self._runs, 1e-6)
        balance = math.ceil(len(self._tasks) / (2 * self.workers))
        floor = round(MIN_CHUNK_S / per_run)  # a tail chunk still worth its commit
        return max(1, min(max(balance, floor), round(self.target_s / per_run), MAX_CHUNK))

    def next(self) -> list[RunTask] | None:
        """The next chunk, or None when every run has been handed out."""
        if not self._tasks:
            return None
        return [self._tasks.popleft() for _ in range(min(self.size(), len(self._tasks)))]


def execute_serial(runner: Runner, chunker: Chunker) -> Iterator[pa.Table]:
    """Run every chunk here, in order."""
    while (chunk := chunker.next()) is not None:
        yield to_table([run_chunk(runner, chunk)])


class ExecutorError(LastmileError, RuntimeError):
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
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=init_worker)
    try:
        pool.submit(int).result()
    except BrokenProcessPool:
        pool.shutdown(wait=False, cancel_futures=True)
        raise ExecutorError(
            "worker processes died on start-up; a script that starts a sweep must guard "
            "it with `if __name__ == '__main__':` (workers are spawned)"
        ) from None
    return pool


def execute_pool(runner: Runner, chunker: Chunker, jobs: int) -> Iterator[pa.Table]:
    """Run the chunks on a pool of `jobs` spawned worker processes.

    At most ``2 x jobs`` chunks are in flight, so a broken pool (a worker died) only
    loses those; their runs are then retried one at a time on a fresh pool, which finds
    the run that kills its worker and records it as failed.
    """
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    running: dict[Future[Columns], list[RunTask]] = {}
    waiting: list[RunTask] | None = None
    pool = _new_pool(jobs)
    try:
        while True:
            lost: list[RunTask] = []
            broken = False
            try:
                while len(running) < 2 * jobs:
                    waiting = waiting or chunker.next()
                    if waiting is None:
                        break
                    running[pool.submit(run_chunk, runner, waiting)] = waiting
                    waiting = None
            except BrokenProcessPool:  # it broke while we were storing results
                broken = True
            if not running and not broken:
                return
            if not broken:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                done_rows: list[Columns] = []
                for future in done:
                    chunk = running.pop(future)
                    try:
                        done_rows.append(future.result())
                    except BrokenProcessPool:
                        lost.extend(chunk)
                        broken = True
                if done_rows:  # chunks that finished together are stored together
                    yield to_table(done_rows)
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
) -> Generator[pa.Table, None, ProcessPoolExecutor]:
    """Run `tasks` singly on fresh pools; return the pool left standing."""
    from concurrent.futures.process import BrokenProcessPool

    pool = _new_pool(jobs)
    try:
        for task in tasks:
            try:
                rows = pool.submit(run_chunk, runner, [task]).result()
            except BrokenProcessPool:
                rows = failed_rows([task], "worker process died during this run")
                pool.shutdown(wait=False)
                pool = _new_pool(jobs)
            yield to_table([rows])
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


def execute_dask(runner: Runner, chunker: Chunker, client: Any) -> Iterator[pa.Table]:
    """Run the chunks as futures on `client` (a `distributed.Client`)."""
    dask = distributed()
    chunks: dict[Any, tuple[Any, list[RunTask]]] = {}
    pending = dask.as_completed()

    def submit() -> None:
        chunk = chunker.next()
        if chunk is not None:
            future = client.submit(run_chunk, runner, chunk, pure=False)
            chunks[future.key] = (future, chunk)
            pending.add(future)

    for _ in range(2 * chunker.workers):
        submit()
    try:
        for batch in pending.batches():
            done_rows: list[Columns] = []
            for future in batch:
                _, chunk = chunks.pop(future.key)
                if future.status != "error":
                    done_rows.append(future.result())
                elif isinstance(error := future.exception(), dask.KilledWorker):
                    done_rows.append(failed_rows(chunk, f"Dask worker lost while running: {error}"))
                else:
                    raise error
                submit()
            if done_rows:
                yield to_table(done_rows)
    finally:
        pending.clear()
        client.cancel([future for future, _ in chunks.values()])
