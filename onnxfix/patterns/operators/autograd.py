"""ONX521: a `torch.autograd.Function` handed a function to run, which the legacy exporter cannot
record (activation checkpointing)."""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.module_index import ClassInfo
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.scope import is_autograd_function


class AutogradFunctionCallable(Rule):
    code = "ONX521"
    name = "autograd-function-callable"
    summary = "`Function.apply(fn, ...)` of an autograd Function whose forward runs a function argument"
    triggers = ("apply",)
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds `F.apply(...)` in export-time code where `F` is a `torch.autograd.Function`
            (defined in the same file) whose static `forward` calls one of its own parameters:
            the checkpointing pattern `CheckpointFunction.apply(run_function, *args)`.
        """,
        why="""
            The legacy exporter records `F.apply` as a Python operator and can only inline it
            when every argument is a tensor or a constant; a Python function argument makes it
            fail (torch 2.13: `RuntimeError: unordered_map::at`, older releases "Couldn't export
            Python operator CheckpointFunction"). The dynamo exporter traces through it.
        """,
        example="""
            class CheckpointFunction(torch.autograd.Function):
                @staticmethod
                def forward(ctx, run_function, *args):
                    return run_function(*args)

            class Net(nn.Module):
                def forward(self, x):
                    return CheckpointFunction.apply(torch.relu, x)
        """,
        use_instead="""
            class CheckpointFunction(torch.autograd.Function):
                @staticmethod
                def forward(ctx, run_function, *args):
                    return run_function(*args)

            class Net(nn.Module):
                def forward(self, x):
                    return (CheckpointFunction.forward(None, torch.relu, x) if torch.onnx.is_in_onnx_export()
                            else CheckpointFunction.apply(torch.relu, x))
        """,
        fix_safety="""
            Offered when `forward` never reads its `ctx` parameter and the class has no
            `symbolic` (the legacy exporter's own hook) and no `setup_context`. The call becomes
            `(F.forward(None, ...) if torch.onnx.is_in_onnx_export() else F.apply(...))`:
            `torch.onnx.is_in_onnx_export()` is False outside `torch.onnx.export` (both
            exporters set it while tracing, torch 2.13), so eager runs `F.apply` exactly as
            before, gradients included; under export the forward is traced directly. Safe.
        """,
        references=(
            "https://github.com/pytorch/pytorch/issues/61813",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#torch.onnx.is_in_onnx_export",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "apply" and isinstance(func.value, ast.Name)):
            return
        if _guarded(node, ctx):
            return  # the eager branch of this rule's own fix
        info = _same_file_function(func.value.id, ctx)
        if info is None:
            return
        forward = info.methods.get("forward")
        called = _called_parameter(forward) if forward is not None else None
        if called is None:
            return
        message = (
            f"`{func.value.id}.apply(...)`: its forward calls its argument `{called}`, a Python function the "
            "legacy exporter cannot record (RuntimeError: unordered_map::at)"
        )
        blocker = _blocker(info, forward, node)
        if blocker:
            yield ctx.report(self, node, f"{message}; no automatic fix: {blocker}")
            return
        yield ctx.report(self, node, message + "; trace its forward directly while exporting", fix=_fix(node, ctx))


def _guarded(call: ast.Call, ctx: FunctionContext) -> bool:
    """``call`` is the else branch of ``(... if torch.onnx.is_in_onnx_export() else call)``."""
    parent = ctx.parent(call)
    return (
        isinstance(parent, ast.IfExp) and parent.orelse is call and isinstance(parent.test, ast.Call)
        and ctx.qualname(parent.test.func) == "torch.onnx.is_in_onnx_export"
    )


def _same_file_function(name: str, ctx: FunctionContext) -> ClassInfo | None:
    """The autograd Function class ``name`` defined at the top of this file (not rebound)."""
    module = ctx.fn.module
    info = module.classes.get(name)
    if info is None or ctx.scope.lookup(name) is not None or ctx.scope.is_local(name):
        return None
    return info if is_autograd_function(module, info) else None


def _parameters(fn: ast.FunctionDef) -> list[str]:
    return [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]


def _called_parameter(forward: ast.FunctionDef) -> str | None:
    """A parameter of ``forward`` (after ctx) that its body calls: a function argument."""
    names = set(_parameters(forward)[1:]) | {a.arg for a in forward.args.kwonlyargs}
    for sub in ast.walk(forward):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in names:
            return sub.func.id
    return None


def _blocker(info: ClassInfo, forward: ast.FunctionDef, call: ast.Call) -> str | None:
    if "symbolic" in info.methods or "setup_context" in info.methods:
        return "the class defines `symbolic` or `setup_context`"
    if not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in forward.decorator_list):
        return "`forward` is not a plain staticmethod"
    parameters = _parameters(forward)
    if not parameters:
        return "`forward` takes no ctx"
    ctx_name = parameters[0]
    if any(isinstance(sub, ast.Name) and sub.id == ctx_name for sub in ast.walk(forward) if sub is not forward):
        return f"`forward` uses `{ctx_name}`"
    if call.keywords:
        return "`apply` is called with keywords"
    return None


def _fix(call: ast.Call, ctx: FunctionContext) -> Fix:
    torch_name, imports = ctx.torch_name()
    text = ctx.segment(call)
    func = call.func
    source = ctx.file.source
    start = source.span(call)[0]
    apply_start = ctx.dot_span(func)[0] + 1
    paren = source.text.index("(", source.span(func)[1])
    separator = ", " if call.args else ""
    direct = (
        source.text[start:apply_start] + "forward(None" + separator
        + source.text[paren + 1 : source.span(call)[1]]
    )
    guarded = f"({direct} if {torch_name}.onnx.is_in_onnx_export() else {text})"
    return Fix("Trace the Function's forward directly while exporting", (ctx.replace(call, guarded),), True,
               imports=imports)


RULES = [AutogradFunctionCallable]
