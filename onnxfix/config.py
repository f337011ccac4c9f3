"""``[tool.onnxfix]`` in the nearest pyproject.toml, merged with command-line flags.

Keys (kebab-case, like ruff):
  select = ["ONX"]            codes or prefixes to report (default: all)
  ignore = []                 codes or prefixes never reported
  exclude = []                glob patterns (relative to the config's folder) skipped when
                              scanning folders, added to the default excludes
  per-file-ignores = {"tests/*" = ["ONX2"]}
  unsafe-fixes = false        apply unsafe fixes with --write
  exporters = ["dynamo"]      exporters the project targets: "dynamo", "legacy" ("both": the two)
  [tool.onnxfix.export]       export targets for `onnxfix export` (see exporter/)
Codes and exporter names are case-insensitive. A code, prefix, exporter or key that matches
nothing is an error, here and on the command line, never silently ignored: a typo in `select`
would otherwise check nothing and print "All checks passed!".
"""

from __future__ import annotations

import fnmatch
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Callable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DYNAMO = "dynamo"
LEGACY = "legacy"
EXPORTERS = (DYNAMO, LEGACY)  # every exporter a project can target, in display order

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".eggs", "__pycache__",
    "build", "dist", "node_modules", "site-packages", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".onnxfix_cache",
)
KNOWN_KEYS = {
    "select", "ignore", "exclude", "per-file-ignores", "unsafe-fixes", "exporters", "export",
    "cache-dir",
}
EXPORTER_ALIASES = {"both": EXPORTERS}  # as `onnxfix export --exporter both` spells it
SELECTOR = re.compile(r"ONX[0-9]{0,3}|ALL")
# Checks rule selectors (codes or prefixes) against the rule catalog: patterns/selectors.py's
# rule_selectors. The catalog sits above config, so whoever loads settings passes it in.
SelectorCheck = Callable[[list[str], str], tuple[str, ...]]


class ConfigError(Exception):
    def __init__(self, path: Path, message: str, line: int | None = None, col: int | None = None):
        where = f"{path}:{line}:{col}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")
        self.path = path


class InvalidValue(ValueError):
    """A value that names no rule or exporter; the message names the value and where it was."""


