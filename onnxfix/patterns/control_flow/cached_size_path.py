"""ONX609: a tensor cached for one input size, taken when the sizes match, recomputed otherwise.

Shifted-window models (SwinIR, HAT, DAT, Swin2SR, Uformer) build their attention masks for the
training resolution once, in `__init__`, and recompute them in forward for any other size:

    self.register_buffer("attn_mask", self.calculate_mask(input_resolution))    # __init__
    ...
    if self.input_resolution == x_size:                                          # forward
        attn_windows = self.attn(x_windows, mask=self.attn_mask)
    else:
        attn_windows = self.attn(x_windows, mask=self.calculate_mask(x_size).to(x.device))

Both exporters evaluate the comparison on the example's sizes and keep one branch. When the
example has the cached size, the exported model holds the cached mask and fails (or computes
another thing) for every other size; torch.export also pins the sizes to the example's (ONX914).
The general branch computes what the cache holds when the sizes match, so taking it under
export keeps the model general, and eager keeps its fast path.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from onnxfix.patterns.export_checks import test_under_export
from onnxfix.patterns.control_flow.cache_rebuild import methods_reached, rebuilt_attribute, used_after
from onnxfix.patterns.control_flow.size_paths import compares_sizes
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc
from onnxfix.rewriter.statements import next_statement, statement_indent
from onnxfix.rewriter.tree_walk import walk


class CachedSizePath(Rule):
    code = "ONX609"
    name = "cached-size-path"
    summary = "A tensor cached for one input size, taken when the sizes match: take the recomputing branch under export"
    fix_availability = "always"
    default_safety = "safe"
    exporters = ("dynamo", "legacy")
    doc = RuleDoc(
        what="Finds an `if` on sizes whose one branch uses a module attribute that `__init__` "
        "computes with some function (`self.register_buffer(\"attn_mask\", self.calculate_mask("
        "input_resolution))`) and whose other branch calls that function on the input's sizes "
        "(`self.calculate_mask(x_size)`): a cache for one resolution, as in SwinIR, HAT, DAT and "
        "Swin2SR's shifted-window attention. Also the cache grown in forward: an `if` (no `else`) "
        "whose test reads a module attribute and compares sizes (or the arguments its one statement "
        "passes), and whose one statement rebuilds that attribute with a call, read after the `if` "
        "(fairseq's `if self._future_mask.size(0) < dim: self._future_mask = torch.triu(...)` and "
        "sinusoidal position tables), or when it no longer matches the input, stored into a list on the module "
        "or by a method or a function given the module (YOLOv7's `if self.grid[i].shape[2:4] != "
        "x[i].shape[2:4]: self.grid[i] = self._make_grid(nx, ny)`, YOLOv3's `if (self.nx, self.ny) != (nx, ny): "
        "create_grids(self, ...)`, cached by export scripts' dry run, or LLaMA's rotary `if seq_len > "
        "self.max_seq_len_cached: self._set_cos_sin_cache(seq_len)`, the method registering the tables as "
        "buffers by name, or ESM's `if seq_len != self._seq_len_cached:` rebuilding plain attributes "
        "through local steps and storing the length beside them); the same cache kept when large enough, by an `if` on sizes that "
        "reads the attribute and ends in a bare `return`, the method rebuilding the attribute below "
        "(ESPnet's `extend_pe`: `if self.pe.size(1) >= x.size(1) * 2 - 1: return`), or that returns the cache itself "
        "(Wav2Vec2-BERT's and SeamlessM4T's rotary table: `if sequence_length == self.cached_sequence_length and "
        "self.cached_rotary_positional_embedding is not None: return self.cached_rotary_positional_embedding`). And a dict memoising a value per key: `if key not in "
        "self.cache:` (or `self.cache.keys()`, BEiT's relative position indices) whose body stores "
        "`self.cache[key] = ...` (DA3's RoPE position getter).",
        why="Both exporters decide the `if` on the example's sizes and keep one branch. With an "
        "example of the cached size the exported model holds the cached tensor: onnxruntime fails "
        "(a Reshape of the wrong size) or computes another thing for every other size, and "
        "torch.export pins the sizes to the example's (ONX914). Measured on torch 2.13 "
        "(tests/realworld/swinir_attn_mask_resolution.py).",
        example="def __init__(self, input_resolution=(8, 8)):\n    super().__init__()\n"
        "    self.input_resolution = input_resolution\n"
        "    self.register_buffer(\"attn_mask\", self.calculate_mask(input_resolution))\n\n"
        "def forward(self, x):\n    x_size = (x.shape[2], x.shape[3])\n"
        "    if self.input_resolution == x_size:\n        mask = self.attn_mask\n    else:\n"
        "        mask = self.calculate_mask(x_size)\n    return self.attn(x, mask)",
        use_instead="def __init__(self, input_resolution=(8, 8)):\n    super().__init__()\n"
        "    self.input_resolution = input_resolution\n"
        "    self.register_buffer(\"attn_mask\", self.calculate_mask(input_resolution))\n\n"
        "def forward(self, x):\n    x_size = (x.shape[2], x.shape[3])\n"
        "    if not (torch.jit.is_tracing() or torch.compiler.is_exporting()) and self.input_resolution == x_size:\n"
        "        mask = self.attn_mask\n    else:\n        mask = self.calculate_mask(x_size)\n"
        "    return self.attn(x, mask)",
        fix_safety="Safe: `torch.jit.is_tracing()` and `torch.compiler.is_exporting()` are False "
        "outside the exporters, so eager PyTorch takes the same branch as before, bit for bit. "
        "Under export the recomputing branch runs for every size; for the cached size it computes "
        "what `__init__` cached with the same function, unless the attribute was changed since "
        "(a checkpoint holding another mask), which the export's comparison with eager on the "
        "export inputs shows. For a grown cache the test becomes true under export: the cache is "
        "rebuilt for the export input's size, which is what forward does for any size it has not "
        "seen; the same for a cache kept when large enough (the test that keeps it is false under "
        "export) and for a memo dict (the entry recomputed under export). A buffer re-registered "
        "with another shape is a buffer mutation torch.export refuses (\"not in VR[4, 4]\" while "
        "decomposing): that rebuild helps the legacy exporter only "
        "(tests/export_models/rotary_buffer_cache.py), and a rebuild that registers a buffer is unsafe for that "
        "reason (the dynamo export of a model an earlier call left a longer buffer fails where it worked up to that length). A memo dict at module level (PWC-Net's and "
        "RIFE's `backwarp_tenGrid`) is read through `D_for_call = {} if <exporting> else D` from the "
        "`if` on: eager reads the dict itself; under export each call recomputes its entry and leaves "
        "nothing traced in the module's dict.",
        references=("https://github.com/JingyunLiang/SwinIR/blob/main/models/network_swinir.py",
                    "https://github.com/zhengchen1999/DAT/blob/main/basicsr/archs/dat_arch.py"),
    )

    def visit_If(self, node: ast.If, ctx: FunctionContext):
        if consults_export_guard(node.test):
            return
        if ctx.fn.cls is None:
            yield from self._memo_cache(node, ctx)  # a module-level dict memoising per key
            return
        if not node.orelse:
            yield from self._grown_cache(node, ctx)
            yield from self._memo_cache(node, ctx)
            yield from self._cache_hit_return(node, ctx)
            return
        makers = _cached_attributes(ctx)
        if not makers:
            return
        for cached, general, general_is_body in ((node.body, node.orelse, False), (node.orelse, node.body, True)):
            for attribute in _cached_uses(cached, makers, ctx):
                calls = _calls(general, makers[attribute])
                if not calls or _calls(cached, makers[attribute]):
                    continue
                if _compares_sizes(node.test, ctx) or _compares_arguments(node.test, calls):
                    yield ctx.report(self, node.test, _message(attribute, makers[attribute]),
                                     fix=_fix(node.test, general_is_body, ctx))
                    return


    def _grown_cache(self, node: ast.If, ctx: FunctionContext):
        """`if self._future_mask.size(0) < dim: self._future_mask = torch.triu(...)`, then
        `self._future_mask[:dim, :dim]` (fairseq's masks and sinusoidal tables): a cache kept on
        the module and rebuilt in forward when the input outgrows it (or no longer matches it:
        YOLOv7's `if self.grid[i].shape[2:4] != x[i].shape[2:4]: self.grid[i] = self._make_grid(nx, ny)`,
        YOLOv3's `if (self.nx, self.ny) != (nx, ny): create_grids(self, ...)`)."""
        attribute = rebuilt_attribute(node, ctx)
        if attribute is None:
            return
        rebuilt = [n for statement in node.body for n in walk(statement) if isinstance(n, ast.Call)]
        # `self.wf.device != x.device: self.wf = self.wf.to(x.device)` moves a cache, whatever the size
        compared = [n for n in walk(node.test) if isinstance(n, ast.Compare) and not any(
            isinstance(side, ast.Attribute) and side.attr in ("device", "dtype") for side in (n.left, *n.comparators))]
        if any(_compares_sizes(n, ctx) or _compares_arguments(n, rebuilt) for n in compared):
            message = (f"`self.{attribute}` is a cache kept on the module and rebuilt here only when the input "
                       "no longer fits it: both exporters decide this `if` on the example (and on what earlier calls "
                       "left cached, a dry run's) and keep the cached tensor, wrong or failing for other sizes; "
                       "rebuild it under export (eager keeps its cache)")
            fix = _fix(node.test, True, ctx)
            if _registers_buffer(node, ctx):
                fix = replace(fix, safe=False)
                message += ("; unsafe: the rebuild registers a buffer, which torch.export refuses to re-register "
                            "with a shorter size than an earlier call cached (the dynamo export may then fail where "
                            "it worked for sizes up to the cached one)")
            yield ctx.report(self, node.test, message, fix=fix)


    def _cache_hit_return(self, node: ast.If, ctx: FunctionContext):
        """`if self.pe.size(1) >= x.size(1) * 2 - 1: ...; return`, the method rebuilding
        `self.pe` below (ESPnet's `extend_pe`): the cache kept when it is large enough, rebuilt
        otherwise; or the cached value returned (Wav2Vec2-BERT's rotary table: `if sequence_length
        == self.cached_sequence_length and ...: return self.cached_rotary_positional_embedding`).
        Both exporters keep the table the example (or an earlier call) left."""
        if not node.body or not isinstance(node.body[-1], ast.Return):
            return
        returned = node.body[-1].value
        if returned is not None and not (ctx.is_self_attr(returned) and used_after(node, returned.attr, ctx, store=True)):
            return  # not the cache itself, rebuilt below
        read = {n.attr for n in walk(node.test) if isinstance(n, ast.Attribute) and ctx.is_self_attr(n)}
        attribute = next((a for a in sorted(read) if used_after(node, a, ctx, store=True)), None)
        if attribute is None or not _compares_sizes(node.test, ctx):
            return
        message = (f"`self.{attribute}` is a cache kept on the module, taken here when it fits the input and rebuilt "
                   "below otherwise: both exporters decide this `if` on the example (and on what earlier calls left "
                   "cached) and keep the cached tensor, wrong or failing for other sizes; rebuild it under export "
                   "(eager keeps its cache)")
        yield ctx.report(self, node.test, message, fix=_fix(node.test, False, ctx))

    def _memo_cache(self, node: ast.If, ctx: FunctionContext):
        """`if (h, w) not in self.position_cache: ...; self.position_cache[h, w] = positions`: a
        dict on the module (or on an object it holds) memoising a value per key (DA3's
        PositionGetter, keyed by the patch grid). Both exporters see the entry the example left
        (torch.export specializes the key's sizes; the legacy trace keeps the cached constant)."""
        test = node.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotIn)):
            return
        cache = _dict_of_keys(test.comparators[0])
        on_module = ctx.is_self_attr(cache)
        if not (on_module or _module_dict(cache, ctx)):
            return
        stores = [t for statement in node.body if isinstance(statement, ast.Assign) for t in statement.targets
                  if isinstance(t, ast.Subscript) and ctx.segment(t.value) == ctx.segment(cache)]
        if not stores:
            return
        plain = not any(_filled_elsewhere(store, ctx) or _calls_itself(store.value, ctx)
                        for store in (s for s in node.body if isinstance(s, ast.Assign) and s.targets[0] in stores))
        fix = _memo_getter_fix(node, ctx) or (
            (_fix(node.test, True, ctx) if on_module else _per_call_cache_fix(node, cache, ctx)) if plain else None)
        message = (f"`{ctx.segment(cache)}` memoises a value per key, filled here on a miss: both exporters see the "
                   "entry the example left (torch.export pins the key's sizes or cannot hash them, the legacy trace "
                   "keeps the cached constant); recompute it under export (eager keeps its cache)")
        yield ctx.report(self, node.test, message, fix=fix)


