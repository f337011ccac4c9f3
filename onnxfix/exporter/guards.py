"""Shape guards the dynamo exporter adds while capturing, traced back to the user's line.

torch.export traces ``forward`` with symbolic sizes (``s25`` for ``img.shape[3]``). Python code
that needs a concrete answer about a size (``float(cols + 0.1)``, ``if h % 2 == 1:``) makes the
symbolic shape environment record a guard (``Eq(ToFloat((s25//4)) + 0.1, 8.1)``) and continue
with the example's answer: the exported graph is only right for the sizes where every guard
holds. With ``Dim.DYNAMIC`` torch.export says nothing about it; ONNX Runtime fails (or is
wrong) later, at a node far from the cause.

``recording()`` wraps ``ShapeEnv._log_guard`` (the one place every added guard passes through,
the source of ``TORCH_LOGS=+dynamic``'s "[guard added]" lines) and keeps each guard with the
Python stack at that moment; ``guard_reports`` keeps the guards that exclude sizes of a declared
dynamic dimension (tried on the example's size up to 4x larger) and says which sizes remain.
Imports torch: the export worker only. The parent turns the reports into findings (sourcemap).
"""

from __future__ import annotations

import contextlib
import itertools
import re
import sys
from dataclasses import dataclass
from typing import Iterator

SOURCE = re.compile(r"^L\['(\w+)'\](?:\[(\d+)\])?\.size\(\)\[(\d+)\]$")
MAX_TRIES = 256  # sizes tried per dynamic dimension


@dataclass
class Guard:
    expr: object  # sympy boolean
    text: str
    frames: list[list]  # [filename, lineno, function], outermost first
    sources: dict  # symbol -> source names ("L['img'].size()[3]")
    hints: dict  # symbol -> the example's value
    env: int = 0  # which ShapeEnv (one per capture attempt, numbered in creation order) added it


@dataclass
class Recording:
    guards: list[Guard]
    unbacked: dict[str, list[list]]  # data-dependent symbol ("u0", "zuf0") -> frames where it was made


@contextlib.contextmanager
def recording() -> Iterator[Recording]:
    """Every guard added, and where each data-dependent symbol (a value read out of a tensor,
    ``.item()``) was created, while the block runs."""
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    record = Recording([], {})
    patched = {name: getattr(ShapeEnv, name) for name in ("__init__", "_log_guard", *UNBACKED)}
    attempts = itertools.count(1)

    def init(self, *args, **kwargs):
        patched["__init__"](self, *args, **kwargs)
        self._onnxfix_attempt = next(attempts)  # creation order: ids of freed envs are reused

    def log_guard(self, prefix, g, forcing_spec):
        if "suppressed" not in prefix:  # a suppressed guard constrains nothing
            guard = _guard(self, g)
            if not _after_capture(guard.frames):
                record.guards.append(guard)
        return patched["_log_guard"](self, prefix, g, forcing_spec)

    def unbacked(name):
        def create(self, *args, **kwargs):
            value = patched[name](self, *args, **kwargs)
            frames = _frames() + _traced_frames()
            for symbol in value.node.expr.free_symbols:  # a SymBool's expr is Eq(u0, 1): key by u0
                record.unbacked.setdefault(str(symbol), frames)
            return value
        return create

    ShapeEnv.__init__, ShapeEnv._log_guard = init, log_guard
    for name in UNBACKED:
        setattr(ShapeEnv, name, unbacked(name))
    try:
        yield record
    finally:
        for name, original in patched.items():
            setattr(ShapeEnv, name, original)


UNBACKED = ("create_unbacked_symfloat", "create_unbacked_symint", "create_unbacked_symbool")


def _traced_frames() -> list[list]:
    """Under the strict (dynamo) capture the user's code is interpreted, not on the Python
    stack: the tracing context keeps its frames (innermost last, so they come last)."""
    from torch._guards import TracingContext

    try:
        stack = TracingContext.extract_stack()
    except Exception:  # no tracing context
        return []
    return [[f.filename, f.lineno or 0, f.name] for f in stack or []]


