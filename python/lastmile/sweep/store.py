"""The results store: one DuckDB file, one row per (campaign, point, seed, code version).

Tables:

- ``runs``: the key ``(campaign, point_key, seed, code_version)`` is the primary key, and
  a row whose key is stored already replaces it (insert-or-replace), so a run stored
  twice (a resumed sweep, a retried failure) is one row. Then ``variant``, ``status``
  ("ok"/"failed"), ``error``, ``wall_s`` (the run's time in its worker),
  ``lastmile_version``, ``git_commit``, ``finished_at``; one column per axis, named by
  its dotted path (quote it in SQL: ``"topology.wireless.errors.per"``); and the
  flattened metrics (see `runner`), added as they first appear. A column's type widens
  when later values need it (BOOLEAN → BIGINT → DOUBLE → VARCHAR).
- ``flows``: one row per flow of every stored run (runs of thousands of flows),
  keyed by the run's key and ``flow`` (its index in the summary's ``flows`` list), with
  the flow's summary fields (``name``, ``group``, ``src``, ``dst``, ``tcp_variant``,
  ``throughput_bps``, ``tcp_timeouts``, ...) as columns, added and widened like the runs'
  metrics. A run stored again replaces its flows.
- ``campaigns``: per campaign, its axes (every axis it has ever had, JSON), its latest
  sweep (canonical JSON) and sweep file, and when it was created and last updated.

Only one process writes: the sweep's parent. Workers return records and the parent
commits each chunk in one transaction, so a killed sweep leaves whole chunks or nothing.
DuckDB locks the file while it is open for writing; `results` opens it read-only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lastmile._errors import StoreError

if TYPE_CHECKING:
    import duckdb
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "FIXED_COLUMNS",
    "FLOWS_COLUMN",
    "RUN_KEY",
    "Store",
    "StoreError",
    "quote",
    "store_errors",
]

#: The columns every ``runs`` row has, in display order.
FIXED_COLUMNS = (
    "campaign",
    "variant",
    "seed",
    "status",
    "error",
    "wall_s",
    "code_version",
    "lastmile_version",
    "git_commit",
    "point_key",
    "finished_at",
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    campaign VARCHAR NOT NULL,
    point_key VARCHAR NOT NULL,
    seed BIGINT NOT NULL,
    code_version VARCHAR NOT NULL,
    variant VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    error VARCHAR,
    wall_s DOUBLE,
    lastmile_version VARCHAR,
    git_commit VARCHAR,
    finished_at TIMESTAMPTZ DEFAULT current_timestamp,
    PRIMARY KEY (campaign, point_key, seed, code_version)
);
CREATE TABLE IF NOT EXISTS flows (
    campaign VARCHAR NOT NULL,
    point_key VARCHAR NOT NULL,
    seed BIGINT NOT NULL,
    code_version VARCHAR NOT NULL,
    flow BIGINT NOT NULL,
    PRIMARY KEY (campaign, point_key, seed, code_version, flow)
);
CREATE TABLE IF NOT EXISTS campaigns (
    campaign VARCHAR PRIMARY KEY,
    axes VARCHAR NOT NULL,
    sweep VARCHAR NOT NULL,
    sweep_file VARCHAR,
    created_at TIMESTAMPTZ DEFAULT current_timestamp,
    updated_at TIMESTAMPTZ DEFAULT current_timestamp
);
"""

#: A run's key: the primary key of ``runs``, and of ``flows`` with ``flow``.
RUN_KEY = ("campaign", "point_key", "seed", "code_version")
#: The batch column holding each run's flows (a list of structs, one per flow).
FLOWS_COLUMN = "flows"

#: Column types in widening order.
_WIDTH = {"BOOLEAN": 0, "BIGINT": 1, "DOUBLE": 2, "VARCHAR": 3}


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())


