"""Run the checker over what the user named: discover files, check or fix each, collect.

A run has two passes over the project, each in parallel processes and each cached on disk:

1. reach: every file that can define a ``forward`` (its bytes contain "forward") is parsed
   with the stdlib ast, and what its forwards reach is followed across files through
   ``ProjectResolver`` (submodules, bases, imported helpers). The union over files says, for
   every function of every file, which forward (if any) reaches it.
2. check: the rules run on the reached functions of each file whose bytes match the trigger
   of at least one selected rule (``Rule.triggers``). Other files are never parsed here.

Nothing heavy is imported: no torch, no progress bar unless a long scan runs at a terminal.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator

from onnxfix.config import Settings, load_settings, require_a_rule, with_overrides
from onnxfix.patterns import all_rules
from onnxfix.patterns.selectors import rule_selectors
from onnxfix.rewriter import cache as cache_mod
from onnxfix.rewriter import exporter_inference, run_tasks
from onnxfix.rewriter.discover import discover
from onnxfix.rewriter.engine import RuleSet, applicable
from onnxfix.rewriter.paths import display_path
from onnxfix.rewriter.project import (
    ProjectResolver,
    absolute,
    content_hash,
    merge_reach,
    module_name,
    package_of,
    package_root,
    roots_for,
)
from onnxfix.rewriter.rule import FileResult, Finding
from onnxfix.rewriter.scope import Entry
from onnxfix.rewriter.source import read_regular_bytes
from onnxfix.rewriter.triggers import Triggers

ENTRY_MARK = b"forward"  # a file without it defines no forward: no entry point
PARALLEL_MIN_FILES = 24  # below this, process start-up costs more than it saves
CHUNK = 8


@dataclass
class RunResult:
    files: list[FileResult] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)
    settings: Settings | None = None

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.files for f in r.findings), key=lambda f: f.sort_key)

    @property
    def errors(self) -> list[FileResult]:
        return [r for r in self.files if r.error]

    @property
    def changed(self) -> list[FileResult]:
        return [r for r in self.files if r.fixed_text is not None]


@dataclass
class ScannedFile:
    path: Path
    file: str  # absolute: the identity across files
    display: str
    settings: Settings
    root: Path
    reported: bool = True  # False: a sibling read only for its forwards
    raw_hash: str = ""
    has_entry: bool = False
    triggered: bool = False

    @functools.cached_property
    def dotted(self) -> str:
        return module_name(self.path, self.root)

    @functools.cached_property
    def package(self) -> str:
        return package_of(self.path, self.root)


def run(
    paths: list[Path],
    mode: str = "check",
    force_exclude: bool = False,
    use_cache: bool = True,
    cache_dir: Path | None = None,
    jobs: int | None = None,
    progress: bool = False,
    require_rules: bool = False,
    **overrides,
) -> RunResult:
    """mode: check | diff | write. ``overrides`` are command-line settings (None = config).
    require_rules: a selection that leaves no rule for the exporters is an error (the command
    line; `onnxfix export` only borrows the static findings and must not fail on it)."""
    result = RunResult()
    scanned: dict[str, tuple[Path, Settings]] = {}
    for path in paths or [Path(".")]:
        settings = with_overrides(load_settings(path if path.exists() else Path.cwd(), rule_selectors), **overrides)
        if require_rules:
            require_a_rule(settings, all_rules())
        result.settings = result.settings or settings
        found = discover([path], settings, force_exclude)
        result.missing.extend(found.missing)
        for file in found.files:
            scanned.setdefault(str(absolute(file)), (file, settings))
    if not scanned:
        return result
    folder = cache_folder(cache_dir, result.settings) if use_cache else None  # exporters play no part
    cache = cache_mod.Cache(folder)
    result.settings = _infer_exporters(scanned, result.settings, cache)
    with fewer_collections():
        result.files = _project(scanned, mode, cache).run(jobs or _cpu_count(), progress)
        if mode == "write" and result.changed:
            _recheck_written(result, _project(scanned, "check", cache).run(jobs or _cpu_count(), False))
    cache.prune()
    return result




@contextlib.contextmanager
def fewer_collections():
    previous = gc.get_threshold()
    gc.set_threshold(*run_tasks.SCAN_GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def _infer_exporters(scanned: dict[str, tuple[Path, Settings]], first: Settings, cache: cache_mod.Cache) -> Settings:
    """Settings that name no exporters get the ones the scanned files' export calls (and the
    installed torch's default) use; returns the first path's settings, as updated."""
    if all(settings.exporters_reason is not None for _, settings in scanned.values()):
        return first
    # the export script is often a sibling of the model file the user names (export.py)
    files = [(path, display_path(path)) for path, _ in [*scanned.values(), *_sibling_files(scanned)]]
    exporters, why = exporter_inference.infer(files, exporter_inference.installed_torch_version(), cache)
    for key, (path, settings) in scanned.items():
        if settings.exporters_reason is None:
            scanned[key] = (path, replace(settings, exporters=exporters, exporters_reason=why))
    return replace(first, exporters=exporters, exporters_reason=why) if first.exporters_reason is None else first


def _project(scanned: dict[str, tuple[Path, Settings]], mode: str, cache: cache_mod.Cache) -> "Project":
    project = Project(list(scanned.values()), RuleSet(list(all_rules())), mode, cache)
    project.add_context(_sibling_files(scanned))
    return project


def _recheck_written(result: RunResult, checked: list[FileResult]) -> None:
    """The findings left after --write, as a check of the written tree reports them. The
    write pass computed the reach before writing: the fixes moved lines (helpers inserted
    above a forward, in this file or in the file whose forward reaches it), so its "reached
    from Model.forward, model.py:12" would name the old lines."""
    for written, after in zip(result.files, checked):
        if written.error is None:
            written.findings, written.error = after.findings, after.error


