"""Languages: the catalog format, the choice of language, the bundled zh_CN catalog, CLI and UI."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from gpuprof import i18n
from gpuprof.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "resources" / "i18n" / "gpuprof_zh_CN.ts"
FIELDS = re.compile(r"%\d|\{[^{}]*\}")


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    i18n.set_language("en")


def _accelerators(text: str) -> int:
    return len(re.findall(r"(?<!&)&(?!&)", text))


def test_load_catalog_keeps_finished_translations_only():
    text = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS><TS version="2.1" language="zh_CN">
<context><name>MainWindow</name>
<message><source>Pause</source><translation>暂停</translation></message>
<message><source>Later</source><translation type="unfinished">稍后</translation></message>
<message><source>Empty</source><translation></translation></message>
<message><source>Old</source><translation type="vanished">旧</translation></message>
<message numerus="yes"><source>%n GPUs</source><translation><numerusform>%n 个 GPU</numerusform></translation></message>
</context></TS>"""
    assert i18n.load_catalog(text) == {"Pause": "暂停", "%n GPUs": "%n 个 GPU"}
    with pytest.raises(InputError, match=r"broken\.ts: not a valid Qt \.ts file"):
        i18n.load_catalog("<TS><context>", where="broken.ts")


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "en"),
        ({"LANG": "zh_CN.UTF-8"}, "zh_CN"),
        ({"LANG": "zh_TW.UTF-8"}, "zh_CN"),  # the only Chinese catalog there is
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),  # LC_ALL decides first
        ({"LC_MESSAGES": "zh_CN", "LANG": "en_US"}, "zh_CN"),
        ({"GPUPROF_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"GPUPROF_LANG": "zh-CN", "LANG": "C"}, "zh_CN"),
        ({"GPUPROF_LANG": "auto", "LANG": "zh_CN.UTF-8"}, "zh_CN"),
    ],
)
def test_requested_language_follows_gpuprof_lang_then_the_locale(env, expected):
    assert i18n.requested_language(env) == expected


def test_an_unknown_language_is_an_error_naming_the_choices():
    with pytest.raises(
        InputError, match=r"--lang: unknown language 'fr' \(choose one of auto, en, zh_CN\)"
    ):
        i18n.set_language("fr")
    with pytest.raises(InputError, match="GPUPROF_LANG: unknown language 'klingon'"):
        i18n.requested_language({"GPUPROF_LANG": "klingon"})
    assert i18n.language() == "en"  # a failed switch changes nothing


def test_set_language_switches_tr_and_fills_fields():
    assert (
        i18n.tr("results database {p} does not exist", p="x.db")
        == "results database x.db does not exist"
    )
    assert i18n.set_language("zh_CN") == "zh_CN" and i18n.language() == "zh_CN"
    zh = i18n.tr("results database {p} does not exist", p="x.db")
    assert "x.db" in zh and zh != "results database x.db does not exist"
    assert re.search(r"[\u4e00-\u9fff]", zh)
    assert i18n.tr("a text nobody translated") == "a text nobody translated"
    i18n.set_language("en")
    assert i18n.lookup("results database {p} does not exist") is None


def _messages() -> list[tuple[str, str | None, str]]:
    root = ET.parse(CATALOG).getroot()
    out = []
    for msg in root.iter("message"):
        node = msg.find("translation")
        forms = [f.text or "" for f in node.findall("numerusform")]
        out.append(
            (
                msg.findtext("source") or "",
                node.get("type"),
                forms[0] if forms else (node.text or ""),
            )
        )
    return out


def test_bundled_catalog_is_finished_and_keeps_placeholders_and_accelerators():
    messages = _messages()
    assert len(messages) > 700
    problems = []
    for source, kind, text in messages:
        if kind is not None or not text.strip():
            problems.append(f"untranslated: {source!r}")
            continue
        if Counter(FIELDS.findall(source)) != Counter(FIELDS.findall(text)):
            problems.append(f"placeholders differ: {source!r} -> {text!r}")
        if _accelerators(source) != _accelerators(text):
            problems.append(f"accelerator count differs: {source!r} -> {text!r}")
        for fixed in ("Ctrl+", "SIMULATED", "REPLAY", "gpuprof --"):
            if source.count(fixed) != text.count(fixed):
                problems.append(f"{fixed!r} not kept: {source!r} -> {text!r}")
    assert not problems, "\n".join(problems[:30])
    zh = sum(1 for _, _, text in messages if re.search(r"[\u4e00-\u9fff]", text))
    assert zh >= 0.9 * len(messages)  # translated, not copied