def _module_dict(cache: ast.expr, ctx: FunctionContext) -> bool:
    """A name bound at module level to an empty dict (`_default_causal_mask = {}`) and not in the function."""
    if not isinstance(cache, ast.Name) or ctx.is_parameter(cache.id) or ctx.assignments(cache.id):
        return False
    return any(isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
               and s.targets[0].id == cache.id and isinstance(s.value, ast.Dict) and not s.value.keys
               for s in ctx.file.module.tree.body)


def _memo_getter_fix(node: ast.If, ctx: FunctionContext) -> Fix | None:
    """`if key not in D: D[key] = value` then `return D[key]`: under export return the value
    computed afresh, before the dict is read or written (torch.export cannot hash a SymInt key).
    Eager keeps its cache: the same value either way."""
    if len(node.body) != 1 or not isinstance(node.body[0], ast.Assign) or len(node.body[0].targets) != 1:
        return None
    store, test = node.body[0], node.test
    if _filled_elsewhere(store, ctx) or _calls_itself(store.value, ctx):
        return None  # the dict holds what others put there, or the value recurses through it
    target = store.targets[0]
    following = next_statement(node, ctx)
    if not (isinstance(target, ast.Subscript) and isinstance(following, ast.Return)
            and isinstance(following.value, ast.Subscript)
            and ctx.segment(following.value) == ctx.segment(target)
            and ctx.segment(target.slice) == ctx.segment(test.left)):
        return None
    torch_name, imports = ctx.torch_name()
    indent = statement_indent(ctx, node)
    unit = statement_indent(ctx, store)[len(indent):] or "    "
    start = ctx.file.source.span(node)[0]
    value = ctx.segment(store.value).replace("\r\n", "\n")
    if "\n" in value:
        value = f"({value})"  # the segment drops brackets that held its lines together
    guard = (f"if {torch_name}.jit.is_tracing() or {torch_name}.compiler.is_exporting():  # no cached entry under export\n"
             f"{indent}{unit}return {value}\n{indent}")
    # unsafe: a value that depends on more than the key (state, randomness) differs from the cached one
    return Fix("Return the value computed afresh under export", (Edit(start, start, guard),), safe=False, imports=imports)


