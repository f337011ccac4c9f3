"""rewriter/binding_flow.py: which names are bound on every path (what ONX601/ONX613 may pass into
a branch moved into a nested function) and which a block may read before binding them."""
from __future__ import annotations

import ast

from onnxfix.rewriter.binding_flow import bound_after, free_reads


def _body(text: str) -> list[ast.stmt]:
    return ast.parse(text).body


def test_an_if_binds_what_both_arms_bind_and_a_loop_nothing():
    block = _body("a = 1\nif c:\n    b = 1\n    z = 1\nelse:\n    z = 2\nfor r in xs:\n    y = r\nwith f() as g:\n    w = g\n")
    assert bound_after(block) == {"a", "z", "g", "w"}


def test_del_unbinds_and_comprehension_variables_are_their_own():
    assert bound_after(_body("h = 1\ndel h\n")) == set()
    assert free_reads(_body("parts = [h * 2 for h in x]\ny = h\n")) == {"x", "h"}


def test_a_name_read_before_its_binding_is_free_even_inside_a_loop_step():
    # `hidden` bound and read in one step is the block's own; `carry` read before its binding is not
    block = _body("for s in seq:\n    hidden, st = lstm(s, st)\n    outs += [hidden]\n    out = carry + s\n    carry = s\n")
    assert free_reads(block) == {"seq", "lstm", "st", "outs", "carry"}
