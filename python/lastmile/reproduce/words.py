"""How a paper's words become the band its claim is tested in: one rule per phrase.

Every claim of `lastmile.reproduce` quotes a sentence and tests the band that sentence
implies. The band is read from the words alone, before any run, by the rules below, the
same for every paper; a claim never picks its own tolerance. A test feeds each paper's own
published numbers through the claims they bear on (`tests/test_reproduce_papers.py`): a
band the paper itself fails is mis-read.

Numbers
- **As written** (`written`): a number is read to half a unit of its last written digit,
  every written digit counting ("35" is 34.5-35.5, "70" is 69.5-70.5, "2.4" is 2.35-2.45,
  "0.32" is 0.315-0.325); a written range "a-b" runs from a's lower end to b's upper end
  ("50-70" is 49.5-70.5). Word numbers are digits ("five fold" is 5: 4.5-5.5).
- **Hedged** (`about`: "about", "around", "approximately", "roughly"): the wider of the
  written band and ±10 % of the number ("approximately 47%" is 42.3-51.7, "around 2%"
  1.5-2.5).
- **"almost x", "nearly x"** (`almost`): from 10 % below x up to x ("almost doubles":
  1.8-2.0).
- **"up to x", "as high as x", "reaches x"**: the largest value is x as written; **"at least
  x", "more than x"**: not below / above x; **"x-fold", "x times"**: the ratio is x as written.
- **"tends to x"** (a limit): the value moves towards x as the variable approaches its limit,
  and at the point nearest the limit that we run it is about x (hedged).
- **The paper's own numbers** (`ratio_band`, `hull`): a quantity computed from two published
  numbers spans what their roundings allow (4.71 / 4.1 - 1: 13.4-16.4 %); a quantity the paper
  states twice (text and table) must pass both statements: the band is their hull.

Comparisons (means over seeds unless the phrase asks for more)
- "above", "below", "better", "worse", "higher", "lower", "outperforms", "more", "less":
  the means are ordered.
- "slightly better / worse / lower" (`slightly_above`): ordered, and apart by at most 10 %
  of the larger.
- "similar", "comparable", "nearly identical", "almost the same", "equivalently",
  "equally" (`similar`): within 10 % of the larger.
- "clearly", "significantly", "much", "a lot": the 95 % confidence intervals are disjoint;
  "no significant difference": no two intervals disjoint.
- "no better", "not better", "does not yield better" (`not_clearly_above`): not clearly
  better, i.e. the intervals are not disjoint in the better one's favour.
- "no appreciable degradation", "works well", "keeps up" (`no_appreciable_drop`): less than
  5 % below the reference; "degrades": 5 % or more below it.
- "greatly reduced" (`greatly_below`): at most half the reference; "does not greatly
  modify" (`not_greatly_changed`): within a factor of two either way.
- "near standstill", "down to zero", "black-out" (`near_standstill`): below 10 % of the
  reference throughput.
- "in every instance", "consistently", "always", "all": at every point we run.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from lastmile.reproduce.framework import Stat, clearly_above, within

__all__ = [
    "APPRECIABLE",
    "GREATLY",
    "HEDGE",
    "SIMILAR",
    "SLIGHTLY",
    "STANDSTILL",
    "Band",
    "about",
    "almost",
    "greatly_below",
    "hull",
    "near_standstill",
    "no_appreciable_drop",
    "not_clearly_above",
    "not_greatly_changed",
    "ratio_band",
    "similar",
    "slightly_above",
    "written",
]

#: "similar", "comparable", "nearly identical", "almost the same", "equally": within 10 %.
SIMILAR = 0.10
#: "slightly": apart by at most 10 % of the larger.
SLIGHTLY = 0.10
#: "about", "around", "approximately": at least ±10 % of the number.
HEDGE = 0.10
#: "almost x": down to 10 % below x.
ALMOST = 0.10
#: "no appreciable degradation": less than 5 % below the reference.
APPRECIABLE = 0.05
#: "near standstill", "down to zero": below 10 % of the reference.
STANDSTILL = 0.10
#: "greatly": a factor of two.
GREATLY = 2.0

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_WORD_NUMBERS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "twice": "2",
    "double": "2",
    "doubles": "2",
    "half": "0.5",
}


@dataclass(frozen=True)
class Band:
    """A closed interval [lo, hi] and how the words gave it."""

    lo: float
    hi: float
    #: The paper's words the band was read from, e.g. "'35%'".
    words: str
    #: The rule that read them, e.g. "as written".
    rule: str

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int | float) and self.lo <= float(value) <= self.hi

    def holds(self, value: float) -> bool:
        return self.lo <= value <= self.hi

    def scaled(self, k: float) -> Band:
        """The same band in another unit (e.g. a percentage as a fraction: k = 0.01)."""
        return Band(self.lo * k, self.hi * k, self.words, self.rule)

    def describe(self, unit: str = "") -> str:
        """ "34.5-35.5 % ('35%' as written)"."""
        sep = " " if (unit and unit[0].isalpha()) or unit == "%" else ""
        return f"{_fmt(self.lo)}-{_fmt(self.hi)}{sep}{unit} ({self.words} {self.rule})"

    def __str__(self) -> str:
        return self.describe()


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.4g}"


def _numbers(text: str) -> list[str]:
    words = [_WORD_NUMBERS.get(w.lower(), w) for w in re.split(r"(\W+)", text)]
    found = _NUMBER.findall("".join(words))
    if not found:
        raise ValueError(f"no number in {text!r}")
    return found


def _half_unit(number: str) -> float:
    """Half a unit of the last written digit: "35" → 0.5, "2.4" → 0.05, "0.315" → 0.0005."""
    decimals = len(number.split(".")[1]) if "." in number else 0
    return 0.5 * 10.0**-decimals


def written(text: str) -> Band:
    """A number, or a range "a-b" / "a to b", as written (see the module docstring)."""
    found = _numbers(text)
    first, last = found[0], found[-1]
    lo = float(first) - _half_unit(first)
    hi = float(last) + _half_unit(last)
    return Band(lo, hi, f"'{text}'", "as written")


def about(text: str) -> Band:
    """A hedged number ("about", "around", "approximately"): the wider of the written band
    and ±10 %."""
    w = written(text)
    x = float(_numbers(text)[0])
    return Band(
        min(w.lo, x * (1 - HEDGE)), max(w.hi, x * (1 + HEDGE)), w.words, "hedged (at least ±10 %)"
    )


def almost(text: str) -> Band:
    """ "almost x", "nearly x": from 10 % below x up to x."""
    x = float(_numbers(text)[0])
    return Band(x * (1 - ALMOST), x, f"'almost {text}'", "(10 % below it up to it)")


def ratio_band(num: str, den: str, *, minus_one: bool = False, percent: bool = False) -> Band:
    """num / den (- 1; in % if `percent`) over every value the two published numbers'
    roundings allow: "4.71" / "4.1" - 1 is 13.4-16.4 %."""
    n, d = written(num), written(den)
    lo, hi = n.lo / d.hi, n.hi / d.lo
    if minus_one:
        lo, hi = lo - 1.0, hi - 1.0
    if percent:
        lo, hi = 100.0 * lo, 100.0 * hi
    return Band(lo, hi, f"{num} / {den}{' - 1' if minus_one else ''}", "with their roundings")


def hull(*bands: Band) -> Band:
    """The band of a quantity the paper states more than once: it must pass every statement."""
    return Band(
        min(b.lo for b in bands),
        max(b.hi for b in bands),
        "; ".join(f"{b.words} {b.rule}" for b in bands),
        "(the hull of the paper's statements)",
    )


def similar(a: float, b: float) -> bool:
    """ "similar", "comparable", "nearly identical": within 10 % of the larger."""
    return within(a, b, SIMILAR)


def slightly_above(a: float, b: float) -> bool:
    """ "a slightly above b": above, and by at most 10 % of the larger."""
    return a > b and within(a, b, SLIGHTLY)


def not_clearly_above(a: Stat, b: Stat) -> bool:
    """ "a no better than b": a not above b beyond the 95 % intervals."""
    return not clearly_above(a, b)


def no_appreciable_drop(value: float, reference: float) -> bool:
    """ "no appreciable degradation": less than 5 % below the reference."""
    return value > (1.0 - APPRECIABLE) * reference


def near_standstill(value: float, reference: float) -> bool:
    """ "near standstill", "down to zero": below 10 % of the reference."""
    return value < STANDSTILL * reference


def greatly_below(value: float, reference: float) -> bool:
    """ "greatly reduced": at most half the reference."""
    return value <= reference / GREATLY


def not_greatly_changed(value: float, reference: float) -> bool:
    """ "does not greatly modify": within a factor of two of the reference, either way."""
    return reference / GREATLY <= value <= reference * GREATLY
