"""ONX521: a `torch.autograd.Function` the legacy exporter cannot record: one handed a function to
run (activation checkpointing), or one whose forward calls TorchScript code (timm's `*JitAutoFn`)."""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.module_index import ClassInfo, module_statements
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.names import walk_scope
from onnxfix.rewriter.scope import is_autograd_function
from onnxfix.rewriter.tree_walk import walk


class AutogradFunctionCallable(Rule):
    code = "ONX521"
    name = "autograd-function-callable"
    summary = "`Function.apply(...)` of an autograd Function whose forward runs a function argument or TorchScript code"
    triggers = ("apply",)
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds `F.apply(...)` in export-time code where `F` is a `torch.autograd.Function`
            (defined in the same file) whose static `forward` calls one of its own parameters,
            directly or kept in a ctx attribute: the checkpointing pattern
            `CheckpointFunction.apply(run_function, *args)`; or whose `forward` calls a function the
            module compiles with `torch.jit.script` (timm's memory-efficient activations,
            `HardSigmoidJitAutoFn`).
        """,
        why="""
            The legacy exporter records `F.apply` as a Python operator and can only inline it
            when every argument is a tensor or a constant; a Python function argument makes it
            fail (torch 2.13: `RuntimeError: unordered_map::at`, older releases "Couldn't export
            Python operator CheckpointFunction"). It inlines a Function whose forward is plain
            torch, but not one that calls TorchScript code: "Couldn't export Python operator
            HardSigmoidJitAutoFn" (measured on torch 2.13). The dynamo exporter traces through both.
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
            Offered when `forward` never reads its `ctx` parameter, or uses it only to keep
            values in attributes it sets itself before reading them (guided-diffusion's
            `ctx.run_function = run_function`, then `ctx.run_function(*ctx.input_tensors)`:
            then a `types.SimpleNamespace()` stands for it, given no-op `save_for_backward`,
            `mark_non_differentiable`, `mark_dirty` or `set_materialize_grads` where `forward`
            calls them: they only prepare the backward), and the class has no
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
        scripted = _scripted_call(forward, ctx) if forward is not None and called is None else None
        if called is None and scripted is None:
            return
        message = (
            f"`{func.value.id}.apply(...)`: its forward calls its argument `{called}`, a Python function the "
            "legacy exporter cannot record (RuntimeError: unordered_map::at)" if called is not None else
            f"`{func.value.id}.apply(...)`: its forward calls the TorchScript function `{scripted}`, which keeps "
            f"the legacy exporter from inlining the Function (\"Couldn't export Python operator {func.value.id}\")"
        )
        blocker = _blocker(info, forward, node)
        if blocker:
            yield ctx.report(self, node, f"{message}; no automatic fix: {blocker}")
            return
        namespace = _keeps_attributes(forward)
        if namespace and not ctx.module_alias("types") and (not ctx.is_builtin("types")
                                                             or _names_types(ctx.fn.module.tree)):
            yield ctx.report(self, node, f"{message}; no automatic fix: the name `types` is taken here")
            return
        fix = _fix(node, ctx, namespace=namespace)
        yield ctx.report(self, node, message + "; trace its forward directly while exporting", fix=fix)


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


# ctx methods autograd provides that only prepare the backward: no-ops for a forward traced directly
BACKWARD_ONLY = ("save_for_backward", "mark_non_differentiable", "mark_dirty", "set_materialize_grads")


def _scripted_call(forward: ast.FunctionDef, ctx: FunctionContext) -> str | None:
    """A name ``forward`` calls that the module binds to a TorchScript function (`@torch.jit.script`
    on a def, or `name = torch.jit.script(fn)`): timm's `HardSigmoidJitAutoFn`."""
    statements = list(module_statements(ctx.fn.module.tree))
    scripted = {node.name for node in statements if isinstance(node, ast.FunctionDef) and any(
        ctx.qualname(d.func if isinstance(d, ast.Call) else d) == "torch.jit.script" for d in node.decorator_list)}
    scripted |= {t.id for node in statements if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                 and ctx.qualname(node.value.func) == "torch.jit.script" for t in node.targets if isinstance(t, ast.Name)}
    return next((sub.func.id for sub in walk(forward) if isinstance(sub, ast.Call)
                 and isinstance(sub.func, ast.Name) and sub.func.id in scripted), None)


def _parameters(fn: ast.FunctionDef) -> list[str]:
    return [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]


def _called_parameter(forward: ast.FunctionDef) -> str | None:
    """A parameter of ``forward`` (after ctx) that its body calls: a function argument."""
    parameters = _parameters(forward)
    names = set(parameters[1:]) | {a.arg for a in forward.args.kwonlyargs}
    kept = _kept_parameters(forward, parameters[0], names) if parameters else {}
    for sub in walk(forward):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in names:
            return sub.func.id
        if (kept and isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and isinstance(sub.func.value, ast.Name)
                and sub.func.value.id == parameters[0] and sub.func.attr in kept):
            return kept[sub.func.attr]  # `ctx.run_function = run_function`, then `ctx.run_function(...)`
    return None


def _kept_parameters(forward: ast.FunctionDef, ctx_name: str, names: set[str]) -> dict[str, str]:
    """ctx attribute -> the parameter ``forward`` stores in it (`ctx.run_function = run_function`)."""
    kept = {}
    for sub in walk(forward):
        if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Name) and sub.value.id in names:
            for target in sub.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == ctx_name:
                    kept[target.attr] = sub.value.id
    return kept