def _frames() -> list[list]:
    """The caller's caller's stack, outermost first. Walked by hand: traceback.extract_stack
    reads every source line, and a large model adds thousands of guards."""
    frames, frame = [], sys._getframe(2)
    while frame is not None:
        frames.append([frame.f_code.co_filename, frame.f_lineno or 0, frame.f_code.co_name])
        frame = frame.f_back
    return frames[::-1]


def _values(env) -> dict:
    values = getattr(env, "backed_var_to_val", None)  # torch 2.13; var_to_val before (now deprecated)
    return values if values is not None else env.var_to_val


def _after_capture(frames: list[list]) -> bool:
    """A guard torch.onnx's decomposition pass adds (`ExportedProgram.run_decompositions`, on the
    shape environment of the capture): the exported program's sizes were settled by the capture;
    the pass re-traces ops, and one whose decomposition it then discards can guard a dim (the
    fake nn.LSTM iterates over time, while the graph keeps one LSTM node for any length). A
    decomposition that does specialize the graph fails the probes at other sizes."""
    return any(function == "run_decompositions" and path.endswith("exported_program.py")
               for path, _, function in frames)


def _guard(env, g) -> Guard:
    frames = _frames() + _traced_frames()
    symbols = sorted(g.free_symbols, key=str)
    return Guard(
        g, str(g), frames,
        {s: [src.name for src in env.var_to_sources.get(s, [])] for s in symbols},
        {s: _values(env).get(s) for s in symbols}, getattr(env, "_onnxfix_attempt", 0),
    )


@dataclass(frozen=True)
class Dim:
    index: int  # input index
    input: str  # forward's parameter name
    dim: int
    name: str  # the user's name for the dynamic dim

    @property
    def label(self) -> str:
        return f"{self.input}.shape[{self.dim}]"


def guard_reports(guards: list[Guard], names: list[str], dynamic: dict[int, dict[int, str]],
                  capture_failed: bool = False, latent: list | None = None) -> list[dict]:
    """The guards that exclude sizes of a declared dynamic dimension, first cause first: a later
    guard that excludes nothing new (a consequence of an earlier one) is not reported.

    ``latent`` receives the guards that exclude none of the sizes tried (each name's dims varied
    alone, upward from the example): `npatch == N and w == h` of DINOv2, False at a 140 x 140 example,
    is true only where height and width both change, to 56 x 56; `violated_by_probes` reports one
    where a failing probe's sizes break it.

    torch.onnx tries torch.export non-strict, then strict, each with its own ShapeEnv. When one
    succeeds, only its guards hold for the exported graph (a failed non-strict attempt's
    `int(size)` specialization is gone when the strict one traced it symbolically). When every
    attempt fails, torch.onnx raises the first attempt's error: its guards explain that error."""
    allowed: dict[str, set[int]] = {}
    reports, seen = [], set()
    attempt = _attempt(guards, capture_failed)
    for guard in (g for g in guards if g.env == attempt and not _layout_only(g)):
        dims = _dims(guard, names, dynamic)
        if dims is None or guard.text in seen:
            continue
        seen.add(guard.text)
        found = [r for r in (_restriction(guard, dims, group, allowed) for group in sorted({d.name for d in dims.values()}))
                 if r]
        reports.extend(found)
        if not found and latent is not None:
            latent.append((guard, dims))  # printed only if a probe fails (a large model has thousands)
    return reports


def settled(reports: list[dict], latent: list[tuple], passed: list[tuple], failed: list[tuple[str, tuple]]) -> list[dict]:
    """The guard reports once the probes ran: the latent guard a failing probe breaks added
    (`violated_by_probes`), the reports a passing probe contradicts dropped (`unenforced`)."""
    return unenforced(reports + violated_by_probes(latent, reports, passed, failed), passed)


