"""Running a campaign: validate every point, skip what is stored, run the rest, store it.

1. The sweep is read and expanded (`spec`), and every point's scenario is checked with
   its overrides (`validate_points`) before anything runs: a bad value is reported with
   the axis (or variant) that set it.
2. The store is asked which (point, seed) pairs it lacks for this code version; a stored
   failure counts as done unless ``retry_failed``.
3. The missing runs are cut into chunks (of about a quarter second of work, see
   `executors.Chunker`) and handed to an executor (this process, a local spawn pool, or
   a Dask client). Each chunk's records are committed as the chunk
   finishes, by this process alone. A killed sweep therefore loses at most the chunks in
   flight, and running it again runs exactly those.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lastmile._errors import ArgumentError, ArgumentTypeError, clip
from lastmile._scenario import check_path
from lastmile.sweep import executors
from lastmile.sweep.progress import Progress
from lastmile.sweep.runner import (
    Runner,
    RunTask,
    ScenarioSource,
    Validator,
    code_version,
    default_jobs,
    run_lastmile,
    validate_lastmile,
)
from lastmile.sweep.spec import Point, SweepError, SweepSpec, canonical_json, load_sweep
from lastmile.sweep.store import Store, store_errors

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["DEFAULT_STORE", "SweepOutcome", "default_store", "run_campaign", "validate_points"]

#: The store of a sweep given as a dict (not read from a file), in the working directory.
DEFAULT_STORE = "lastmile-results.duckdb"

#: At most this many distinct validation problems are listed in one error.
_MAX_PROBLEMS = 5


@dataclass
class SweepOutcome:
    """What a sweep did (the CLI's closing lines)."""

    spec: SweepSpec = field(repr=False)
    campaign: str
    store: Path
    code_version: str
    #: Runs in the campaign: points x seeds.
    total: int
    points: list[Point] = field(repr=False)
    #: Runs already stored (for this code version) when the sweep started.
    stored_before: int = 0
    #: Runs this sweep finished, and how many of them failed.
    ran: int = 0
    failed: int = 0
    #: The error text of this sweep's first failed run, if any.
    first_error: str | None = None
    elapsed_s: float = 0.0
    #: True when Ctrl-C stopped the sweep before it finished.
    interrupted: bool = False
    dry_run: bool = False


def default_store(spec: SweepSpec) -> Path:
    """``<sweep file's directory>/<campaign>.duckdb``, or `DEFAULT_STORE` for a dict."""
    if spec.file is not None:
        return spec.file.parent / f"{spec.name}.duckdb"
    return Path(DEFAULT_STORE)


def scenario_source(spec: SweepSpec) -> ScenarioSource:
    """The base scenario as the runner takes it: a path string or an inline table."""
    return str(spec.scenario) if isinstance(spec.scenario, Path) else dict(spec.scenario)


def _field_path(error: BaseException) -> str:
    """The scenario field an error names (``flow[0].tcp`` read as ``flow.0.tcp``)."""
    path = str(getattr(error, "path", "") or "")
    return path.replace("[", ".").replace("]", "").strip(".")


def _names_the_key_not_the_value(error: BaseException) -> bool:
    """True for a scenario error about a key itself (unknown, misplaced): it carries a
    `value` attribute that is None, so every value of an axis on that key fails alike."""
    return hasattr(error, "value") and getattr(error, "value", 0) is None


def _blame(spec: SweepSpec, point: Point, error: BaseException) -> tuple[str, str | None]:
    """The error in words, led by the override that caused it; and that override's key."""
    text = " ".join(str(error).split())
    path = _field_path(error)
    related = [
        key
        for key in point.overrides
        if path and (key == path or key.startswith(path + ".") or path.startswith(key + "."))
    ]
    if related:
        key = max(related, key=len)
        axis = "[grid]" if key in spec.grid else "[zip]" if key in spec.zip else None
        if axis is not None and _names_the_key_not_the_value(error):
            # The same complaint for every value of the axis: say it once, for the axis.
            file = str(getattr(error, "file", ""))
            rest = text[len(file) + 2 :] if file and text.startswith(file + ": ") else text
            rest = rest.removeprefix(f"{getattr(error, 'path', '')}: ")
            return f"{axis} {key}: {rest}", key
        return f"{point.origin(key, spec)}: {text}", key
    where = ", ".join(f"{k} = {v!r}" for k, v in point.params.items())
    return f"variant {point.variant!r}" + (f" at {where}" if where else "") + f": {text}", None


def validate_points(
    spec: SweepSpec, points: Sequence[Point], validator: Validator | None = None
) -> None:
    """Check the base scenario, then every point with its overrides; raise `SweepError`.

    The error names the axis (``[grid] topology.wireless.errors.per = 2.0``) or variant
    whose override the scenario rejected, with the scenario's own message.
    """
    check = validator if validator is not None else validate_lastmile
    source = scenario_source(spec)
    try:
        check(source, {})
    except Exception as e:
        raise SweepError(f"scenario: {' '.join(str(e).split())}", file=spec.origin) from None
    problems: dict[str, tuple[str | None, Any]] = {}
    for point in points:
        try:
            check(source, point.overrides)
        except Exception as e:
            message, key = _blame(spec, point, e)
            problems.setdefault(message, (key, point.overrides.get(key) if key else None))
            if len(problems) > _MAX_PROBLEMS:
                break
    if problems:
        listed = list(problems)[:_MAX_PROBLEMS]
        more = " (and more)" if len(problems) > _MAX_PROBLEMS else ""
        axis, value = problems[listed[0]]
        raise SweepError("; ".join(listed) + more, file=spec.origin, axis=axis, value=value)


def _executor(runner: Runner, chunker: executors.Chunker, client: Any) -> Iterator[pa.Table]:
    if client is not None:
        return executors.execute_dask(runner, chunker, client)
    if chunker.workers <= 1:
        return executors.execute_serial(runner, chunker)
    return executors.execute_pool(runner, chunker, chunker.workers)


def run_campaign(
    sweep: str | os.PathLike[str] | Mapping[str, Any] | SweepSpec,
    *,
    jobs: int | None = None,
    client: Any = None,
    store: str | os.PathLike[str] | None = None,
    retry_failed: bool = False,
    dry_run: bool = False,
    progress: bool | None = None,
    runner: Runner | None = None,
    validator: Validator | None = None,
    chunk_size: int | None = None,
) -> SweepOutcome:
    """Run the campaign's missing runs (see the module docstring) and say what happened.

    `progress` None reports on stderr; False is silent. Ctrl-C stops the sweep cleanly:
    the outcome says ``interrupted`` and what was stored stays stored.
    """
    _check_arguments(sweep, jobs, store, chunk_size)
    spec = load_sweep(sweep if isinstance(sweep, SweepSpec | Mapping) else Path(sweep))
    points = spec.points()
    validate_points(spec, points, validator)
    code = code_version()
    path = Path(store) if store is not None else default_store(spec)
    outcome = SweepOutcome(spec, spec.name, path, code.key, len(points) * len(spec.seeds), points)
    if dry_run and not path.is_file():
        outcome.dry_run = True
        return outcome
    import pyarrow as pa

    with Store(path, read_only=dry_run) as st, store_errors(path):
        keys = [p.key for p in points for _ in spec.seeds]
        todo = pa.table(
            {"i": range(len(keys)), "point_key": keys, "seed": list(spec.seeds) * len(points)}
        )
        missing = st.missing(spec.name, code.key, todo, retry_failed=retry_failed)
        outcome.stored_before = outcome.total - len(missing)
        if dry_run:
            outcome.dry_run = True
            return outcome
        st.record_campaign(spec.name, spec.axes, _stored_sweep(spec), str(spec.file or ""))
        tasks = _tasks(spec, points, missing)
        if not tasks:
            return outcome
        if client is not None:
            workers = executors.dask_workers(client)
        else:
            workers = min(jobs or default_jobs(), len(tasks))
        chunker = executors.Chunker(tasks, workers, fixed=chunk_size)
        stream = _executor(runner or run_lastmile, chunker, client)
        bar = Progress(len(tasks), label=f"{spec.name}: ", enabled=progress is not False)
        constants = {
            "campaign": spec.name,
            "code_version": code.key,
            "lastmile_version": code.lastmile_version,
            "git_commit": code.git_commit,
        }
        with _ctrl_c_as_a_request() as stop:
            _drain(stream, chunker, st, constants, outcome, bar, stop)
    return outcome


def _resolved_base(spec: SweepSpec) -> dict[str, Any] | None:
    """The base scenario as the core resolves it (every key, defaults filled in), or None
    when it cannot be read (a campaign run with a stand-in runner)."""
    import lastmile

    try:
        if isinstance(spec.scenario, Path):
            return lastmile.load(spec.scenario).to_dict()
        return lastmile.Scenario.from_text(canonical_json(spec.scenario), "json").to_dict()
    except lastmile.LastmileError:
        return None


def _stored_sweep(spec: SweepSpec) -> str:
    """What the store keeps of a campaign: the sweep (canonical JSON), with the base
    scenario resolved (``base_scenario``) and the command that runs it (``command``), so a
    report can say what ran."""
    import json
    import shlex

    stored = json.loads(spec.to_json())
    stored["base_scenario"] = _resolved_base(spec)
    if spec.file is not None:
        stored["command"] = shlex.join(["lastmile", "sweep", str(spec.file)])
    return canonical_json(stored)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_arguments(sweep: object, jobs: object, store: object, chunk_size: object) -> None:
    """Refuse arguments of the wrong kind before anything is read or run."""
    if not isinstance(sweep, SweepSpec | Mapping | str | os.PathLike):
        raise ArgumentTypeError(
            f"spec = {clip(sweep)}: expected a sweep file path, a dict or a SweepSpec",
            argument="spec",
            value=sweep,
        )
    if store is not None:
        check_path(store, "store", "a path to a results store (.duckdb)")
    for name, value in (("jobs", jobs), ("chunk_size", chunk_size)):
        if value is None:
            continue
        if not _whole(value):
            raise ArgumentTypeError(
                f"{name} = {clip(value)}: expected a whole number, at least 1",
                argument=name,
                value=value,
            )
        if value < 1:  # type: ignore[operator]
            raise ArgumentError(
                f"{name} = {clip(value)}: expected a whole number, at least 1",
                argument=name,
                value=value,
            )


@contextmanager
def _ctrl_c_as_a_request() -> Iterator[threading.Event]:
    """While the sweep runs, Ctrl-C (SIGINT) only sets a flag, checked between stored chunks.

    A KeyboardInterrupt raised at an arbitrary instant can land inside `concurrent.futures`'
    own locking and leave the pool's manager thread waiting forever, so the interpreter never
    exits. Off the main thread (where signals cannot be handled) nothing changes.
    """
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signal.signal(signal.SIGINT, lambda _signum, _frame: stop.set())
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def _tasks(spec: SweepSpec, points: Sequence[Point], missing: Sequence[int]) -> list[RunTask]:
    """The runs to do: run ``i`` is point ``i // seeds`` with seed ``i % seeds``.

    Each carries its row's key columns; an axis mixing kinds (or holding lists) is stored
    as JSON text.
    """
    source = scenario_source(spec)
    text = spec.text_axes()
    columns = [
        {
            "point_key": p.key,
            "variant": p.variant,
            **{a: canonical_json(v) if a in text else v for a, v in p.params.items()},
        }
        for p in points
    ]
    n = len(spec.seeds)
    return [
        RunTask(source, seed, points[i // n].overrides, {**columns[i // n], "seed": seed})
        for i in missing
        for seed in (spec.seeds[i % n],)
    ]


def _drain(
    stream: Iterator[pa.Table],
    chunker: executors.Chunker,
    st: Store,
    constants: Mapping[str, str],
    outcome: SweepOutcome,
    bar: Progress,
    stop: threading.Event | None = None,
) -> None:
    """Store the rows as they come (one commit per table), counting them; stop (as
    interrupted) once `stop` is set."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        for rows in stream:
            n = rows.num_rows
            for name, value in constants.items():
                rows = rows.append_column(name, pa.array([value] * n, pa.string()))
            st.insert(rows)
            chunker.observe(rows)
            errors = pc.filter(rows["error"], pc.not_equal(rows["status"], "ok"))
            if len(errors) and outcome.first_error is None:
                outcome.first_error = str(errors[0].as_py())
            outcome.ran += n
            outcome.failed += len(errors)
            bar.advance(n, len(errors))
            if stop is not None and stop.is_set():
                outcome.interrupted = True
                break
    except KeyboardInterrupt:
        outcome.interrupted = True
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
        bar.close()
        outcome.elapsed_s = bar.elapsed_s
