"""On-disk cache of per-file results, keyed by everything the result depends on.

One JSON file per entry, named by the key's hash, written to a temporary file and moved into
place (``os.replace``): concurrent runs never see a half-written entry, and the last writer of
an identical key writes identical content. A corrupt or unreadable entry is a miss.

Two kinds of entries (see runner.py):
- reach: what one file's forwards reach across the project. Key: onnxfix version, the file's
  path and content. The entry lists the modules the analysis read (name -> content hash, or
  null for a module that did not exist); it is valid only while they all still hash the same.
- findings: the findings of one file. Key: onnxfix version, the rule set, the settings
  fingerprint, the file's path and content, and the reach map applied to it (which forwards
  reach which of its functions: that is how other files' contents enter the key).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import time
from pathlib import Path

from onnxfix._version import __version__
from onnxfix.rewriter.paths import shown
from onnxfix.rewriter.rule import Edit, Finding, Fix, Helper
from onnxfix.rewriter.scope import Entry

CACHE_DIR_NAME = ".onnxfix_cache"
DAY = 24 * 3600
# An entry unused this long is deleted. Every edit of a file writes a new entry (keys hash the
# content), so without pruning the folder grows for ever. Entries are re-stamped when used
# (at most once a day each), and the sweep runs at most once a day.
MAX_UNUSED_DAYS = 30


def key_of(*parts: object) -> str:
    digest = hashlib.blake2b(digest_size=20)
    digest.update(__version__.encode())
    digest.update(_code_salt().encode())
    for part in parts:
        digest.update(b"\x00")
        digest.update(part if isinstance(part, bytes) else str(part).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def _code_salt() -> str:
    """Size and mtime of onnxfix's own modules: a rule edited without a version bump (a
    development checkout, an editable install) must not be answered from the cache. About
    fifty stat calls, once per run."""
    package = Path(__file__).resolve().parent.parent
    stamps = []
    for folder, _, names in sorted(os.walk(package)):
        for name in sorted(names):
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                stamps.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}")
    return ",".join(stamps)


class Cache:
    def __init__(self, folder: Path | None):
        self.folder = folder  # None: disabled
        self._ready = False
        # Entries are addressed with plain strings: a cold scan writes thousands of them, and
        # pathlib objects, mkstemp and a mkdir per entry cost more CPU than writing the JSON.
        self._entries = os.path.join(folder, __version__) if folder is not None else ""
        self._made: set[str] = set()

    def get(self, key: str):
        if self.folder is None:
            return None
        path = self._path(key)
        try:
            with open(path, encoding="utf-8") as handle:
                value = json.load(handle)
                _mark_used(path, os.fstat(handle.fileno()).st_mtime)
                return value
        except (OSError, ValueError):
            return None

    def put(self, key: str, value) -> None:
        if self.folder is None:
            return
        path = self._path(key)
        tmp = f"{path}.{os.getpid()}.tmp"  # one writer per process and key at a time
        try:
            self._prepare()
            directory = os.path.dirname(path)
            if directory not in self._made:
                os.makedirs(directory, exist_ok=True)
                self._made.add(directory)
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(value, separators=(",", ":")))
            os.replace(tmp, path)  # readers see the old entry or the new one, never half of one
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            # a read-only tree still gets checked, just not cached

    def prune(self, now: float | None = None) -> int:
        """Delete entries unused for MAX_UNUSED_DAYS and other onnxfix versions' folders, at
        most once a day (a stamp file says when it last ran). Returns the entries deleted."""
        if self.folder is None:
            return 0
        now = time.time() if now is None else now
        stamp = self.folder / ".last-prune"
        try:
            if now - stamp.stat().st_mtime < DAY:
                return 0
        except OSError:
            pass  # never pruned
        try:
            self._prepare()
            stamp.touch()
            os.utime(stamp, (now, now))
        except OSError:
            return 0
        _remove_other_versions(self.folder)
        return _remove_unused(self.folder / __version__, now - MAX_UNUSED_DAYS * DAY)

    def _path(self, key: str) -> str:
        return os.path.join(self._entries, key[:2], key[2:])

    def _prepare(self) -> None:
        if self._ready:
            return
        (self.folder / __version__).mkdir(parents=True, exist_ok=True)
        ignore = self.folder / ".gitignore"
        if not ignore.exists():  # keep the cache out of commits, as ruff does
            ignore.write_text("# Automatically created by onnxfix.\n*\n", encoding="utf-8")
        tag = self.folder / "CACHEDIR.TAG"
        if not tag.exists():
            tag.write_text("Signature: 8a477f597d28d172789f06886806bc55\n", encoding="utf-8")
        self._ready = True


def _mark_used(path: Path, stamped: float) -> None:
    """Re-stamp an entry read now, once a day at most (pruning goes by the stamp)."""
    now = time.time()
    if now - stamped > DAY:
        try:
            os.utime(path, (now, now))
        except OSError:
            pass  # a read-only cache still answers


def _remove_other_versions(folder: Path) -> None:
    for child in folder.iterdir():
        if child.is_dir() and child.name != __version__:
            shutil.rmtree(child, ignore_errors=True)


def _remove_unused(folder: Path, cutoff: float) -> int:
    removed = 0
    for bucket in folder.iterdir() if folder.is_dir() else ():
        for entry in bucket.iterdir() if bucket.is_dir() else ():
            try:
                if entry.stat().st_mtime < cutoff:
                    entry.unlink()
                    removed += 1
            except OSError:
                continue
    return removed


# -- (de)serialisation -------------------------------------------------------------------------
def fix_to_json(fix: Fix | None) -> list | None:
    if fix is None:
        return None
    return [
        fix.title,
        [[e.start, e.end, e.text] for e in fix.edits],
        fix.safe,
        list(fix.imports),
        [[h.name, h.source] for h in fix.helpers],
        fix.group,
        fix_to_json(fix.stronger),
    ]


def fix_from_json(data: list | None) -> Fix | None:
    if data is None:
        return None
    title, edits, safe, imports, helpers, group, *stronger = data  # entries before `stronger` have 6 fields
    return Fix(
        title,
        tuple(Edit(*e) for e in edits),
        safe,
        tuple(imports),
        tuple(Helper(*h) for h in helpers),
        group,
        fix_from_json(stronger[0]) if stronger else None,
    )


def finding_to_json(finding: Finding) -> list:
    return [
        finding.code, finding.name, finding.message, finding.path, finding.line, finding.col,
        finding.end_line, finding.end_col, list(finding.exporters), fix_to_json(finding.fix), finding.reached_from,
        list(finding.deferred_to) if finding.deferred_to else None,
    ]


def finding_from_json(data: list) -> Finding:
    code, name, message, path, line, col, end_line, end_col, exporters, fix_json, reached, *deferred = data
    fix = fix_from_json(fix_json)
    deferred_to = tuple(deferred[0]) if deferred and deferred[0] else None
    return Finding(code, name, message, path, line, col, end_line, end_col, tuple(exporters), fix, reached, deferred_to)


def reach_to_json(reach: dict[str, dict[str, Entry]]) -> dict:
    return {
        file: {k: [e.qualname, e.path, e.line, sorted(e.modes)] for k, e in keys.items()}
        for file, keys in reach.items()
    }


def reach_from_json(data: dict) -> dict[str, dict[str, Entry]]:
    return {file: {k: Entry(*e[:3], frozenset(e[3])) for k, e in keys.items()} for file, keys in data.items()}


def reach_digest(keys: dict[str, Entry]) -> str:
    """The reach as the findings show it ("reached from Model.forward, model.py:12"): the
    forward's file as shown from the working directory, which the cached message embeds."""
    return json.dumps(sorted((k, e.qualname, shown(e.path), e.line, sorted(e.modes)) for k, e in keys.items()))
