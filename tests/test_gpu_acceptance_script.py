"""scripts/gpu_acceptance.sh runs every test marked ``gpu``: a new GPU test cannot be left out."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_file_with_gpu_tests_is_run_by_the_acceptance_script() -> None:
    script = (ROOT / "scripts" / "gpu_acceptance.sh").read_text(encoding="utf-8")
    listed = set(re.findall(r"tests/[\w/]+\.py", script))
    marked = {
        f"tests/{p.relative_to(ROOT / 'tests').as_posix()}"
        for p in (ROOT / "tests").rglob("test_*.py")
        if re.search(r"pytest\.mark\.gpu\b", p.read_text(encoding="utf-8"))
    }
    assert marked, "no GPU tests found: the pattern is wrong"
    assert marked <= listed, f"not run on a GPU: {sorted(marked - listed)}"
