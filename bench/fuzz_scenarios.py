"""One-off adversarial check: generate mutated scenario files and make
sure lastmile never panics, never shows a traceback, and refuses each bad file with one
line naming the file and the field.

    python bench/fuzz_scenarios.py                 # 10,000 files, seed 1
    python bench/fuzz_scenarios.py -n 2000 --seed 7 --keep out/fuzz

Each file starts from one of the corpus scenarios (crates/lastmile-core/tests/fuzz_corpus,
read by lastmile itself and written back normalised), gets one to four structural
mutations (a value replaced by a hostile one, a key deleted, an unknown key added, an array
entry repeated) and sometimes damage to its text (truncated, a character inserted or
deleted), and is written as TOML, YAML or JSON. Then ``lastmile validate FILE`` runs in
this process (``lastmile.cli.main``, stderr captured), and a file that validates with a
small estimate is also run (at most about two million events). Checked for every file:

- exit status 0 or 2, no exception escapes (a traceback), no "internal error" (a panic);
- a refusal is exactly one stderr line ``lastmile: error: FILE: FIELD: ...``, or a
  whole-file problem (syntax, empty, not a table) ``lastmile: error: FILE: ...``;
- a file that validates also runs without error.

Prints the tally and exits 1 if any check failed.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import lastmile
from lastmile import cli

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "crates" / "lastmile-core" / "tests" / "fuzz_corpus"

HOSTILE: list[Any] = [
    "", " ", "0", "-1", "1e308s", "2e10s", "100000000s", "100000001s", "0s", "-5ms",
    "1e400MB", "1e16B", "0B", "65496B", "1e400Mbps", "0.1bps", "1bps", "1001Gbps", "0pkt",
    "1e400pkt", "NaN", "inf", "../../x", "/abs/x", "a/b", ".hidden", "\x00", "x\ny", "🦀",
    "stopandwait", "stop_and_wait", "tulip", "none", "dcf", "fama", "ideal", "p2p", "snoop",
    "wtcp", "itcp", "lle", "bulk", "poisson", "udp_saturate", "ber", "per", "burst",
    "on_off", "drop_list", "gilbert_elliott", "chain", "wlan", "adhoc", "802.11b", "short",
    "fh", "bs", "mh", "ap", "n1", "mh1", "delayed", "tahoe", "x" * 3000,
    0, 1, -1, 2, 8, 129, 1001, 16385, 65536, 2**63 - 1, -(2**63), 2**64, 0.5, 1e-300, 1e300,
    float("nan"), float("inf"), True, None, [], {}, [1, 2], {"model": "none"},
]  # fmt: skip

#: After the file name: a field path then ": ", e.g. ``flow[0].tcp.rwnd: got`` (keys that
#: are not bare TOML keys come quoted: ``flow[0]."a:b": unknown key``).
_SEGMENT = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*")(?:\[\d+\])*'
FIELD = re.compile(rf"^{_SEGMENT}(?:\.{_SEGMENT})*: ")
WHOLE_FILE = ("invalid TOML", "invalid YAML", "invalid JSON", "the file is empty", "the file holds")


def toml_value(v: Any) -> str | None:
    """`v` as an inline TOML value (None: TOML cannot hold it)."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return (
            "nan" if v != v else ("inf" if v > 0 else "-inf") if abs(v) == float("inf") else repr(v)
        )
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        items = [toml_value(x) for x in v]
        return "[" + ", ".join(i for i in items if i is not None) + "]"
    pairs = [(k, toml_value(x)) for k, x in v.items()]
    return "{ " + ", ".join(f"{json.dumps(k)} = {x}" for k, x in pairs if x is not None) + " }"


def write(doc: Any, fmt: str) -> str:
    if fmt == "json" or not isinstance(doc, dict):
        return json.dumps(doc, indent=1)
    if fmt == "yaml":  # JSON flow style is YAML
        return json.dumps(doc, indent=1)
    lines = []
    for k, v in doc.items():
        text = toml_value(v)
        if text is not None:
            lines.append(f"{json.dumps(k)} = {text}")
    return "\n".join(lines) + "\n"


