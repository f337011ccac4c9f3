"""The text of ONX603's scan rewrite: `if torch.compiler.is_exporting():` the step function and the
scan, `else:` the loop and its stacks exactly as written (one indentation level deeper)."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.scan_parts import ScanPlan, appended, index_element, substituted, tuple_bound
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.file_view import LINE_LIMIT
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.statements import statement_indent
from onnxfix.rewriter.tree_walk import walk


def scan_rewrite(node: ast.For, scan: ScanPlan, stacks: list[tuple[ast.stmt, dict[int, str]]], torch: str,
             ctx: FunctionContext) -> str | None:
    """The `if torch.compiler.is_exporting(): <scan> else: <the loop and its stacks>` text."""
    source = ctx.file.source
    indent = statement_indent(ctx, node)
    unit = statement_indent(ctx, node.body[0])[len(indent):] if node.body[0].lineno != node.lineno else ""
    unit = unit or ("\t" if indent.startswith("\t") else "    ")  # a one-line loop: the file's own unit
    if _names_clash(node, scan, ctx):
        return None
    original = source.text[source.span(node)[0]:source.span(stacks[-1][0] if stacks else node)[1]]
    if _has_multiline_string(node, stacks):
        return None
    step = ["def _scan_step(_carry, _xs):"]
    carried = scan.carried or ["_carry0"]
    step.append(f"{unit}{_tuple(carried)} = _carry")
    step.append(f"{unit}{_tuple(list(scan.sliced.values()) or ['_x0'])} = _xs")
    for statement in node.body:
        step.append(unit + _step_statement(statement, scan, torch, ctx).replace("\n", "\n" + unit))
    # a scan output may not alias an input or another output, and each carry must keep the
    # strides of its initial value: every carry contiguous, every output a fresh copy
    contiguous = f"memory_format={torch}.contiguous_format"
    # a carry that may be a tuple of tensors (an LSTM cell's (h, c)): scan takes a pytree of tensors,
    # copied leaf by leaf
    leaves = {name: _container_carry(name, node, ctx) for name in scan.carried}
    pytree = f"{torch}.utils._pytree.tree_map"
    returned_carries = _tuple([f"{pytree}(lambda _t: _t.clone({contiguous}), {name})" if leaves.get(name)
                               else f"{name}.clone({contiguous})" for name in carried])
    returned_outputs = _tuple([f"{name}.clone()" for name in scan.outputs.values()])
    step.append(f"{unit}return {returned_carries}, {returned_outputs}")
    inits = _tuple([f"{pytree}({torch}.Tensor.contiguous, {name})" if leaves[name] else f"{name}.contiguous()"
                    for name in scan.carried] or [f"{torch}.zeros(())"])  # a dummy carry
    xs = _tuple([_step_input(text, dim, scan, ctx) for (text, dim) in scan.sliced] or [_counter(scan, torch, ctx)])
    results = _tuple([f"_ys{k}" for k in range(len(scan.outputs))])
    call = f"{_tuple(carried)}, {results} = {torch}._higher_order_ops.scan(_scan_step, {inits}, {xs})"
    if len(indent + unit + call) > LINE_LIMIT:
        call = f"{_tuple(carried)}, {results} = {torch}._higher_order_ops.scan(\n{unit}_scan_step,\n{unit}{inits},\n{unit}{xs},\n)"
    writes = [_written_steps(target, dim, f"_ys{list(scan.outputs).index(key)}", scan, ctx)
              for key, (target, dim) in scan.writes.items()]
    export_branch = [*step, call, *writes, *(_stack_statement(statement, calls, ctx) for statement, calls in stacks)]
    header = [f"if {torch}.compiler.is_exporting():  # a torch scan keeps the loop dynamic under torch.export"]
    header += [f"{unit}{line}" for part in export_branch for line in part.split("\n")]
    header.append("else:")
    # the else branch: the original text, each line one level deeper (its lines after the first
    # already carry their own indentation)
    first, *rest = original.split("\n")
    eager = "".join("\n" + (unit + line if line.strip() else line) for line in rest)
    # the engine writes the file's own line endings back: the text is in "\n"
    return (f"\n{indent}".join(header) + f"\n{indent}{unit}{first}" + eager).replace("\r\n", "\n")


def _container_carry(name: str, node: ast.For, ctx: FunctionContext) -> bool:
    """The carried name may hold a tuple of tensors: it is bound to a tuple literal, or the run saw a
    tuple there, or nothing shows it is a tensor where the loop reads it (nn.LSTM's `(h, c)` state
    returned by a call, a parameter). tree_map copies a tensor as `.clone()` does. A named tuple is
    no carry: torch 2.13's scan refuses a step returning one ("HOP body output unsupported")."""
    if tuple_bound(name, ctx):
        return True
    read = next((n for n in walk(node) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)),
                None)
    return read is None or ctx.tensors.is_tensor(read) is not True


def _names_clash(node: ast.For, scan: ScanPlan, ctx: FunctionContext) -> bool:
    """A name the rewrite binds is the user's: inside the step (`_x0`, `_y0`, ...) one the loop
    reads, or in the function (`_scan_step`, `_ys0`, `_carry0`) one used outside the scans
    earlier rewrites made (each binds and reads its own before the next)."""
    step_names = {"_carry", "_xs", "_carry0", "_x0", *(n for n in scan.sliced.values() if n.startswith("_x")),
                  *scan.outputs.values()}
    if any(isinstance(n, ast.Name) and n.id in step_names for n in walk(node)):
        return True
    function_names = {"_scan_step", "_carry0", *(f"_ys{k}" for k in range(len(scan.outputs)))}
    rewritten = {id(n) for branch in walk(ctx.fn.node) if is_scan_branch(branch) for n in walk(branch)}
    return any(
        (isinstance(n, ast.Name) and n.id in function_names or isinstance(n, ast.FunctionDef) and n.name in function_names)
        and id(n) not in rewritten for n in walk(ctx.fn.node)
    )