@contextmanager
def store_errors(path: str | os.PathLike[str]) -> Iterator[None]:
    """DuckDB's own errors on the store at `path` (a truncated or corrupt file, a full
    disk) as `StoreError`; a constraint violation (the insert's own retry) passes."""
    import duckdb

    try:
        yield
    except duckdb.ConstraintException:
        raise
    except duckdb.Error as e:
        raise StoreError(
            f"{path}: cannot read or write the results store ({_one_line(e)}); the file may "
            "be truncated or damaged: move it aside and run the sweep again to rebuild it"
        ) from e


def quote(name: str) -> str:
    """`name` as a DuckDB identifier (axis columns hold dots)."""
    return '"' + name.replace('"', '""') + '"'


def _duck_type(arrow_type: pa.DataType) -> str | None:
    import pyarrow as pa

    if pa.types.is_null(arrow_type):
        return None
    if pa.types.is_boolean(arrow_type):
        return "BOOLEAN"
    if pa.types.is_integer(arrow_type):
        return "BIGINT"
    if pa.types.is_floating(arrow_type):
        return "DOUBLE"
    return "VARCHAR"


class Store:
    """A results store opened for writing (the default) or reading."""

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        import duckdb

        self.path = Path(path)
        if read_only and not self.path.is_file():
            raise StoreError(f"{self.path}: no such results store")
        try:
            self.con: duckdb.DuckDBPyConnection = duckdb.connect(
                str(self.path), read_only=read_only
            )
        except duckdb.Error as e:
            text = _one_line(e)
            why = (
                "is a sweep writing to it?"
                if "lock" in text.lower()
                else "it is not a results store, or it is damaged"
            )
            raise StoreError(f"{self.path}: cannot open the results store ({text}); {why}") from e
        with store_errors(self.path):
            self._refuse_a_foreign_database()
            if not read_only:
                self.con.execute(_SCHEMA)
            self._types = self._column_types()
            self._flow_types = self._column_types("flows")

    def _refuse_a_foreign_database(self) -> None:
        """A DuckDB file that holds tables but not a results store's is refused before
        anything is written to it (an empty file becomes a store)."""
        tables = {
            str(name)
            for (name,) in self.con.execute(
                "SELECT table_name FROM information_schema.tables"
            ).fetchall()
        }
        if tables and not {"runs", "campaigns"} <= tables:
            self.con.close()
            shown = ", ".join(sorted(tables)[:5]) + (", …" if len(tables) > 5 else "")
            raise StoreError(
                f"{self.path}: not a lastmile results store (it holds the tables {shown}); "
                "it was left untouched: give another --store"
            )

    def close(self) -> None:
        """Close the file (a checkpoint folds the write-ahead log into it)."""
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _column_types(self, table: str = "runs") -> dict[str, str]:
        rows = self.con.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = ? ORDER BY ordinal_position",
            [table],
        ).fetchall()
        return {str(name): str(kind) for name, kind in rows}

    @property
    def columns(self) -> list[str]:
        """The ``runs`` table's columns, in table order."""
        return list(self._types)

    def numeric_columns(self) -> set[str]:
        """Columns that can be averaged."""
        kinds = ("BOOLEAN", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UBIGINT")
        return {c for c, t in self._types.items() if t in kinds or t in ("DOUBLE", "FLOAT")}

    # -- campaigns -------------------------------------------------------------------

    def record_campaign(
        self, name: str, axes: Sequence[str], sweep_json: str, sweep_file: str | None
    ) -> None:
        """Create or update the campaign's row; its axes are the union over time."""
        known = self._axes([name])
        merged = [*known, *(a for a in axes if a not in known)]
        self.con.execute(
            "INSERT INTO campaigns (campaign, axes, sweep, sweep_file) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (campaign) DO UPDATE SET axes = excluded.axes, sweep = excluded.sweep, "
            "sweep_file = excluded.sweep_file, updated_at = now()",
            [name, json.dumps(merged), sweep_json, sweep_file],
        )

    def campaigns(self) -> list[str]:
        """Every campaign in the store, by name."""
        rows = self.con.execute("SELECT campaign FROM campaigns ORDER BY 1").fetchall()
        return [str(r[0]) for r in rows]

    def campaign_axes(self, names: Sequence[str]) -> list[str]:
        """The axes (columns) of the campaigns `names`, in order of first appearance."""
        return [a for a in self._axes(names) if a in self._types]

    def _axes(self, names: Sequence[str]) -> list[str]:
        rows = self.con.execute(
            "SELECT axes FROM campaigns WHERE list_contains(?, campaign) ORDER BY created_at",
            [list(names)],
        ).fetchall()
        axes: list[str] = []
        for (text,) in rows:
            axes.extend(a for a in json.loads(text) if a not in axes)
        return axes

    # -- runs ------------------------------------------------------------------------

    def missing(
        self, campaign: str, code_version: str, todo: pa.Table, *, retry_failed: bool
    ) -> list[int]:
        """Indices of the `todo` runs (columns ``i``, ``point_key``, ``seed``) not stored.

        A stored failure counts as done unless `retry_failed`.
        """
        done = "status = 'ok'" if retry_failed else "TRUE"
        self.con.register("_todo", todo)
        try:
            rows = self.con.execute(
                "SELECT i FROM _todo ANTI JOIN (SELECT point_key, seed FROM runs "
                f"WHERE campaign = ? AND code_version = ? AND {done}) USING (point_key, seed) "
                "ORDER BY i",
                [campaign, code_version],
            ).fetchall()
        finally:
            self.con.unregister("_todo")
        return [int(r[0]) for r in rows]

    def insert(self, batch: pa.Table) -> None:
        """Insert (or replace) `batch`'s rows and commit, adding or widening columns.

        A ``flows`` column (each run's flows as a list of structs, see `runner`) goes to
        the ``flows`` table, one row per flow, in the same transaction.

        A sweep only runs what the store lacks, so a plain INSERT is tried first (DuckDB's
        INSERT OR REPLACE costs several times more); a key that is already stored (a
        retried failure) makes the batch go in again with INSERT OR REPLACE.
        """
        import duckdb

        flows = None
        if FLOWS_COLUMN in batch.column_names:
            flows = batch.select([*RUN_KEY, FLOWS_COLUMN])
            batch = batch.drop_columns([FLOWS_COLUMN])
        # A column that is all null in this batch and new to the table waits for a value.
        keep = [f.name for f in batch.schema if f.name in self._types or _duck_type(f.type)]
        batch = batch.select(keep)
        self.con.register("_batch", batch)
        if flows is not None:
            self.con.register("_flow_batch", flows)
        try:
            try:
                self._insert("INSERT", batch.schema, flows)
            except duckdb.ConstraintException:
                self._insert("INSERT OR REPLACE", batch.schema, flows)
        finally:
            self.con.unregister("_batch")
            if flows is not None:
                self.con.unregister("_flow_batch")

    def _insert(self, verb: str, schema: pa.Schema, flows: pa.Table | None) -> None:
        self.con.execute("BEGIN TRANSACTION")
        try:
            self._types = self._fit_columns("runs", self._types, schema)
            self.con.execute(f"{verb} INTO runs BY NAME SELECT * FROM _batch")
            if flows is not None:
                self._insert_flows(flows, replace=verb != "INSERT")
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            self._types = self._column_types()
            self._flow_types = self._column_types("flows")
            raise

    def _insert_flows(self, flows: pa.Table, *, replace: bool) -> None:
        """One ``flows`` row per flow of `flows`' runs (unnested in DuckDB)."""
        import pyarrow as pa

        kind = flows.schema.field(FLOWS_COLUMN).type
        if not (pa.types.is_list(kind) and pa.types.is_struct(kind.value_type)):
            return  # no run of this batch has flows (every run failed)
        key = ", ".join(RUN_KEY)
        if replace:
            self.con.execute(
                f"DELETE FROM flows WHERE ({key}) IN (SELECT ({key}) FROM _flow_batch)"
            )
        fields = pa.schema([f for f in kind.value_type if _duck_type(f.type)])
        self._flow_types = self._fit_columns("flows", self._flow_types, fields)
        columns = ", ".join(f"f.{quote(f.name)} AS {quote(f.name)}" for f in fields)
        self.con.execute(
            f"INSERT INTO flows BY NAME SELECT {key}, {columns} FROM "
            f"(SELECT {key}, unnest({FLOWS_COLUMN}) AS f FROM _flow_batch)"
        )

    def _fit_columns(self, table: str, types: dict[str, str], schema: pa.Schema) -> dict[str, str]:
        """`types` (the columns of `table`) after adding or widening those `schema` needs."""
        types = dict(types)
        for field in schema:
            wanted = _duck_type(field.type)
            have = types.get(field.name)
            if wanted is None or have == wanted:
                continue
            if have is None:
                self.con.execute(f"ALTER TABLE {table} ADD COLUMN {quote(field.name)} {wanted}")
                types[field.name] = wanted
            elif have in _WIDTH and _WIDTH[wanted] > _WIDTH[have]:
                self.con.execute(f"ALTER TABLE {table} ALTER {quote(field.name)} TYPE {wanted}")
                types[field.name] = wanted
        return types

    def runs(
        self,
        campaigns: Sequence[str] | None = None,
        *,
        code_version: str | None = None,
        point_keys: Sequence[str] | None = None,
    ) -> pd.DataFrame:
        """Stored runs as a DataFrame: key columns, axes, seed, status, metrics, bookkeeping."""
        names = list(campaigns) if campaigns is not None else self.campaigns()
        where = ["list_contains(?, campaign)"]
        params: list[Any] = [names]
        if code_version is not None:
            where.append("code_version = ?")
            params.append(code_version)
        if point_keys is not None:
            import pyarrow as pa

            self.con.register("_keys", pa.table({"point_key": list(point_keys)}))
            where.append("point_key IN (SELECT point_key FROM _keys)")
        axes = self.campaign_axes(names)
        columns = ["campaign", "variant", *axes, "seed", "status", "error", *self.metric_columns()]
        columns += [c for c in FIXED_COLUMNS if c not in columns]
        select = ", ".join(quote(c) for c in columns)
        order = ", ".join(quote(c) for c in ("campaign", "variant", *axes, "seed"))
        query = f"SELECT {select} FROM runs WHERE {' AND '.join(where)} ORDER BY {order}"
        try:
            return self.frame(query, params)
        finally:
            if point_keys is not None:
                self.con.unregister("_keys")

    def flows(
        self, campaigns: Sequence[str] | None = None, *, code_version: str | None = None
    ) -> pd.DataFrame:
        """Stored flows as a DataFrame: campaign, variant, axes, seed, ``flow``, the flow's
        columns, then ``code_version`` and ``point_key``; runs in `runs` order."""
        names = list(campaigns) if campaigns is not None else self.campaigns()
        axes = self.campaign_axes(names)
        key = set(RUN_KEY) | {"flow"}
        own = [c for c in self._flow_types if c not in key]
        columns = [
            *(f"r.{quote(c)}" for c in ("campaign", "variant", *axes, "seed")),
            "f.flow",
            *(f"f.{quote(c)}" for c in own),
            "r.code_version",
            "r.point_key",
        ]
        order = ", ".join(f"r.{quote(c)}" for c in ("campaign", "variant", *axes, "seed"))
        query = (
            f"SELECT {', '.join(columns)} FROM flows f JOIN runs r USING ({', '.join(RUN_KEY)}) "
            "WHERE list_contains(?, r.campaign) AND (? IS NULL OR r.code_version = ?) "
            f"ORDER BY {order}, r.code_version, f.flow"
        )
        return self.frame(query, [names, code_version, code_version])

    def frame(self, query: str, params: Sequence[Any] = ()) -> pd.DataFrame:
        """The result of `query` as a pandas DataFrame (through Arrow)."""
        return self.con.sql(query, params=list(params)).to_arrow_table().to_pandas()

    def metric_columns(self) -> list[str]:
        """The metric columns (all but keys, bookkeeping and any campaign's axes)."""
        fixed = {*FIXED_COLUMNS, *self.campaign_axes(self.campaigns())}
        return [c for c in self._types if c not in fixed]