def violated_by_probes(latent: list[tuple], reports: list[dict], passed: list[tuple],
                       failed: list[tuple[str, tuple]]) -> list[dict]:
    """ONX915 for the first latent guard that a failing probe's sizes break and no passing probe's do:
    the exported graph took the example's side of the test there (the other side is not in it), which
    is why that probe is wrong. ``failed``: (probe name, args) of the probes that differ from eager; one
    whose sizes a guard of ``reports`` (with their EXCLUDED sizes) excludes is explained already (first
    cause first: the guards a restriction brings after it break there too)."""
    failed = [(name, args) for name, args in failed if not _explained(reports, args)]
    if not failed:
        return []

    def holds(guard: Guard, dims: dict, args: tuple) -> bool | None:
        values = {}
        for symbol, dim in dims.items():
            if dim.index >= len(args) or not hasattr(args[dim.index], "shape") or dim.dim >= len(args[dim.index].shape):
                return None
            values[str(symbol)] = int(args[dim.index].shape[dim.dim])
        return _evaluator(guard.expr)(values)  # True where it cannot tell: then not reported

    for guard, dims in latent:
        if any(holds(guard, dims, args) is False for args in passed):
            continue  # a probe on the other side matched eager: the guard is not why
        for name, args in failed:
            if holds(guard, dims, args) is False:
                shown = sorted(dims.values(), key=lambda d: (d.index, d.dim))
                sizes = ", ".join(f"{d.label}={args[d.index].shape[d.dim]}" for d in shown)
                message = (f"guard {guard.text} over dynamic dims held at the example's sizes, so the exported model "
                           f"keeps only the example's side of the test that made it; {name} ({sizes}) is on the other "
                           "side, where the model computes something else")
                return [{"code": "ONX915", "message": message, "frames": user_frames(guard.frames)}]
    return []


# Where torch guards on sizes only to choose a tensor's strides: the fake convolution picks its
# output's memory format with ATen's backend heuristic (`s77 < 16` on the batch of a Conv1d, the
# mkldnn choice). An ONNX graph has no strides, so such a guard excludes no size from it. Known by
# the line of fake_impls.py's `conv` that raised it (its output-size computation guards for real).
_LAYOUT_FRAME = ("torch/_subclasses/fake_impls.py", "conv")
_LAYOUT_CALLS = ("_select_conv_backend", "_conv_determine_backend_memory_format")


def _layout_only(guard: Guard) -> bool:
    import linecache

    path, function = _LAYOUT_FRAME
    return any(str(frame[0]).replace("\\", "/").endswith(path) and frame[2] == function
               and any(call in linecache.getline(str(frame[0]), int(frame[1])) for call in _LAYOUT_CALLS)
               for frame in guard.frames)


def _attempt(guards: list[Guard], capture_failed: bool) -> int:
    """The capture attempt whose guards count: the first when all failed (torch.onnx raises the
    first attempt's error), else the last (the one that produced the graph)."""
    if not guards:
        return 0
    return min(g.env for g in guards) if capture_failed else guards[-1].env


def _dims(guard: Guard, names: list[str], dynamic: dict[int, dict[int, str]]) -> dict | None:
    """symbol -> Dim for a guard over declared dynamic dims only (None: any other symbol)."""
    found = {}
    for symbol, sources in guard.sources.items():
        dim = next((d for d in (_dim(s, names, dynamic) for s in sources) if d), None)
        if dim is None or guard.hints.get(symbol) is None:
            return None
        found[symbol] = dim
    return found or None


def _dim(source: str, names: list[str], dynamic: dict[int, dict[int, str]]) -> Dim | None:
    match = SOURCE.match(source)
    if not match:
        return None
    name, position, dim = match.group(1), match.group(2), int(match.group(3))
    if name in ("args", "flat_args") and position is not None:  # strict capture: positional inputs, flattened
        index = int(position)
    else:
        index = names.index(name) if name in names else -1
    if index < 0 or dim not in dynamic.get(index, {}):
        return None
    return Dim(index, names[index], dim, dynamic[index][dim])


def _restriction(guard: Guard, dims: dict, group: str, allowed: dict[str, set[int]]) -> dict | None:
    """Vary the dims named ``group`` together (as the generated probes do), the rest at the example."""

    mine = [s for s, d in dims.items() if d.name == group]
    start = int(guard.hints[mine[0]])
    tries = range(start, min(4 * start + 16, start + MAX_TRIES))
    others = {str(s): int(guard.hints[s]) for s in dims if s not in mine}
    holds_at = _evaluator(guard.expr)
    holds = {v for v in tries if holds_at({**others, **{str(s): v for s in mine}})}
    before = allowed.setdefault(group, set(tries))
    if before <= holds:
        return None  # excludes no size still allowed: benign or a consequence
    allowed[group] = before & holds
    fixed = sorted({dims[s].label for s in dims if s not in mine})
    return _report(guard, dims[mine[0]], mine[0], allowed[group], tries, fixed)


