"""The catalog's contexts are the ones pyside6-lupdate gives: updating the catalog as
gpuprof/i18n.py says keeps every translation of a text the code still uses.

Lookups go by the English text alone (gpuprof.i18n, the app's translator), but lupdate matches
a message by context and text: one filed under another class's (or module's) context is
dropped as obsolete, and its twin in the right context comes back untranslated."""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpuprof import i18n

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "resources" / "i18n" / "gpuprof_zh_CN.ts"
LUPDATE = shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent))


@pytest.mark.skipif(LUPDATE is None, reason="pyside6-lupdate not installed")
def test_updating_the_catalog_keeps_every_translation_the_code_uses(tmp_path: Path) -> None:
    assert LUPDATE is not None
    copy = tmp_path / "gpuprof_zh_CN.ts"
    shutil.copyfile(CATALOG, copy)
    files = sorted(str(p) for p in (ROOT / "ui").rglob("*.py")) + sorted(
        str(p) for p in (ROOT / "gpuprof").rglob("*.py")
    )
    proc = subprocess.run(
        [LUPDATE, *files, "-tr-function-alias", "tr+=_t,tr+=N_", "-locations", "none",
         "-no-obsolete", "-ts", str(copy)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    in_code = {m.findtext("source") for m in ET.parse(copy).getroot().iter("message")}
    before = i18n.load_catalog(CATALOG.read_text("utf-8"))
    after = i18n.load_catalog(copy.read_text("utf-8"))
    lost = sorted(s for s in before if s in in_code and after.get(s) != before[s])
    assert not lost, (
        f"{len(lost)} translation(s) are filed under a context the code does not use them in "
        "(lupdate would drop them); move each <message> to its class's <context> (module-level "
        "code: the empty one):\n" + "\n".join(lost[:20])
    )
