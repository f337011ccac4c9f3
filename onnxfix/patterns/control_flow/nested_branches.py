"""An `if`'s branches as nested functions: which `if`s can move (ONX613's torch.cond, ONX601's
selection under export), what each branch takes and gives, and the text edits that move them.

The rewrite keeps every statement of the branches where it was (comments and formatting too):
`if <test>:` becomes `def _onnx_if_<line>(<operands>):`, `else:` becomes `def _onnx_else_<line>(...)`,
and one call of a helper binds the results.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.value_cond import Predicate
from onnxfix.rewriter.binding_flow import certainly_bound, free_reads
from onnxfix.rewriter.attr_changes import CONTAINER_MUTATORS
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Edit, Fix
from onnxfix.rewriter.statements import is_elif, statement_indent
from onnxfix.rewriter.tensors import in_place_method
from onnxfix.rewriter.tree_walk import walk

# statements a torch.cond branch cannot hold, or whose effect would leave the nested function
ESCAPES = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.Delete, ast.Raise,
           ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.AugAssign,
           ast.Try)
# container methods that write their receiver (a side effect torch.cond refuses; eager is the same either way)
# container methods that change their receiver, less those a tensor has as out-of-place methods
# (`scores.sort(descending=True)` returns new tensors) and the dunders a subscript store spells
MUTATORS = CONTAINER_MUTATORS - {"sort", "reverse", "__setitem__", "__delitem__"}
LOOPS = (ast.For, ast.While, ast.AsyncFor)
# the helpers that call the nested functions where they are defined (size_cond, value_cond, value_select)
OWN_HELPERS = ("_onnx_size_cond", "_onnx_value_cond", "_onnx_value_select")


def else_line(node: ast.If, ctx: FunctionContext) -> int | None:
    """The line of the `else:` keyword (None for an `elif` or an `else: <statement>` on one line)."""
    source = ctx.file.source
    for line in range(node.body[-1].end_lineno + 1, node.orelse[0].lineno):
        text = source.line_text(line).lstrip()
        if text.startswith("else") and text[4:].lstrip().startswith(":"):
            return line
    return None


def own_lines(node: ast.If, ctx: FunctionContext) -> bool:
    """Each branch starts on a line of its own (not `if c: x = ...`, not an `elif`), and its
    statements are not joined by `;` to the header's line."""
    if node.body[0].lineno <= node.test.end_lineno:
        return False
    if not node.orelse:
        return True
    if elif_chain(node, ctx):
        return True
    else_at = else_line(node, ctx)
    return else_at is not None and node.orelse[0].lineno > else_at


def elif_chain(node: ast.If, ctx: FunctionContext) -> bool:
    """The `else` is an `elif` chain (whisper's `if cross and past is not None and past[0].shape[2] ==
    kv.shape[1]: ... elif cross: ... else: ...`) that starts on a line of its own and holds no string
    over several lines: the false branch's function takes it as `if`, indented one level."""
    chain = node.orelse
    return (len(chain) == 1 and is_elif(chain[0], ctx) and chain[0].lineno > node.body[-1].end_lineno
            and not spans_multiline_string(chain, ctx))


def movable(moved: list[ast.AST], ctx: FunctionContext) -> bool:
    """Code that means the same inside a nested function: no `:=` (it would bind there), no `super()`
    without arguments or `__class__` (a nested function has no class cell), no `global`/`nonlocal` in
    the function, and no name the code binds that a function or generator made elsewhere in the
    function reads (its cell would no longer be the one the code writes)."""
    inside = {id(n) for m in moved for n in walk(m)}
    for node in (n for m in moved for n in walk(m)):
        if isinstance(node, ast.NamedExpr) or (isinstance(node, ast.Name) and node.id == "__class__"):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args:
            return False
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in walk(ctx.fn.node)):
        return False
    stored = {n.id for m in moved for n in walk(m) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    run_at_once = _run_at_once(ctx)
    for scope in walk(ctx.fn.node):
        if scope is not ctx.fn.node and isinstance(scope, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef,
                                                            ast.GeneratorExp)) and id(scope) not in inside | run_at_once:
            if any(isinstance(n, ast.Name) and n.id in stored for n in walk(scope)):
                return False
    return True


OWN_BRANCH_PREFIXES = ("_onnx_if_", "_onnx_else_", "_onnx_when_")


