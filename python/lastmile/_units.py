"""Units for people: reading the quantities scenario files write ("10ms", "1Mbps", "42KB",
"100pkt") as numbers, and printing columns of numbers with one unit and one precision.

`parse_quantity` reads the unit spellings the core accepts (`lastmile_core::units`: rates
bps/kbps/Mbps/Gbps, sizes B/KB/MB/GB/KiB/MiB/GiB, times ns/us/µs/ms/s/min, queue limits
pkt) into base units: seconds, bits per second, bytes or packets. `column_format` picks, for
a whole column, the unit a metric is shown in (``throughput (kbps)``; names carry their
unit as a suffix: ``_bps``, ``_s``, ``_bytes``) and the number of decimals that gives its
largest value three significant figures, so every row of a table reads alike.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["ColumnFormat", "column_format", "metric_quantity", "parse_quantity"]

_NUMBER = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-zµ]+)\s*$")

#: Unit → (base unit, factor to it).
_UNITS: dict[str, tuple[str, float]] = {
    "bps": ("bps", 1.0),
    "kbps": ("bps", 1e3),
    "Kbps": ("bps", 1e3),
    "Mbps": ("bps", 1e6),
    "Gbps": ("bps", 1e9),
    "B": ("bytes", 1.0),
    "KB": ("bytes", 1e3),
    "kB": ("bytes", 1e3),
    "MB": ("bytes", 1e6),
    "GB": ("bytes", 1e9),
    "KiB": ("bytes", 1024.0),
    "MiB": ("bytes", 1024.0**2),
    "GiB": ("bytes", 1024.0**3),
    "ns": ("s", 1e-9),
    "us": ("s", 1e-6),
    "µs": ("s", 1e-6),
    "ms": ("s", 1e-3),
    "s": ("s", 1.0),
    "min": ("s", 60.0),
    "pkt": ("pkt", 1.0),
    "pkts": ("pkt", 1.0),
    "packets": ("pkt", 1.0),
}

#: Display scales per base unit, largest first: (unit shown, factor from the base unit).
_SCALES: dict[str, tuple[tuple[str, float], ...]] = {
    "bps": (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3), ("bps", 1.0)),
    "s": (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)),
    "bytes": (("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("B", 1.0)),
}


def parse_quantity(text: object) -> tuple[float, str] | None:
    """``"10ms"`` → ``(0.01, "s")``; None for anything that is not a number with a unit."""
    if not isinstance(text, str):
        return None
    match = _NUMBER.match(text)
    if match is None or match.group(2) not in _UNITS:
        return None
    base, factor = _UNITS[match.group(2)]
    return float(match.group(1)) * factor, base


def metric_quantity(name: str) -> str | None:
    """The base unit a metric's name carries: "bps", "s", "bytes", "ratio", or None."""
    # The papers' goodputs are fractions (goodput_bytes included), so they come first.
    if "goodput" in name or name.endswith(("_ratio", "_fraction")):
        return "ratio"
    if name.endswith("_bps") or name.endswith(("_bps_mean", "_bps_sum", "_bps_min", "_bps_max")):
        return "bps"
    if name.endswith("_s"):
        return "s"
    if name.endswith("_bytes") or name.startswith("bytes_"):
        return "bytes"
    return None


@dataclass(frozen=True)
class ColumnFormat:
    """How to print one column: its unit label, the factor to divide by, the decimals."""

    unit: str
    divide_by: float
    decimals: int

    def __call__(self, value: object) -> str:
        if not isinstance(value, int | float) or math.isnan(value):
            return "-"
        return f"{value / self.divide_by:.{self.decimals}f}"

    def header(self, name: str) -> str:
        """``throughput_bps`` → ``throughput (kbps)``; unitless names stay as they are."""
        if not self.unit:
            return name
        suffix = {"bps": "_bps", "s": "_s", "bytes": "_bytes"}.get(metric_quantity(name) or "")
        return f"{name.removesuffix(suffix) if suffix else name} ({self.unit})"


def _decimals(largest: float) -> int:
    """Decimals that show `largest` with three significant figures (0 to 6)."""
    if largest <= 0 or not math.isfinite(largest):
        return 0
    return max(0, min(6, 2 - math.floor(math.log10(largest))))


def column_format(name: str, values: Iterable[object]) -> ColumnFormat:
    """The unit and precision for a column of metric `name` holding `values`."""
    finite = [abs(float(v)) for v in values if isinstance(v, int | float) and math.isfinite(v)]
    largest = max(finite, default=0.0)
    base = metric_quantity(name)
    if base in _SCALES:
        unit, factor = _SCALES[base][-1]
        for candidate, f in _SCALES[base]:
            if largest >= f:
                unit, factor = candidate, f
                break
        return ColumnFormat(unit, factor, _decimals(largest / factor))
    label = "ratio" if base == "ratio" else ""
    if all(float(v).is_integer() for v in finite) and base is None:
        return ColumnFormat(label, 1.0, 0)
    return ColumnFormat(label, 1.0, _decimals(largest))
