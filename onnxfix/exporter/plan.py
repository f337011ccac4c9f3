"""What to export: targets from the command line or from ``[tool.onnxfix.export]``.

Torch-free and import-free: a target's defaults (``example_inputs``, ``probe_inputs``,
``DYNAMIC``) are found by reading the model file's syntax tree, never by running it.

Config (paths relative to the pyproject.toml's folder):

    [tool.onnxfix.export]
    exporters = ["dynamo", "legacy"]     # default: [tool.onnxfix] exporters, else ["dynamo"]
    opset = 18                           # default: the exporter's
    timeout = 600                        # seconds per export

    [[tool.onnxfix.export.targets]]
    name = "pooling"                     # default: the model spec
    model = "models/pool.py:make_model"  # a callable returning an nn.Module, or a Module class
    inputs = "models/pool.py:example_inputs"
    probe-inputs = "models/pool.py:probe_inputs"
    dynamic = ["x:0=batch", "mask:0=batch,1=seq"]
    exporters = ["legacy"]               # overrides the table's
    output = "build/pool.onnx"
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from pathlib import Path

from onnxfix.config import EXPORTERS, ConfigError, InvalidValue, Settings, exporter_names
from onnxfix.exporter import dynamic_spec, targets

DEFAULT_TIMEOUT = 600.0
TABLE_KEYS = {"exporters", "opset", "timeout", "targets"}
TARGET_KEYS = {"name", "model", "inputs", "probe-inputs", "dynamic", "exporters", "opset", "output", "timeout"}


class PlanError(Exception):
    """A usage error: bad target, bad --dynamic, missing file. Exit code 2."""


@dataclass
class Target:
    name: str
    model: str  # path/to/file.py:callable
    inputs: str
    probes: str | None = None
    dynamic: dict[str, dict[int, str]] = field(default_factory=dict)
    exporters: tuple[str, ...] = ("dynamo",)
    opset: int | None = None
    output: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    decompose: tuple[str, ...] | None = None  # --decompose: None off, () all, else decomposition keys
    live: str | None = None  # onnxfix.export: the payload file (isolate.ExportRequest.live)
    modules: dict[str, str] = field(default_factory=dict)  # isolate.ExportRequest.modules
    # a live model's classes as (file, first line, last line): its static findings are those in them
    spans: tuple[tuple[str, int, int], ...] = ()
    sys_path: tuple[str, ...] = ()  # a live model's import folders (the calling process's sys.path)

    @property
    def model_path(self) -> Path:
        return Path(self.model.rpartition(":")[0])

    @property
    def factory(self) -> str:
        return self.model.rpartition(":")[2]

    def output_for(self, exporter: str) -> str | None:
        """-o out.onnx: exactly that with one exporter, out.dynamo.onnx / out.legacy.onnx with two."""
        if not self.output or len(self.exporters) == 1:
            return self.output
        path = Path(self.output)
        return str(path.with_name(f"{path.stem}.{exporter}{path.suffix or '.onnx'}"))


def split_spec(spec: str, what: str) -> tuple[Path, str]:
    """Check a spec before any process starts: the same parser the worker loads it with."""
    try:
        path, name = targets.split_spec(spec)
    except targets.TargetError as exc:
        raise PlanError(f"{what}: {exc}") from None
    if not name.isidentifier():
        raise PlanError(f"{what}: {name!r} is not a Python name, in {spec!r}")
    if not path.is_file():
        raise PlanError(f"{what}: {path}: no such file")
    return path, name


def parse_dynamic(values: list[str]) -> dict[str, dict[int, str]]:
    """``INPUT:DIM[=NAME][,DIM[=NAME]...]``; INPUT is an index or forward's parameter name.

    Unnamed dims are called ``<input>_dim<d>`` (``input<i>_dim<d>`` for an index); dims given the same NAME must be equal.
    """
    result: dict[str, dict[int, str]] = {}
    for value in values:
        key, sep, dims = value.partition(":")
        key = key.strip()
        if not sep or not key or not (key.isdigit() or key.isidentifier()) or not dims.strip():
            raise PlanError(f"--dynamic {value!r}: expected INPUT:DIM[=NAME][,DIM[=NAME]...], e.g. x:0=batch or 0:0,1")
        for item in dims.split(","):
            dim, _, name = item.partition("=")
            try:
                index = int(dim)
            except ValueError:
                raise PlanError(f"--dynamic {value!r}: {dim.strip()!r} is not a dimension number") from None
            name = name.strip() or f"{key if key.isidentifier() else 'input' + key}_dim{index}"
            if not name.isidentifier():
                raise PlanError(f"--dynamic {value!r}: dim name {name!r} must be an identifier")
            result.setdefault(key, {})[index] = name
    return result


def module_defaults(path: Path) -> dict:
    """The conventions onnxfix's examples follow: example_inputs(), probe_inputs(), DYNAMIC."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return {}
    found: dict = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("example_inputs", "probe_inputs"):
            found[node.name] = f"{path}:{node.name}"
        elif _assigns_dynamic(node):
            found["DYNAMIC"] = node  # read (and checked) only when no --dynamic/config spec replaces it
    return found


