"""``onnxfix.export`` on a live model: the half of the Python API that runs exports.

It lives with the rest of the export machinery; ``onnxfix.api`` re-exports it. Torch-free at
import (``export`` receives a live module, so torch is loaded when it runs; the exports themselves
run in child processes).

How a live model reaches the export process: it is pickled (``torch.save``) with its inputs.
When pickling fails (a lambda or a lock in an attribute, ...), the child re-creates it as
``type(model)()`` and loads its ``state_dict()``: the class must then be importable by module
name and take no arguments. A class defined in the running script (``__main__``) is found by
running that script in the child as ``__mp_main__``, as multiprocessing's spawn does: keep the
script's work under ``if __name__ == "__main__":``.
"""

from __future__ import annotations

import inspect
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from onnxfix.exporter.api_arguments import PathLike, checked_exporters, class_file, class_tree

if TYPE_CHECKING:
    from onnxfix.exporter.locations import ExportFinding
    from onnxfix.exporter.result import ProbeResult
    from onnxfix.exporter.session import ExporterResult, FixResult, TargetResult
    from onnxfix.rewriter.rule import Finding

TRANSPORT_PICKLE, TRANSPORT_STATE_DICT = "pickle", "state_dict"  # how the model reached the child


class ExportResult:
    """What ``onnxfix.export`` found, per exporter. An export failure is a verdict, not an
    exception. After ``fix=True`` the verdicts are those of the fixed source (``fix`` holds
    the diff and the verdicts after it; ``before`` the ones before)."""

    def __init__(self, target: TargetResult, transport: str):
        self.target = target
        self.transport = transport  # "pickle" or "state_dict": how the model reached the child

    @property
    def results(self) -> list[ExporterResult]:
        return self.target.final

    @property
    def before(self) -> list[ExporterResult]:
        return self.target.results

    @property
    def ok(self) -> bool:
        return self.target.ok

    @property
    def verdicts(self) -> dict[str, str]:
        return {r.verdict.exporter: r.verdict.verdict for r in self.results}

    @property
    def stages(self) -> dict[str, dict[str, str]]:
        return {r.verdict.exporter: r.verdict.stages() for r in self.results}

    @property
    def inputs(self) -> dict[str, list[ProbeResult]]:
        """Per exporter, the error on each input set (export inputs, probes, generated)."""
        return {r.verdict.exporter: r.verdict.probes for r in self.results}

    @property
    def findings(self) -> list[ExportFinding]:
        return [f for r in self.results for f in r.findings]

    @property
    def static_findings(self) -> list[Finding]:
        return self.target.static_findings

    @property
    def onnx_paths(self) -> dict[str, str | None]:
        return {r.verdict.exporter: r.verdict.onnx_path or None for r in self.results}

    @property
    def fix(self) -> FixResult | None:
        return self.target.fix

    def to_json(self) -> dict:
        from onnxfix.exporter import render

        return render.target_json(self.target)

    def write_report(self, path: PathLike) -> Path:
        """What `onnxfix export --report PATH` writes: HTML when PATH ends in .html, else Markdown."""
        from onnxfix.exporter import render, render_html

        path = Path(path)
        html = path.suffix.lower() in (".html", ".htm")
        path.write_text(render_html.html_report([self.target]) if html else render.markdown_report([self.target]), encoding="utf-8")
        return path

    def __repr__(self) -> str:
        from onnxfix.exporter import render

        return render.text_report([self.target], False)

    def _repr_html_(self) -> str:
        from onnxfix.exporter import render_html

        return render_html.html_fragment([self.target])


def export(
    model: Any,
    args: Any = (),
    f: PathLike | None = None,
    *,
    kwargs: Mapping[str, Any] | None = None,
    dynamic_shapes: Mapping[str, Any] | Sequence[Any] | None = None,
    exporters: Iterable[str] | str = ("dynamo",),
    probe_inputs: Sequence[Any] | None = None,
    fix: bool = False,
    unsafe_fixes: bool = False,
    opset_version: int | None = None,
    decompose: Iterable[str] | None = None,
    timeout: float = 600.0,
) -> ExportResult:
    """Export ``model`` with each exporter in a child process, check the file with
    onnx.checker, compare onnxruntime with eager PyTorch on ``args``, ``probe_inputs`` and
    generated inputs, and map failures to source lines. ``f``: where to keep the ONNX file
    (``f.dynamo.onnx``/``f.legacy.onnx`` with both exporters); default a new temporary folder."""
    if os.environ.get("ONNXFIX_WORKER"):
        raise RuntimeError("onnxfix.export was called while an export worker loads your script: put the "
                           "script's work under `if __name__ == \"__main__\":`")
    import torch

    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model: expected a torch.nn.Module, got {type(model).__name__}")
    args = positional_args(model, args, kwargs)
    probes = _probe_inputs(probe_inputs, len(args))
    options = _export_options(f, exporters, fix, unsafe_fixes, opset_version, decompose, timeout)
    dynamic = dynamic_dims(model, args, dynamic_shapes)
    with tempfile.TemporaryDirectory(prefix="onnxfix-live-") as folder:
        payload = Path(folder) / "model.pt"
        transport = _save(model, args, probes, payload)
        target = _target(model, payload, dynamic, fix, options)
        from onnxfix.exporter.session import FIX_TEMPORARY, NoProgress, run_target

        result = run_target(target, NoProgress(), FIX_TEMPORARY if fix else None, unsafe_fixes)
    return ExportResult(result, transport)