def _sibling_files(scanned: dict[str, tuple[Path, Settings]]) -> list[tuple[Path, Settings]]:
    """Unscanned .py files beside the scanned ones. Their forwards are entry points too (a
    commit touching only utils.py must still learn that model.py's forward reaches it), but
    they are not reported on."""
    folders: dict[Path, Settings] = {}
    for path, settings in scanned.values():
        folders.setdefault(path.parent, settings)
    siblings = []
    for folder, settings in folders.items():
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            candidate = folder / name
            if (
                name.endswith(".py")
                and str(absolute(candidate)) not in scanned
                and not settings.is_excluded(candidate)
                and candidate.is_file()
            ):
                siblings.append((candidate, settings))
    return siblings


def cache_folder(cache_dir: Path | None, settings: Settings) -> Path:
    if cache_dir is not None:
        return cache_dir
    if os.environ.get("ONNXFIX_CACHE_DIR"):
        return Path(os.environ["ONNXFIX_CACHE_DIR"])
    if settings.cache_dir:
        return settings.root / settings.cache_dir
    return settings.root / cache_mod.CACHE_DIR_NAME


def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


# -- the project --------------------------------------------------------------------------------
class Project:
    def __init__(self, files: list[tuple[Path, Settings]], ruleset: RuleSet, mode: str, cache: cache_mod.Cache):
        self.ruleset = ruleset
        self.mode = mode
        self.cache = cache
        roots_memo: dict[Path, Path] = {}
        self.files: list[ScannedFile] = []
        for path, settings in files:
            folder = path.parent
            if folder not in roots_memo:
                roots_memo[folder] = package_root(path)
            self.files.append(
                ScannedFile(path, str(absolute(path)), display_path(path), settings, roots_memo[folder])
            )
        self._roots_memo = roots_memo
        self.roots = roots_for([f.path for f in self.files])
        self.rules_fingerprint = ",".join(f"{r.code}:{type(r).__module__}" for r in ruleset.rules)
        self._triggers: dict[tuple, Triggers | None] = {}
        self._hashes: dict[str, str | None] = {}  # module name -> current content hash
        self._resolver = ProjectResolver(self.roots)

    def add_context(self, files: list[tuple[Path, Settings]]) -> None:
        for path, settings in files:
            root = self._roots_memo.get(path.parent) or package_root(path)
            self.files.append(
                ScannedFile(path, str(absolute(path)), display_path(path), settings, root, reported=False)
            )

    # -- pre-filter --------------------------------------------------------------------------
    def triggers(self, settings: Settings) -> Triggers | None:
        """The selected rules' triggers; None when some selected rule has none."""
        key = (settings.select, settings.ignore)
        if key not in self._triggers:
            selected = [r for r in self.ruleset.rules if settings.is_selected(r.code)]
            if any(not r.triggers for r in selected):
                self._triggers[key] = None
            else:
                self._triggers[key] = Triggers([t for r in selected for t in r.triggers])
        return self._triggers[key]

    def _read(self, scanned: ScannedFile) -> None:
        try:
            raw = read_regular_bytes(scanned.path)
        except OSError:
            raw = b""
            scanned.has_entry = scanned.triggered = True  # let the worker report the error
        scanned.raw_hash = content_hash(raw)
        scanned.has_entry = scanned.has_entry or ENTRY_MARK in raw
        if not scanned.reported:
            scanned.triggered = False
            return
        triggers = self.triggers(scanned.settings)
        # with a recorded run's evidence every file is parsed: its facts need no trigger word
        scanned.triggered = (scanned.triggered or triggers is None or bool(scanned.settings.evidence_dir)
                             or triggers.found_in(raw))

    # -- the two passes ------------------------------------------------------------------------
    def run(self, jobs: int, progress: bool) -> list[FileResult]:
        for scanned in self.files:
            self._read(scanned)
        self._by_file = {f.file: f for f in self.files}
        errors: dict[str, tuple[int, int, str]] = {}
        reach: dict[str, dict[str, Entry]] = {}
        pending = []
        for scanned in (f for f in self.files if f.has_entry):
            cached = self._cached_reach(scanned)
            if cached is None:
                pending.append(scanned)
            else:
                merge_reach(reach, cached)
        early: dict[str, tuple[dict[str, Entry], list[Finding]]] = {}
        for file, found, error, findings in self._map(
            run_tasks.reach_task, [self._reach_args(f) for f in pending], jobs, progress, "resolving"
        ):
            merge_reach(reach, found)
            if error:
                errors[file] = error
            if findings is not None:
                early[file] = (found.get(file, {}), findings)

        results: dict[str, FileResult] = {}
        to_check = []
        syntax: list[ScannedFile] = []
        for scanned in (f for f in self.files if f.reported):
            keys = reach.get(scanned.file, {})
            if scanned.file in errors:
                results[scanned.file] = FileResult(scanned.display, error=errors[scanned.file])
            elif not (scanned.triggered and keys):
                results[scanned.file] = FileResult(scanned.display)
                if not scanned.has_entry:  # never parsed: a syntax error must still be reported
                    syntax.append(scanned)
            elif scanned.file in early and early[scanned.file][0] == keys:
                results[scanned.file] = FileResult(scanned.display, findings=early[scanned.file][1])
            else:
                key = self._findings_key(scanned, keys)
                cached = self.cache.get(key)
                if cached is not None and self._cache_answers(cached, scanned):
                    findings = [cache_mod.finding_from_json(f) for f in cached]
                    results[scanned.file] = FileResult(scanned.display, findings=findings)
                else:
                    to_check.append((scanned, keys, key))
        tasks = [self._check_args(s, keys, key) for s, keys, key in to_check]
        for file_result, file in self._map(run_tasks.check_task, tasks, jobs, progress, "checking"):
            results[file] = file_result
        for file, error in self._syntax_errors(syntax, jobs):
            results[file].error = error
        return [results[f.file] for f in self.files if f.reported]

    def _syntax_errors(self, files: list[ScannedFile], jobs: int) -> Iterator[tuple[str, tuple]]:
        """Files the pre-filter kept from both passes still get parsed once (then cached by
        content): a file that does not parse is reported, whatever it contains."""
        pending = []
        for scanned in files:
            key = cache_mod.key_of("syntax", scanned.raw_hash)
            if self.cache.get(key) is None:
                pending.append((scanned.path, scanned.file, scanned.raw_hash, key))
        for file, error in self._map(run_tasks.syntax_task, pending, jobs, False, "parsing"):
            if error is not None:
                yield file, error

    def _cache_answers(self, cached: list, scanned: ScannedFile) -> bool:
        """A cached check result answers a fix run too when nothing in it is fixable."""
        if self.mode == "check":
            return True
        unsafe = scanned.settings.unsafe_fixes
        return not any(applicable(cache_mod.finding_from_json(f), unsafe) for f in cached)

    # -- cache keys ------------------------------------------------------------------------------
    def _reach_key(self, scanned: ScannedFile) -> str:
        return cache_mod.key_of("reach", scanned.file, scanned.root, scanned.raw_hash)

    def _cached_reach(self, scanned: ScannedFile):
        entry = self.cache.get(self._reach_key(scanned))
        if not isinstance(entry, dict):
            return None
        for dotted, digest in entry.get("deps", {}).items():
            if self._current_hash(dotted) != digest:
                return None
        return cache_mod.reach_from_json(entry["reach"])

    def _current_hash(self, dotted: str) -> str | None:
        if dotted not in self._hashes:
            file = self._resolver.file_for(dotted)
            known = self._by_file.get(str(absolute(file))) if file else None
            if known is not None:
                self._hashes[dotted] = known.raw_hash
            else:
                try:
                    self._hashes[dotted] = content_hash(read_regular_bytes(file)) if file else None
                except OSError:
                    self._hashes[dotted] = None
        return self._hashes[dotted]

    def _findings_key(self, scanned: ScannedFile, keys: dict[str, Entry]) -> str:
        return run_tasks.findings_key(self.rules_fingerprint, scanned.settings, scanned.file, scanned.display,
                            scanned.raw_hash, keys)

    # -- tasks -----------------------------------------------------------------------------------
    def _reach_args(self, scanned: ScannedFile):
        check = self.mode == "check" and scanned.triggered
        return (scanned.path, scanned.file, scanned.display, scanned.dotted, scanned.package,
                scanned.raw_hash, self._reach_key(scanned), scanned.settings, check)

    def _check_args(self, scanned: ScannedFile, keys: dict[str, Entry], key: str):
        return (scanned.path, scanned.file, scanned.display, scanned.settings, scanned.package,
                keys, scanned.raw_hash, key)

    def _map(self, function: Callable, tasks: list, jobs: int, progress: bool, label: str) -> Iterator:
        state = run_tasks.WorkerState(self.roots, self.ruleset, self.mode, self.cache, self.rules_fingerprint)
        run_tasks.use_state(state)
        bar = _progress_bar(len(tasks), label) if progress else None
        try:
            if jobs <= 1 or len(tasks) < PARALLEL_MIN_FILES:
                for task in tasks:
                    yield run_tasks.one_task(function, task)
                    if bar is not None:
                        bar.update()
                return
            import multiprocessing

            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
            context = multiprocessing.get_context(method)
            with context.Pool(jobs, initializer=run_tasks.init_worker, initargs=(state,)) as pool:
                for item in pool.imap_unordered(functools.partial(run_tasks.one_task, function), tasks, chunksize=CHUNK):
                    yield item
                    if bar is not None:
                        bar.update()
        finally:
            if bar is not None:
                bar.close()


def _progress_bar(total: int, label: str):
    """A progress bar on stderr for long scans at a terminal. tqdm: small, pure Python, no
    dependencies, handles terminal width and non-tty fallbacks; imported only here."""
    if total < 200 or not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency; degrade quietly
        return None
    return tqdm(total=total, desc=label, unit="file", leave=False, file=sys.stderr)