def _blocker(info: ClassInfo, forward: ast.FunctionDef, call: ast.Call) -> str | None:
    if "symbolic" in info.methods or "setup_context" in info.methods:
        return "the class defines `symbolic` or `setup_context`"
    if not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in forward.decorator_list):
        return "`forward` is not a plain staticmethod"
    parameters = _parameters(forward)
    if not parameters:
        return "`forward` takes no ctx"
    ctx_name = parameters[0]
    uses = [sub for sub in walk(forward) if isinstance(sub, ast.Name) and sub.id == ctx_name]
    if uses and not _keeps_attributes(forward):
        return f"`forward` uses `{ctx_name}` other than to keep values in its own attributes"
    if call.keywords:
        return "`apply` is called with keywords"
    return None


def _names_types(tree: ast.Module) -> bool:
    """The module binds the name `types` at its top level (an assignment, a def, another import):
    an added `import types` would be shadowed. A local binding is the caller's `is_builtin`."""
    for node, _ in walk_scope(tree):
        if isinstance(node, ast.Name) and node.id == "types" and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == "types":
            return True
        if isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == "types":
            return True
    return False


def _keeps_attributes(forward: ast.FunctionDef) -> bool:
    """``forward`` uses its ctx only to keep values in attributes it sets itself
    (guided-diffusion's CheckpointFunction: `ctx.run_function = run_function`, then
    `ctx.run_function(*ctx.input_tensors)`): a plain namespace serves as well while exporting.
    Never a method or attribute autograd provides (`save_for_backward`, `needs_input_grad`)."""
    ctx_name = _parameters(forward)[0]
    stored, loaded = set(), set()
    for sub in walk(forward):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == ctx_name:
            (stored if isinstance(sub.ctx, ast.Store) else loaded).add(sub.attr)
    attribute_uses = sum(1 for sub in walk(forward) if isinstance(sub, ast.Attribute)
                         and isinstance(sub.value, ast.Name) and sub.value.id == ctx_name)
    name_uses = sum(1 for sub in walk(forward) if isinstance(sub, ast.Name) and sub.id == ctx_name)
    backward_only = set(_backward_only_calls(forward))
    return bool(stored or backward_only) and loaded <= stored | backward_only and attribute_uses == name_uses \
        and _stored_first(forward, ctx_name, backward_only)


def _backward_only_calls(forward: ast.FunctionDef) -> list[str]:
    """The BACKWARD_ONLY methods ``forward`` calls on its ctx, each as a statement of its own
    (`ctx.save_for_backward(x)`), in order of first use; a read of one otherwise is not listed."""
    ctx_name = _parameters(forward)[0]
    called = [sub.value.func.attr for sub in walk(forward) if isinstance(sub, ast.Expr)
              and isinstance(sub.value, ast.Call) and isinstance(sub.value.func, ast.Attribute)
              and isinstance(sub.value.func.value, ast.Name) and sub.value.func.value.id == ctx_name
              and sub.value.func.attr in BACKWARD_ONLY]
    return list(dict.fromkeys(called))


def _stored_first(forward: ast.FunctionDef, ctx_name: str, provided: set[str] = frozenset()) -> bool:
    """Each attribute read is set by an earlier top-level statement of ``forward`` (or is one of
    the no-op methods the namespace provides)."""
    stored: set[str] = set(provided)
    for statement in forward.body:
        for sub in walk(statement):
            if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == ctx_name
                    and isinstance(sub.ctx, ast.Load) and sub.attr not in stored):
                return False
        if isinstance(statement, ast.Assign):
            stored |= {t.attr for t in statement.targets if isinstance(t, ast.Attribute)
                       and isinstance(t.value, ast.Name) and t.value.id == ctx_name}
    return True


def _fix(call: ast.Call, ctx: FunctionContext, namespace: bool = False) -> Fix:
    torch_name, imports = ctx.torch_name()
    context = "None"
    if namespace:
        types_name = ctx.module_alias("types")
        info = _same_file_function(call.func.value.id, ctx)
        no_ops = _backward_only_calls(info.methods["forward"]) if info is not None else []
        context = f"{types_name or 'types'}.SimpleNamespace({', '.join(f'{m}=lambda *a: None' for m in no_ops)})"
        imports = (*imports, *(() if types_name else ("types",)))
    text = ctx.segment(call)
    func = call.func
    source = ctx.file.source
    start = source.span(call)[0]
    apply_start = ctx.dot_span(func)[0] + 1
    paren = source.text.index("(", source.span(func)[1])
    separator = ", " if call.args else ""
    direct = (
        source.text[start:apply_start] + f"forward({context}" + separator
        + source.text[paren + 1 : source.span(call)[1]]
    )
    guarded = f"({direct} if {torch_name}.onnx.is_in_onnx_export() else {text})"
    return Fix("Trace the Function's forward directly while exporting", (ctx.replace(call, guarded),), True,
               imports=imports)


RULES = [AutogradFunctionCallable]