def exporter_names(values, where: str) -> frozenset[str]:
    """Exporter names, lower-cased; "both" means every exporter, as in `onnxfix export`."""
    if not values:
        raise InvalidValue(f"invalid value '' for {where}: expected dynamo, legacy or both")
    names: set[str] = set()
    for value in values:
        name = value.strip().lower()
        if name not in EXPORTERS and name not in EXPORTER_ALIASES:
            raise InvalidValue(f"invalid value {value!r} for {where}: expected dynamo, legacy or both")
        names.update(EXPORTER_ALIASES.get(name, (name,)))
    return frozenset(names)


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ("ONX",)
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    unsafe_fixes: bool = False
    exporters: frozenset[str] = frozenset({"dynamo"})
    # Where `exporters` came from: "config", "--exporters", None (not said: the run infers it,
    # rewriter/exporter_inference.py), or the inference's own words for the summary line.
    exporters_reason: str | None = None
    root: Path = field(default_factory=Path.cwd)  # folder of the config file
    config_path: Path | None = None
    cache_dir: str | None = None  # relative to root; default .onnxfix_cache
    # run-time evidence folder (rewriter/evidence.py); set by `onnxfix export --fix` only
    evidence_dir: str | None = None
    export: dict = field(default_factory=dict, hash=False, compare=False)
    # `onnxfix export --fix` tries fixes one set at a time: only findings with these
    # engine.fix_key keys are fixed (None: all). Not part of the cache key: checks ignore it.
    fix_only: frozenset[str] | None = None

    def is_selected(self, code: str, path: Path | None = None) -> bool:
        if not selector_matches(code, self.select) or selector_matches(code, self.ignore):
            return False
        if path is not None and self.per_file_ignores:
            relative = self.relative(path)
            for pattern, codes in self.per_file_ignores:
                if _path_matches(relative, pattern) and selector_matches(code, codes):
                    return False
        return True

    def is_excluded(self, path: Path) -> bool:
        if path.name in DEFAULT_EXCLUDE:
            return True
        if not self.exclude:  # the default: no pattern, no path to resolve (seconds on a big tree)
            return False
        relative = self.relative(path)
        return any(_path_matches(relative, pattern) for pattern in self.exclude)

    def relative(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except (ValueError, OSError, RuntimeError):  # another tree, or a symlink loop (RuntimeError)
            return path.as_posix()

    def fingerprint(self) -> str:
        """What the cache key needs to know about settings."""
        return repr((self.select, self.ignore, self.per_file_ignores, sorted(self.exporters), self.evidence_dir))


def require_a_rule(settings: Settings, rules) -> None:
    """A selection that leaves no rule able to report for the exporters targeted would check
    nothing and print "All checks passed!" (e.g. --select ONX202, a legacy-only rule, with the
    default dynamo target)."""
    if any(settings.is_selected(r.code) and set(r.exporters) & settings.exporters for r in rules):
        return
    raise InvalidValue(
        f"nothing to check: no selected rule reports for {_exporter_list(settings.exporters)} "
        f"(select: {', '.join(settings.select)}; ignore: {', '.join(settings.ignore) or 'none'})"
    )


def _exporter_list(exporters) -> str:
    names = [e for e in EXPORTERS if e in exporters]
    return f"exporter{'s' if len(names) > 1 else ''} {', '.join(names)}"


def selector_matches(code: str, selectors: tuple[str, ...]) -> bool:
    return any(s == "ALL" or code.startswith(s) for s in selectors)


def _path_matches(relative: str, pattern: str) -> bool:
    pure = PurePosixPath(relative)
    return (
        fnmatch.fnmatch(relative, pattern)
        or fnmatch.fnmatch(pure.name, pattern)
        or any(fnmatch.fnmatch(str(parent), pattern.rstrip("/")) for parent in pure.parents if str(parent) != ".")
    )


def find_config(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.onnxfix] table, at or above ``start``."""
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    for candidate in [folder, *folder.parents]:
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            tool = read_toml(pyproject).get("tool")
            if isinstance(tool, dict) and "onnxfix" in tool:
                return pyproject
    return None


def read_toml(path: Path) -> dict:
    """A pyproject.toml that cannot be read is an error, not skipped: skipping it would fall
    back to a parent folder's config (or none) and check with settings the user never wrote."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, f"cannot decode as utf-8: {exc.reason}") from None
    except OSError as exc:
        raise ConfigError(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message, line, col = _toml_position(str(exc), text)
        raise ConfigError(path, f"invalid TOML: {message}", line, col) from None


def _toml_position(message: str, text: str) -> tuple[str, int | None, int | None]:
    """tomllib puts the position at the end of its message: "(at line 2, column 9)" or
    "(at end of document)"; Python 3.14 also has attributes, older ones only the text."""
    at = re.search(r" \(at line (\d+), column (\d+)\)$", message)
    if at:
        return message[: at.start()], int(at[1]), int(at[2])
    if message.endswith(" (at end of document)"):
        lines = text.splitlines() or [""]
        return message[: -len(" (at end of document)")], len(lines), len(lines[-1]) + 1
    return message, None, None


def load_settings(start: Path, selectors: SelectorCheck) -> Settings:
    path = find_config(start)
    if path is None:
        return Settings()
    table = read_toml(path)["tool"]["onnxfix"]
    if not isinstance(table, dict):
        raise ConfigError(path, "tool.onnxfix must be a table ([tool.onnxfix])")
    return settings_from_table(table, path, selectors)


def settings_from_table(table: dict, path: Path, selectors: SelectorCheck) -> Settings:
    try:
        return _settings(table, path, selectors)
    except InvalidValue as exc:
        raise ConfigError(path, str(exc)) from None


def _settings(table: dict, path: Path, selectors: SelectorCheck) -> Settings:
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(
            path, f"unknown key(s) in [tool.onnxfix]: {', '.join(sorted(unknown))} (allowed: {', '.join(sorted(KNOWN_KEYS))})"
        )
    exporters = _string_list(table, "exporters", path)
    exporters = exporter_names(exporters, "exporters") if exporters else frozenset({"dynamo"})
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(path, "per-file-ignores must be a table of pattern = [codes]")
    unsafe = table.get("unsafe-fixes", False)
    if not isinstance(unsafe, bool):
        raise ConfigError(path, "unsafe-fixes must be true or false")
    cache_dir = table.get("cache-dir")
    if cache_dir is not None and not isinstance(cache_dir, str):
        raise ConfigError(path, "cache-dir must be a string")
    export = table.get("export", {})
    if not isinstance(export, dict):
        raise ConfigError(path, "[tool.onnxfix.export] must be a table")
    select, ignore = _string_list(table, "select", path), _string_list(table, "ignore", path)
    return Settings(
        select=selectors(select, "select") if select else ("ONX",),
        ignore=selectors(ignore, "ignore") if ignore else (),
        exclude=tuple(_string_list(table, "exclude", path)),
        per_file_ignores=tuple((k, _selectors_or_none(_as_list(v, path, k), k, selectors)) for k, v in per_file.items()),
        unsafe_fixes=unsafe,
        exporters=exporters,
        exporters_reason="config" if "exporters" in table else None,
        root=path.parent,
        config_path=path,
        cache_dir=cache_dir,
        export=export,
    )


def _selectors_or_none(codes: list[str], pattern: str, selectors: SelectorCheck) -> tuple[str, ...]:
    return selectors(codes, f"per-file-ignores {pattern!r}") if codes else ()


def _string_list(table: dict, key: str, path: Path) -> list[str]:
    return _as_list(table.get(key, []), path, key)


def _as_list(value, path: Path, key: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(path, f"{key} must be a list of strings")
    return value


def with_overrides(settings: Settings, **overrides) -> Settings:
    """Command-line flags win over config; a None override keeps the config's value."""
    given = {k: v for k, v in overrides.items() if v is not None}
    if "exporters" in given:
        given.setdefault("exporters_reason", "--exporters")
    return replace(settings, **given)
