"""The text on each page of a PDF that Qt's QPdfWriter wrote (the report's PDF), for tests.

No PDF library is installed: this reads what Qt writes and nothing more (uncompressed object
table, Flate content streams, Type0 fonts with Identity-H glyph ids and a ToUnicode CMap). Glyphs
are joined as drawn; Qt draws no glyph for a space, so compare with whitespace removed
(:func:`squash`).
"""

from __future__ import annotations

import re
import zlib

__all__ = ["page_texts", "squash"]

_OBJ = re.compile(rb"(\d+) 0 obj\s(.*?)endobj", re.S)
_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.S)
_HEX = re.compile(rb"<([0-9A-Fa-f]+)>")


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _stream(body: bytes) -> bytes:
    m = _STREAM.search(body)
    if m is None:
        return b""
    raw = m.group(1)
    if b"/FlateDecode" not in body[: m.start()]:
        return raw
    try:
        return zlib.decompress(raw)
    except zlib.error:  # the data's own last byte is a CR, taken above as part of the line end
        return zlib.decompress(raw + b"\r")


def _cmap(data: bytes) -> dict[int, str]:
    out: dict[int, str] = {}
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", data, re.S):
        for src, dst in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            out[int(src, 16)] = bytes.fromhex(dst.decode()).decode("utf-16-be", "replace")
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", data, re.S):
        for lo, hi, rest in re.findall(
            rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]+>|\[[^\]]*\])", block
        ):
            a, b = int(lo, 16), int(hi, 16)
            if rest.startswith(b"["):
                for k, dst in enumerate(_HEX.findall(rest)):
                    out[a + k] = bytes.fromhex(dst.decode()).decode("utf-16-be", "replace")
            else:
                first = bytes.fromhex(rest[1:-1].decode()).decode("utf-16-be", "replace")
                for k in range(b - a + 1):
                    out[a + k] = first[:-1] + chr(ord(first[-1]) + k)
    return out


def page_texts(data: bytes) -> list[str]:
    """The text of each page, in page order."""
    objs = {int(m.group(1)): m.group(2) for m in _OBJ.finditer(data)}

    def ref(body: bytes, key: bytes) -> int | None:
        m = re.search(rb"/" + key + rb"\s+(\d+) 0 R", body)
        return int(m.group(1)) if m else None

    root = next(b for b in objs.values() if re.search(rb"/Type\s*/Pages\b", b) and b"/Kids" in b)
    kids = [int(k) for k in re.findall(rb"(\d+) 0 R", root.split(b"/Kids", 1)[1].split(b"]")[0])]
    pages = []
    for pid in kids:
        page = objs[pid]
        res_id = ref(page, b"Resources")
        resources = objs[res_id] if res_id is not None else page
        fonts: dict[bytes, dict[int, str]] = {}
        font_block = re.search(rb"/Font\s*<<(.*?)>>", resources, re.S)
        for name, fid in re.findall(
            rb"/(\w+)\s+(\d+) 0 R", font_block.group(1) if font_block else b""
        ):
            to_unicode = ref(objs[int(fid)], b"ToUnicode")
            fonts[name] = _cmap(_stream(objs[to_unicode])) if to_unicode is not None else {}
        content_id = ref(page, b"Contents")
        content = _stream(objs[content_id]) if content_id is not None else b""
        text: list[str] = []
        cmap: dict[int, str] = {}
        for m in re.finditer(rb"/(\w+)\s+[\d.]+\s+Tf|<([0-9A-Fa-f]+)>\s*Tj|\bET\b", content):
            if m.group(1) is not None:
                cmap = fonts.get(m.group(1), {})
            elif m.group(2) is not None:
                h = m.group(2)
                for k in range(0, len(h), 4):
                    text.append(cmap.get(int(h[k : k + 4], 16), "\ufffd"))
            else:
                text.append("\n")
        pages.append("".join(text))
    return pages
