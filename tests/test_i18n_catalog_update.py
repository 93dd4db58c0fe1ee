"""scripts/update_catalog.py: the catalog holds each text of the code once, with its translation.

Lookups go by the English text alone (gpuprof.i18n, the app's translator), so the catalog is one
context; updating it from the code keeps every translation of a text the code still uses, drops
the texts it no longer uses and adds the new ones unfinished."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from gpuprof import i18n

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "resources" / "i18n" / "gpuprof_zh_CN.ts"
_spec = importlib.util.spec_from_file_location(
    "update_catalog", ROOT / "scripts" / "update_catalog.py"
)
assert _spec is not None and _spec.loader is not None
update = importlib.util.module_from_spec(_spec)
sys.modules["update_catalog"] = update
_spec.loader.exec_module(update)
HAS_LUPDATE = shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent)) is not None

TWO_CONTEXTS = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context><name>A</name>
<message><source>Save</source><translation>保存</translation></message>
<message><source>Gone</source><translation>已删</translation></message>
<message><source>Open</source><translation type="unfinished"></translation></message>
</context>
<context><name>B</name>
<message><source>Save</source><extracomment>a button</extracomment><translation>保存</translation></message>
<message><source>Open</source><translation>打开</translation></message>
</context>
</TS>
"""


def test_each_text_once_with_the_first_translation_and_the_notes_of_every_copy() -> None:
    merged = update.dedupe(update.read_messages(TWO_CONTEXTS))
    assert [m.source for m in merged] == ["Save", "Gone", "Open"]
    save, _, open_ = merged
    assert (save.translation, save.extracomment) == ("保存", "a button")
    assert open_.translation == "打开"  # an unfinished copy does not hide a finished one


def test_texts_the_code_dropped_go_new_ones_come_unfinished_and_a_tsv_fills_them(
    tmp_path: Path,
) -> None:
    in_code = [update.Message(s, None, None, None) for s in ("Save", "New 'one' & <more>", "Open")]
    tsv = tmp_path / "zh.tsv"
    tsv.write_text("Open\t打开\n\n", "utf-8")
    known = {m.source: m.translation for m in update.read_messages(TWO_CONTEXTS) if m.translation}
    known.update(update.read_tsv(tsv))
    text = update.render(update.merge(in_code, known))
    assert text.count("<context>") == 1 and "Gone" not in text
    assert (
        '<source>New &apos;one&apos; &amp; &lt;more&gt;</source>\n        <translation type="unfinished">'
        in text
    )
    assert i18n.load_catalog(text) == {"Save": "保存", "Open": "打开"}  # round-trips


def test_a_tsv_line_without_a_tab_names_the_file_and_line(tmp_path: Path) -> None:
    tsv = tmp_path / "bad.tsv"
    tsv.write_text("Open\t打开\nSave 保存\n", "utf-8")
    with pytest.raises(SystemExit, match=r"bad\.tsv:2: expected English<TAB>Chinese"):
        update.read_tsv(tsv)


@pytest.mark.skipif(not HAS_LUPDATE, reason="pyside6-lupdate not installed")
def test_the_shipped_catalog_is_what_the_script_writes_from_the_code(tmp_path: Path) -> None:
    copy = tmp_path / "gpuprof_zh_CN.ts"
    shutil.copyfile(CATALOG, copy)
    assert update.main(["--catalog", str(copy), "--check"]) == 0, (
        "the catalog is stale: run python scripts/update_catalog.py and translate what it lists"
    )
    assert update.main(["--catalog", str(copy)]) == 0
    assert i18n.load_catalog(copy.read_text("utf-8")) == i18n.load_catalog(
        CATALOG.read_text("utf-8")
    )
