"""ONX526: complex values made in the model (`torch.polar`, `torch.view_as_complex`,
`torch.complex`) carried as (real, imaginary) pairs while exporting (decompositions/registry_fft.py,
the pair_* records)."""

from __future__ import annotations

import ast

from onnxfix import operator_catalog as catalog
from onnxfix.config import DYNAMO, LEGACY
from onnxfix.decompositions import BY_KEY, helper_chain, helper_source
from onnxfix.patterns.operators.base import DecompositionRule, match_call, rule_doc
from onnxfix.rewriter.bindings import only_value
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Helper
from onnxfix.rewriter.statements import single_name_assignment
from onnxfix.rewriter.tree_walk import walk

# records of the rule taking a complex value and returning a real one (no pair goes on from them)
CONSUMERS = frozenset({"angle"})


class ComplexValues(DecompositionRule):
    code = "ONX526"
    name = "complex-values"
    summary = "Complex tensors (`torch.polar`, `view_as_complex`, `torch.complex`, `x * 1j`: a complex RoPE, an iSTFT) fail to export: carry them as real pairs"
    default_safety = "safe"
    # complex literals (`1j`, `0.5j`, `2J`): a digit then j (non-identifier text: matched as is)
    extra_triggers = tuple(f"{digit}{j}" for digit in "0123456789" for j in "jJ")
    doc = rule_doc(
        "Finds `torch.polar`, `torch.view_as_complex`, `torch.complex` and products with a complex literal "
        "(`phase * 1j`, `1j * y`) in export-time code: Llama's rotary "
        "embedding (`freqs_cis = torch.polar(ones, freqs)`, `torch.view_as_complex(xq.reshape(..., -1, 2)) "
        "* freqs_cis`, `torch.view_as_real(...)`), complex gains and filters. Calls that feed or "
        "take a `torch.fft` transform are ONX522's. A pair takes `torch.exp`, `torch.istft` and "
        "`torch.fft.irfft`: iSTFTNet's `torch.istft(mag * torch.exp(phase * 1j), ...)` and Vocos's "
        "`torch.fft.irfft(mag * (x + 1j * y), ...)` export. The complex number may be Python arithmetic "
        "of a literal (DDSP-SVC's `torch.exp(mag + 1.j * np.pi * phase)`, read as `(1.j * np.pi) * phase`). "
        "`torch.angle` of such a value is reported for the dynamo exporter, whose Atan2 gives -pi on the "
        "negative real axis where torch gives pi (a real signal's DC and Nyquist bins: iSTFTNet's phase "
        "`torch.angle(torch.stft(...))`, whose stft then writes those bins' +0 imaginary parts too), and of a "
        "real tensor for the legacy exporter, which has no symbolic for it.",
        "ONNX has no complex tensors. The legacy exporter has no symbolic for `aten::polar` / "
        "`aten::view_as_complex`; the dynamo exporter translates a few complex ops and stops at the "
        "first it lacks (`No decompositions registered for the complex-valued input` for the "
        "`unsqueeze` of `freqs_cis[:, None, :]`).",
        "def forward(self, x, freqs):\n"
        "    cis = torch.polar(torch.ones_like(freqs), freqs)\n"
        "    return torch.view_as_real(torch.view_as_complex(x) * cis)",
        "def forward(self, x, freqs):\n"
        "    cis = _onnx_pair_polar(torch.ones_like(freqs), freqs)\n"
        "    return torch.view_as_real(_onnx_pair_view_as_complex(x) * cis)",
        "Safe: outside export every helper returns the torch op itself (bit-identical in eager, "
        "complex tensors and all). Only while exporting (`torch.onnx.is_in_onnx_export()`) do they "
        "make `_onnx_complex_pair` objects (which `torch.view_as_real` stacks back), whose products are written out on the parts (they may "
        "round otherwise than ATen's complex kernel; onnxruntime matches eager to float rounding). "
        "A complex value reaching an op the pair lacks (`torch.exp`, a complex matmul) makes the "
        "export fail naming that op, where it failed before on the complex value.",
        code,
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        found = match_call(node, ctx)
        if found is None or found[1].key not in self.keys or _beside_fft(node, ctx):
            return
        if found[1].key == "pair_istft" and not carries_complex_pair(first_argument(node), ctx):
            return  # a complex spectrum no fix makes a pair: ONX511's
        if found[1].key in CONSUMERS and _fft_value(_operand(node, found[2]), ctx):
            return  # ONX522 rewrites a transform together with its angle
        yield from super().visit_Call(node, ctx)

    def failures(self, decomposition, node: ast.Call, ctx: FunctionContext, written: ast.Call | None = None) -> dict:
        """An angle fails under the dynamo exporter of a complex value (a pair's producer under the
        legacy one, whose pair takes its own angle), under the legacy exporter of a real one. A
        real signal's stft whose phase is taken fails under the dynamo exporter too: its DC and
        Nyquist bins' imaginary parts are roundings of either sign there, where ATen writes +0."""
        failed = super().failures(decomposition, node, ctx)
        written = written or node
        if decomposition.key == "pair_stft" and _phase_taken(written, ctx):
            failed = {**failed, **{e: v for e, v in super().failures(BY_KEY["angle"], node, ctx).items() if e == DYNAMO}}
        if decomposition.key not in CONSUMERS:
            return failed
        fails_under = DYNAMO if carries_complex_pair(_operand(written, _method_call(written, ctx)), ctx) else LEGACY
        return {e: v for e, v in failed.items() if e == fails_under}

    def visit_BinOp(self, node: ast.BinOp, ctx: FunctionContext):
        """`phase * 1j` / `1j * y`: a product with a Python complex number makes a complex
        tensor; `_onnx_pair_scalar` is that product in eager (for any operand type) and a pair
        while exporting, which torch.exp, torch.istft and torch.fft.irfft take."""
        operands = _complex_scalar_product(node, ctx)
        if operands is None or ctx.tensors.is_tensor(operands[1]) is False:
            return
        failed = catalog.failures(("complex scalar product",))
        if not failed:
            return
        scalar, other = operands
        helpers = tuple(Helper(f"_onnx_{key}", helper_source(key)) for key in helper_chain("pair_scalar"))
        text = f"_onnx_pair_scalar({ctx.segment(other)}, {ctx.segment(scalar)})"
        fix = Fix("Rewrite to `_onnx_pair_scalar(...)`: the product in eager, a (real, imaginary) pair while exporting",
                  (ctx.replace(node, text),), True, imports=("torch",), helpers=helpers)
        message = (f"`{ctx.segment(node)}` makes a complex tensor, which breaks ONNX export "
                   f"({catalog.describe(failed)}; measured on torch {catalog.torch_version()}); "
                   "`_onnx_pair_scalar` carries it as (real, imaginary) parts while exporting")
        yield ctx.report(self, node, message, fix=fix, exporters=tuple(sorted(failed)))


NUMBER_ANNOTATIONS = frozenset({"int", "float", "complex"})
NUMBER_CONSTANTS = frozenset({"numpy.pi", "numpy.e", "numpy.inf", "numpy.nan", "numpy.euler_gamma",
                              "torch.pi", "torch.e", "torch.inf", "torch.nan"})


def _a_number(node: ast.AST, ctx: FunctionContext) -> bool:
    """A Python number, not a tensor: a literal, `math.pi` (and NumPy's and torch's constants:
    `np.pi`, `torch.pi`), arithmetic of those, a parameter
    annotated int/float/complex, or an attribute `__init__` set to a number literal."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, complex)) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return _a_number(node.left, ctx) and _a_number(node.right, ctx)
    if isinstance(node, ast.UnaryOp):
        return _a_number(node.operand, ctx)
    qualname = ctx.qualname(node) or ""
    if qualname.startswith("math.") or qualname in NUMBER_CONSTANTS:
        return True
    if isinstance(node, ast.Name) and ctx.is_parameter(node.id) and not ctx.assignments(node.id):
        arguments = ctx.fn.node.args
        for argument in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
            if argument.arg == node.id and isinstance(argument.annotation, ast.Name):
                return argument.annotation.id in NUMBER_ANNOTATIONS
        return False
    if ctx.is_self_attr(node):
        value = ctx.only_self_attr_value(node)
        return value is not None and isinstance(value, (ast.Constant, ast.BinOp, ast.UnaryOp)) and _a_number(value, ctx)
    return False


def _complex_scalar_product(node: ast.BinOp, ctx: FunctionContext) -> tuple[ast.expr, ast.expr] | None:
    """(the complex number, the other operand) of `x * 1j` or `1j * x`, the number a complex
    literal or Python arithmetic of one with numbers (DDSP-SVC's `1.j * np.pi * phase`, which
    Python reads as `(1.j * np.pi) * phase`), the other operand not a number itself."""
    if not isinstance(node.op, ast.Mult):
        return None
    for scalar, other in ((node.right, node.left), (node.left, node.right)):
        if _complex_number(scalar, ctx) and not _a_number(other, ctx):
            return scalar, other
    return None


def _operand(node: ast.Call, method: bool) -> ast.AST:
    """The tensor an op takes first: a Tensor method's receiver, else its first argument (`input=`)."""
    return node.func.value if method else first_argument(node)


def _fft_value(node: ast.AST, ctx: FunctionContext) -> bool:
    """A torch.fft transform's result: the call, or a name bound once to it."""
    if isinstance(node, ast.Name):
        node = only_value(node.id, ctx)
    return _is_fft(node, ctx)


def _phase_taken(node: ast.Call, ctx: FunctionContext) -> bool:
    """Some angle call of the function takes ``node``'s value (the call itself, or the name it is
    assigned to)."""
    parent = ctx.parent(node)
    name = single_name_assignment(parent) if isinstance(parent, ast.Assign) and parent.value is node else None
    for call in walk(ctx.fn.node):
        found = match_call(call, ctx) if isinstance(call, ast.Call) else None
        if found is None or found[1].key not in CONSUMERS:
            continue
        operand = _operand(call, found[2])
        while isinstance(operand, ast.Subscript):  # `torch.angle(spectrum[..., :k])`
            operand = operand.value
        if operand is node or (name is not None and isinstance(operand, ast.Name) and operand.id == name):
            return True
    return False


def _complex_number(node: ast.expr, ctx: FunctionContext) -> bool:
    return _a_number(node, ctx) and any(isinstance(n, ast.Constant) and isinstance(n.value, complex) for n in walk(node))


def _method_call(node: ast.Call, ctx: FunctionContext) -> bool:
    return isinstance(node.func, ast.Attribute) and ctx.qualname(node.func) is None


def first_argument(node: ast.Call) -> ast.AST:
    """A torch function's first argument, by position or keyword (`input=`)."""
    if node.args:
        return node.args[0]
    return next((k.value for k in node.keywords if k.arg == "input"), ast.Constant(None))


def _is_fft(node: ast.AST, ctx: FunctionContext) -> bool:
    return isinstance(node, ast.Call) and (ctx.qualname(node.func) or "").startswith("torch.fft.")


def _beside_fft(node: ast.Call, ctx: FunctionContext) -> bool:
    """`irfft(view_as_complex(t))` or `view_as_real(fft(x))`: ONX522 rewrites those together."""
    return _is_fft(ctx.parent(node), ctx) or any(_is_fft(argument, ctx) for argument in node.args)


def carries_complex_pair(node: ast.AST, ctx: FunctionContext, scalar_only: bool = False,
                         seen: frozenset[str] = frozenset(), calls: int = 0) -> bool:
    """``node`` holds a value this rule's fix makes a `_onnx_complex_pair` while exporting: it
    calls one of the rule's ops (or its `_onnx_pair_*` helper) or multiplies by a complex
    literal, directly or through the name's last assignment above (`x = torch.fft.rfft2(x) * w`
    then `irfft2(x)`; straight-line code: it only silences ONX511/ONX522/ONX524 for an op a pair
    computes, at worst a finding missed), or through a parameter every call of the function in
    the file passes such a value (HTDemucs's `ispectro(z)`, up to 3 calls deep). ``scalar_only``:
    only a pair a complex literal made (`_onnx_pair_scalar`)."""
    for sub in walk(node):
        if isinstance(sub, ast.BinOp) and _complex_scalar_product(sub, ctx) is not None:
            return True  # `phase * 1j`: _onnx_pair_scalar
        if isinstance(sub, ast.Call) and not scalar_only:
            found = match_call(sub, ctx)
            if found is not None and found[1].rule == ComplexValues.code and found[1].key not in CONSUMERS:
                return True
            if isinstance(sub.func, ast.Name) and sub.func.id.startswith("_onnx_pair_"):
                return True
            if calls < 3 and _returns_a_pair(sub, ctx, scalar_only, calls):
                return True
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and f"{sub.id}@{sub.lineno}" not in seen:
            above = [v for v in ctx.assignments(sub.id) if v.lineno < sub.lineno]
            last = max(above, key=lambda v: (v.lineno, v.col_offset), default=None)
            if last is not None and carries_complex_pair(last, ctx, scalar_only, seen | {f"{sub.id}@{sub.lineno}"}, calls):
                return True
            if last is None and calls < 3 and _passed_a_pair(sub.id, ctx, scalar_only, calls):
                return True
    return False


def _returns_a_pair(call: ast.Call, ctx: FunctionContext, scalar_only: bool, calls: int) -> bool:
    """A call of the model's own method (`self._mask(z, m)`) or of a function of the file whose
    returns carry a pair (HTDemucs's mask returns `view_as_complex(out)`)."""
    func, node = call.func, None
    if ctx.is_self_attr(func) and ctx.fn.cls is not None:
        node = ctx.fn.cls.methods.get(func.attr)
    elif isinstance(func, ast.Name):
        node = ctx.file.module.functions.get(func.id)
    callee = ctx.file.calls.contexts.get(id(node)) if node is not None and ctx.file.calls is not None else None
    if callee is None:
        return False
    values = [n.value for n in walk(node) if isinstance(n, ast.Return) and n.value is not None]
    return bool(values) and any(carries_complex_pair(v, callee, scalar_only, frozenset(), calls + 1) for v in values)


def _passed_a_pair(name: str, ctx: FunctionContext, scalar_only: bool, calls: int) -> bool:
    bindings = ctx.parameter_bindings(name) if ctx.is_parameter(name) else None
    return bool(bindings) and all(
        carries_complex_pair(argument, caller, scalar_only, frozenset(), calls + 1) for caller, argument in bindings)


RULES = [ComplexValues]
