"""``# noqa`` / ``# noqa: ONX201, ONX3`` on a finding's line; ``# onnxfix: noqa`` for a file."""

from __future__ import annotations

import re

from onnxfix.rewriter.comments import comments

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:\s*,\s*[A-Z]+[0-9]*)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"#\s*onnxfix:\s*noqa\b", re.IGNORECASE)


class NoqaMap:
    """Suppressions by line, read from real comment tokens (not from inside strings)."""

    def __init__(self, text: str):
        self.by_line: dict[int, tuple[str, ...] | None] = {}
        self.whole_file = False
        if "noqa" not in text.lower():
            return
        for line, comment in comments(text):
            if _FILE_NOQA.search(comment):
                self.whole_file = True
                continue
            match = _NOQA.search(comment)
            if match:
                codes = match.group("codes")
                self.by_line[line] = (
                    tuple(c.strip().upper() for c in codes.split(",")) if codes else None
                )

    def suppresses(self, line: int, code: str) -> bool:
        if self.whole_file:
            return True
        if line not in self.by_line:
            return False
        codes = self.by_line[line]
        return codes is None or any(code.startswith(c) for c in codes)
