"""rewriter/comments.py finds the comments `tokenize` finds, by one regular expression."""

from __future__ import annotations

import io
import tokenize

from onnxfix.rewriter.comments import comments, without_comments

TRICKY = '''\
x = "# not a comment"  # one
y = 'it''s' + rb'#' + f"{x['#']}"  # two 'quoted'
z = """
# inside a docstring
"""  # three
w = 'a\\'#b'  # four
if"#"in x:return"x"#five
s = "line \\
# still the string"
# six "unclosed
'''


def _tokenized(text: str) -> list[tuple[int, str]]:
    return [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.COMMENT]


def test_the_comments_and_their_lines_are_tokenize_s():
    assert comments(TRICKY) == _tokenized(TRICKY) == [
        (1, "# one"), (2, "# two 'quoted'"), (5, "# three"), (6, "# four"), (7, "#five"), (10, '# six "unclosed')]


def test_without_comments_keeps_the_strings_and_the_line_breaks():
    text = without_comments(TRICKY)
    assert "one" not in text and "six" not in text and "# inside a docstring" in text and '"# not a comment"' in text
    assert text.count("\n") == TRICKY.count("\n")
