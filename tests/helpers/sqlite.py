"""SQLite files written and read in a test, one connection a call, closed after it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def execute(path: Path, *statements: str) -> None:
    """Run ``statements`` on the SQLite file ``path`` (made if missing) and commit them."""
    con = sqlite3.connect(path)
    try:
        for sql in statements:
            con.execute(sql)
        con.commit()
    finally:
        con.close()


def query(path: Path, sql: str) -> list[Any]:
    """The rows ``sql`` selects from the SQLite file ``path``."""
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()