def _assigns_dynamic(node: ast.stmt) -> bool:
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.target.id == "DYNAMIC" and node.value is not None
    return isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "DYNAMIC" for t in node.targets)


def _module_dynamic(path: Path, defaults: dict) -> dict[str, dict[int, str]]:
    if "DYNAMIC" not in defaults:
        return {}
    try:
        return dynamic_spec.read(path, defaults["DYNAMIC"])
    except dynamic_spec.DynamicSpecError as exc:
        raise PlanError(str(exc)) from None


def make_target(
    model: str, inputs: str | None = None, probes: str | None = None, dynamic: dict | None = None,
    exporters: tuple[str, ...] = ("dynamo",), opset: int | None = None, output: str | None = None,
    timeout: float = DEFAULT_TIMEOUT, name: str | None = None, what: str = "TARGET",
) -> Target:
    model_path, _ = split_spec(model, what)
    defaults = module_defaults(model_path)
    inputs = inputs or defaults.get("example_inputs")
    if not inputs:
        raise PlanError(f"{what} {model}: give --inputs path.py:callable (or define example_inputs() in {model_path})")
    split_spec(inputs, "inputs")
    probes = probes or defaults.get("probe_inputs")
    if probes:
        split_spec(probes, "probe inputs")
    bad = set(exporters) - set(EXPORTERS)
    if bad or not exporters:
        raise PlanError(f"{what}: unknown exporter(s) {sorted(bad)}; use dynamo, legacy or both")
    return Target(
        name=name or model, model=model, inputs=inputs, probes=probes,
        dynamic=dynamic if dynamic else _module_dynamic(model_path, defaults),
        exporters=tuple(e for e in EXPORTERS if e in exporters), opset=opset, output=output, timeout=timeout,
    )


