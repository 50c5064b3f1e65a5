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
- `execute_dask`: futures on a `distributed.Client` (`_DaskSweep`). Dask itself re-runs
  the tasks of a lost worker, and a result lost with its worker is computed again; the
  client stores each chunk once, when its future completes. A chunk Dask gives up on
  (`KilledWorker`: every worker that held it died) has its runs retried alone, one at a
  time; the run Dask gives up on again is recorded as failed. Every task first checks
  that its worker runs the client's code version and can read the scenario file, whose
  path travels absolute (`run_chunk_checked`); a worker that cannot stops the sweep. How
  many chunks are in flight follows the cluster's worker threads as workers join and
  leave. A lost scheduler stops the sweep.

Any other exception escaping a chunk (the runner cannot be unpickled, lastmile is missing
on a Dask worker, or is another version there) is not a run's failure: it stops the sweep
(`ExecutorError`), and what is stored stays. Without the Dask extra installed, any Dask
entry point raises `MissingExtraError` naming the command that installs it.
"""

from __future__ import annotations

import functools
import importlib
import logging
import math
import os
import socket
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lastmile._errors import LastmileError
from lastmile.sweep.runner import (
    Columns,
    Runner,
    RunTask,
    code_version,
    failed_rows,
    init_worker,
    run_chunk,
    to_table,
)

__all__ = [
    "DASK_INSTALL",
    "MAX_CHUNK",
    "MIN_CHUNK_S",
    "TARGET_CHUNK_S",
    "Chunker",
    "ExecutorError",
    "MissingExtraError",
    "connect_dask",
    "dask_workers",
    "distributed",
    "execute_dask",
    "execute_pool",
    "execute_serial",
    "run_chunk_checked",
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


class MissingExtraError(LastmileError, ImportError):
    """An optional dependency is not installed: `extra` names the extra that brings it."""

    def __init__(self, message: str, *, extra: str) -> None:
        super().__init__(message)
        self.extra = extra


#: The command that installs the Dask extra, quoted for a shell.
DASK_INSTALL = "pip install 'lastmile[dask]'"


def distributed() -> Any:
    """The `distributed` module, typed as Any (its API is not annotated).

    Raises `MissingExtraError` (an `ImportError`, shown by the CLI as one line with exit
    status 2) when the Dask extra is not installed.
    """
    try:
        return importlib.import_module("distributed")
    except ImportError as e:
        raise MissingExtraError(
            f"running on Dask needs the Dask extra, which is not installed ({e}): {DASK_INSTALL}",
            extra="dask",
        ) from None


def _quiet_dask_logs(stack: ExitStack) -> Callable[[], None]:
    """Keep distributed's INFO lines out of the sweep's stderr until `stack` closes.

    A lost connection logs at INFO with a traceback, which reads like a crash; the sweep
    says what happened in its own words. The function returned silences distributed
    altogether: closing a client whose scheduler is gone logs its failed reconnection as
    errors, noise after the sweep's own one-line error.
    """
    loggers = [logging.getLogger(name) for name in ("distributed", "distributed.client")]
    levels = [logger.level for logger in loggers]

    def restore() -> None:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)

    def silence() -> None:
        for logger in loggers:
            logger.setLevel(logging.CRITICAL + 1)

    stack.callback(restore)
    loggers[0].setLevel(max(logging.WARNING, loggers[0].getEffectiveLevel()))
    return silence


#: How long `connect_dask` waits for a scheduler before giving up.
DASK_CONNECT_TIMEOUT_S = 10.0


def connect_dask(address: str, stack: ExitStack) -> Any:
    """A `distributed.Client` for `address`, closed when `stack` closes.

    ``local:N`` starts a LocalCluster of N single-threaded worker processes; anything
    else is a scheduler address (``tcp://host:8786``).
    """
    dask = distributed()
    count = address.removeprefix("local:")
    if address.startswith("local:") and (not count.isdigit() or int(count) < 1):
        raise ValueError(f"--dask local:N needs a worker count N ≥ 1, got {address!r}")
    silence = _quiet_dask_logs(stack)
    if address.startswith("local:"):
        cluster = stack.enter_context(
            dask.LocalCluster(
                n_workers=int(count),
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",  # a free port: no clash, no warning
            )
        )
        client = stack.enter_context(dask.Client(cluster))
    else:
        try:
            client = stack.enter_context(dask.Client(address, timeout=DASK_CONNECT_TIMEOUT_S))
        except (OSError, TimeoutError) as e:
            raise ExecutorError(
                f"cannot reach the Dask scheduler at {address} within "
                f"{DASK_CONNECT_TIMEOUT_S:g} s ({' '.join(str(e).split()) or type(e).__name__}); "
                "is it running? (dask scheduler; or --dask local:N for a local cluster)"
            ) from None
    stack.callback(silence)  # runs before the client closes
    return client


def dask_workers(client: Any) -> int:
    """Worker threads of a Dask cluster now (at least 1)."""
    # `nthreads` lists every worker in every version; `scheduler_info` lists only the
    # first five by default in some.
    return max(1, sum(int(n) for n in client.nthreads().values()))


@functools.lru_cache(maxsize=1)
def _worker_code_version() -> str:
    """This worker process's code version (git is asked once per process)."""
    return code_version().key


def _worker_name() -> str:
    try:
        return str(distributed().get_worker().address)
    except (ValueError, MissingExtraError):  # not inside a Dask worker
        return f"{socket.gethostname()} (pid {os.getpid()})"


def run_chunk_checked(runner: Runner, tasks: list[RunTask], code: str) -> Columns:
    """`run_chunk` on a Dask worker, once it has shown it can run `tasks` as the client would.

    Every stored row carries the client's code version, so a worker with other code (an
    older install, another checkout) would store results under a version that did not
    make them; and a worker that cannot read the base scenario file would store every run
    as failed. Either raises `ExecutorError` instead, which stops the sweep.
    """
    here = _worker_code_version()
    if here != code:
        import lastmile

        raise ExecutorError(
            f"Dask worker {_worker_name()} runs lastmile {here} (from "
            f"{Path(lastmile.__file__).parent}), the client {code}: install the same "
            "lastmile on every worker as on the client (the same checkout, or the same "
            "wheel outside any git checkout); nothing that worker ran was stored"
        )
    for scenario in {t.scenario for t in tasks if isinstance(t.scenario, str)}:
        if not Path(scenario).is_file():
            raise ExecutorError(
                f"Dask worker {_worker_name()} cannot read the scenario file {scenario}: "
                "workers read it at the client's path, so put it on a filesystem every "
                "worker shares at that path, or write it inline in the sweep file (a "
                "[scenario] table)"
            )
    return run_chunk(runner, tasks)


def _absolute(tasks: list[RunTask]) -> list[RunTask]:
    """`tasks` with a scenario path made absolute: a worker's working directory is its own."""
    paths = {t.scenario for t in tasks if isinstance(t.scenario, str)}
    absolute = {path: str(Path(path).absolute()) for path in paths}
    if all(path == full for path, full in absolute.items()):
        return tasks
    return [
        RunTask(absolute[t.scenario], t.seed, t.overrides, t.columns)
        if isinstance(t.scenario, str)
        else t
        for t in tasks
    ]


#: Why a sweep stops when its futures are cancelled or their results cannot be fetched.
_LOST = (
    "the sweep lost its Dask scheduler, or the scheduler cancelled its tasks (a restarted "
    "cluster?); what finished is stored: run the sweep again to finish"
)


def _one_line(error: BaseException, limit: int = 1000) -> str:
    text = f"{type(error).__name__}: {' '.join(str(error).split())}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _DaskSweep:
    """The futures of one sweep on a Dask client, what each one runs, and what to retry.

    Dask re-runs the tasks of a lost worker itself. A task it gives up on (`KilledWorker`:
    every worker that held it died, ``distributed.scheduler.allowed-failures`` + 1 times)
    may be innocent (it waited on a worker that another task crashed), so its runs are
    retried alone, one at a time; a run Dask gives up on again is recorded as failed.
    """

    #: Seconds between two looks at how many worker threads the cluster has.
    REFRESH_S = 2.0

    def __init__(self, runner: Runner, chunker: Chunker, client: Any) -> None:
        self.dask = distributed()
        self.runner = runner
        self.chunker = chunker
        self.client = client
        self.code = code_version().key
        self.chunks: dict[Any, tuple[Any, list[RunTask]]] = {}
        self.pending = self.dask.as_completed()
        #: Runs of chunks Dask gave up on, to run alone; the key of the one in flight.
        self.suspects: deque[RunTask] = deque()
        self.suspect_key: Any = None
        self.looked_at = time.monotonic()

    def _submit(self, chunk: list[RunTask]) -> Any:
        future = self.client.submit(
            run_chunk_checked, self.runner, _absolute(chunk), self.code, pure=False
        )
        self.chunks[future.key] = (future, chunk)
        self.pending.add(future)
        return future.key

    def fill(self) -> None:
        """Keep two chunks per worker thread in flight, and one suspect run."""
        if time.monotonic() - self.looked_at > self.REFRESH_S:  # workers come and go
            try:
                self.chunker.workers = dask_workers(self.client)
            except OSError as e:  # the scheduler went away between two batches
                raise ExecutorError(f"{_LOST} ({_one_line(e, 160)})") from e
            self.looked_at = time.monotonic()
        in_flight = len(self.chunks) - (self.suspect_key is not None)
        while in_flight < 2 * self.chunker.workers and (chunk := self.chunker.next()):
            self._submit(chunk)
            in_flight += 1
        if self.suspect_key is None and self.suspects:
            self.suspect_key = self._submit([self.suspects.popleft()])

    def rows(self, future: Any) -> Columns | None:
        """The rows of a finished future, or None when its runs are to be retried."""
        from concurrent.futures import CancelledError

        _, chunk = self.chunks.pop(future.key)
        suspect = future.key == self.suspect_key
        if suspect:
            self.suspect_key = None
        try:
            if future.status == "finished":
                rows: Columns = future.result()
                return rows
            error = future.exception() if future.status == "error" else None
        except (OSError, CancelledError) as e:  # the scheduler went away meanwhile
            raise ExecutorError(f"{_LOST} ({_one_line(e, 160)})") from e
        if error is None:  # cancelled: the connection to the scheduler was lost
            raise ExecutorError(_LOST)
        if isinstance(error, self.dask.KilledWorker):
            if not suspect:
                self.suspects.extend(chunk)
                return None
            return failed_rows(chunk, f"Dask worker lost while running it alone: {error}")
        if isinstance(error, ExecutorError):
            raise error
        raise ExecutorError(
            f"a Dask worker could not run a chunk ({_one_line(error)}); every worker needs "
            f"lastmile installed, the same code version as the client ({self.code})"
        ) from error

    def close(self) -> None:
        self.pending.clear()
        self.client.cancel([future for future, _ in self.chunks.values()])


def execute_dask(runner: Runner, chunker: Chunker, client: Any) -> Iterator[pa.Table]:
    """Run the chunks as futures on `client` (a `distributed.Client`)."""
    sweep = _DaskSweep(runner, chunker, client)
    sweep.fill()
    try:
        while sweep.chunks:
            done_rows: list[Columns] = []
            stop: ExecutorError | None = None
            for future in sweep.pending.next_batch(block=True):
                try:
                    rows = sweep.rows(future)
                except ExecutorError as e:
                    stop = stop or e
                    continue
                if rows is not None:
                    done_rows.append(rows)
            if done_rows:  # chunks that finished together are stored together
                yield to_table(done_rows)
            if stop is not None:  # once what finished beside it is stored
                raise stop
            sweep.fill()
    finally:
        sweep.close()
