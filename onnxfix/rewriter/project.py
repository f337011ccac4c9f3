"""Cross-file name resolution over the scanned project, with the stdlib ast.

``from .backbone import Backbone`` inside package ``pkg`` names ``pkg.backbone.Backbone``; the
project resolver finds ``pkg/backbone.py`` under the package root of the scanned files, parses
it (ast: about 17x cheaper than libcst, see docs/scale.md for why not rope), and answers
``external_class`` / ``external_function`` for ``ScopeBuilder``. Every file it reads is
recorded in ``touched`` so that cached results can be invalidated when one changes.
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from pathlib import Path

from dataclasses import replace

from onnxfix.rewriter.module_index import ClassInfo, ModuleIndex
from onnxfix.rewriter.scope import Entry, ExportScope, ScopeBuilder
from onnxfix.rewriter.source import SourceError, SourceFile, parse_python

MAX_REEXPORT_HOPS = 5  # pkg/__init__.py re-exporting from .block, which re-exports ...


def package_root(file: Path) -> Path:
    """The folder above the outermost package (folder with __init__.py) holding ``file``."""
    folder = absolute(file).parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        folder = folder.parent
    return folder


def module_name(file: Path, root: Path) -> str:
    parts = list(absolute(file).relative_to(root).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(file: Path, root: Path) -> str:
    """The package relative imports in ``file`` are resolved against."""
    name = module_name(file, root)
    if file.name == "__init__.py":
        return name
    return name.rpartition(".")[0]


def absolute(path: Path) -> Path:
    """Absolute and normalised, without resolving symlinks (Path.resolve costs a system call
    per path component: seconds on a large tree)."""
    return Path(os.path.abspath(path))


def content_hash(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


class ProjectResolver:
    """Resolves qualified names to classes and functions defined in the project's files.

    Parsed modules are kept in a bounded LRU (memory stays flat on large trees); a module
    is looked up by name under each root in turn."""

    def __init__(self, roots: list[Path], display=str, max_modules: int = 128):
        self.roots = list(dict.fromkeys(absolute(r) for r in roots))
        self.display = display
        self.max_modules = max_modules
        self._files: dict[str, Path | None] = {}
        self._modules: OrderedDict[str, ModuleIndex | None] = OrderedDict()
        self._hashes: dict[str, str] = {}  # module name -> content hash of its file
        self.touched: dict[str, str | None] = {}  # module name -> hash (None: no such file)

    # -- the Resolver protocol -------------------------------------------------------------
    def external_class(self, qualname: str) -> tuple[ModuleIndex, ClassInfo] | None:
        found = self._definition(qualname)
        if found and found[1] in found[0].classes:
            return found[0], found[0].classes[found[1]]
        return None

    def external_function(self, qualname: str):
        found = self._definition(qualname)
        if found and found[1] in found[0].functions:
            return found[0], found[0].functions[found[1]]
        return None

    # -- lookups ---------------------------------------------------------------------------
    def _definition(self, qualname: str) -> tuple[ModuleIndex, str] | None:
        """(module defining it, name in that module), following re-exports."""
        for _ in range(MAX_REEXPORT_HOPS):
            module_part, _, name = qualname.rpartition(".")
            if not module_part or module_part.startswith("."):
                return None
            module = self.module(module_part)
            if module is None:
                return None
            if name in module.classes or name in module.functions:
                if module.scope.lookup(name) is None:
                    return module, name
            target = module.scope.imports.get(name)
            if target is None or target == qualname:
                return None
            qualname = target  # `from .block import Block` in pkg/__init__.py
        return None

    def file_for(self, dotted: str) -> Path | None:
        if dotted not in self._files:
            self._files[dotted] = self._find_file(dotted)
        return self._files[dotted]

    def _find_file(self, dotted: str) -> Path | None:
        relative = Path(*dotted.split("."))
        for root in self.roots:
            for candidate in (root / relative.with_suffix(".py"), root / relative / "__init__.py"):
                if candidate.is_file():
                    return candidate
        return None

    def module(self, dotted: str) -> ModuleIndex | None:
        if dotted in self._modules:
            self._modules.move_to_end(dotted)
            module = self._modules[dotted]
        else:
            file = self.file_for(dotted)
            module = self._load(file, dotted) if file else None
            self._modules[dotted] = module
            if len(self._modules) > self.max_modules:
                self._modules.popitem(last=False)
        self.touched[dotted] = self._hashes.get(dotted)
        return module

    def begin(self) -> None:
        """Start recording the modules one file's analysis depends on."""
        self.touched = {}

    def add(self, dotted: str, module: ModuleIndex, raw: bytes) -> None:
        """Register the module being checked, parsed by the caller."""
        self._modules[dotted] = module
        self._hashes[dotted] = content_hash(raw)

    def _load(self, file: Path, dotted: str) -> ModuleIndex | None:
        try:
            source = SourceFile.read(file)
            self._hashes[dotted] = content_hash(source.raw)
            tree = parse_python(source.text)
        except SourceError:
            return None  # reported when that file itself is checked
        package = dotted if file.name == "__init__.py" else dotted.rpartition(".")[0]
        return ModuleIndex.build(tree, self.display(file), package, str(absolute(file)))


def roots_for(files: list[Path]) -> list[Path]:
    """Package roots of the scanned files, most common first (lookups try them in order)."""
    counts: dict[Path, int] = {}
    memo: dict[Path, Path] = {}
    for file in files:
        folder = file.parent
        if folder not in memo:
            memo[folder] = package_root(file)
        counts[memo[folder]] = counts.get(memo[folder], 0) + 1
    return sorted(counts, key=lambda r: (-counts[r], str(r)))


def reach_of_file(module: ModuleIndex, resolver) -> tuple[dict[str, dict[str, Entry]], list]:
    """What the forwards of ``module`` reach: file -> function key -> entry, across files; and
    the export functions found (their scopes are already built: reused for the file's own
    findings)."""
    reach: dict[str, dict[str, Entry]] = {}
    functions = ScopeBuilder(resolver).build([module]).functions
    for fn in functions:
        if fn.module.file:
            merge_reach(reach, {fn.module.file: {fn.key: fn.entry}})
    return reach, functions


def own_functions(module: ModuleIndex, functions: list, own: dict[str, Entry]) -> "ExportScope":
    """The export functions of ``module`` among ``functions``, each with the entry the merged
    reach chose for it (the same scope functions_from_reach would rebuild, without rebuilding)."""
    scope = ExportScope()
    for fn in functions:
        entry = own.get(fn.key) if fn.module is module else None
        if entry is not None:
            is_entry = entry.qualname == fn.key and entry.path == module.identity
            scope.functions.append(replace(fn, entry=entry, is_entry=is_entry))
    return scope


def merge_reach(into: dict[str, dict[str, Entry]], found: dict[str, dict[str, Entry]]) -> None:
    """Union of reach maps (keyed by file identity, as Entry.path is); when several forwards
    reach a function, the one in the function's own file wins, then the first by (path, line):
    the report does not depend on order. The modes (how the exporters run it) are the union."""
    for file, keys in found.items():
        target = into.setdefault(file, {})
        for key, entry in keys.items():
            current = target.get(key)
            if current is None:
                target[key] = entry
                continue
            best = entry if _preference(entry, file) < _preference(current, file) else current
            target[key] = replace(best, modes=entry.modes | current.modes)


def _preference(entry: Entry, own_path: str) -> tuple:
    return (entry.path != own_path, entry.path, entry.line, entry.qualname)