def _per_call_cache_fix(node: ast.If, cache: ast.Name, ctx: FunctionContext) -> Fix | None:
    """A module-level dict (PWC-Net's and RIFE's `backwarp_tenGrid`, keyed by the flow's size):
    before the `if`, `D_for_call = {} if <exporting> else D`, and the function's reads of `D` from
    there on read `D_for_call`. Under export every call misses and recomputes, and nothing it
    computes stays in the module's dict (a traced or fake tensor would); eager reads the dict
    itself, so the fix is safe."""
    if ctx.declared_outer(cache.id):
        return None
    # the new line must run before every read it renames: the `if` a statement of the function's
    # own body (not in a branch, a loop or an `elif`), and no read in a nested scope (a lambda's
    # parameter of the same name)
    if node not in ctx.fn.node.body or _read_in_other_functions(cache.id, ctx):
        return None
    nested = {id(n) for scope in walk(ctx.fn.node) if scope is not ctx.fn.node and isinstance(
        scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) for n in walk(scope)}
    reads = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == cache.id
             and (n.lineno, n.col_offset) >= (node.lineno, node.col_offset)]
    if any(id(n) in nested for n in reads):
        return None
    taken = {n.id for n in walk(ctx.file.module.tree) if isinstance(n, ast.Name)} | {
        a.arg for a in walk(ctx.file.module.tree) if isinstance(a, ast.arg)}
    local, count = f"{cache.id}_for_call", 0
    while local in taken:
        count += 1
        local = f"{cache.id}_for_call{count}"
    torch_name, imports = ctx.torch_name()
    indent = statement_indent(ctx, node)
    start = ctx.file.source.span(node)[0]
    guard = (f"{local} = {{}} if {torch_name}.jit.is_tracing() or {torch_name}.compiler.is_exporting() else {cache.id}"
             f"  # a fresh dict under export\n{indent}")
    edits = (Edit(start, start, guard), *(ctx.replace(read, local) for read in reads))
    return Fix("Use a fresh dict under export (eager keeps its cache)", edits, safe=True, imports=imports)


