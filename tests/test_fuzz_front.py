"""Property tests of the Python front: whatever the arguments, the API
raises only `lastmile.LastmileError` (one line, naming the value), and the CLI answers
with status 0 or 2 and at most one error line, never a traceback.

Hypothesis draws override keys from the scenario's own paths and from junk, values of
every Python type (huge integers, NaN, bytes, nested lists, objects), seeds of any size,
arbitrary scenario text in every format, and arbitrary ``--set`` strings. The Rust loader
has its own fuzz target (crates/lastmile-core/tests/fuzz_loader.rs).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lastmile
from conftest import example
from lastmile import cli

TULIP = str(example("tulip-basic"))

#: Real paths of the example, and a few that are not.
KEYS = [
    "name",
    "seed",
    "stop_time",
    "topology.preset",
    "topology.wired.rate",
    "topology.wired.delay",
    "topology.wired.queue",
    "topology.wireless.errors",
    "topology.wireless.errors.ber",
    "topology.wireless.mac",
    "topology.wireless.link",
    "topology.mobiles",
    "base_station.agent",
    "flow",
    "flow.0",
    "flow.0.src",
    "flow.0.tcp.variant",
    "flow.0.tcp.mss",
    "flow.0.tcp.rwnd",
    "flow.0.app",
    "flow.0.app.bytes",
    "flow.1.src",
    "",
    ".",
    "flow..x",
    "seed.x",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["1e308s", "2e10s", "1e400MB", "1e400Mbps", "../x", "stop_and_wait", "-1"]),
    st.binary(max_size=8),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
keys = st.one_of(st.sampled_from(KEYS), st.text(max_size=20))

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def one_line(error: BaseException) -> str:
    text = str(error)
    assert "\n" not in text and "\r" not in text, repr(text)
    assert len(text) < 3000
    return text


@FAST
@given(overrides=st.dictionaries(keys, values, max_size=3))
def test_load_with_any_overrides_returns_or_raises_a_lastmile_error(
    overrides: dict[str, Any],
) -> None:
    try:
        lastmile.load(TULIP, overrides)
    except lastmile.ScenarioError as e:
        assert e.file.startswith(TULIP), e
        one_line(e)
    except lastmile.LastmileError as e:
        one_line(e)


@FAST
@given(overrides=st.one_of(st.lists(st.text(max_size=40), max_size=3), values))
def test_overrides_of_any_shape(overrides: Any) -> None:
    try:
        lastmile.load(TULIP, overrides)
    except lastmile.LastmileError as e:
        one_line(e)


@FAST
@given(
    seed=st.one_of(
        st.integers(), st.floats(allow_nan=True), st.text(max_size=5), st.none(), st.booleans()
    )
)
def test_any_seed_runs_or_is_an_argument_error(seed: Any) -> None:
    valid = seed is None or (
        isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed <= 2**64 - 1
    )
    try:
        result = lastmile.validate(TULIP, seed=seed)
    except lastmile.ArgumentError as e:
        assert not valid, (seed, e)
        one_line(e)
        text = str(e)
        assert "seed = " in text
        if isinstance(seed, float) and math.isnan(seed):
            assert "nan" in text
    else:
        assert valid, seed
        assert result.name == "tulip-basic"


@FAST
@given(
    text=st.text(max_size=200),
    format=st.one_of(st.sampled_from(["toml", "yaml", "json", "YAML", "yml"]), st.text()),
)
def test_any_text_in_any_format(text: str, format: str) -> None:
    try:
        lastmile.Scenario.from_text(text, format)  # type: ignore[arg-type]
    except lastmile.LastmileError as e:
        one_line(e)


@FAST
@given(path=st.one_of(st.none(), st.integers(), st.binary(), st.text(max_size=30)))
def test_any_path(path: Any) -> None:
    try:
        lastmile.load(path)
    except lastmile.LastmileError as e:
        one_line(e)


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(sets=st.lists(st.text(max_size=40), min_size=1, max_size=2))
def test_the_cli_answers_any_set_with_0_or_2_and_one_line(
    sets: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["validate", TULIP]
    for s in sets:
        argv += ["--set", s]
    try:
        status = cli.main(argv)
    except SystemExit as e:  # argparse: a --set that looks like an option
        assert e.code == 2
        capsys.readouterr()
        return
    err = capsys.readouterr().err
    assert status in (0, 2), err
    if status == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("lastmile: error: "), err
        assert TULIP in lines[0]
