"""A decomposed op's call in a function TorchScript compiles, rewritten to the record's scripted
form (Decomposition.scripted) instead of its helper.

`@torch.jit.script_if_tracing` and `@torch.jit.script` functions are compiled by TorchScript when
the legacy exporter traces them (and always, for `script`), and no `_onnx_*` helper compiles there:
its export guard calls Python TorchScript lacks. traininglib's connected components call
`torch.argwhere` and `torch.isin` in such functions, and the legacy exporter has no symbolic for
either. A record whose op is one exact TorchScript expression (argwhere is nonzero; isin is an
equality against every test element) writes that expression at the call instead, with the call's
own arguments: the same value in eager, by construction, and ops both exporters translate.

Only a call binding exactly the form's parameters, each a tensor (TorchScript types an unannotated
parameter a Tensor, and the form calls Tensor methods on it), gets the form.
"""

from __future__ import annotations

import ast
import re

from onnxfix.decompositions import BY_KEY, Decomposition, helper_binding
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Fix

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def scripted_fix(decomposition: Decomposition, node: ast.Call, ctx: FunctionContext, method: bool) -> Fix | None:
    """The call rewritten to the record's scripted form, or None (no form, or arguments it does not take)."""
    bound = bound_arguments(decomposition, node, method)
    if bound is None or any(ctx.tensors.is_tensor(value) is not True for value in bound.values()):
        return None
    torch_name, imports = ctx.torch_name()
    text = scripted_text(decomposition, bound, ctx.segment, torch_name)
    return Fix(f"Rewrite to `{text}` (what the op computes, in TorchScript)", (ctx.replace(node, text),), True,
               imports=imports if "torch." in decomposition.scripted else ())


def scripted_text(decomposition: Decomposition, bound: dict[str, ast.expr], text_of, torch_name: str = "torch") -> str:
    """The record's scripted form with the call's arguments (``bound_arguments``; ``text_of(node)``:
    an argument's source) and torch as the file names it."""
    form = re.sub(r"\btorch\.", f"{torch_name}.", decomposition.scripted)
    return _PLACEHOLDER.sub(lambda m: _argument_text(form, m, bound[m.group(1)], text_of), form)


def bound_arguments(decomposition: Decomposition, node: ast.Call, method: bool) -> dict[str, ast.expr] | None:
    """The call's arguments by the helper's parameter names where they are exactly the parameters
    of the record's scripted form; None otherwise (no form, another argument, *args, **kwargs)."""
    form = decomposition.scripted
    bound = helper_binding(decomposition.key, node, method) if form else None
    if bound is None or any(isinstance(value, ast.Starred) for value in bound.values()):
        return None
    return bound if set(bound) == set(_PLACEHOLDER.findall(form)) else None


def _argument_text(form: str, match: re.Match, value: ast.expr, text_of) -> str:
    """The argument's source, parenthesized where the form calls a method on it (`{x}.flip(1)`)."""
    text = text_of(value)
    receiver = form[match.end() : match.end() + 1] in (".", "[")
    return operand(text, value, ATOM) if receiver else text


def scripted_note(keys: tuple[str, ...]) -> str:
    """The rule doc's sentence on calls in functions TorchScript compiles, for a rule's records."""
    forms = [f"`{BY_KEY[key].targets[0]}` as `{BY_KEY[key].scripted.replace('{', '').replace('}', '')}`"
             for key in keys if BY_KEY[key].scripted]
    return (" In a function TorchScript compiles (`@torch.jit.script`, `@torch.jit.script_if_tracing`) no helper "
            "compiles (its export guard is Python TorchScript lacks), so a call there gets no fix"
            + (f", except these ops, written as one TorchScript expression with the call's own arguments, exact by "
               f"construction (eager runs it too): {', '.join(forms)}" if forms else "") + ".")
