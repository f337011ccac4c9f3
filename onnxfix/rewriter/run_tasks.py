"""One file's task in a run's worker processes (module-level functions: they run in child
processes): pass 1 (reach, with the file's findings when it is also a check candidate), pass 2
(check), the syntax check of files no rule needs parsed, and each process's state. runner.py
hands the tasks out and collects the answers.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from onnxfix.config import Settings
from onnxfix.rewriter import cache as cache_mod
from onnxfix.rewriter.engine import RuleSet, error_location, findings_in_module, process_file
from onnxfix.rewriter.module_index import ModuleIndex
from onnxfix.rewriter.paths import display_path
from onnxfix.rewriter.project import ProjectResolver, content_hash, own_functions, reach_of_file
from onnxfix.rewriter.rule import FileResult
from onnxfix.rewriter.scope import Entry
from onnxfix.rewriter.source import SourceError, SourceFile, parse_python, read_regular_bytes

# A scan allocates millions of small AST and analysis objects; at CPython's default threshold
# (700 allocations) the cyclic collector re-walks the live ones over and over: measured on 40
# transformers model folders, 1.77 s of a 5.9 s scan in the collector, 0.24 s with this setting
# (peak memory: bench/RESULTS.md). Collections still run, just far less often. The files'
# own tasks pause the collector altogether (one_task); this is for everything around them.
SCAN_GC_THRESHOLD = (50_000, 20, 100)


def findings_key(rules_fingerprint: str, settings: Settings, file: str, display: str, raw_hash: str, keys) -> str:
    return cache_mod.key_of(
        "findings", rules_fingerprint, settings.fingerprint(), file, display, raw_hash,
        cache_mod.reach_digest(keys),
    )


@dataclass
class WorkerState:
    roots: list[Path]
    ruleset: RuleSet
    mode: str
    cache: cache_mod.Cache
    rules_fingerprint: str
    resolver: ProjectResolver | None = None

    def findings_key(self, settings, file, display, raw_hash, keys) -> str:
        return findings_key(self.rules_fingerprint, settings, file, display, raw_hash, keys)

    def project_resolver(self) -> ProjectResolver:
        if self.resolver is None:
            self.resolver = ProjectResolver(self.roots, display=display_path)
        return self.resolver


_STATE: WorkerState | None = None


def one_task(function: Callable, task):
    """One file's task with the cyclic collector paused, then one collection of the young
    generations. The analysis caches walks on the AST nodes (lists of (node, parent) pairs),
    so a file's trees end as cyclic garbage; collecting once when the task ends visits each
    object once, where automatic collections re-walk the live tree many times during the
    task (a quarter of a cold scan's CPU on the whole corpus, same findings). What outlives
    the task (the resolver's module cache) moves to the old generation."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return function(task)
    finally:
        gc.collect(1)
        if enabled:
            gc.enable()


def use_state(state: WorkerState) -> None:
    """The state the tasks of this process read (set in the parent too: small runs stay in it)."""
    global _STATE
    _STATE = state


def init_worker(state: WorkerState) -> None:
    use_state(state)
    gc.set_threshold(*SCAN_GC_THRESHOLD)  # a worker process only scans


def reach_task(args) -> tuple[str, dict[str, dict[str, Entry]], tuple[int, int, str] | None, list | None]:
    """Pass 1 for one file; when the file is also a check candidate, its findings under its
    own forwards' reach come along (in most files that is the final reach: no second parse)."""
    path, file, display, dotted, package, raw_hash, key, settings, check = args
    resolver = _STATE.project_resolver()
    resolver.begin()
    findings = None
    try:
        source = SourceFile.read(path)
        tree = parse_python(source.text)
        module = ModuleIndex.build(tree, display, package, file)
        resolver.add(dotted, module, source.raw)
        reach, functions = reach_of_file(module, resolver)
        unchanged = content_hash(source.raw) == raw_hash  # else it changed since the key was made
        if unchanged:
            _STATE.cache.put(key, {"reach": cache_mod.reach_to_json(reach), "deps": resolver.touched})
        own = reach.get(file)
        if check and own:
            scope = own_functions(module, functions, own)
            findings = findings_in_module(source, tree, module, scope, display, settings, _STATE.ruleset)
            if unchanged:
                _STATE.cache.put(_STATE.findings_key(settings, file, display, raw_hash, own),
                                 [cache_mod.finding_to_json(f) for f in findings])
    except Exception as exc:  # noqa: BLE001 - a resolver bug must not take the other files down
        return file, {}, error_location(exc, "resolving"), None
    return file, reach, None, findings


def check_task(args) -> tuple[FileResult, str]:
    path, file, display, settings, package, keys, raw_hash, key = args
    result = process_file(path, display, settings, _STATE.ruleset, _STATE.mode, reach=keys, package=package,
                          file=file)
    if _STATE.mode == "check" and result.error is None and _unchanged(path, raw_hash):
        _STATE.cache.put(key, [cache_mod.finding_to_json(f) for f in result.findings])
    return result, file


def syntax_task(args) -> tuple[str, tuple[int, int, str] | None]:
    path, file, raw_hash, key = args
    try:
        source = SourceFile.read(path)
        parse_python(source.text)
    except SourceError as exc:
        return file, error_location(exc)
    if content_hash(source.raw) == raw_hash:
        _STATE.cache.put(key, "ok")
    return file, None


def _unchanged(path: Path, raw_hash: str) -> bool:
    try:
        return content_hash(read_regular_bytes(path)) == raw_hash
    except OSError:
        return False