def is_scan_branch(node: ast.AST) -> bool:
    """`if torch.compiler.is_exporting():` whose body starts with `def _scan_step`: a rewrite's."""
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Call) and isinstance(node.test.func, ast.Attribute)
            and node.test.func.attr == "is_exporting" and bool(node.body)
            and isinstance(node.body[0], ast.FunctionDef) and node.body[0].name == "_scan_step")


def _tuple(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _has_multiline_string(node: ast.For, stacks: list[tuple[ast.stmt, dict[int, str]]]) -> bool:
    statements = [node, *(statement for statement, _ in stacks)]
    return any(isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes)) and n.lineno != n.end_lineno
               for statement in statements for n in walk(statement))


def _written_steps(target: ast.Subscript, dim: int, ys: str, scan: ScanPlan, ctx: FunctionContext) -> str:
    """`out[:, a:b] = ys.movedim(0, 1)` for the loop's `out[:, t] = value` over `range(a, b)`."""
    index = target.slice if isinstance(target.slice, ast.Name) else index_element(target.slice, scan.index)
    start = ctx.segment(scan.start) if scan.start is not None else ""
    if scan.stop is not None:
        stop = ctx.segment(scan.stop)
    else:  # enumerate(<slices>): as many steps as the first iterated tensor has slices
        (tensor, along), *_ = scan.sliced
        stop = f"{tensor}.shape[{along}]"
    slot = substituted(target, {id(index): f"{start}:{stop}"}, ctx)
    return f"{slot} = {ys}" if dim == 0 else f"{slot} = {ys}.movedim(0, {dim})"


def _step_statement(statement: ast.stmt, scan: ScanPlan, torch: str, ctx: FunctionContext) -> str:
    """The body statement with its indexed subscripts read from the step inputs; an append or a
    slot write binds the step's output instead."""
    if id(statement) in scan.writes:
        # each step's value broadcast to its slot as the write broadcasts it: stacked unbroadcast,
        # a row's scalar or a trailing-dims value would broadcast against the steps' dim instead
        target, _ = scan.writes[id(statement)]
        index = target.slice if isinstance(target.slice, ast.Name) else index_element(target.slice, scan.index)
        slot = substituted(target, {id(index): "0"}, ctx)
        value = substituted(statement.value, scan.replaced, ctx)
        return f"{scan.outputs[id(statement)]} = {torch}.broadcast_to({value}, {slot}.shape)"
    if id(statement) in scan.masked:  # `t[mask] = 0`: a new tensor (the scan's body takes no in-place write)
        target = statement.targets[0]
        return (f"{target.value.id} = _onnx_masked_write({target.value.id}, "
                f"{substituted(target.slice, scan.replaced, ctx)}, {ctx.segment(statement.value)})")
    found = appended(statement)
    listed, value = (found[0], found[1]) if found is not None else (None, statement)
    text = _relative_lines(substituted(value, scan.replaced, ctx), statement_indent(ctx, statement))
    return f"{scan.outputs[listed]} = {text}" if listed is not None else text


def _relative_lines(text: str, base: str) -> str:
    """A statement's lines after its first without the statement's own indentation: an `if`'s
    body, or a call's continuation lines, re-indented with the step function."""
    first, *rest = text.split("\n")
    return "\n".join([first, *(line[len(base):] if line.startswith(base) else line for line in rest)])


def _counter(scan: ScanPlan, torch: str, ctx: FunctionContext) -> str:
    """What a scan over no stepped tensor runs over: one element per step, on the device of the
    first carried value."""
    start = f"{ctx.segment(scan.start)}, " if scan.start is not None else ""
    return f"{torch}.arange({start}{ctx.segment(scan.stop)}, device={scan.carried[0]}.device)"


def _step_input(tensor: str, dim: int, scan: ScanPlan, ctx: FunctionContext) -> str:
    """The tensor with the stepped dim first, cut to the steps the range takes (no cut for
    `range(x.shape[d])` over the same `x` and `d`)."""
    moved = tensor if dim == 0 else f"{tensor}.movedim({dim}, 0)"
    if scan.stop is None or (scan.start is None and _size_of(scan.stop, ctx) == (tensor, dim)):
        return moved
    start = ctx.segment(scan.start) if scan.start is not None else ""
    return f"{moved}[{start}:{ctx.segment(scan.stop)}]"


def _size_of(node: ast.expr, ctx: FunctionContext) -> tuple[str, int] | None:
    """(tensor text, dim) of `x.shape[d]` or `x.size(d)` with a literal d."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        dim = int_constant(node.slice)
        return None if dim is None else (ctx.segment(node.value.value), dim)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
            and len(node.args) == 1 and not node.keywords):
        dim = int_constant(node.args[0])
        return None if dim is None else (ctx.segment(node.func.value), dim)
    return None


def _stack_statement(statement: ast.stmt, calls: dict[int, str], ctx: FunctionContext) -> str:
    return _relative_lines(substituted(statement, calls, ctx), statement_indent(ctx, statement))