def _read_in_other_functions(name: str, ctx: FunctionContext) -> bool:
    """The module-level dict is used by another function of the file (filled in a helper, read in
    forward): a fresh dict in this function alone would not be the one the other reads."""
    own = {id(n) for n in walk(ctx.fn.node)}
    return any(isinstance(n, ast.Name) and n.id == name and id(n) not in own
               and not _module_level_binding(n, ctx) for n in walk(ctx.file.module.tree))


def _module_level_binding(name: ast.Name, ctx: FunctionContext) -> bool:
    """`D = {}` at module level (the binding itself, not a use)."""
    return any(isinstance(s, ast.Assign) and name in s.targets for s in ctx.file.module.tree.body)


def _filled_elsewhere(store: ast.Assign, ctx: FunctionContext) -> bool:
    """The dict is written anywhere in the file but this store (`D[k] = ...`, `D.update`,
    `D.setdefault`, a non-empty literal), so a hit may return what the miss would not compute."""
    name = ctx.segment(store.targets[0].value)
    attribute = name.split(".")[-1]
    for n in walk(ctx.file.module.tree):
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and n is not store.targets[0]:
            if ctx.segment(n.value).split(".")[-1] == attribute:
                return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("update", "setdefault", "__setitem__"):
            if ctx.segment(n.func.value).split(".")[-1] == attribute:
                return True
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and isinstance(n.value, ast.Dict) and n.value.keys:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(ctx.segment(t).split(".")[-1] == attribute for t in targets):
                return True
    return False


