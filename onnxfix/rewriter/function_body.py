"""A function's body as an export runs it: lambdas entered (they run as part of the function),
training-only branches skipped (export_guards.py), walked once per function node and shared by
reachability, the engine and the rules, which all walk the same bodies.
"""

from __future__ import annotations

import ast
from typing import Iterator

from onnxfix.rewriter.export_guards import loss_branch, training_test
from onnxfix.rewriter.names import Scope, child_nodes, function_scope

def walk_function_body(fn: ast.AST) -> list[tuple[ast.AST, ast.AST | None]]:
    """_walk_with_lambdas, computed once per function node: reachability, the engine (parents,
    visitors) and rules all walk the same bodies, and walking is the bulk of a scan."""
    walked = getattr(fn, "_onnxfix_body", None)
    if walked is None:
        walked, fn._onnxfix_scope_nodes = _walk_function(fn)
        fn._onnxfix_body = walked
    return walked


def scope_of_function(fn: ast.AST, parent: Scope) -> Scope:
    """names.function_scope, its scope scan taken from the body walk's traversal."""
    walk_function_body(fn)
    return function_scope(fn, parent)


def _walk_function(fn: ast.AST) -> tuple[list, list]:
    """One traversal, two views of a function (both (node, parent) in walk order): its body
    as exported (_walk_with_lambdas: lambdas entered, training-only branches skipped) and its
    own scope (names.walk_scope: lambdas not entered, every branch), which
    names.function_scope scans for bindings."""
    body: list[tuple[ast.AST, ast.AST | None]] = []
    own: list[tuple[ast.AST, ast.AST | None]] = []
    stack = [(child, fn, False, False) for child in reversed(child_nodes(fn))]
    while stack:
        node, parent, in_lambda, in_training = stack.pop()
        if not in_lambda:
            own.append((node, parent))
        if not in_training:
            body.append((node, parent))
        kind = type(node)
        if kind in _NOT_ENTERED or (kind is ast.Lambda and in_training):
            continue
        children = child_nodes(node)
        if kind is ast.Lambda:
            in_lambda = True
        elif kind is ast.If and not in_training:
            run = {id(child) for child in _children_run_in_eval(node)}
            if len(run) != len(children):
                stack.extend((c, node, in_lambda, id(c) not in run) for c in reversed(children))
                continue
        stack.extend((c, node, in_lambda, in_training) for c in reversed(children))
    return body, own


_NOT_ENTERED = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


def _walk_with_lambdas(fn: ast.AST) -> Iterator[tuple[ast.AST, ast.AST | None]]:
    """walk_scope, but entering lambdas (their bodies run as part of the function) and
    skipping training-only branches (models are exported in eval mode)."""
    stack = [(child, fn) for child in reversed(child_nodes(fn))]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        stack.extend((child, node) for child in reversed(_children_run_in_eval(node)))


def _children_run_in_eval(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.If):
        training = True if loss_branch(node) else training_test(node.test)
        if training is True:  # `if self.training:` / `if cond and self.training:`
            return [node.test, *node.orelse]
        if training is False:  # `if not self.training:` ... else: <training only>
            return [node.test, *node.body]
    return child_nodes(node)