def _run_at_once(ctx: FunctionContext) -> set[int]:
    """This rule's own functions (an earlier round's): the branches `_onnx_size_cond` runs where it
    is called, before any code after it can rebind what they read."""
    own = set()
    for node in walk(ctx.fn.node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in OWN_HELPERS:
            own |= {id(a) for a in node.args if isinstance(a, ast.Lambda)}
        elif isinstance(node, ast.FunctionDef) and node.name.startswith(OWN_BRANCH_PREFIXES):
            own.add(id(node))
    return own


def top_level_stores(branch: list[ast.stmt]) -> set[str]:
    """Names an assignment of the branch itself binds (not one inside a loop or a `with`), or every arm
    of an `if` / `elif` / `else` of the branch binds."""
    names = {n.id for s in branch if isinstance(s, (ast.Assign, ast.AnnAssign))
             for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
             for n in walk(t) if isinstance(n, ast.Name)}
    for statement in branch:
        if isinstance(statement, ast.If) and statement.orelse:
            names |= top_level_stores(statement.body) & top_level_stores(statement.orelse)
    return names


def spans_multiline_string(statements: list[ast.stmt], ctx: FunctionContext) -> bool:
    """A string literal (f-strings too) over several lines among the statements: indenting its
    lines would change it."""
    return any(isinstance(n, (ast.Constant, ast.JoinedStr)) and n.end_lineno > n.lineno
               and (isinstance(n, ast.JoinedStr) or isinstance(n.value, (str, bytes)))
               for s in statements for n in walk(s))


def only_computes(statement: ast.stmt, branch: list[ast.stmt] = ()) -> bool:
    """No escape from the branch, no write through an attribute, an item or a container method, and
    `break`/`continue` only inside a loop of the branch. A list the branch itself made (every binding
    of the name in the branch a display or a comprehension: `outs = []`) may grow (`outs += [h]`,
    `outs.append(h)`): no one outside the branch holds it."""
    fresh = _fresh_containers(statement, list(branch))
    for node in _walk_with_loops(statement, in_loop=False):
        child, in_loop = node
        if isinstance(child, ast.AugAssign) and isinstance(child.target, ast.Name) and child.target.id in fresh:
            continue
        if isinstance(child, ESCAPES) or (isinstance(child, (ast.Break, ast.Continue)) and not in_loop):
            return False
        if isinstance(child, (ast.Attribute, ast.Subscript)) and isinstance(child.ctx, (ast.Store, ast.Del)):
            return False
        if isinstance(child, ast.Call) and _writes_argument(child):
            return False  # `F.relu(h, inplace=True)`, `torch.add(a, b, out=c)`: the other branch would see it
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and (
                in_place_method(child.func.attr) or child.func.attr in MUTATORS):
            if not (child.func.attr in MUTATORS and isinstance(child.func.value, ast.Name)
                    and child.func.value.id in fresh):
                return False
    return True


def _writes_argument(call: ast.Call) -> bool:
    """A call told to write into its argument: `inplace=` anything but a literal False, or `out=`."""
    return any(k.arg == "out" or (k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and k.value.value is False))
               for k in call.keywords)


_DISPLAYS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)


def _binding_targets(node: ast.AST) -> list[ast.expr]:
    """What a statement or expression binds (an augmented assignment is the growth, not a binding)."""
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)):
        return [node.target]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    return []


def _fresh_containers(statement: ast.stmt, branch: list[ast.stmt]) -> set[str]:
    """Names whose last binding by the branch's statements before ``statement`` is a plain
    assignment of a new container (`outs = []`, not inside an `if` or a loop), and which
    ``statement`` does not bind again."""
    if statement not in branch:
        return set()
    plain: dict[str, bool] = {}
    for earlier in branch[:branch.index(statement)]:
        for node in walk(earlier):
            for target in _binding_targets(node):
                new = (node is earlier and isinstance(node, ast.Assign) and isinstance(target, ast.Name)
                       and isinstance(node.value, _DISPLAYS))
                for name in (n for n in walk(target) if isinstance(n, ast.Name)):
                    plain[name.id] = new
    rebound = {n.id for node in walk(statement) for target in _binding_targets(node)
               for n in walk(target) if isinstance(n, ast.Name)}
    return {name for name, new in plain.items() if new and name not in rebound}