def _calls_itself(value: ast.expr, ctx: FunctionContext) -> bool:
    name = getattr(ctx.fn.node, "name", None)
    return any(isinstance(n, ast.Call) and (getattr(n.func, "id", None) == name or getattr(n.func, "attr", None) == name)
               for n in walk(value))


def _message(attribute: str, maker: str) -> str:
    return (f"`self.{attribute}` is computed once by `{maker}` for one size and taken when the sizes match: "
            f"both exporters decide this `if` on the example's sizes and keep one branch (other sizes fail "
            f"or come out wrong); take the branch that calls `{maker}` under export (eager keeps its fast path)")


def _fix(test: ast.expr, general_is_body: bool, ctx: FunctionContext) -> Fix:
    # the test selecting the general branch is made true under export, else false
    edit, imports = test_under_export(test, ctx, taken=general_is_body)
    return Fix("Take the recomputing branch under export", (edit,), safe=True, imports=imports)


def _compares_sizes(test: ast.expr, ctx: FunctionContext) -> bool:
    """A comparison one side of which is computed from the input's sizes, through names and
    tuples too (`x_size = (x.shape[2], x.shape[3])`, `_H = pad_b + H`)."""
    return any(isinstance(n, ast.Compare) and (compares_sizes(n, ctx) or any(
        _from_sizes(side, ctx, set()) for side in (n.left, *n.comparators))) for n in walk(test))


def _from_sizes(node: ast.AST, ctx: FunctionContext, seen: set[str]) -> bool:
    for n in walk(node):
        if ctx.sizes.is_size(n):
            return True
        if isinstance(n, ast.Name) and n.id not in seen:
            seen.add(n.id)
            for binding in ctx.assignments(n.id):
                value = binding.value if isinstance(binding, (ast.Assign, ast.AugAssign)) else binding
                if isinstance(value, ast.expr) and _from_sizes(value, ctx, seen):
                    return True
    return False