def positional_args(model, args, kwargs) -> tuple:
    """torch.onnx's (args, kwargs), as the positional inputs onnxfix exports."""
    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    if kwargs is None:
        return args
    if not isinstance(kwargs, Mapping):
        raise TypeError(f"kwargs: expected a dict of forward()'s keyword arguments, got {type(kwargs).__name__}")
    signature = inspect.signature(model.forward)
    try:
        given = signature.bind(*args, **kwargs).arguments
    except TypeError as exc:
        raise TypeError(f"args/kwargs do not match {type(model).__name__}.forward{signature}: {exc}") from None
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    other = [name for name in given if name not in {p.name for p in positional}]
    if other:
        raise ValueError(f"kwargs: {', '.join(other)} cannot be passed by position; onnxfix exports positional inputs")
    last = max(i for i, p in enumerate(positional) if p.name in given)
    return tuple(given[p.name] if p.name in given else p.default for p in positional[: last + 1])


def dynamic_dims(model, args: tuple, spec) -> dict[str, dict[int, str]]:
    """torch.export's dynamic_shapes ({input: {dim: Dim or name}} or one entry per input, each
    a dict or one entry per dim) as {input name: {dim: name}}."""
    if spec is None:
        return {}
    params = list(inspect.signature(model.forward).parameters)[: len(args)]
    if isinstance(spec, Mapping):
        items = list(spec.items())
    elif isinstance(spec, (list, tuple)):
        items = list(enumerate(spec))
    else:
        raise TypeError(f"dynamic_shapes: expected a dict or a tuple, got {type(spec).__name__}")
    result: dict[str, dict[int, str]] = {}
    for key, dims in items:
        index = key if isinstance(key, int) else params.index(key) if key in params else None
        if index is None or not 0 <= index < len(args):
            raise ValueError(f"dynamic_shapes: {key!r} is not an input of forward() (inputs: {', '.join(params)})")
        if dims is None:
            continue
        if not hasattr(args[index], "dim"):
            raise ValueError(f"dynamic_shapes[{key!r}]: input {params[index] if index < len(params) else index} is not a tensor")
        name = params[index] if index < len(params) else f"input{index}"
        named = _dims(dims, args[index].dim(), name, key)
        if named:
            result[name if index < len(params) else str(index)] = named
    return result


def _dims(dims, rank: int, name: str, key) -> dict[int, str]:
    if isinstance(dims, Mapping):
        pairs = list(dims.items())
    elif isinstance(dims, (list, tuple)):
        if len(dims) != rank:
            raise ValueError(f"dynamic_shapes[{key!r}]: {len(dims)} entries for a {rank}-d input")
        pairs = list(enumerate(dims))
    else:
        raise TypeError(f"dynamic_shapes[{key!r}]: expected a dict {{dim: Dim}} or one entry per dim, got {dims!r}")
    named: dict[int, str] = {}
    for dim, value in pairs:
        if not isinstance(dim, int) or not -rank <= dim < rank:
            raise ValueError(f"dynamic_shapes[{key!r}]: dim {dim!r} out of range for a {rank}-d input")
        label = _dim_name(value, f"{name}_dim{dim % rank}", key)
        if label:
            named[dim % rank] = label
    return named


def _dim_name(value, default: str, key) -> str | None:
    if isinstance(value, str):
        if not value.isidentifier():
            raise ValueError(f"dynamic_shapes[{key!r}]: dim name {value!r} must be an identifier")
        return value
    if value is None:
        return None
    if type(value).__name__ == "_DimHint":  # Dim.STATIC keeps the size; Dim.AUTO, Dim.DYNAMIC do not
        return None if "STATIC" in repr(value) else default
    name = getattr(value, "__name__", None)  # torch.export.Dim("batch")
    if not isinstance(name, str):
        raise TypeError(f"dynamic_shapes[{key!r}]: expected torch.export.Dim, a name or None, got {value!r}")
    return name