def _walk_with_loops(node: ast.AST, in_loop: bool):
    yield node, in_loop
    inside = in_loop or isinstance(node, LOOPS)
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Lambda):
            continue  # its own scope: a lambda's names are its own
        yield from _walk_with_loops(child, inside)


def branch_names(branch: list[ast.stmt], context: type) -> set[str]:
    """The names the branch stores (or loads) in its own scope: not a comprehension's or a lambda's."""
    found: set[str] = set()
    for statement in branch:
        for node in _own_scope(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, context):
                found.add(node.id)
    return found


def _own_scope(node: ast.AST):
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            yield from _own_scope(child)


def read_outside(node: ast.If, moved: list[ast.AST], ctx: FunctionContext) -> set[str]:
    """Names the function reads anywhere but in the moved code (later, or earlier in an enclosing
    loop): loaded, deleted, or updated in place (`y += 1` reads `y`). Outside a loop, a read that
    comes before the code is of an earlier value (XMem's `g4`, read to make the logits and then
    extended in the branch only for the hidden update): not a value the branches give, unless
    in a nested function or lambda, which may run later."""
    inside = {id(n) for m in moved for n in walk(m)}
    augmented = {id(n.target) for n in walk(ctx.fn.node) if isinstance(n, ast.AugAssign)}
    reads = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and id(n) not in inside
             and (isinstance(n.ctx, (ast.Load, ast.Del)) or id(n) in augmented)]
    if any(isinstance(a, (ast.For, ast.AsyncFor, ast.While)) for a in ctx.ancestors(node)):
        return {n.id for n in reads}
    last = moved[-1]
    end = (last.end_lineno, last.end_col_offset)
    deferred = {id(n) for f in walk(ctx.fn.node) if f is not ctx.fn.node
                and isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for n in walk(f)}
    return {n.id for n in reads if (n.lineno, n.col_offset) >= end or id(n) in deferred}


def call_text(pred: Predicate, true_name: str, false_name: str, operands: list[str]) -> str:
    """`_onnx_size_cond(<test>, <true>, <false>[, (<operands>,)])` (`_onnx_value_cond` on a tensor's value)."""
    passed = f", ({', '.join(operands)}{',' if len(operands) == 1 else ''})" if operands else ""
    return f"{pred.helper.name}({pred.text}, {true_name}, {false_name}{passed})"


def header_colon(node: ast.If, ctx: FunctionContext) -> int | None:
    """Offset of the `:` closing `if <test>` (after any parentheses around the test)."""
    source = ctx.file.source
    start = source.span(node.test)[1]
    text = source.text[start:source.offset(node.body[0].lineno, node.body[0].col_offset)]
    stripped = text.split(":", 1)[0]
    if ":" not in text or stripped.strip(" \t\r\n)\\"):
        return None
    return start + len(stripped)


def line_end(statement: ast.stmt, ctx: FunctionContext) -> int:
    """Offset of the end of the statement's last line (after a trailing comment)."""
    source = ctx.file.source
    return source.line_starts[statement.end_lineno - 1] + len(source.line_text(statement.end_lineno))


def branch_plan(node: ast.If, ctx: FunctionContext, takes=None, gives=None) -> tuple[list[str], list[str], bool] | None:
    """(outputs, operands, returns) of a rewritable `if`, or None. Outputs: the names a branch binds
    that the function reads outside the `if`; operands: the names a branch binds and also reads
    (passed in: a nested function that binds a name cannot read the enclosing one's). ``takes`` checks
    the outputs and operands, ``gives`` each branch's `return` (torch.cond's tensors only)."""
    branches = [node.body, node.orelse]
    returns = bool(node.orelse) and all(isinstance(b[-1], ast.Return) and b[-1].value is not None for b in branches)
    for branch in branches:
        statements = branch[:-1] if returns else branch
        if not all(only_computes(s, branch) for s in statements):
            return None
    if not own_lines(node, ctx) or not movable([node], ctx):
        return None
    bound = [branch_names(b, ast.Store) for b in branches]
    outputs = [] if returns else sorted((bound[0] | bound[1]) & read_outside(node, [node], ctx))
    # an output either starts as its value before the `if` (passed in: a branch that leaves it, or binds
    # it on some paths only, gives it back) or is bound by a statement of each branch itself
    given = {n for n in outputs if certainly_bound(n, node, ctx)}
    if any(n not in given and not all(n in top_level_stores(b) for b in branches) for n in outputs):
        return None
    passed = {n for b, names in zip(branches, bound) for n in names & free_reads(b)}
    if not all(certainly_bound(n, node, ctx) for n in passed) or _in_try(node, ctx):
        return None  # a name passed in must hold a value where the `if` stands; a `finally` reads the old one
    operands = sorted(given | passed)
    if not returns and not outputs:
        return None
    if takes is not None and not takes({*outputs, *operands}):
        return None  # torch.cond takes and returns tensors only
    if returns and gives is not None and not all(gives(b[-1]) for b in branches):
        return None
    return outputs, operands, returns


