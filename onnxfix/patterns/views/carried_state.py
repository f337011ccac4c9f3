"""ONX306: a module attribute rewritten in forward from its own value: state carried between calls.

    self.wavbuf = torch.cat([self.wavbuf, x])[-self.size:]     # a streaming FIFO
    self.hidden = self.cell(x, self.hidden)                    # a stateful RNN
    self.count += x.sum()

An ONNX model is a function of its inputs: nothing it computes survives to the next run. The
exporters keep the attribute's value as a constant (dynamo: the value before the export; legacy:
the value the export's own trace left) and drop the update, so every call after the first differs
from eager. There is no faithful rewrite inside forward: the state has to cross the model's
boundary, an input for the previous value and an output for the new one (the streaming-cache
pattern of ONNX speech and LLM exports), which changes the model's interface. Report only.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import in_training_branch
from onnxfix.rewriter.rule import Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk

# a re-cast of the attribute to the input's device or dtype: the same value, not a state update
RECASTS = frozenset({"to", "type", "type_as", "float", "half", "double", "bfloat16", "cuda", "cpu", "detach",
                     "contiguous", "clone", "requires_grad_"})
CONVERTERS = frozenset({"torch.as_tensor", "torch.asarray", "torch.tensor"})


class CarriedState(Rule):
    code = "ONX306"
    name = "state-between-calls"
    summary = "A module attribute rewritten in forward from its own value: state the ONNX model cannot carry"
    doc = RuleDoc(
        what="Finds, in export-time code, an assignment to a module attribute whose new value is computed from "
        "the attribute's own value (`self.buf = torch.cat([self.buf, x])[-n:]`, `self.h = self.cell(x, self.h)`), "
        "or an augmented assignment to one holding a tensor (`self.total += x.sum()`), outside training-only "
        "branches; also a tensor stepped by itself, whatever the inputs (a position counter "
        "`self.pos = torch.clamp(self.pos + 1, max=n)`), and state a method resets that only a factory or the "
        "caller runs (HoloMotion's `reset_kv_cache`), where a reset the model's own methods run makes it "
        "per call; and items of a module attribute stored from the inputs' values after forward read its "
        "items (BEVFormer's `self.prev_frame_info[\"prev_bev\"] = bev`), once per attribute, unless the "
        "function tests a key's membership in it or returns an item of it as it stands (a memo). A re-cast (`self.pe = self.pe.to(x.device)`) and a cache rebuilt under a test on the "
        "attribute (ONX609) are not state.",
        why="An exported ONNX model is a function of its inputs: nothing survives from one run to the next. "
        "Measured on torch 2.13 with a FIFO buffer: the dynamo exporter keeps the buffer's value from before "
        "the export as a constant and the legacy exporter the value its own trace left; both drop the update, "
        "so every call after the first returns what a fresh model would (silently wrong against eager, which "
        "carries the state).",
        example="def forward(self, x):\n    self.buf = torch.cat([self.buf, x])[-self.size:]\n    return self.buf",
        use_instead="def forward(self, x, buf):  # the state crosses the model's boundary\n"
        "    buf = torch.cat([buf, x])[-self.size:]\n    return buf, buf  # the output, and the next call's state",
        fix_safety="No fix: carrying the state needs a new input and output, which changes how the model is "
        "called (the caller feeds each run's state to the next).",
        references=("https://github.com/pytorch/pytorch/issues/70280",),
    )

    def visit_Assign(self, node: ast.Assign, ctx: FunctionContext):
        if len(node.targets) == 1 and _item_of_attribute(node.targets[0], ctx):
            yield from self._item_state(node, node.targets[0].value, ctx)
            return
        if len(node.targets) != 1 or not ctx.is_self_attr(node.targets[0]):
            return
        target = node.targets[0]
        if not _computed_from(node.value, target, ctx) or _recast(node.value, target) \
                or not (_input_values(node.value, ctx) or not _reads_inputs(node.value, ctx)):
            return
        if not (ctx.tensors.is_tensor(node.value) or _tensor_attribute(target, ctx)):
            return
        yield from self._report(node, target, ctx)

    def visit_AugAssign(self, node: ast.AugAssign, ctx: FunctionContext):
        if not ctx.is_self_attr(node.target):
            return
        if not (ctx.tensors.is_tensor(node.value) or _tensor_attribute(node.target, ctx)) \
                or not _input_values(node.value, ctx):
            return
        yield from self._report(node, node.target, ctx)

    def _item_state(self, node: ast.Assign, target: ast.Attribute, ctx: FunctionContext):
        """`self.prev_frame_info["prev_bev"] = bev` (BEVFormer's temporal state): an item of a module
        attribute stored from the inputs' values, where the same function reads an item of it before
        the store; reported at the first such store, unless the attribute is a memo (ONX609's)."""
        stores = [s for s in walk(ctx.fn.node) if isinstance(s, ast.Assign) and len(s.targets) == 1
                  and _item_of_attribute(s.targets[0], ctx) and ast.unparse(s.targets[0].value) == ast.unparse(target)
                  and _input_values(s.value, ctx) and _read_before(s, target, ctx)]
        if stores and min(stores, key=lambda s: (s.lineno, s.col_offset)) is node and not _memo(target, ctx):
            yield from self._report(node, target, ctx, item=True)  # once, at the first

    def _report(self, node: ast.stmt, target: ast.Attribute, ctx: FunctionContext, item: bool = False):
        if ctx.compiled_by_torchscript or ctx.fn.node.name == "__init__" or in_training_branch(node, ctx):
            return  # a constructor's object is new on every call that builds it
        if _tested_before(node, target, ctx) or _reset_elsewhere(target, ctx):
            return
        name = ctx.segment(target)
        yield ctx.report(
            self, node,
            (f"items of `{name}` are stored from the inputs in forward and read back on the next call" if item else
             f"`{name}` is rewritten from its own value in forward") + ": state carried from call to call, which an ONNX "
            "model cannot hold (the exporters keep one value as a constant and drop the update: every call after the "
            f"first differs from eager); no faithful rewrite: pass `{name}` in as an input and return its new value",
        )


def _item_of_attribute(target: ast.expr, ctx: FunctionContext) -> bool:
    return isinstance(target, ast.Subscript) and ctx.is_self_attr(target.value)


def _memo(target: ast.Attribute, ctx: FunctionContext) -> bool:
    """A memo (ONX609's): the function tests a key's membership in the attribute (`if image.device
    in self.last_anchors:`) or returns one of its items as it stands."""
    text = ast.unparse(target)
    for sub in walk(ctx.fn.node):
        if isinstance(sub, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in sub.ops) \
                and any(ast.unparse(c) == text for c in sub.comparators):
            return True
        if isinstance(sub, ast.Return) and isinstance(sub.value, ast.Subscript) and ast.unparse(sub.value.value) == text:
            return True
    return False


def _read_before(node: ast.stmt, target: ast.Attribute, ctx: FunctionContext) -> bool:
    """The function reads an item of the attribute's value before this store (by line): the
    previous call's item, the state's value this call starts from."""
    text = ast.unparse(target)
    return any(isinstance(sub, ast.Subscript) and isinstance(sub.ctx, ast.Load) and ast.unparse(sub.value) == text
               and (sub.lineno, sub.col_offset) < (node.lineno, node.col_offset) for sub in walk(ctx.fn.node))


METADATA = frozenset({"device", "dtype", "shape", "ndim", "size", "dim", "numel"})


def _reads(value: ast.expr, target: ast.Attribute) -> bool:
    """The value reads the attribute's value (not only its `.device`, `.dtype`, `.shape`, `.size()`)."""
    text = ast.unparse(target)
    parents = {id(child): parent for parent in walk(value) for child in ast.iter_child_nodes(parent)}
    return any(isinstance(sub, ast.Attribute) and ast.unparse(sub) == text
               and not (isinstance(parents.get(id(sub)), ast.Attribute) and parents[id(sub)].attr in METADATA)
               for sub in walk(value))


def _input_values(value: ast.expr, ctx: FunctionContext, depth: int = 4) -> bool:
    """The value reads the function's inputs' values (not only their sizes), itself or through the
    local names it reads: a state stepped by the data (a FIFO, a hidden state), where a cache grown to
    a size (ONX609's `torch.cat([self.pe, torch.arange(n, T)])`) is the same whenever it is built."""
    parents = {id(child): parent for parent in walk(value) for child in ast.iter_child_nodes(parent)}
    names = set()
    for sub in walk(value):
        if not (isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load)) or sub.id == ctx.self_name:
            continue
        parent = parents.get(id(sub))
        if isinstance(parent, ast.Attribute) and parent.attr in METADATA:
            continue
        if ctx.is_parameter(sub.id):
            return True
        names.add(sub.id)
    return depth > 0 and any(isinstance(bound, ast.expr) and _input_values(bound, ctx, depth - 1)
                             for name in names for bound in ctx.assignments(name))


def _reads_inputs(value: ast.expr, ctx: FunctionContext, depth: int = 4) -> bool:
    """The value reads the function's inputs at all (their values or their sizes), itself or through the
    local names it reads. One that reads none steps the state by itself, whatever the inputs (HoloMotion's
    `self.cache_len = clamp(self.cache_len + 1)`, a position counter): state as much as a FIFO, where a
    cache grown to the input's size (ONX609) reads the size."""
    names = {n.id for n in walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    if any(ctx.is_parameter(name) and name != ctx.self_name for name in names):
        return True
    return depth > 0 and any(isinstance(bound, ast.expr) and _reads_inputs(bound, ctx, depth - 1)
                             for name in names if name != ctx.self_name for bound in ctx.assignments(name))


def _tensor_attribute(target: ast.Attribute, ctx: FunctionContext) -> bool:
    """A registered buffer, or an attribute the class binds to a tensor (`self.h = torch.zeros(1, 4)`)."""
    cls = ctx.fn.cls
    if cls is None:
        return False
    value = cls.self_attrs.get(target.attr)
    return target.attr in cls.buffers or (value is not None and ctx.tensors.is_tensor(value) is True)


def _computed_from(value: ast.expr, target: ast.Attribute, ctx: FunctionContext, depth: int = 4) -> bool:
    """The value reads the attribute, itself or through the local names it reads (TCN's `update =
    torch.cat((self.cache[..., 1:], x))` then `self.cache = update`; an RNN's hidden computed from
    `torch.cat((x, self.last_hidden))`)."""
    if _reads(value, target):
        return True
    if depth <= 0:
        return False
    names = {n.id for n in walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return any(isinstance(bound, ast.expr) and _computed_from(bound, target, ctx, depth - 1)
               for name in names if not ctx.is_parameter(name) for bound in ctx.assignments(name))


def _recast(value: ast.expr, target: ast.Attribute) -> bool:
    """`self.pe.to(x.device)`, `self.pe.type_as(x).detach()`, `torch.as_tensor(self.k, device=x.device)`:
    conversions of the attribute."""
    while isinstance(value, ast.Call):
        if isinstance(value.func, ast.Attribute) and value.func.attr in RECASTS:
            value = value.func.value
        elif ast.unparse(value.func) in CONVERTERS and value.args:
            value = value.args[0]
        else:
            break
    return isinstance(value, ast.Attribute) and value.attr == target.attr and ast.unparse(value) == ast.unparse(target)


def _tested_before(node: ast.stmt, target: ast.Attribute, ctx: FunctionContext) -> bool:
    """Inside an `if` whose test reads the attribute (`if self.pe.size(1) < n:`, `if self.h is None:`):
    a cache rebuilt or initialised, ONX609's, not a state stepped on every call."""
    text = ast.unparse(target)
    return any(isinstance(a, (ast.If, ast.IfExp, ast.While)) and any(
        isinstance(s, ast.Attribute) and ast.unparse(s) == text for s in walk(a.test))
        for a in ctx.ancestors(node))


def _reset_elsewhere(target: ast.Attribute, ctx: FunctionContext) -> bool:
    """A method other than `__init__` (this one too) also binds the attribute to a value not
    computed from itself (Tacotron's `initialize_decoder_states`): state initialised by each call,
    stepped within it. Not a method no method of the file's classes calls (HoloMotion's `reset_kv_cache`,
    called by the caller between episodes): the state still lives from one forward to the next."""
    cls = ctx.fn.cls
    methods = cls.methods.items() if cls is not None else [(ctx.fn.node.name, ctx.fn.node)]
    for name, method in methods:
        if name == "__init__" or not method.args.args:
            continue
        if cls is not None and method is not ctx.fn.node and not _called_by_a_method(name, ctx):
            continue
        self_name = method.args.args[0].arg
        for statement in walk(method):
            if not (isinstance(statement, ast.Assign) and any(
                    isinstance(t, ast.Attribute) and t.attr == target.attr and isinstance(t.value, ast.Name)
                    and t.value.id == self_name for t in statement.targets)):
                continue
            attribute = ast.Attribute(value=ast.Name(id=self_name, ctx=ast.Load()), attr=target.attr, ctx=ast.Load())
            own = _computed_from(statement.value, attribute, ctx) if method is ctx.fn.node else _reads(statement.value, attribute)
            if not own:
                return True
    return False


def _called_by_a_method(name: str, ctx: FunctionContext) -> bool:
    """A method of a class of the file calls `<object>.<name>(...)`: the model resets the state itself
    (Tacotron's decoder calls `self.attention.init_states(inputs)`), where a reset only a factory or the
    caller runs (HoloMotion's `policy.reset_kv_cache(...)` in make_model) leaves it living between calls."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name
               for cls in ctx.file.module.classes.values() for method in cls.methods.values()
               for node in walk(method))
