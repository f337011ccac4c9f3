"""rewriter/comments.py finds the comments `tokenize` finds, by one regular expression."""

from __future__ import annotations

import io
import sys
import tokenize

import pytest

from onnxfix.rewriter.comments import _tokenized_spans, comment_spans, comments, without_comments

TRICKY = '''\
x = "# not a comment"  # one
y = 'it''s' + rb'#' + f"{x['#']}"  # two 'quoted'
z = """
# inside a docstring
"""  # three
w = 'a\\'#b'  # four
if"#"in x:return"x"#five
s = "line \\
# still the string" + helper(1)  # six
# seven "unclosed
'''
EXPECTED = [(1, "# one"), (2, "# two 'quoted'"), (5, "# three"), (6, "# four"), (7, "#five"), (9, "# six"),
            (10, '# seven "unclosed')]


def _tokenized(text: str) -> list[tuple[int, str]]:
    return [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(text, newline="").readline)
            if t.type == tokenize.COMMENT]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_the_comments_and_their_lines_are_tokenize_s(newline):
    """With every line ending (a backslash escapes a whole CRLF inside a string; a lone CR ends a
    line as ast counts lines), and on the tokenize path Python 3.12+ takes."""
    text = TRICKY.replace("\n", newline)
    assert comments(text) == EXPECTED
    if newline != "\r" or sys.version_info >= (3, 12):  # 3.11's Python tokenize ends a string at
        assert comments(text) == _tokenized(text)  # a backslash before a lone CR; ast does not
        assert comment_spans(text) == _tokenized_spans(text)


def test_without_comments_keeps_the_strings_and_the_line_breaks():
    text = without_comments(TRICKY)
    assert "one" not in text and "seven" not in text and "# inside a docstring" in text
    assert '"# not a comment"' in text and "helper(1)" in text
    assert text.count("\n") == TRICKY.count("\n")
