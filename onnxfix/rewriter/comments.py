"""The comments of a Python source, found by one regular expression over its string literals and
comments instead of `tokenize`: the same comments on any text `ast` parses, in a fraction of
the time (tokenize, pure Python, took a tenth of a static run over the real-world corpus, the
source tokenized once per fix round for call sites and once more for noqa).

A string literal (any prefix, triple-quoted or not, with its escapes) is skipped whole, so a `#`
inside one is not a comment, and a quote inside a comment does not open a string. Texts that do
not parse are not asked about (the rules read parsed files only).
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

_SCAN = re.compile(
    r"""(?:(?<!\w)[rRbBuUfF]{1,2})?(?:'''(?:\\[\s\S]|[^\\])*?'''|\"\"\"(?:\\[\s\S]|[^\\])*?\"\"\""""
    r"""|'(?:\\[\s\S]|[^\\'\n])*'|"(?:\\[\s\S]|[^\\"\n])*")"""
    r"""|(?P<comment>\#[^\r\n]*)"""
)


@lru_cache(maxsize=32)
def comment_spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) offsets of every comment in ``text``, in order (cached: the call sites and
    the noqa map of one round ask about the same text)."""
    return tuple(m.span("comment") for m in _SCAN.finditer(text) if m.group("comment") is not None)


def without_comments(text: str) -> str:
    """``text`` with its comments cut out (the line breaks stay)."""
    spans = comment_spans(text)
    if not spans:
        return text
    kept, at = [], 0
    for start, end in spans:
        kept.append(text[at:start])
        at = end
    kept.append(text[at:])
    return " ".join(kept)


def comments(text: str) -> list[tuple[int, str]]:
    """(line number, comment text with its `#`) of every comment in ``text``."""
    spans = comment_spans(text)
    if not spans:
        return []
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return [(bisect.bisect_right(line_starts, start), text[start:end]) for start, end in spans]
