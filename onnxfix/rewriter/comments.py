"""The comments of a Python source, found by one regular expression over its string literals and
comments instead of `tokenize`: the same comments on any text Python 3.11's `ast` parses, in a
fraction of the time (tokenize, pure Python before 3.12, took a tenth of a static run over the
real-world corpus, the source tokenized once per fix round for call sites and once more for noqa).

A string literal (triple-quoted or not, with its escapes; a prefix letter changes neither where it
starts nor where it ends) is skipped whole, so a `#` inside one is not a comment, and a quote
inside a comment does not open a string. From Python 3.12 an f-string may hold its own quotes and
comments (PEP 701), which no regular expression follows: there `tokenize`, on the C tokenizer
since 3.12, answers. Texts that do not parse are not asked about (the rules read parsed files).
"""

from __future__ import annotations

import bisect
import io
import re
import sys
import tokenize
from functools import lru_cache

# an escape takes a whole CRLF line break: `'a\<CR><LF>b'` is one string
_ESCAPE = r"\\(?:\r\n|[\s\S])"
_SCAN = re.compile(
    rf"""'''(?:{_ESCAPE}|[^\\])*?'''|\"\"\"(?:{_ESCAPE}|[^\\])*?\"\"\""""
    rf"""|'(?:{_ESCAPE}|[^\\'\r\n])*'|"(?:{_ESCAPE}|[^\\"\r\n])*\""""
    r"""|(?P<comment>\#[^\r\n]*)"""
)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # as SourceFile.line_starts and ast count lines
_PEP_701 = sys.version_info >= (3, 12)


@lru_cache(maxsize=4)
def comment_spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) offsets of every comment in ``text``, in order (cached: the call sites and
    the noqa map of one round ask about the same text)."""
    if _PEP_701:
        return _tokenized_spans(text)
    return tuple(m.span("comment") for m in _SCAN.finditer(text) if m.group("comment") is not None)


def _tokenized_spans(text: str) -> tuple[tuple[int, int], ...]:
    starts = _line_starts(text)
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text, newline="").readline)
                  if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return ()
    return tuple((starts[t.start[0] - 1] + t.start[1], starts[t.start[0] - 1] + t.start[1] + len(t.string))
                 for t in tokens)


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in _LINE_BREAK.finditer(text)]


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
    """(line number, comment text with its `#`) of every comment in ``text``, lines counted as
    `ast` counts them (a lone CR ends a line too)."""
    spans = comment_spans(text)
    if not spans:
        return []
    starts = _line_starts(text)
    return [(bisect.bisect_right(starts, start), text[start:end]) for start, end in spans]
