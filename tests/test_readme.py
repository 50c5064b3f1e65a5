"""The README's Python example runs as written, from any directory."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_example_runs_from_any_directory(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 1
    proc = subprocess.run(
        [sys.executable, "-c", blocks[0]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"Tahoe / NewReno throughput ratio: \d+\.\d{3}", proc.stdout), proc.stdout
    assert (tmp_path / "out" / "newreno" / "seq.png").is_file()
    assert (tmp_path / "out" / "newreno" / "cwnd.svg").is_file()
