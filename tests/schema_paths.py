"""What a ``--json`` output holds against what its schema document lists (docs/*-schema.md)."""

from __future__ import annotations

import re
from pathlib import Path


def documented_fields(schema_md: Path) -> set[str]:
    """The field paths a schema document's tables name: rows that start with | `path`."""
    return set(re.findall(r"^\| `([a-z_0-9.\[\]]+)`", schema_md.read_text(), flags=re.M))


def json_paths(obj: object, prefix: str = "") -> set[str]:
    """Every key path of a parsed JSON document (``a.b``; a list's items as ``a[].b``, from
    its first item)."""
    found: set[str] = set()
    if isinstance(obj, dict):
        for key, value in obj.items():
            found.add(prefix + key)
            found |= json_paths(value, prefix + key + ".")
    elif isinstance(obj, list) and obj:
        found |= json_paths(obj[0], prefix.rstrip(".") + "[].")
    return found
