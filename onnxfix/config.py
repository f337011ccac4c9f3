"""``[tool.onnxfix]`` in the nearest pyproject.toml, merged with command-line flags.

Keys (kebab-case, like ruff):
  select = ["ONX"]            codes or prefixes to report (default: all)
  ignore = []                 codes or prefixes never reported
  exclude = []                glob patterns (relative to the config's folder) skipped when
                              scanning folders, added to the default excludes
  per-file-ignores = {"tests/*" = ["ONX2"]}
  unsafe-fixes = false        apply unsafe fixes with --write
  exporters = ["dynamo"]      exporters the project targets: "dynamo", "legacy"
  [tool.onnxfix.export]       export targets for `onnxfix export` (see exporter/)
"""

from __future__ import annotations

import fnmatch
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from onnxfix.rewriter.rule import EXPORTERS

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".eggs", "__pycache__",
    "build", "dist", "node_modules", "site-packages", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".onnxfix_cache",
)
KNOWN_KEYS = {
    "select", "ignore", "exclude", "per-file-ignores", "unsafe-fixes", "exporters", "export",
    "cache-dir",
}


class ConfigError(Exception):
    def __init__(self, path: Path, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ("ONX",)
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    unsafe_fixes: bool = False
    exporters: frozenset[str] = frozenset({"dynamo"})
    root: Path = field(default_factory=Path.cwd)  # folder of the config file
    config_path: Path | None = None
    cache_dir: str | None = None  # relative to root; default .onnxfix_cache
    # run-time evidence folder (rewriter/evidence.py); set by `onnxfix export --fix` only
    evidence_dir: str | None = None
    export: dict = field(default_factory=dict, hash=False, compare=False)

    def is_selected(self, code: str, path: Path | None = None) -> bool:
        if not _matches(code, self.select) or _matches(code, self.ignore):
            return False
        if path is not None and self.per_file_ignores:
            relative = self.relative(path)
            for pattern, codes in self.per_file_ignores:
                if _path_matches(relative, pattern) and _matches(code, codes):
                    return False
        return True

    def is_excluded(self, path: Path) -> bool:
        if any(part in DEFAULT_EXCLUDE for part in path.parts[-1:]):
            return True
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


def _matches(code: str, selectors: tuple[str, ...]) -> bool:
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
            try:
                data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                data = {}
            if "onnxfix" in data.get("tool", {}):
                return pyproject
    return None


def load_settings(start: Path) -> Settings:
    path = find_config(start)
    if path is None:
        return Settings()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, f"invalid TOML: {exc}") from None
    return settings_from_table(data["tool"]["onnxfix"], path)


def settings_from_table(table: dict, path: Path) -> Settings:
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(path, f"unknown key(s) in [tool.onnxfix]: {', '.join(sorted(unknown))}")
    exporters = frozenset(_string_list(table, "exporters", path) or ["dynamo"])
    bad = exporters - set(EXPORTERS)
    if bad:
        raise ConfigError(path, f"exporters: unknown exporter(s) {sorted(bad)}; use {list(EXPORTERS)}")
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
    return Settings(
        select=tuple(_string_list(table, "select", path) or ["ONX"]),
        ignore=tuple(_string_list(table, "ignore", path)),
        exclude=tuple(_string_list(table, "exclude", path)),
        per_file_ignores=tuple((k, tuple(_as_list(v, path, k))) for k, v in per_file.items()),
        unsafe_fixes=unsafe,
        exporters=exporters,
        root=path.parent,
        config_path=path,
        cache_dir=cache_dir,
        export=export,
    )


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
    return replace(settings, **{k: v for k, v in overrides.items() if v is not None})
