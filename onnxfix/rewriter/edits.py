"""Applying fixes: choose non-overlapping edits, add needed imports and helpers."""

from __future__ import annotations

import ast
from typing import Iterable

from onnxfix.rewriter.rule import Edit, Fix, Helper
from onnxfix.rewriter.source import normalize_newlines, split_lines
from onnxfix.rewriter.tree_walk import walk


def choose_fixes(fixes: Iterable[Fix]) -> list[Fix]:
    """Fixes whose edits overlap no edit of an earlier chosen fix (all-or-nothing per fix).
    Skipped fixes are picked up by the next round of the fix loop."""
    chosen: list[Fix] = []
    taken: list[tuple[int, int]] = []
    seen_groups: set[str] = set()
    for fix in fixes:
        if fix.group is not None:
            if fix.group in seen_groups:
                continue
            seen_groups.add(fix.group)
        spans = [(e.start, e.end) for e in fix.edits]
        if any(_overlaps(span, other) for span in spans for other in taken):
            continue
        chosen.append(fix)
        taken.extend(spans)
    return chosen


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a[0] == a[1] or b[0] == b[1]:  # insertions conflict only at the same point
        return a[0] == b[0] or (b[0] < a[0] < b[1]) or (a[0] < b[0] < a[1])
    return a[0] < b[1] and b[0] < a[1]


def apply_edits(text: str, edits: Iterable[Edit], newline: str) -> str:
    pieces = []
    position = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        pieces.append(text[position : edit.start])
        pieces.append(normalize_newlines(edit.text, newline))
        position = edit.end
    pieces.append(text[position:])
    return "".join(pieces)


def add_prelude(text: str, tree: ast.Module, imports: set[str], helpers: list[Helper], newline: str) -> str:
    """Insert ``import X`` for each missing module and each missing helper definition after the
    module's imports. Idempotent: what is already bound is not added again."""
    bound_modules = _imported_modules(tree)
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    new_imports = sorted(m for m in imports if m not in bound_modules)
    new_helpers = []
    for helper in helpers:
        if helper.name not in defined and helper.name not in {h.name for h in new_helpers}:
            new_helpers.append(helper)
    if not new_imports and not new_helpers:
        return text
    lines = split_lines(text)
    insert_line = _after_imports_line(tree)
    block = "".join(f"import {m}\n" for m in new_imports)
    for helper in new_helpers:
        block += "\n\n" + helper.source.strip("\n") + "\n"
    if new_helpers:  # two blank lines after a top-level def (PEP 8), counting those that follow
        following = lines[insert_line:]
        blank = next((i for i, line in enumerate(following) if line.strip()), 0)
        block += "\n" * max(0, 2 - blank)
    if insert_line > 0 and not lines[insert_line - 1].endswith(("\n", "\r")):
        block = "\n" + block
    block = normalize_newlines(block, newline)
    return "".join(lines[:insert_line]) + block + "".join(lines[insert_line:])


def _imported_modules(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is None:
                    names.add(alias.name.split(".")[0])
                elif alias.asname == alias.name:
                    names.add(alias.name)
    return names


def _after_imports_line(tree: ast.Module) -> int:
    """Line index (0-based, exclusive) after the module docstring and the top import block."""
    last = 0
    for index, node in enumerate(tree.body):
        is_docstring = (
            index == 0
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        )
        if is_docstring or isinstance(node, (ast.Import, ast.ImportFrom)):
            last = node.end_lineno
        else:
            break
    return last


# Modules whose import has no effect the model depends on: when a fix removes the last use of
# the name such an import binds (a NumPy round trip replaced by torch), the import goes too.
IMPORTS_WITHOUT_EFFECTS = frozenset({"numpy", "math", "decimal"})


def drop_imports_fixes_emptied(original: str, after: ast.Module, text: str) -> str:
    """``text`` (whose parse is ``after``) without the top-level ``import numpy [as np]`` /
    ``import math`` / ``import decimal`` statements whose name was used in ``original`` (the text
    before the fixes) and is no longer used. Only a statement alone on its line(s) and without a
    comment is removed; an import that was already unused is the user's business."""
    candidates = [node for node in after.body if isinstance(node, ast.Import) and len(node.names) == 1
                  and node.names[0].name in IMPORTS_WITHOUT_EFFECTS]
    if not candidates:
        return text  # no walk of either tree (a 10 MB file: 6 s each)
    used_before, used_after = _loaded_names(ast.parse(original)), _loaded_names(after)
    lines = split_lines(text)
    drop = []
    for node in candidates:
        alias = node.names[0]
        bound = alias.asname or alias.name.split(".")[0]
        if bound not in used_before or bound in used_after:
            continue
        statement = "".join(lines[node.lineno - 1 : node.end_lineno])
        if "#" in statement or ";" in statement:
            continue
        drop.append(node)
    for node in reversed(drop):
        start = node.lineno - 1
        del lines[start : node.end_lineno]
        # no blank line left at the top of a section: the one that separated the import goes too
        if start < len(lines) and not lines[start].strip() and (start == 0 or not lines[start - 1].strip()):
            del lines[start]
    return "".join(lines)


def _loaded_names(tree: ast.Module) -> set[str]:
    return {n.id for n in walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def appended_keyword(call: ast.Call, keyword: str, ctx) -> Edit:
    """An edit passing ``keyword`` (`"dtype=torch.float32"`) to ``call`` after its last argument:
    past the parentheses that wrap that argument itself (`f(0, (n / 2))`: the argument's span ends
    inside them), never past the call's own; right after `(` when the call has no argument. A
    trailing comma and comments stay where they are."""
    source = ctx.file.source
    text, close = source.text, source.span(call)[1] - 1  # the call's own `)`
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if not arguments:
        paren = text.index("(", source.span(call.func)[1])
        return Edit(paren + 1, paren + 1, keyword)
    position = max(source.span(a)[1] for a in arguments)
    while True:
        ahead = position
        while ahead < close and text[ahead] in " \t\r\n\\":
            ahead += 1
        if ahead >= close or text[ahead] != ")":
            return Edit(position, position, ", " + keyword)
        position = ahead + 1