def _probe_inputs(probes, count: int) -> list[tuple]:
    if probes is None:
        return []
    if not isinstance(probes, (list, tuple)):
        raise TypeError(f"probe_inputs: expected a list of input tuples, got {type(probes).__name__}")
    result = [tuple(p) if isinstance(p, (tuple, list)) else (p,) for p in probes]
    for i, probe in enumerate(result):
        if len(probe) != count:
            raise ValueError(f"probe_inputs[{i}]: {len(probe)} inputs, the export has {count}")
    return result


def checked_decompositions(value) -> tuple[str, ...]:
    """decompose=: decomposition keys (`rfftfreq`, `linalg_inv`), not rule selectors."""
    values = (value,) if isinstance(value, str) else tuple(value)
    if not all(isinstance(v, str) and v.strip() for v in values):
        raise TypeError(f"decompose: expected decomposition names (strings), got {value!r}")
    return tuple(v.strip() for v in values)


def _export_options(f, exporters, fix, unsafe_fixes, opset, decompose, timeout) -> dict:
    if f is not None and not isinstance(f, (str, os.PathLike)):
        raise TypeError(f"f: expected a file path or None, got {type(f).__name__}")
    for name, value in (("fix", fix), ("unsafe_fixes", unsafe_fixes)):
        if not isinstance(value, bool):
            raise TypeError(f"{name}: expected True or False, got {value!r}")
    if opset is not None and (not isinstance(opset, int) or isinstance(opset, bool) or opset <= 0):
        raise ValueError(f"opset_version: expected a positive integer, got {opset!r}")
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise ValueError(f"timeout: expected seconds > 0, got {timeout!r}")
    keys = None
    if decompose is not None:
        from onnxfix.decompositions import BY_KEY

        keys = checked_decompositions(decompose)
        unknown = [k for k in keys if k not in BY_KEY]
        if unknown:
            raise ValueError(f"decompose: unknown {', '.join(unknown)}; available: {', '.join(BY_KEY)}")
    output = str(f) if f is not None else str(Path(tempfile.mkdtemp(prefix="onnxfix-export-")) / "model.onnx")
    return {"output": output, "exporters": checked_exporters(exporters), "opset": opset, "decompose": keys,
            "timeout": float(timeout)}


def _save(model, args: tuple, probes: list[tuple], path: Path) -> str:
    """Pickle the model with its inputs; where that fails, its class and state dict."""
    import torch

    payload = {"model": model, "args": args, "probes": probes}
    try:
        torch.save(payload, path)
        return TRANSPORT_PICKLE
    except Exception as exc:  # any object in the model may refuse pickling, in its own way
        reason = f"{type(exc).__name__}: {exc}"
    cls = type(model)
    if "<locals>" in cls.__qualname__ or not _takes_no_arguments(cls):
        raise ValueError(f"model: cannot reach the export process: pickling failed ({reason}), and "
                         f"{cls.__qualname__} cannot be re-created as {cls.__name__}() (it must be defined at "
                         "module level and take no arguments)")
    torch.save({"model": None, "module": cls.__module__, "qualname": cls.__qualname__,
                "state_dict": model.state_dict(), "args": args, "probes": probes}, path)
    return TRANSPORT_STATE_DICT


def _takes_no_arguments(cls: type) -> bool:
    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters)


def _target(model, payload: Path, dynamic: dict, fix: bool, options: dict):
    from onnxfix.exporter.plan import Target

    cls = type(model)
    source = (class_file(cls) or os.path.realpath(inspect.getfile(cls))) if _has_file(cls) else "<unknown>"
    modules: dict[str, str] = {}
    main = sys.modules.get("__main__")
    if cls.__module__ == "__main__" and getattr(main, "__file__", None):
        modules["__main__"] = os.path.realpath(main.__file__)
    elif fix and source != "<unknown>":
        modules[cls.__module__] = source  # so that the fixed copy can stand in for it
    return Target(name=cls.__qualname__, model=f"{source}:{cls.__name__}", inputs="", dynamic=dynamic,
                  live=str(payload), modules=modules, spans=class_spans(model),
                  sys_path=tuple(os.path.abspath(p) for p in sys.path if p), **options)


def class_spans(model) -> tuple[tuple[str, int, int], ...]:
    """(file, first line, last line) of each of the user's classes the model is made of."""
    spans = []
    for cls in class_tree(model):
        path = class_file(cls)
        try:
            lines, first = inspect.getsourcelines(cls)
        except (TypeError, OSError):
            continue
        if path:
            spans.append((path, first, first + len(lines) - 1))
    return tuple(spans)


def _has_file(cls: type) -> bool:
    try:
        inspect.getfile(cls)
        return True
    except (TypeError, OSError):
        return False
