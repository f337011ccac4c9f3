"""Does a text contain a rule's trigger? The file pre-filter (a file holding no selected rule's
trigger is never parsed for the check) and the per-file rule filter (a rule whose triggers a
file lacks is not run on it) ask the same question. Sound because a rule only reports where
its trigger occurs: tests/test_rule_fixtures.py holds every rule to that contract. A file with a
recorded run's evidence (`onnxfix export`) is checked by every rule: the run's facts (a dtype, a
call it decomposed) need no trigger word."""

from __future__ import annotations

import re


class Triggers:
    """Does a file contain a trigger? Substring search (bytes.find is ~50x faster than a
    regex alternation with word boundaries on this corpus), names checked as whole words."""

    def __init__(self, triggers: list[str]):
        unique = list(dict.fromkeys(triggers))  # in rule order: the commonest first pays off
        self.words = [t.encode() for t in unique if t.isidentifier()]
        self.literals = [t.encode() for t in unique if not t.isidentifier()]

    def found_in(self, raw: bytes) -> bool:
        return any(_has_word(raw, w) for w in self.words) or any(t in raw for t in self.literals)

    def found_among(self, words: frozenset[bytes], raw: bytes) -> bool:
        """found_in, given the file's words (``words_of``): for asking many rules of one file."""
        return any(w in words for w in self.words) or any(t in raw for t in self.literals)


_WORD = re.compile(rb"[A-Za-z0-9_\x80-\xff]+")


def words_of(raw: bytes) -> frozenset[bytes]:
    """Every maximal run of word bytes in ``raw``: a trigger name is in it exactly when
    ``_has_word`` finds it (one regex pass instead of one search per trigger)."""
    return frozenset(_WORD.findall(raw))


def _has_word(raw: bytes, word: bytes) -> bool:
    start = raw.find(word)
    while start != -1:
        end = start + len(word)
        if (start == 0 or raw[start - 1] not in _WORD_BYTES) and (end == len(raw) or raw[end] not in _WORD_BYTES):
            return True
        start = raw.find(word, end)
    return False


_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") | frozenset(range(128, 256))