@pytest.mark.skipif(
    shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent)) is None,
    reason="pyside6-lupdate not installed",
)
def test_every_text_in_the_code_is_in_the_catalog(tmp_path):
    lupdate = shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent))
    files = sorted(str(p) for p in (ROOT / "ui").rglob("*.py")) + sorted(
        str(p) for p in (ROOT / "gpuprof").rglob("*.py")
    )
    fresh = tmp_path / "fresh.ts"
    proc = subprocess.run(
        [
            lupdate,
            *files,
            "-tr-function-alias",
            "tr+=_t,tr+=N_",
            "-locations",
            "none",
            "-ts",
            str(fresh),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    in_code = {m.findtext("source") for m in ET.parse(fresh).getroot().iter("message")}
    catalog = i18n.load_catalog(CATALOG.read_text("utf-8"))
    missing = sorted(s for s in in_code if s and s not in catalog)
    assert not missing, (
        f"{len(missing)} text(s) in the code have no zh_CN translation; update the catalog as "
        f"gpuprof/i18n.py says and translate them:\n" + "\n".join(missing[:20])
    )


def test_cli_help_in_chinese_and_a_bad_lang_exits_2(capsys):
    from gpuprof.cli import main

    with pytest.raises(SystemExit) as done:
        main(["--lang", "zh_CN", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    debug_help = i18n.lookup(
        "log everything to stderr (core and app, DEBUG level) and show tracebacks of "
        "unexpected errors"
    )
    assert debug_help and "".join(debug_help.split()) in "".join(out.split())  # argparse wraps
    assert "--lang {auto,en,zh_CN}" in out
    assert main(["--lang=fr", "catalog"]) == 2
    assert "unknown language 'fr'" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_in_chinese_by_environment(tmp_path):
    env = {**os.environ, "GPUPROF_LANG": "zh_CN"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpuprof",
            "--replay",
            str(tmp_path / "none.gpuprof"),
            "--screenshot",
            str(tmp_path / "x.png"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 2
    expected = i18n.load_catalog(CATALOG.read_text("utf-8"))["{p}: no such file"]
    assert expected.format(p=tmp_path / "none.gpuprof") in proc.stderr


def test_window_in_chinese_and_the_language_menu_remembers(make_window, settings):
    pytest.importorskip("PySide6")
    i18n.set_language("zh_CN")
    w = make_window()
    names = w.tab_names
    assert w.tabs.tabText(names.index("telemetry")) == i18n.lookup("Telemetry")
    assert w.action("view.pause").text() == i18n.lookup("&Pause plots")
    (zh,) = [a for a in w.chrome.choices("language") if a.data() == "zh_CN"]
    assert zh.text() == "简体中文"
    (en,) = [a for a in w.chrome.choices("language") if a.data() == "en"]
    en.trigger()
    assert settings.language == "en" and en.isChecked() and not zh.isChecked()
    assert w.statusBar().currentMessage() == i18n.lookup(
        "The language changes at the next start of gpuprof"
    )


def test_app_language_precedence(monkeypatch):
    from argparse import Namespace

    from gpuprof.ui.shell.app import choose_language

    monkeypatch.delenv("GPUPROF_LANG", raising=False)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert choose_language(Namespace(lang="auto"), "zh_CN") == "zh_CN"  # View → Language
    assert choose_language(Namespace(lang="en"), "zh_CN") == "en"  # --lang wins
    monkeypatch.setenv("GPUPROF_LANG", "en")
    assert choose_language(Namespace(lang="auto"), "zh_CN") == "en"  # so does GPUPROF_LANG
    monkeypatch.delenv("GPUPROF_LANG")
    assert choose_language(Namespace(lang="auto"), "auto") == "en"  # the locale


def test_missing_chinese_font_is_reported(make_window, monkeypatch):
    from gpuprof.ui.shell.app import missing_font_warning
    from PySide6.QtGui import QFontDatabase

    make_window()  # the QApplication
    assert missing_font_warning() is None  # English needs no extra font
    i18n.set_language("zh_CN")
    monkeypatch.setattr(QFontDatabase, "families", staticmethod(lambda *a: []))
    assert "fonts-noto-cjk" in missing_font_warning()
    monkeypatch.setattr(QFontDatabase, "families", staticmethod(lambda *a: ["Noto Sans CJK SC"]))
    assert missing_font_warning() is None


def test_no_translated_text_hides_inside_an_f_string():
    # lupdate does not look inside f-strings: tr('…') / _t('…') there never reaches the catalog.
    hidden = []
    for path in sorted([*(ROOT / "ui").rglob("*.py"), *(ROOT / "gpuprof").rglob("*.py")]):
        for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            if re.search(r"""\{[^{}]*\b(?:tr|_t|N_)\((['"])""", line) and re.search(
                r"""\bf['"]""", line
            ):
                hidden.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hidden, "\n".join(hidden)