def early_return_rest(node: ast.If, ctx: FunctionContext, takes=None, gives=None) -> list[ast.stmt] | None:
    """`if <test>: ...; return a` (no `else`) in the function's own body, the statements after it
    ending in `return b`: those statements (the false branch), or None."""
    block = ctx.fn.node.body
    if node.orelse or node not in block or not own_lines(node, ctx):
        return None
    rest = block[block.index(node) + 1:]
    if not rest or not movable([node, *rest], ctx):
        return None
    ends = [node.body[-1], rest[-1]] if rest else []
    if not ends or not all(isinstance(e, ast.Return) and e.value is not None for e in ends):
        return None
    if not (all(only_computes(s, node.body) for s in node.body[:-1])
            and all(_own_branch(s) or only_computes(s, rest) for s in rest[:-1])):
        return None
    operands = _early_operands(node, rest, ctx)
    if operands is None or (takes is not None and not takes(set(operands))):
        return None
    if (gives is not None and not all(gives(e) for e in ends)) or spans_multiline_string(rest, ctx):
        return None
    return rest


def _own_branch(statement: ast.stmt) -> bool:
    """A branch function an earlier round wrote for a later early `return` of the rest (kornia's
    `_blend_one`: `if f == 0: return a`, `if f == 1: return b`, ..., the last rewritten first): a
    definition, whose body only computes and ends in its `return`; the rest it ends stays one tail."""
    return (isinstance(statement, ast.FunctionDef) and statement.name.startswith(OWN_BRANCH_PREFIXES)
            and not statement.decorator_list and not statement.args.defaults and not statement.args.kw_defaults
            and isinstance(statement.body[-1], ast.Return)
            and all(_own_branch(s) or only_computes(s, statement.body) for s in statement.body[:-1]))


def _early_operands(node: ast.If, rest: list[ast.stmt], ctx: FunctionContext) -> list[str] | None:
    """Names a branch binds and may read before binding them (passed in), each bound on every path
    to the `if`; None where one is not (a nested function would read its own unbound local). A
    name bound and read inside one loop step of the branch (a loop's `hidden`) is its own."""
    passed = {n for b in (node.body, rest) for n in branch_names(b, ast.Store) & free_reads(b)}
    return sorted(passed) if all(certainly_bound(n, node, ctx) for n in passed) else None


def _in_try(node: ast.AST, ctx: FunctionContext) -> bool:
    """Inside a `try` of the function: its `except`/`finally` would see the names as they were."""
    current = ctx.parent(node)
    while current is not None and current is not ctx.fn.node:
        if isinstance(current, ast.Try):
            return True
        current = ctx.parent(current)
    return False


def early_return_fix(node: ast.If, rest: list[ast.stmt], pred: Predicate, ctx: FunctionContext, title: str,
                     names: tuple[str, str] | None = None) -> Fix | None:
    """`if <test>:` -> `def _onnx_if_<line>(<operands>):`; after its `return`, `def _onnx_else_<line>(...):`
    over the rest of the function indented one level (one edit: a fix inside the rest waits for the next
    round); then `return _onnx_size_cond(...)`."""
    source = ctx.file.source
    indent, inner = statement_indent(ctx, node), statement_indent(ctx, node.body[0])
    colon = header_colon(node, ctx)
    if colon is None or len(inner) <= len(indent) or not inner.startswith(indent):
        return None
    step = inner[len(indent):]
    operands = _early_operands(node, rest, ctx)
    parameters = ", ".join(operands)
    true_name, false_name = names or (f"_onnx_if_{node.lineno}", f"_onnx_else_{node.lineno}")
    body_end, end = line_end(node.body[-1], ctx), line_end(rest[-1], ctx)
    lines = [source.line_text(n) for n in range(node.body[-1].end_lineno + 1, rest[-1].end_lineno + 1)]
    moved = "".join(f"\n{step}{line}" if line.strip() else "\n" for line in lines)
    call = call_text(pred, true_name, false_name, operands)
    edits = (Edit(source.offset(node.lineno, node.col_offset), colon, f"def {true_name}({parameters})"),
             Edit(body_end, end, f"\n{indent}def {false_name}({parameters}):{moved}\n{indent}return {call}"))
    return Fix(title, edits, safe=pred.exact, imports=("torch",),
               helpers=(pred.helper,))