def paths(doc: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [at]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths(v, (*at, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths(v, (*at, i))
    return out


def node(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def mutate(doc: Any, rng: random.Random) -> Any:
    path = rng.choice(paths(doc))
    kind = rng.choices(["replace", "delete", "add", "repeat"], [5, 1, 1, 1])[0]
    if not path:
        return copy.deepcopy(rng.choice(HOSTILE)) if kind == "replace" else doc
    parent = node(doc, path[:-1])
    last = path[-1]
    if kind == "replace":
        parent[last] = copy.deepcopy(rng.choice(HOSTILE))
    elif kind == "delete":
        del parent[last]
    elif kind == "add" and isinstance(parent[last], dict):
        key = rng.choice(["x", "rwind", "mac", "errors", "zz_top"])
        parent[last][key] = copy.deepcopy(rng.choice(HOSTILE))
    elif kind == "repeat" and isinstance(parent[last], list) and parent[last]:
        parent[last] += [parent[last][0]] * rng.choice([1, 2, 16384])
    return doc


def damage(text: str, rng: random.Random) -> str:
    if not text or rng.random() < 0.75:
        return text
    i = rng.randrange(len(text))
    choice = rng.randrange(3)
    if choice == 0:
        return text[:i]
    if choice == 1:
        return text[:i] + rng.choice(['"', "{", "[", "\n", "=", ":", "\x00", "é"]) + text[i:]
    return text[:i] + text[i + rng.randrange(1, 40) :]


class Stop(Exception):
    """Ends a fuzzed run after a couple of million events."""


def run_briefly(path: Path) -> str | None:
    """Runs `path` for at most ~2 M events; the error text if it fails."""
    calls = 0

    def progress(info: dict[str, Any]) -> None:
        nonlocal calls
        calls += 1
        if calls > 30:
            raise Stop

    try:
        lastmile.run(path, progress=progress)
    except Stop:
        return None
    except lastmile.LastmileError as e:
        return f"{type(e).__name__}: {e}"
    return None


def check_file(path: Path, tally: Counter[str], problems: list[str]) -> None:
    err, out = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            status = cli.main(["validate", str(path)])
    except BaseException as e:  # a traceback
        tally["tracebacks"] += 1
        problems.append(f"{path}: {type(e).__name__}: {e}")
        return
    text = err.getvalue()
    if "internal error" in text:
        tally["panics"] += 1
        problems.append(f"{path}: {text.strip()}")
    if status == 0:
        tally["valid"] += 1
        found = lastmile.validate(path)
        if found.estimate.events < 5e6:
            tally["ran"] += 1
            failure = run_briefly(path)
            if failure is not None:
                tally["run failures"] += 1
                problems.append(f"{path}: run: {failure}")
        return
    if status != 2:
        tally["bad status"] += 1
        problems.append(f"{path}: status {status}: {text.strip()}")
        return
    tally["refused"] += 1
    lines = text.strip().splitlines()
    prefix = f"lastmile: error: {path}: "
    if len(lines) != 1 or not lines[0].startswith(prefix):
        tally["not one line with the file"] += 1
        problems.append(f"{path}: {text!r}")
        return
    rest = lines[0][len(prefix) :]
    if rest.startswith(WHOLE_FILE):
        tally["whole-file errors"] += 1
    elif FIELD.match(rest):
        tally["errors naming a field"] += 1
    else:
        tally["errors naming no field"] += 1
        problems.append(lines[0][:300])
    if len(lines[0]) > 2000:
        tally["too long"] += 1
        problems.append(f"{path}: {len(lines[0])} chars")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10_000, help="files to generate")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="write the files here (default: a temp dir)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    corpus = [lastmile.load(p).to_dict() for p in sorted(CORPUS.iterdir())]
    tally: Counter[str] = Counter()
    problems: list[str] = []
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        where = args.keep or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        for i in range(args.n):
            doc = json.loads(json.dumps(rng.choice(corpus)))
            for _ in range(rng.randint(1, 4)):
                doc = mutate(doc, rng)
            fmt = rng.choice(["toml", "yaml", "json"])
            path = where / f"fuzz{i:05d}.{fmt}"
            path.write_text(damage(write(doc, fmt), rng), encoding="utf-8")
            tally["files"] += 1
            check_file(path, tally, problems)
    elapsed = time.monotonic() - start
    print(f"{tally['files']} files in {elapsed:.0f} s (seed {args.seed})")
    for key in sorted(tally):
        print(f"  {key}: {tally[key]}")
    for line in problems[:20]:
        print("PROBLEM", line)
    failed = sum(
        tally[k]
        for k in (
            "tracebacks",
            "panics",
            "bad status",
            "not one line with the file",
            "errors naming no field",
            "too long",
            "run failures",
        )
    )
    print("zero panics, zero tracebacks, every error one line with file and field" if not failed
          else f"{failed} problems")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