def _cached_attributes(ctx: FunctionContext) -> dict[str, str]:
    """`self.<attr>` (attribute or buffer, rewriter/module_index.py) -> the source of the model's
    own function that computes it (`self.calculate_mask`), directly or through one local name of
    `__init__` (`attn_mask = self.calculate_mask(...)`, `register_buffer("m0", attn_mask[0])`)."""
    cls = ctx.fn.cls
    init = cls.methods.get("__init__")
    init_locals: dict[str, list[ast.expr]] = {}  # every value a local takes (SwinIR's ports: the mask,
    for statement in walk(init) if init is not None else ():  # or None where the block does not shift)
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    init_locals.setdefault(target.id, []).append(statement.value)
    makers = {}
    for attribute, value in {**cls.self_attrs, **cls.buffer_values}.items():
        maker = _maker(value, init_locals, ctx)
        if maker is not None:
            makers[attribute] = maker
    return makers


def _maker(value: ast.expr, init_locals: dict[str, list[ast.expr]], ctx: FunctionContext) -> str | None:
    root = value
    while isinstance(root, (ast.Subscript, ast.Attribute)):
        root = root.value  # `attn_mask[0]`, `mask.T`
    roots = init_locals[root.id] if isinstance(root, ast.Name) and root.id in init_locals else [root]
    makers = set()
    for value in roots:
        if isinstance(value, ast.Constant) and value.value is None:
            continue  # no cache (a block that does not shift): its general path computes the same no-op
        calls = [n for n in walk(value) if isinstance(n, ast.Call) and _user_function(n.func, ctx)]
        if not calls:
            return None
        makers.add(ast.unparse(calls[0].func))
    # one maker: the other branch recomputes what the cache holds (two makers: only one of them does)
    return makers.pop() if len(makers) == 1 else None


def _user_function(func: ast.expr, ctx: FunctionContext) -> bool:
    """`self.calculate_mask` or a bare `calculate_mask`: the model's own code, not torch's, and
    no class (`Spatial_Attention(...)` builds a submodule, it computes no tensor)."""
    if isinstance(func, ast.Name):
        return func.id not in ctx.file.module.classes and not func.id[:1].isupper()
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == ctx.self_name


def _cached_uses(block: list[ast.stmt], makers: dict[str, str], ctx: FunctionContext) -> list[str]:
    """The cached attributes a branch reads, in order."""
    return list(dict.fromkeys(
        n.attr for statement in block for n in walk(statement)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == ctx.self_name
        and n.attr in makers))


def _calls(block: list[ast.stmt], maker: str) -> list[ast.Call]:
    return [n for statement in block for n in walk(statement)
            if isinstance(n, ast.Call) and ast.unparse(n.func) == maker]


def _compares_arguments(test: ast.expr, calls: list[ast.Call]) -> bool:
    """The test compares a name the recomputation takes (DAT: `if self.patches_resolution != _H
    or ...: mask = self.calculate_mask(_H, _W)`), sizes or not: what decides the branch is
    what the cache was computed for."""
    arguments = {n.id for call in calls for a in [*call.args, *(k.value for k in call.keywords)]
                 for n in walk(a) if isinstance(n, ast.Name)} - {"self"}  # `.to(self.x.device)`: no size
    return any(isinstance(n, ast.Compare) and any(
        isinstance(m, ast.Name) and m.id in arguments for side in (n.left, *n.comparators) for m in walk(side))
        for n in walk(test))


RULES = [CachedSizePath]


def _dict_of_keys(node: ast.expr) -> ast.expr:
    """The dict a membership test reads: `key not in self.cache.keys()` tests `self.cache` (BEiT's
    relative position indices)."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys"
            and not node.args and not node.keywords):
        return node.func.value
    return node


def _registers_buffer(node: ast.If, ctx: FunctionContext) -> bool:
    """The `if` body registers a buffer, itself or through methods of the class it calls (NeMo's
    `self.set_max_len(n)`, LLaMA's `self._set_cos_sin_cache(n)`)."""
    bodies = [*node.body, *methods_reached(node.body, ctx)]
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "register_buffer"
               for body in bodies for n in walk(body))
