"""Update the Chinese catalog, ``resources/i18n/gpuprof_zh_CN.ts``, from the texts in the code.

    python scripts/update_catalog.py [--tsv FILE ...] [--check]

``pyside6-lupdate`` finds every ``tr()``, ``_t()`` and ``N_()`` text in ``ui/`` and ``gpuprof/``;
this script keeps each text once, sorted by its English words, with the translation the
catalog already has (or the one a ``--tsv`` file gives: ``English<TAB>Chinese`` a line), and
writes the catalog as one context. Lookups go by the English text alone (:mod:`gpuprof.i18n`,
the app's translator), so the per-class contexts lupdate would make only repeat a text, and
its translation, once for each class that shows it. Texts the code no longer uses are dropped;
texts without a translation are written ``type="unfinished"`` and listed (the test suite fails
until they are translated).

``--check`` writes nothing and exits 1 when the catalog is not what this script would write.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "resources" / "i18n" / "gpuprof_zh_CN.ts"
CONTEXT = "gpuprof"


@dataclass(frozen=True)
class Message:
    source: str
    comment: str | None  # lupdate's disambiguation (tr's second argument)
    extracomment: str | None  # the translator note from a ``#:`` comment above the text
    translation: str | None  # None: unfinished


def code_files(root: Path = ROOT) -> list[str]:
    """The Python files lupdate reads: every one under ``ui/`` and ``gpuprof/``, sorted."""
    return sorted(str(p) for d in ("ui", "gpuprof") for p in (root / d).rglob("*.py"))


def texts_in_code(root: Path = ROOT) -> list[Message]:
    """Every text the code marks for translation, once each, sorted by the English text."""
    lupdate = shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent))
    lupdate = lupdate or shutil.which("pyside6-lupdate")
    if lupdate is None:
        raise SystemExit("pyside6-lupdate not found: install the project (pip install -e .[dev])")
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "fresh.ts"
        args = ["-tr-function-alias", "tr+=_t,tr+=N_", "-locations", "none", "-ts", str(fresh)]
        proc = subprocess.run(
            [lupdate, *code_files(root), *args], capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            raise SystemExit(f"pyside6-lupdate failed:\n{proc.stderr}")
        found = dedupe(read_messages(fresh.read_text("utf-8")))
    # Sorted by the text: moving code between modules leaves the catalog as it is.
    return sorted(found, key=lambda m: (m.source.casefold(), m.source))


def read_messages(text: str) -> list[Message]:
    """The messages of a ``.ts`` text in file order; an unfinished one has no translation."""
    out = []
    for node in ET.fromstring(text).iter("message"):
        tr = node.find("translation")
        done = tr is not None and tr.get("type") not in ("unfinished", "obsolete", "vanished")
        out.append(
            Message(
                source=node.findtext("source") or "",
                comment=node.findtext("comment"),
                extracomment=node.findtext("extracomment"),
                translation=(tr.text or None) if done and tr is not None else None,
            )
        )
    return out


def dedupe(messages: list[Message]) -> list[Message]:
    """Each source once, at its first place; a later copy's notes fill what the first lacks."""
    first: dict[str, Message] = {}
    for m in messages:
        seen = first.get(m.source)
        if seen is None:
            first[m.source] = m
        else:
            first[m.source] = Message(
                m.source,
                seen.comment or m.comment,
                seen.extracomment or m.extracomment,
                seen.translation or m.translation,
            )
    return list(first.values())


def read_tsv(path: Path) -> dict[str, str]:
    """``{English: Chinese}`` from a file of ``English<TAB>Chinese`` lines (blank lines skipped)."""
    out: dict[str, str] = {}
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        english, tab, chinese = line.partition("\t")
        if not tab or not chinese.strip():
            raise SystemExit(f"{path}:{n}: expected English<TAB>Chinese")
        out[english] = chinese
    return out


def merge(in_code: list[Message], known: dict[str, str]) -> list[Message]:
    """The code's texts with the translations ``known`` has for them."""
    return [Message(m.source, m.comment, m.extracomment, known.get(m.source)) for m in in_code]


def _esc(text: str) -> str:
    for a, b in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("'", "&apos;"), ('"', "&quot;")):
        text = text.replace(a, b)
    return text


def render(messages: list[Message], language: str = "zh_CN") -> str:
    """The catalog as lupdate formats one context."""
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        "<!DOCTYPE TS>",
        f'<TS version="2.1" language="{language}">',
        "<context>",
        f"    <name>{CONTEXT}</name>",
    ]
    for m in messages:
        lines += ["    <message>", f"        <source>{_esc(m.source)}</source>"]
        if m.comment is not None:
            lines.append(f"        <comment>{_esc(m.comment)}</comment>")
        if m.extracomment is not None:
            lines.append(f"        <extracomment>{_esc(m.extracomment)}</extracomment>")
        if m.translation is None:
            lines.append('        <translation type="unfinished"></translation>')
        else:
            lines.append(f"        <translation>{_esc(m.translation)}</translation>")
        lines.append("    </message>")
    lines += ["</context>", "</TS>", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tsv", type=Path, action="append", default=[], metavar="FILE",
                        help="English<TAB>Chinese translations to add (repeatable)")  # fmt: skip
    parser.add_argument("--check", action="store_true", help="exit 1 if the catalog is stale")
    parser.add_argument("--catalog", type=Path, default=CATALOG, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    old = args.catalog.read_text("utf-8")
    known = {m.source: m.translation for m in read_messages(old) if m.translation}
    for path in args.tsv:
        known.update(read_tsv(path))
    messages = merge(texts_in_code(), known)
    text = render(messages)
    unfinished = [m.source for m in messages if m.translation is None]
    if args.check:
        if text != old:
            print(f"{args.catalog} is stale: run python scripts/update_catalog.py", file=sys.stderr)
            return 1
        return 0
    args.catalog.write_text(text, "utf-8")
    print(f"{args.catalog}: {len(messages)} texts, {len(unfinished)} without a translation")
    for source in unfinished:
        print(f"  unfinished: {source!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
