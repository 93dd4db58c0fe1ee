"""A small VT100 screen for the tests: what a terminal shows after the bytes a program wrote.

No terminal emulator library is installed (pyte is not), so this one does what the tests read:
printable text with auto-wrap, CR, LF, BS, TAB; ``ESC7`` / ``ESC8`` (save / restore the
cursor), ``ESC D`` / ``ESC M`` (index / reverse index); CSI ``H``/``f`` (position), ``A``-``D``,
``G``, ``d``, ``K`` and ``J`` (erase), ``r`` (DECSTBM, the scroll region: it homes the cursor),
``L``/``M`` (insert / delete lines); SGR, private modes and OSC strings are read and ignored.
A line feed on the region's bottom row scrolls the region only; below the region it moves down
to the screen's last row and no further (as xterm). Wide characters take one cell here.
"""

from __future__ import annotations

import re

_CSI = re.compile(r"\x1b\[([0-9;?<>=]*)([ -/]*)([@-~])")


class Screen:
    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        self.lines = [[" "] * cols for _ in range(rows)]
        self.y = self.x = 0
        self.top, self.bottom = 0, rows - 1
        self.saved = (0, 0)
        self.wrap_next = False
        #: Every DECSTBM in order: (top, bottom), 1-based, or None for a reset (``ESC[r``).
        self.regions: list[tuple[int, int] | None] = []

    # -- reading -------------------------------------------------------------------------

    def row(self, y: int) -> str:
        """Row ``y`` (0-based; -1 the last) without its trailing blanks."""
        return "".join(self.lines[y]).rstrip()

    def display(self) -> list[str]:
        return [self.row(y) for y in range(self.rows)]

    @property
    def region(self) -> tuple[int, int] | None:
        """The scroll region now (1-based), None when it is the whole screen."""
        if (self.top, self.bottom) == (0, self.rows - 1):
            return None
        return self.top + 1, self.bottom + 1

    def resize(self, rows: int, cols: int) -> None:
        """As xterm: rows added or cut at the bottom (the cursor kept on screen by scrolling
        up), the scroll region reset to the whole screen."""
        while len(self.lines) > rows and self.y > rows - 1:
            del self.lines[0]
            self.y -= 1
        del self.lines[rows:]
        for line in self.lines:
            del line[cols:]
            line.extend([" "] * (cols - len(line)))
        self.lines.extend([[" "] * cols for _ in range(rows - len(self.lines))])
        self.rows, self.cols = rows, cols
        self.top, self.bottom = 0, rows - 1
        self.y, self.x = min(self.y, rows - 1), min(self.x, cols - 1)

    # -- writing -------------------------------------------------------------------------

    def feed(self, data: bytes | str) -> Screen:
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\x1b":
                i = self._escape(text, i)
                continue
            self._char(ch)
            i += 1
        return self

    def _escape(self, text: str, i: int) -> int:
        nxt = text[i + 1 : i + 2]
        if nxt == "[":
            m = _CSI.match(text, i)
            if m is None:
                return i + 2
            self._csi(m.group(1), m.group(3))
            return m.end()
        if nxt == "]":  # OSC: up to BEL or ST
            end = min(
                (j for j in (text.find("\x07", i), text.find("\x1b\\", i)) if j >= 0), default=-1
            )
            return len(text) if end < 0 else end + (1 if text[end] == "\x07" else 2)
        self.wrap_next = False
        if nxt == "7":
            self.saved = (self.y, self.x)
        elif nxt == "8":
            self.y, self.x = self.saved
        elif nxt == "D":
            self._index()
        elif nxt == "E":
            self.x = 0
            self._index()
        elif nxt == "M":
            if self.y == self.top:
                self._scroll_down()
            elif self.y > 0:
                self.y -= 1
        elif nxt in "()*+#":
            return i + 3
        return i + 2

    def _char(self, ch: str) -> None:
        if ch == "\r":
            self.x, self.wrap_next = 0, False
        elif ch in "\n\x0b\x0c":
            self.wrap_next = False
            self._index()
        elif ch == "\b":
            self.x, self.wrap_next = max(0, self.x - 1), False
        elif ch == "\t":
            self.x = min(self.cols - 1, (self.x // 8 + 1) * 8)
        elif ch < " " or ch == "\x7f":
            pass
        else:
            if self.wrap_next:
                self.x, self.wrap_next = 0, False
                self._index()
            self.lines[self.y][self.x] = ch
            if self.x == self.cols - 1:
                self.wrap_next = True
            else:
                self.x += 1

    def _index(self) -> None:
        if self.y == self.bottom:
            del self.lines[self.top]
            self.lines.insert(self.bottom, [" "] * self.cols)
        elif self.y < self.rows - 1:
            self.y += 1

    def _scroll_down(self) -> None:
        del self.lines[self.bottom]
        self.lines.insert(self.top, [" "] * self.cols)

    def _csi(self, params: str, final: str) -> None:
        if params.startswith(("?", ">", "<", "=")):
            return  # private modes: ignored
        nums = [int(p) if p else 0 for p in params.split(";")] if params else []

        def arg(k: int, default: int) -> int:
            return nums[k] if len(nums) > k and nums[k] else default

        self.wrap_next = False
        if final in "Hf":
            self.y = min(self.rows, arg(0, 1)) - 1
            self.x = min(self.cols, arg(1, 1)) - 1
        elif final == "A":
            stop = self.top if self.y >= self.top else 0
            self.y = max(stop, self.y - arg(0, 1))
        elif final == "B":
            stop = self.bottom if self.y <= self.bottom else self.rows - 1
            self.y = min(stop, self.y + arg(0, 1))
        elif final == "C":
            self.x = min(self.cols - 1, self.x + arg(0, 1))
        elif final == "D":
            self.x = max(0, self.x - arg(0, 1))
        elif final == "G":
            self.x = min(self.cols, arg(0, 1)) - 1
        elif final == "d":
            self.y = min(self.rows, arg(0, 1)) - 1
        elif final == "K":
            line, mode = self.lines[self.y], arg(0, 0)
            lo, hi = {0: (self.x, self.cols), 1: (0, self.x + 1)}.get(mode, (0, self.cols))
            line[lo:hi] = [" "] * (hi - lo)
        elif final == "J":
            mode = arg(0, 0)
            ys = {0: range(self.y + 1, self.rows), 1: range(self.y)}.get(mode, range(self.rows))
            for y in ys:
                self.lines[y] = [" "] * self.cols
            if mode in (0, 1):
                self._csi(str(mode), "K")
        elif final == "r":
            top, bottom = arg(0, 1), arg(1, self.rows)
            if top < bottom <= self.rows:
                self.top, self.bottom = top - 1, bottom - 1
                self.y = self.x = 0
                self.regions.append(None if params in ("", ";") else (top, bottom))
        elif final in "LM" and self.top <= self.y <= self.bottom:
            for _ in range(arg(0, 1)):
                if final == "L":
                    del self.lines[self.bottom]
                    self.lines.insert(self.y, [" "] * self.cols)
                else:
                    del self.lines[self.y]
                    self.lines.insert(self.bottom, [" "] * self.cols)