def targets_from_config(settings: Settings) -> list[Target]:
    """Validate [tool.onnxfix.export] and build its targets (paths relative to the config)."""
    path = settings.config_path or Path("pyproject.toml")
    table = settings.export
    _check_keys(table, TABLE_KEYS, "[tool.onnxfix.export]", path)
    entries = table.get("targets", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(path, "[tool.onnxfix.export] targets must be an array of tables ([[tool.onnxfix.export.targets]])")
    defaults = {
        "exporters": _exporters(table.get("exporters", sorted(settings.exporters)), path, "[tool.onnxfix.export] exporters"),
        "opset": _int(table.get("opset"), path, "opset"),
        "timeout": float(_int(table.get("timeout"), path, "timeout") or DEFAULT_TIMEOUT),
    }
    return [_config_target(entry, i, defaults, settings.root, path) for i, entry in enumerate(entries)]


def _config_target(entry: dict, index: int, defaults: dict, root: Path, path: Path) -> Target:
    where = f"[[tool.onnxfix.export.targets]] #{index + 1}"
    _check_keys(entry, TARGET_KEYS, where, path)
    if not isinstance(entry.get("model"), str):
        raise ConfigError(path, f"{where}: model = \"path/to/file.py:factory\" is required")
    for key in ("name", "inputs", "probe-inputs", "output"):
        if key in entry and not isinstance(entry[key], str):
            raise ConfigError(path, f"{where}: {key} must be a string")
    dynamic = entry.get("dynamic", [])
    if isinstance(dynamic, str):
        dynamic = [dynamic]
    if not isinstance(dynamic, list) or not all(isinstance(d, str) for d in dynamic):
        raise ConfigError(path, f"{where}: dynamic must be a list of \"INPUT:DIM[=NAME],...\" strings")
    try:
        return make_target(
            _rooted(entry["model"], root), _rooted(entry.get("inputs"), root), _rooted(entry.get("probe-inputs"), root),
            parse_dynamic(dynamic),
            _exporters(entry["exporters"], path, f"{where} exporters") if "exporters" in entry else defaults["exporters"],
            _int(entry.get("opset"), path, "opset") or defaults["opset"],
            str(root / entry["output"]) if "output" in entry else None,
            float(_int(entry.get("timeout"), path, "timeout") or defaults["timeout"]),
            entry.get("name", entry["model"]), what=where,
        )
    except PlanError as exc:
        raise ConfigError(path, str(exc)) from None


def _rooted(spec: str | None, root: Path) -> str | None:
    if spec is None:
        return None
    file, sep, name = spec.rpartition(":")
    return f"{root / file}{sep}{name}" if sep and file else spec


def _check_keys(table: dict, allowed: set[str], where: str, path: Path) -> None:
    unknown = set(table) - allowed
    if unknown:
        raise ConfigError(path, f"unknown key(s) in {where}: {', '.join(sorted(unknown))} (allowed: {', '.join(sorted(allowed))})")


def _exporters(value, path: Path, where: str) -> tuple[str, ...]:
    """Exporter names as [tool.onnxfix] takes them: case-insensitive, "both" for the two."""
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        raise ConfigError(path, f"{where}: expected a list of {list(EXPORTERS)} (or \"both\"), got {value!r}")
    try:
        names = exporter_names(values, where)
    except InvalidValue as exc:
        raise ConfigError(path, str(exc)) from None
    return tuple(e for e in EXPORTERS if e in names)


def _int(value, path: Path, key: str) -> int | None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value <= 0):
        raise ConfigError(path, f"[tool.onnxfix.export] {key} must be a positive integer")
    return value


@dataclass(frozen=True)
class Request:
    """What `onnxfix export` was asked for on its command line."""

    target: str | None = None  # path/to/file.py:factory, a configured target's name, or None: all
    inputs: str | None = None
    probe_inputs: str | None = None
    dynamic: tuple[str, ...] = ()  # --dynamic values, "name:dim=label,..."
    output: str | None = None
    exporters: tuple[str, ...] | None = None  # None: the target's or the project's
    opset: int | None = None
    timeout: float | None = None
    decompose: tuple[str, ...] | None = None  # None off, () every decomposition, else keys


def plan_targets(request: Request, settings: Settings) -> list[Target]:
    """The targets to export: the command line's, else the configured ones."""
    planned = _requested_targets(request, settings)
    if request.decompose is None:
        return planned
    from onnxfix.decompositions import BY_KEY
    from onnxfix.exporter.export_repairs import EXPORT_REPAIRS

    unknown = [op for op in request.decompose if op not in BY_KEY and op not in EXPORT_REPAIRS]
    if unknown:
        raise PlanError(f"--decompose: unknown {', '.join(unknown)}; available: {', '.join([*BY_KEY, *EXPORT_REPAIRS])}")
    return [replace(t, decompose=request.decompose) for t in planned]


def _requested_targets(request: Request, settings: Settings) -> list[Target]:
    configured = targets_from_config(settings) if settings.export else []
    if request.target is None or ":" not in request.target:
        chosen = [t for t in configured if request.target in (None, t.name)]
        if request.target is not None and not chosen:
            raise PlanError(f"TARGET {request.target!r}: expected path/to/file.py:factory or a configured target name")
        if chosen and (request.inputs or request.probe_inputs or request.dynamic or request.output):
            raise PlanError("--inputs, --probe-inputs, --dynamic and -o apply to a TARGET given on the command line")
        return [replace(t, exporters=request.exporters or t.exporters, opset=request.opset or t.opset,
                        timeout=request.timeout or t.timeout) for t in chosen]
    return [make_target(
        request.target, request.inputs, request.probe_inputs, parse_dynamic(list(request.dynamic)),
        request.exporters or tuple(sorted(settings.exporters)), request.opset, request.output,
        request.timeout or DEFAULT_TIMEOUT,
    )]
