"""A small VT screen: what a terminal shows after the bytes a Textual app writes to its pty.

Enough of ECMA-48 / xterm for Textual's output: cursor positioning (CUP, CHA, VPA, relative
moves), erasing (EL, ED), CR/LF/BS/TAB, printable text with wide characters taking two cells,
and everything else (SGR colours, private modes, OSC titles, DCS, charset designations)
consumed and ignored. pyte would do this, but it is not in the venv; this is what the start-up
probe needs to read the rendered screen (bench/pty_probe.py).
"""

from __future__ import annotations

import codecs
import unicodedata


class Screen:
    def __init__(self, cols: int, rows: int) -> None:
        self.cols, self.rows = cols, rows
        self.cells = [[" "] * cols for _ in range(rows)]
        self.x = self.y = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = ""  # an escape sequence cut off at the end of the last chunk

    # ------------------------------------------------------------------ reading
    def lines(self) -> list[str]:
        return ["".join(row).rstrip() for row in self.cells]

    def text(self) -> str:
        return "\n".join(self.lines())

    # ------------------------------------------------------------------ feeding
    def feed(self, data: bytes) -> None:
        s = self._pending + self._decoder.decode(data)
        self._pending = ""
        i, n = 0, len(s)
        while i < n:
            ch = s[i]
            if ch == "\x1b":
                end = self._escape(s, i)
                if end < 0:  # incomplete: wait for the next chunk
                    self._pending = s[i:]
                    return
                i = end
                continue
            i += 1
            if ch == "\r":
                self.x = 0
            elif ch == "\n":
                self.y = min(self.y + 1, self.rows - 1)
            elif ch == "\b":
                self.x = max(self.x - 1, 0)
            elif ch == "\t":
                self.x = min((self.x // 8 + 1) * 8, self.cols - 1)
            elif ch < " " or ch == "\x7f":
                continue
            else:
                self._put(ch)

    def _put(self, ch: str) -> None:
        if unicodedata.combining(ch):
            return
        wide = unicodedata.east_asian_width(ch) in ("W", "F")
        if self.x >= self.cols:
            return  # Textual never relies on auto-wrap
        if 0 <= self.y < self.rows:
            self.cells[self.y][self.x] = ch
            if wide and self.x + 1 < self.cols:
                self.cells[self.y][self.x + 1] = ""
        self.x += 2 if wide else 1

    def _escape(self, s: str, i: int) -> int:
        """Handle the escape sequence at ``s[i]``; the index after it, or -1 when cut off."""
        if i + 1 >= len(s):
            return -1
        kind = s[i + 1]
        if kind == "[":
            j = i + 2
            while j < len(s) and not ("\x40" <= s[j] <= "\x7e"):
                j += 1
            if j >= len(s):
                return -1
            self._csi(s[i + 2 : j], s[j])
            return j + 1
        if kind in "]PX^_":  # OSC, DCS, SOS, PM, APC: up to BEL or ST
            j = i + 2
            while j < len(s):
                if s[j] == "\x07":
                    return j + 1
                if s[j] == "\x1b" and j + 1 < len(s) and s[j + 1] == "\\":
                    return j + 2
                j += 1
            return -1
        if kind in "()*+#%":  # charset designation and friends: one more character
            return i + 3 if i + 2 < len(s) else -1
        return i + 2  # ESC 7, ESC 8, ESC =, ESC >, ...

    def _csi(self, params: str, final: str) -> None:
        private = params[:1] in ("?", ">", "<", "=")
        body = params[1:] if private else params
        nums = [int(p) if p.isdigit() else 0 for p in body.split(";")] if body else []

        def arg(k: int, default: int = 1) -> int:
            return nums[k] if k < len(nums) and nums[k] else default

        if private:
            if final in "hl" and 1049 in nums:  # the alternate screen: a fresh, empty one
                self._erase_all()
            return
        if final in "Hf":
            self.y = min(arg(0) - 1, self.rows - 1)
            self.x = min(arg(1) - 1, self.cols - 1)
        elif final == "G":
            self.x = min(arg(0) - 1, self.cols - 1)
        elif final == "d":
            self.y = min(arg(0) - 1, self.rows - 1)
        elif final == "A":
            self.y = max(self.y - arg(0), 0)
        elif final == "B":
            self.y = min(self.y + arg(0), self.rows - 1)
        elif final == "C":
            self.x = min(self.x + arg(0), self.cols - 1)
        elif final == "D":
            self.x = max(self.x - arg(0), 0)
        elif final == "K":
            mode = nums[0] if nums else 0
            row = self.cells[self.y]
            lo, hi = {0: (self.x, self.cols), 1: (0, self.x + 1), 2: (0, self.cols)}.get(mode, (0, 0))
            for k in range(lo, min(hi, self.cols)):
                row[k] = " "
        elif final == "J":
            mode = nums[0] if nums else 0
            if mode in (2, 3):
                self._erase_all()
            elif mode == 0:
                self._csi("0", "K")
                for r in range(self.y + 1, self.rows):
                    self.cells[r] = [" "] * self.cols
        elif final == "X":
            row = self.cells[self.y]
            for k in range(self.x, min(self.x + arg(0), self.cols)):
                row[k] = " "

    def _erase_all(self) -> None:
        self.cells = [[" "] * self.cols for _ in range(self.rows)]
