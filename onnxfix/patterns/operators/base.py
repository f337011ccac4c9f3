"""The decomposition framework of the ONX5xx rules: match a call to an op with a decomposition
(onnxfix/decompositions/), decide which argument forms fail (the measured catalog), and write
the fix that calls the helper, adding the helper to the file once.

Which calls break which exporter comes from the measured catalog
(``onnxfix/data/operator_catalog.json``, written by ``python -m onnxfix.exporter.catalog_probe``),
not from a hand-typed list: after a torch upgrade that fixes an operator, re-running the probe
silences its rule. ``onnxfix export --decompose`` applies the same helpers at export time.
"""

from __future__ import annotations

import ast
from typing import ClassVar

from onnxfix import operator_catalog as catalog
from onnxfix.decompositions import (
    BY_KEY,
    DECOMPOSITIONS,
    Decomposition,
    by_target,
    helper_binding,
    eager_guarded,
    helper_chain,
    helper_source,
    rule_keys,
)
from onnxfix.patterns.operators.arguments import (  # noqa: F401 - re-exported
    NOT_LITERAL,
    argument,
    is_number,
    literal,
    with_resolved_arguments,
)
from onnxfix.patterns.operators.module_calls import ModuleCall, arguments_text, layers, match_module_call
from onnxfix.patterns.operators.scripted_forms import scripted_fix, scripted_note
from onnxfix.patterns.operators.variants import selected_variant
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import METHODS, SYMBOLS
from onnxfix.rewriter.rule import Edit, Fix, Helper, Rule, RuleDoc
from onnxfix.rewriter.tensors import in_place_method
from onnxfix.rewriter.tree_walk import walk

TARGETS = by_target()
# targets of the export-time-only records whose helper a run-proven call is rewritten to
RUN_TARGETS: dict[str, list[Decomposition]] = {}
for _record in BY_KEY.values():
    if not _record.static and _record.written_from_run:
        for _target in _record.targets:
            RUN_TARGETS.setdefault(_target, []).append(_record)
PROBE = "python -m onnxfix.exporter.catalog_probe"


def match_call(node: ast.Call, ctx: FunctionContext) -> tuple[str, Decomposition, bool] | None:
    """(torch name, decomposition, is a Tensor method call) for a call with a decomposition: the
    static record of its target, or the export-time-only record a kept export run substituted
    for the call on this line (pixel_shuffle's rank, invisible to the source)."""
    qualname = ctx.qualname(node.func)
    func = node.func
    if qualname is not None and qualname.startswith(ATEN) and qualname not in TARGETS and qualname not in RUN_TARGETS:
        qualname = _aten_spelling(qualname, node)
    if qualname in TARGETS or qualname in RUN_TARGETS:
        name, method = qualname, False
    elif qualname is None and isinstance(func, ast.Attribute) and f"Tensor.{func.attr}" in TARGETS.keys() | RUN_TARGETS.keys() \
            and ctx.tensors.is_tensor(func.value) is not False and not an_object(func.value, ctx):
        name, method = f"Tensor.{func.attr}", True
    else:
        return None
    decomposed = next((d for d in RUN_TARGETS.get(name, ()) if decomposed_in_run(d, node, ctx)), None)
    if decomposed is not None:
        return name, decomposed, method
    return (name, TARGETS[name], method) if name in TARGETS else None


ATEN = "torch.ops.aten."


def _aten_spelling(qualname: str, node: ast.Call) -> str | None:
    """`torch.ops.aten.unfold(x, -1, 512, 160)` (or `.default`, another overload) is the function form
    of the op it names: `torch.<op>`, else `Tensor.<op>` with the tensor first. Positional arguments
    only: an ATen schema may name a keyword otherwise than the Python API."""
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    op = qualname[len(ATEN):].split(".")[0]
    spellings = (f"{ATEN}{op}", f"torch.{op}", f"Tensor.{op}")  # `torch.ops.aten._cdist_forward.default` too
    return next((t for t in spellings if t in TARGETS or t in RUN_TARGETS), None)


def an_object(node: ast.expr, ctx: FunctionContext) -> bool:
    """`self.unfold(x)` (the module's own attribute: an `nn.Unfold` layer) or `self.patches.unfold(...)`
    where `__init__` built `self.patches` from a class (a layer, a class of this file): never a
    Tensor method."""
    if isinstance(node, ast.Name) and node.id == "self":
        return True
    if not ctx.is_self_attr(node):
        return False
    value = ctx.self_attr_value(node)
    if not isinstance(value, ast.Call):
        return False
    qualname = ctx.qualname(value.func) or ""
    local = isinstance(value.func, ast.Name) and value.func.id in ctx.file.module.classes
    return local or (qualname.startswith("torch.nn.") and qualname not in _TENSOR_ATTRIBUTES)