def _evaluator(expr):
    """expr as compiled Python (torch's guard printer: ~1000x faster than sympy substitution,
    which matters with hundreds of guards x hundreds of sizes); sympy when it does not print."""
    import math

    import sympy
    import torch
    from torch.utils._sympy.printers import PythonPrinter

    try:
        code = compile(PythonPrinter().doprint(expr), "<guard>", "eval")
    except Exception:  # a sympy function without a Python spelling
        code = None
    namespace = {"math": math, "torch": torch}

    def holds(values: dict) -> bool:
        try:
            if code is not None:
                return bool(eval(code, namespace, values))  # noqa: S307  (torch's own printout of a guard)
            return bool(expr.xreplace({sympy.Symbol(k, integer=True, positive=True): sympy.Integer(v) for k, v in values.items()}))
        except (TypeError, ZeroDivisionError, ValueError, NameError):  # cannot tell: assume it holds
            return True

    return holds


def _report(guard: Guard, dim: Dim, symbol, holds: set[int], tries: range, fixed: list[str]) -> dict:
    if not holds:
        return _unsatisfiable(guard, dim, symbol, tries, fixed)
    fails = next(v for v in tries if v not in holds)
    runs = _runs(sorted(holds))
    specialized = _pins_to_constant(guard.expr) or (not fixed and len(runs) == 1 and runs[0][1] < tries[-1])
    where = f"dynamic {dim.label} (\"{dim.name}\", {symbol} in the guard)"
    sizes = _describe(guard.expr, symbol, dim, runs, tries)
    if fixed:  # a relation with other dims: they were held at the example's sizes
        sizes += f" while {', '.join(fixed)} {'keeps' if len(fixed) == 1 else 'keep'} the example's size"
    verb = "specialized" if specialized else "restricted"
    message = f"{where} {verb} by guard {guard.text}: the exported model works only {sizes}; it fails e.g. for {fails}"
    if tries[0] in (0, 1):  # torch treats example sizes 0 and 1 as constants (its "0/1 specialization")
        message += f"; the example's size is {tries[0]}, which torch.export specializes: export with a size of 2 or more"
    elif _intermediate_one(guard.expr, guard.hints):
        message += ("; a size computed from it is 1 at the example's size, and torch.export specializes sizes of 1 "
                    "(a feature map shrunk to 1 x 1, say): unless a line of yours compares it with 1, export with a "
                    "larger example, where that size is 2 or more")
    report = {"code": "ONX914" if specialized else "ONX915", "message": message, "frames": user_frames(guard.frames)}
    if not fixed:  # the excluded sizes of one input dim alone, which a probe of another size can contradict
        report[EXCLUDED] = [dim.index, dim.dim, [v for v in tries if v not in holds]]
    return report


def _unsatisfiable(guard: Guard, dim: Dim, symbol, tries: range, fixed: list[str]) -> dict:
    """A guard that holds at no size, not even the example's (torch.export: "... is inconsistent!").
    It was added while the example ran, so it held then only as a test whose failure the code
    survived: a size check inside an operation that raised, caught by a `try` whose `except` took
    another path (TransReID's `try: x.view(b, g, -1, d) except: ...`)."""
    where = f"dynamic {dim.label} (\"{dim.name}\", {symbol} in the guard)"
    others = ""
    if fixed:  # a relation with other dims, held at the example's sizes: "every size" is of this dim alone
        others = f" while {', '.join(fixed)} {'keeps' if len(fixed) == 1 else 'keep'} the example's size"
    every = "" if fixed else " at every size"
    message = (f"{where}: guard {guard.text} holds at no size (not even the example's {tries[0]}){others}, so "
               f"torch.export rejects the export{every}; it was recorded by a size check that failed while the "
               "example ran, as in an operation that raised inside a `try` whose `except` took another path: test "
               "the condition itself (`if ... % ... == 0:`) instead of catching the error")
    return {"code": "ONX915", "message": message, "frames": user_frames(guard.frames)}