def cond_fix(node: ast.If, outputs: list[str], operands: list[str], returns: bool, pred: Predicate,
             ctx: FunctionContext, title: str, names: tuple[str, str] | None = None) -> Fix | None:
    """`if <test>:` -> `def _onnx_if_<line>(<operands>):`, `else:` -> `def _onnx_else_<line>(...)` (or a
    new one returning the outputs as they are), a `return` of the outputs closing each, then the call.
    Inserted text ends lines with "\n": writing gives it the file's line endings."""
    source = ctx.file.source
    indent, inner = statement_indent(ctx, node), statement_indent(ctx, node.body[0])
    colon = header_colon(node, ctx)
    if colon is None or len(inner) <= len(indent):
        return None
    true_name, false_name = names or (f"_onnx_if_{node.lineno}", f"_onnx_else_{node.lineno}")
    parameters, results = ", ".join(operands), ", ".join(outputs)
    edits = [Edit(source.offset(node.lineno, node.col_offset), colon, f"def {true_name}({parameters})")]
    if node.orelse and elif_chain(node, ctx):
        if returns:
            return None
        call = call_text(pred, true_name, false_name, operands)
        edits.append(Edit(line_end(node.body[-1], ctx), line_end(node.body[-1], ctx), f"\n{inner}return {results}"))
        edits.append(_elif_as_function(node, false_name, parameters, ctx,
                                       f"\n{inner}return {results}\n{indent}{results} = {call}"))
        return Fix(title, tuple(edits), safe=pred.exact, imports=("torch",), helpers=(pred.helper,))
    if node.orelse:
        else_start = source.line_starts[else_line(node, ctx) - 1] + len(indent)
        edits.append(Edit(else_start, else_start + len("else"), f"def {false_name}({parameters})"))
        if not returns:
            edits.append(Edit(line_end(node.body[-1], ctx), line_end(node.body[-1], ctx), f"\n{inner}return {results}"))
        tail = "" if returns else f"\n{statement_indent(ctx, node.orelse[0])}return {results}"
    else:
        tail = f"\n{inner}return {results}\n{indent}def {false_name}({parameters}):\n{inner}return {results}"
    call = call_text(pred, true_name, false_name, operands)
    tail += f"\n{indent}{'return ' if returns else results + ' = '}{call}"
    end = line_end((node.orelse or node.body)[-1], ctx)
    edits.append(Edit(end, end, tail))
    return Fix(title, tuple(edits), safe=pred.exact, imports=("torch",),
               helpers=(pred.helper,))


def _elif_as_function(node: ast.If, false_name: str, parameters: str, ctx: FunctionContext, tail: str) -> Edit:
    """The `elif` chain as the false branch's function: `def <false_name>(<parameters>):`, then the chain
    indented one level, its `elif` an `if` (comments and blank lines kept), then ``tail``."""
    source = ctx.file.source
    chain = node.orelse[0]
    indent, step = statement_indent(ctx, node), statement_indent(ctx, node.body[0])[len(statement_indent(ctx, node)):]
    first, last = chain.lineno, chain.end_lineno
    lines = [source.line_text(n) for n in range(first, last + 1)]
    keyword = lines[0].index("elif")
    lines[0] = lines[0][:keyword] + lines[0][keyword + 2:]  # `elif` -> `if`
    moved = "\n".join(f"{step}{line}" if line.strip() else "" for line in lines)
    start, end = source.line_starts[first - 1], line_end(chain, ctx)
    return Edit(start, end, f"{indent}def {false_name}({parameters}):\n{moved}{tail}")