# torch.nn's tensor-valued attributes: `self.weight = nn.Parameter(...)` holds a tensor, not a layer
_TENSOR_ATTRIBUTES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer",
                                "torch.nn.parameter.Buffer", "torch.nn.parameter.UninitializedParameter"})


def match_inplace_call(node: ast.Call, ctx: FunctionContext) -> tuple[str, Decomposition] | None:
    """`t.index_add_(0, i, s)`: the in-place method of an op with a decomposition (and none of its
    own), on a name or attribute (evaluated twice by the fix, so it must have no side effect)."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and in_place_method(func.attr)):
        return None
    name = f"Tensor.{func.attr[:-1]}"
    if f"Tensor.{func.attr}" in TARGETS or name not in TARGETS or ctx.qualname(func) is not None:
        return None
    if not isinstance(func.value, (ast.Name, ast.Attribute)) and not (
            fresh_tensor(func.value, ctx) and TARGETS[name].key in WRITES_INTO_SELF):
        return None
    if ctx.tensors.is_tensor(func.value) is False:
        return None
    if isinstance(func.value, ast.Name) and func.value.id == "self":
        return None  # a method of the module itself
    return f"Tensor.{func.attr}", TARGETS[name]


# Ops whose out-of-place form returns a tensor of `self`'s shape and dtype (values written into a
# copy of it): on a tensor just allocated, the in-place call is the out-of-place helper. Not so for
# elementwise ops (`zeros(4, dtype=int32).bitwise_xor_(int64)` keeps int32; the out-of-place op
# promotes, and broadcasts what in place would refuse).
WRITES_INTO_SELF = frozenset({"index_put", "index_add", "scatter", "scatter_reduce", "index_reduce"})
# Calls that return a new tensor no other name holds: an in-place op on one is its out-of-place op
ALLOCATING = frozenset({"clone", "zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like",
                        "empty_like", "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"})


def fresh_tensor(node: ast.AST, ctx: FunctionContext) -> bool:
    """`x.clone()`, `torch.zeros_like(x)`, ...: a tensor just allocated (never a view)."""
    if not isinstance(node, ast.Call):
        return False
    qualname = ctx.qualname(node.func)
    if qualname is not None:
        return qualname.startswith("torch.") and qualname.rsplit(".", 1)[1] in ALLOCATING
    return isinstance(node.func, ast.Attribute) and node.func.attr in ALLOCATING


DECOMPOSED_IN_RUN = "failed in the export run"
# Binary operators whose op an export-time-only record rewrites where a run proves it (its targets
# name the operator's Tensor method: bitwise_left_shift's `Tensor.__lshift__`); the static records'
# operators have their rules' own matchers
RUN_OPERATORS = {op: d.key for op, method in METHODS.items() for d in DECOMPOSITIONS
                 if f"Tensor.{method}" in d.targets and not d.static and d.written_from_run}


def decomposed_in_run(decomposition: Decomposition, node: ast.Call, ctx: FunctionContext) -> bool:
    """An export the fix loop kept substituted this decomposition for a call on the node's line
    (the run's evidence, rewriter/evidence.py)."""
    evidence = ctx.file.evidence
    return evidence is not None and decomposition.key in evidence.decomposed.get(node.lineno, ())


def _only_call_of_its_name(node: ast.Call, ctx: FunctionContext) -> bool:
    """The one call of this method name on its line (a run's evidence names lines, not calls)."""
    name = node.func.attr if isinstance(node.func, ast.Attribute) else None
    return sum(1 for other in walk(ctx.fn.node) if isinstance(other, ast.Call) and other.lineno == node.lineno
               and isinstance(other.func, ast.Attribute) and other.func.attr == name) == 1


def helper_accepts(decomposition: Decomposition, node: ast.Call, method: bool, splat: bool = False) -> bool:
    """The call's arguments bind to the helper's parameters (arguments.helper_binding: no out=,
    **kwargs; *args only for a helper taking *tensors, as torch.block_diag does). ``splat``:
    `**kwargs` are accepted (the run bound them to the helper's signature)."""
    return helper_binding(decomposition.key, node, method, splat) is not None


def helper_fix(decomposition: Decomposition, node: ast.Call, ctx: FunctionContext, method: bool, safe: bool) -> Fix:
    helpers = tuple(Helper(f"_onnx_{key}", helper_source(key)) for key in _helper_keys(decomposition, ctx))
    name = decomposition.helper
    source = ctx.file.source
    if method:
        func = node.func
        call_start = source.span(node)[0]
        func_end = source.span(func)[1]
        paren = source.text.index("(", func_end)
        receiver = ctx.segment(func.value)
        separator = _separator(node, source.text, paren)
        edits = (Edit(call_start, func_end, name), Edit(paren + 1, paren + 1, receiver + separator))
    else:
        edits = (ctx.replace(node.func, name),)
    return Fix(f"Rewrite to `{name}(...)` (exportable ops, helper added to the file)", edits, safe,
               imports=("torch",), helpers=helpers)


def _helper_keys(decomposition: Decomposition, ctx: FunctionContext) -> tuple[str, ...]:
    """The helper's chain; a complex pair's with `_onnx_irfftn` too where the file calls an inverse
    real FFT, which a pair reaching it runs through (FFC's rfftn, a convolution, irfftn)."""
    keys = helper_chain(decomposition.key)
    if "complex_pair" in keys and _calls_inverse_real_fft(ctx):
        keys = (*keys, *(k for k in helper_chain("irfftn") if k not in keys))
    return keys


INVERSE_REAL_FFTS = frozenset({"torch.fft.irfft", "torch.fft.irfft2", "torch.fft.irfftn"})


def _calls_inverse_real_fft(ctx: FunctionContext) -> bool:
    """The file calls torch.fft.irfft / irfft2 / irfftn, whatever the spelling (imports resolved)."""
    module = ctx.file.module
    return any(isinstance(n, ast.Call) and module.scope.qualname(n.func) in INVERSE_REAL_FFTS for n in walk(module.tree))


def _separator(node: ast.Call, text: str, paren: int) -> str:
    """What follows the receiver moved into the call's parentheses: `, ` before arguments on the
    same line, `,` before arguments that start on the next one (no trailing space)."""
    if not (node.args or node.keywords):
        return ""
    return "," if text[paren + 1 : paren + 2] in ("\n", "\r") else ", "


def inplace_helper_fix(decomposition: Decomposition, node: ast.Call, ctx: FunctionContext, safe: bool) -> Fix:
    """`t.x_(args)` -> `t.copy_(_onnx_x(t, args))`: the helper's result written back into ``t``,
    which the expression still returns."""
    helpers = tuple(Helper(f"_onnx_{key}", helper_source(key)) for key in helper_chain(decomposition.key))
    source = ctx.file.source
    call_start, call_end = source.span(node)
    func_end = source.span(node.func)[1]
    paren = source.text.index("(", func_end)
    receiver = ctx.segment(node.func.value)
    separator = _separator(node, source.text, paren)
    edits = (Edit(call_start, func_end, f"{receiver}.copy_({decomposition.helper}"),
             Edit(paren + 1, paren + 1, receiver + separator), Edit(call_end, call_end, ")"))
    return Fix(f"Rewrite to `{receiver}.copy_({decomposition.helper}(...))` (exportable ops, helper added to the file)",
               edits, safe, imports=("torch",), helpers=helpers)


def module_helper_fix(decomposition: Decomposition, node: ast.Call, ctx: FunctionContext, call: ModuleCall,
                      safe: bool) -> Fix:
    """`self.pool(x)` -> `_onnx_adaptive_avg_pool2d(x, self.pool.output_size)`."""
    helpers = tuple(Helper(f"_onnx_{key}", helper_source(key)) for key in helper_chain(decomposition.key))
    text = f"{decomposition.helper}({arguments_text(call, ctx.segment(node.args[0]), ctx.segment)})"
    return Fix(f"Rewrite to `{decomposition.helper}(...)` with the layer's attributes (helper added to the file)",
               (ctx.replace(node, text),), safe, imports=("torch",), helpers=helpers)


def target_triggers(keys: tuple[str, ...]) -> tuple[str, ...]:
    """The file pre-filter's words for calls to these decompositions' targets: a call that
    resolves to `torch.linalg.inv` or `Tensor.inverse` has `inv` / `inverse` in the file's text,
    at the call or at its import, whatever the aliases."""
    keys = tuple(key for key in keys if BY_KEY[key].static or BY_KEY[key].written_from_run)
    names = {target.rsplit(".", 1)[-1] for key in keys for target in BY_KEY[key].targets}
    inplace = {target.rsplit(".", 1)[-1] + "_" for key in keys for target in BY_KEY[key].targets
               if target.startswith("Tensor.") and not target.endswith("_")}  # `t.index_add_(...)`
    targets = {target for key in keys for target in BY_KEY[key].targets}
    modules = {layer for layer, entry in layers().items() if entry["function"] in targets}  # `nn.Upsample`
    operators = {SYMBOLS[op] for op, key in RUN_OPERATORS.items() if key in keys}  # `mask << 7`
    return tuple(sorted(names | inplace | modules | operators))


class DecompositionRule(Rule):
    """A call to an op the exporters reject, rewritten to its decomposition helper. Its ``keys``
    are the decompositions whose record names the rule's code (``rule="ONX5xx"``)."""

    keys: ClassVar[tuple[str, ...]] = ()
    fix_availability = "sometimes"
    # What a rule matches besides its decompositions' targets (report-only ops, operators).
    extra_triggers: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.keys = rule_keys(cls.code)
        cls.triggers = target_triggers(cls.keys) + cls.extra_triggers

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        found = match_call(node, ctx)
        if found is not None:
            name, decomposition, method = found
            yield from self._finding(node, ctx, decomposition, node, method, f"`{name}`", "",
                                     lambda safe: helper_fix(decomposition, node, ctx, method, safe),
                                     scripted=lambda: scripted_fix(decomposition, node, ctx, method))
            return
        yield from self._inplace(node, ctx)
        yield from self._module_call(node, ctx)

    def visit_BinOp(self, node: ast.BinOp, ctx: FunctionContext):
        yield from self.decomposed_operator(node, ctx)

    def decomposed_operator(self, node: ast.BinOp, ctx: FunctionContext):
        """`a << b` where an export the fix loop kept substituted the operator's decomposition on
        this line (a uint8 shift): rewritten to the helper. The operand must be a tensor (a Python
        int shift is no torch op): known, or this the line's only such operator the run intercepted."""
        key = RUN_OPERATORS.get(type(node.op))
        if key not in self.keys or not BY_KEY[key].written_from_run or not decomposed_in_run(BY_KEY[key], node, ctx):
            return
        if not self._tensor_operand(node, ctx):
            return
        decomposition = BY_KEY[key]
        call = f"{decomposition.helper}({ctx.segment(node.left)}, {ctx.segment(node.right)})"
        helpers = tuple(Helper(f"_onnx_{k}", helper_source(k)) for k in helper_chain(key))
        fix = Fix(f"Rewrite to `{call}`", (ctx.replace(node, call),), decomposition.exact or eager_guarded(key),
                  imports=("torch",), helpers=helpers)
        message = (f"`{SYMBOLS[type(node.op)]}` ({decomposition.targets[0]}) {DECOMPOSED_IN_RUN}, and "
                   f"`{decomposition.helper}`, substituted for it while exporting, made the export work")
        yield ctx.report(self, node, message, fix=fix, exporters=self.exporters)

    @staticmethod
    def _tensor_operand(node: ast.BinOp, ctx: FunctionContext) -> bool:
        """The left operand is a tensor: known, or not known to be anything else on a line where this
        operator is the only one and no call spells the op (the run's decomposition was this one)."""
        if ctx.tensors.is_tensor(node.left) is True:
            return True
        if ctx.tensors.is_tensor(node.left) is False or isinstance(node.left, ast.Constant) or ctx.ints.is_int(node.left):
            return False
        key = RUN_OPERATORS[type(node.op)]
        names = {target.rsplit(".", 1)[-1] for target in BY_KEY[key].targets}
        on_line = [other for other in walk(ctx.fn.node) if getattr(other, "lineno", None) == node.lineno]
        same = [o for o in on_line if isinstance(o, ast.BinOp) and type(o.op) is type(node.op)]
        spelled = [o for o in on_line if isinstance(o, ast.Call) and getattr(o.func, "attr", getattr(o.func, "id", "")) in names]
        return len(same) == 1 and not spelled

    def _inplace(self, node: ast.Call, ctx: FunctionContext):
        """The in-place spelling of a decomposed op (`out.index_add_(0, index, h)`): the same
        verdicts, and the helper's result copied back into the tensor."""
        found = match_inplace_call(node, ctx)
        if found is not None and fresh_tensor(node.func.value, ctx) and found[1].key in WRITES_INTO_SELF:
            # `x.clone().index_put_(...)`: nothing else holds the tensor written into, so the
            # out-of-place helper on it computes the same value
            name, decomposition = found
            yield from self._finding(node, ctx, decomposition, node, True, f"`{name}` (in place, on a new tensor)", "",
                                     lambda safe: helper_fix(decomposition, node, ctx, True, safe))
        elif found is not None:
            name, decomposition = found
            yield from self._finding(node, ctx, decomposition, node, True, f"`{name}` (in place)",
                                     ", copied back with `copy_`",
                                     lambda safe: inplace_helper_fix(decomposition, node, ctx, safe))

    def _module_call(self, node: ast.Call, ctx: FunctionContext):
        """`self.pool(x)` with `self.pool = nn.AdaptiveAvgPool2d(s)`: the layer's functional
        call, judged on its constructor's arguments, rewritten to the helper with the module's
        attributes (module_calls.py)."""
        found = match_module_call(node, ctx, TARGETS)
        if found is not None:
            call, decomposition = found
            function = call.function if call.function.startswith("Tensor.") else "F." + call.function.rsplit(".", 1)[1]
            yield from self._finding(node, ctx, decomposition, call.equivalent, False,
                                     f"`{call.receiver}` is a `nn.{call.layer}`, whose forward is `{function}`: it", "",
                                     lambda safe: module_helper_fix(decomposition, node, ctx, call, safe))

    def _finding(self, node: ast.Call, ctx: FunctionContext, decomposition: Decomposition, judged: ast.Call,
                 method: bool, spelled: str, how: str, make_fix, scripted=lambda: None):
        """The finding for a call of one of this rule's ops, whatever its spelling: ``judged`` is
        the call whose arguments decide whether it fails (the call itself, or the functional call
        a layer makes); ``make_fix(safe)`` writes the fix when the helper takes those arguments;
        ``scripted()`` the fix in a function TorchScript compiles (scripted_forms.py)."""
        if decomposition.key not in self.keys:
            return
        if ctx.compiled_by_torchscript:  # a helper's export guard is Python TorchScript cannot compile
            inline = scripted()

            def make_fix(safe, inline=inline):  # exact by construction: safe whatever `safe` says
                return inline
            how += ("; in a function TorchScript compiles, written as one TorchScript expression" if inline
                    else "; no fix in a function TorchScript compiles")
        if decomposition.written_from_run and decomposed_in_run(decomposition, node, ctx):
            yield from self._decomposed_finding(node, ctx, decomposition, method, spelled, how, make_fix)
            return
        resolved = with_resolved_arguments(judged, ctx)  # `antialias=self.antialias` judged as its literal
        if not decomposition.static or not selected_variant(decomposition, resolved, method):
            return
        failed = self.failures(decomposition, resolved, ctx, judged)
        if not failed:
            return  # the installed torch exports this variant (per the catalog)
        fix = None
        if helper_accepts(decomposition, judged, method):
            fix = make_fix(self.is_safe(decomposition, judged, ctx, method))
        elif any(k.arg is None for k in judged.keywords) and helper_accepts(decomposition, judged, method, splat=True):
            # `**kwargs` the source does not show: the helper takes the op's parameters, but only
            # a run binds them (`onnxfix export` proves it), so the fix is unsafe
            fix = make_fix(False)
        message = (
            f"{spelled} breaks ONNX export ({catalog.describe(failed)}; measured on torch "
            f"{catalog.torch_version()}); `{decomposition.helper}` computes it with exportable ops{how}"
        )
        yield ctx.report(self, node, message, fix=fix, exporters=tuple(sorted(failed)))

    def _decomposed_finding(self, node, ctx, decomposition, method, spelled, how, make_fix):
        """A call `onnxfix export` decomposed in an export it kept: the run proved that it fails
        and that the helper, called with these very arguments, exports (`**kwargs` included,
        and an argument form the catalog or the source could not show)."""
        # the run intercepted a Tensor method of this name at this line: where it is the line's
        # only call of that name, its receiver was a tensor there (unless known to be another thing)
        proven = method and _only_call_of_its_name(node, ctx) and ctx.tensors.is_tensor(node.func.value) is not False
        fix = make_fix(self.is_safe(decomposition, node, ctx, method, receiver_proven=proven)) if helper_accepts(
            decomposition, node, method, splat=True) else None
        message = (f"{spelled} {DECOMPOSED_IN_RUN}, and `{decomposition.helper}`, substituted for it while "
                   f"exporting, made the export work: it computes it with exportable ops{how}")
        yield ctx.report(self, node, message, fix=fix, exporters=self.exporters)

    def cases(self, decomposition: Decomposition, node: ast.Call, ctx: FunctionContext) -> tuple[str, ...]:
        return decomposition.catalog_cases

    def failures(self, decomposition: Decomposition, node: ast.Call, ctx: FunctionContext,
                 written: ast.Call | None = None) -> dict:
        """The catalog's failing verdicts of the call's cases, by exporter (``node`` with the literals
        its arguments hold; ``written``: the call in the tree, where a rule reads its context)."""
        return catalog.failures(self.cases(decomposition, node, ctx))

    def is_safe(self, decomposition: Decomposition, node: ast.Call, ctx: FunctionContext, method: bool,
                receiver_proven: bool = False) -> bool:
        """receiver_proven: a run intercepted this very method call, so its receiver is a tensor."""
        if method and not receiver_proven and ctx.tensors.is_tensor(node.func.value) is not True:
            return False  # `.cumprod()` on something that may be a NumPy array
        # A guarded helper returns the op itself outside export: bit-identical in eager whatever
        # its decomposition's accuracy (which only the exported model sees).
        return decomposition.exact or eager_guarded(decomposition.key)


def global_pooling(node: ast.Call) -> bool:
    """An adaptive average pooling to an output size of 1 on every axis: a mean over the whole
    axis, which both exporters take for any input size. A None (the axis kept) is no such thing:
    the legacy exporter refuses it with a dynamic size ("output_size is not constant"), and so
    does dynamo's conversion for 3-D pooling (measured on torch 2.13)."""
    size = literal(argument(node, "output_size", 1))
    sizes = size if isinstance(size, (tuple, list)) else (size,)
    return all(s == 1 for s in sizes)


def rule_doc(what, why, example, use_instead, safety, code, legacy_only: bool = False) -> RuleDoc:
    """A rule's documentation from the records of its decompositions (those naming rule
    ``code``). ``legacy_only``: the catalog measures the ops failing in the legacy exporter only
    (ONX517-ONX519)."""
    keys = rule_keys(code)
    references = tuple(ref for key in keys for ref in BY_KEY[key].evidence)
    notes = " ".join(f"`_onnx_{key}`: {BY_KEY[key].notes}" for key in keys)
    bounds = " ".join(f"`_onnx_{key}`: {BY_KEY[key].error_bound}." for key in keys if BY_KEY[key].error_bound)
    unreported = [f"`{BY_KEY[key].targets[0]}`" for key in keys if not BY_KEY[key].evidence]
    failing_in = "the legacy exporter" if legacy_only else "both exporters"
    evidence = (
        ("Reported only when the project targets the legacy exporter (`[tool.onnxfix] exporters` "
         "includes \"legacy\"): the dynamo exporter handles these calls (measured). Most helpers "
         "decompose under the legacy exporter only: in eager and under dynamo's torch.export "
         "(`torch.compiler.is_exporting()`) they return the op itself. kron, multi_dot, log_ndtr, "
         "erfcx and signbit decompose under both: dynamo's own translation fixes a dynamic size "
         "or is silently wrong there (measured). " if legacy_only else "")
        + "Priority evidence: the public issue reports listed under References (searched on the "
        "pytorch/pytorch and onnx/onnx trackers)."
        + (f" No public report was found for {', '.join(unreported)}: included because the catalog "
           f"measures it failing in {failing_in}." if unreported else "")
    )
    return RuleDoc(
        what=what + "\n\nDecompositions (onnxfix/decompositions/): " + notes,
        why=why + f"\n\nWhich exporters fail is read from the measured catalog ({PROBE}). " + evidence,
        example=example, use_instead=use_instead,
        fix_safety=safety + scripted_note(keys) + (("\n\nMeasured error bounds: " + bounds) if bounds else ""),
        references=references,
    )


def reads_only_first_field(node: ast.Call, ctx: FunctionContext, field: str) -> bool:
    """The call's named-tuple result is used only through its first field (`.values`,
    `.solution`) or `[0]`: fields a helper does not reproduce exactly are never read."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Attribute) and parent.attr == field:
        return True
    return isinstance(parent, ast.Subscript) and isinstance(parent.slice, ast.Constant) and parent.slice.value == 0


def _reduces_all(node: ast.Call, method: bool) -> bool:
    return len(node.args) == (0 if method else 1) and not any(k.arg in ("dim", "keepdim") for k in node.keywords)