def _explained(reports: list[dict], args: tuple) -> bool:
    """A reported guard excludes these sizes (a report over related dims, with no sizes of its own,
    may: taken as explaining)."""
    for report in reports:
        excluded = report.get(EXCLUDED)
        if excluded is None:
            return True
        index, dim, sizes = excluded
        if index < len(args) and hasattr(args[index], "shape") and dim < len(args[index].shape) \
                and args[index].shape[dim] in sizes:
            return True
    return False


# A report's sizes of its input dim that the guard excludes ([input, dim, sizes]): read by
# `unenforced`, then dropped (the parent never sees it)
EXCLUDED = "excluded_sizes"


def unenforced(reports: list[dict], passed: list[tuple]) -> list[dict]:
    """The reports no probe contradicts: a guard torch.export recorded may not be in the ONNX graph
    (onnxruntime then runs sizes the guard excludes, matching eager: a probe of such a size that
    passed proves the claim "it fails e.g. for N" wrong). ``passed``: the args of the probes that
    matched eager. Every report leaves without its EXCLUDED entry."""
    kept = []
    for report in reports:
        excluded = report.pop(EXCLUDED, None)
        if excluded is not None:
            index, dim, sizes = excluded
            ran = {args[index].shape[dim] for args in passed
                   if index < len(args) and hasattr(args[index], "shape") and dim < len(args[index].shape)}
            if ran & set(sizes):
                continue
        kept.append(report)
    return kept


def user_frames(frames: list[list]) -> list[list]:
    """Only the user's frames travel to the parent (a guard's stack is ~60 torch frames deep)."""
    from onnxfix.exporter.locations import is_user_file

    return [f for f in frames if is_user_file(f[0])]


def _intermediate_one(expr, hints: dict) -> bool:
    """`Eq(E, 1)`, `E <= 1`, `E < 2` over an expression E of the dims (not a dim itself) that is 1
    at the example: torch's size-1 specialization of a computed size (FocalNet's last stage at a
    32 x 32 example: `Eq(Max(1, ((s4 + 31)//32)), 1)`), which no source rewrite removes."""
    import sympy

    if isinstance(expr, sympy.Eq):
        left, right = expr.args
        side = left if right == 1 else right if left == 1 else None
    elif isinstance(expr, (sympy.Le, sympy.Lt)):
        side = expr.args[0] if expr.args[1] == (1 if isinstance(expr, sympy.Le) else 2) else None
    else:
        side = None
    if side is None or side.is_Symbol or side.is_number:
        return False
    try:
        value = side.xreplace({symbol: sympy.Integer(int(v)) for symbol, v in hints.items() if v is not None})
        return bool(value == 1)
    except (TypeError, ValueError):
        return False


def _pins_to_constant(expr) -> bool:
    import sympy

    if not isinstance(expr, sympy.Eq):
        return False
    left, right = expr.args
    return right.is_number and getattr(left.func, "__name__", "") not in ("Mod", "PythonMod")


def _runs(values: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for v in values:
        if runs and runs[-1][1] == v - 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    return runs


def _describe(expr, symbol, dim: Dim, runs: list[tuple[int, int]], tries: range) -> str:
    """"when img.shape[2] // 4 is even (...)" for a parity guard, else the sizes that remain."""
    shown = ", ".join(f"{a}" if a == b else f"{a}..{b}" for a, b in runs[:3]) + (", ..." if len(runs) > 3 else "")
    if runs and runs[-1][1] == tries[-1]:
        shown += "+" if runs[-1][0] != runs[-1][1] else ""
    parity = _parity(expr, symbol, dim)
    if parity:
        return f"when {parity} ({dim.label} in {shown})"
    return f"for {dim.label} in {shown}"


def _parity(expr, symbol, dim: Dim) -> str | None:
    """Eq/Ne(Mod(E, 2), r): the guard states the parity of E."""
    import sympy

    if not isinstance(expr, (sympy.Eq, sympy.Ne)):
        return None
    left, right = expr.args
    if not (getattr(left.func, "__name__", "") in ("Mod", "PythonMod") and right.is_number and left.args[1] == 2):
        return None
    even = (int(right) == 0) == isinstance(expr, sympy.Eq)
    inner = str(left.args[0]).replace(str(symbol), dim.label)
    inner = re.sub(r"^\((.*)\)$", r"\1", inner).replace("//", " // ")
    return f"{inner} is {'even' if even else 'odd'}"
