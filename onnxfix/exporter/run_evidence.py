"""The run's evidence for the static rules (rewriter/evidence.py): one eager run of the target
under the recorder, and the lines where its exports' guards stopped.

Evidence is keyed by a file's text, so the fix loop records it again for each text it makes:
the fixes that one fix uncovers (a write left bare by a dropped guard, whose mask's dtype only
the run knows) are then found in that text as in the user's, not only on a second `--write`.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from onnxfix.exporter.isolate import run_json_worker
from onnxfix.exporter.locations import is_user_file
from onnxfix.exporter.plan import Target
from onnxfix.rewriter.source import SourceError, SourceFile

# the evidence's kinds of guard lines: a guard specialized or restricted a dynamic dim; the export
# stopped on a guard of a size or value read out of a tensor
GUARD_LINES = {"ONX914": "specialized", "ONX915": "specialized", "ONX913": "data_dependent"}
# the legacy trace's warnings that prove a value's type at their line, by (code, words of the
# warning): a `len()` there took a tensor; a `.tolist()` there was recorded as constants
WARNING_LINES = {("ONX903", "Using len to get tensor shape"): "tensor_len",
                 ("ONX901", "Converting a tensor to a Python list"): "tensor_list",
                 # the first value that differs from eager is a sort's (onnxruntime's TopK): the order
                 # of tied keys, where the rules could not tell the keys tie (ONX537)
                 ("ONX945", ": TopK "): "sort_diverged"}
# a legacy symbolic that takes an argument only as a constant and got a graph value (group_norm's
# num_groups read from a traced shape): the line, under the kind "constant_argument:<argument>"
CONSTANT_ARGUMENT = re.compile(r"Expected node type 'onnx::Constant' for argument '(\w+)'"
                               r"|expected a constant value of the '(\w+)' argument")


def record_evidence(target: Target) -> tuple[str | None, dict]:
    """Run the target once eagerly under the recorder (a child process: it runs user code) and
    return the evidence folder for the static rules, with what was recorded. No evidence (the
    model does not run, the recorder timed out) leaves the fixes static."""
    from onnxfix._version import __version__
    from onnxfix.config import load_settings
    from onnxfix.patterns.selectors import rule_selectors
    from onnxfix.rewriter.runner import cache_folder

    # inside the version folder: pruned with the cache entries when unused for a month
    folder = cache_folder(None, load_settings(target.model_path, rule_selectors)) / __version__ / "evidence"
    request = {"model": target.model, "inputs": target.inputs, "folder": str(folder)}
    result = run_json_worker("onnxfix.exporter.evidence_worker", request, target.timeout)
    return (None if "error" in result else str(folder)), result


@dataclass
class FixedTextEvidence:
    """fixloop.RunEvidence for the texts the fix loop makes of the model's file ``source``."""

    target: Target
    source: Path
    folder: str

    def record(self, text: str) -> bool:
        return record_fixed_evidence(self.target, self.source, text, self.folder)


def record_fixed_evidence(target: Target, source: Path, text: str, folder: str) -> bool:
    """Evidence for ``text``, the model's file as the fix loop made it: the target run once more
    on a copy holding that text (its siblings still import). False when the run left none or the
    text has some already (the user's own text; a live model, whose classes load by module
    name, is not run again)."""
    from onnxfix.rewriter.evidence import evidence_path

    if target.live or evidence_path(Path(folder), text).exists():
        return False
    return _record_copy(target, source, text, folder)


def _record_copy(target: Target, source: Path, text: str, folder: str, watch: list | None = None) -> bool:
    """The recorder run on a copy of the model's file holding ``text`` (its siblings still
    import); ``watch`` entries whose file is None name that copy, and are evaluated on the probes
    too. False when the run failed."""
    with tempfile.TemporaryDirectory(prefix="onnxfix-evidence-") as tmp:
        copy = Path(tmp) / source.name
        copy.write_text(text, encoding="utf-8", newline="")
        moved = retarget(target, source, copy)
        request = {"model": moved.model, "inputs": moved.inputs, "folder": folder,
                   "sys_path": [str(source.resolve().parent)]}
        if watch:
            request["watch"] = [[path or str(copy), line, conditions] for path, line, conditions in watch]
            request["probes"] = moved.probes
        result = run_json_worker("onnxfix.exporter.evidence_worker", request, target.timeout)
    return "error" not in result


def note_checks(target: Target, source: Path, text: str, results: list, folder: str) -> bool:
    """Evaluate the checks torch.export suggested for the data-dependent guards of ``results``
    (the exports of ``text``, the model's file as the fix loop made it) at their lines, on the
    target's example and probes, into the evidence (ONX611 inserts those that held). True when
    a run evaluated some not evaluated before."""
    from onnxfix.exporter.locations import is_user_file
    from onnxfix.exporter.suggested_checks import suggested_in
    from onnxfix.rewriter.evidence import load

    if target.live:
        return False

    def names_model(path: str) -> bool:  # the model's file (the error names the fix loop's copy of it)
        return Path(path).name == source.name and not _other_user_file(path, source)

    watch = []
    for suggestion in suggested_in(results, lambda path: text if names_model(path) else _text_of(path)):
        in_model = names_model(suggestion.path)
        if not in_model and not is_user_file(suggestion.path):
            continue  # torch's own code, a library: the recorder does not trace it
        known = load(folder, text if in_model else _text_of(suggestion.path))
        if known is None or any((suggestion.line, c) not in known.evaluated for c in suggestion.conditions):
            watch.append([None if in_model else suggestion.path, suggestion.line, list(suggestion.conditions)])
    return bool(watch) and _record_copy(target, source, text, folder, watch)


def _other_user_file(path: str, source: Path) -> bool:
    """A file the error names that is not the model's (its copy in a temporary folder is)."""
    return os.path.isfile(path) and os.path.realpath(path) != os.path.realpath(source)


def _text_of(path: str) -> str:
    try:
        return SourceFile.read(Path(path)).text
    except (SourceError, OSError):
        return ""


def note_specialized(folder: Path, results: list) -> None:
    """The lines of the run's guards, in each file's evidence: the static size oracle treats the
    ints read on a specialized line as sizes (rewriter/sizes.py), which lets the static fixes at
    the very line the export named apply (a size reached through lists and helpers it cannot
    follow); ONX610 takes an emptiness test on a data-dependent line as data-dependent."""
    from onnxfix.rewriter.evidence import add_guard_lines

    for path, found in guard_lines(results).items():
        if not os.path.isfile(path):
            continue
        try:
            add_guard_lines(folder, SourceFile.read(Path(path)).text, found)
        except SourceError:
            continue  # a file the rules cannot read either: nothing to note


def note_specialized_text(folder: Path, source: Path, text: str, results: list) -> None:
    """The guard lines an export of ``text`` (the model's file as the fix loop made it) named in
    the model's file, noted in that text's evidence: a fix that drops `float()` around a size
    leaves `int(np.ceil(h / s))` on a line the next export specializes again (DNTextSpotter)."""
    from onnxfix.rewriter.evidence import add_guard_lines

    found = guard_lines(results).get(os.path.realpath(source))
    if found and any(found.values()):
        add_guard_lines(folder, text, found)


def guard_lines(results: list) -> dict[str, dict[str, set[int]]]:
    """File -> kind -> the lines the exports' guard findings name, and the lines of the legacy trace's
    warnings in WARNING_LINES; for a data-dependent guard also every user line of the failing call
    chain (detectron2's `assert len(self) == data_len` whose `__len__` reads an unbacked size: the
    check to skip is the assert, not `__len__`)."""
    lines: dict[str, dict[str, set[int]]] = {}
    for result in results:
        for finding in result.findings:
            kind = GUARD_LINES.get(finding.code) or next(
                (k for (code, words), k in WARNING_LINES.items() if finding.code == code and words in finding.message), None)
            constant = CONSTANT_ARGUMENT.search(finding.message) if finding.code == "ONX922" else None
            kind = kind or (constant and f"constant_argument:{constant.group(1) or constant.group(2)}")
            if kind:
                path = os.path.realpath(finding.location.path)
                lines.setdefault(path, _no_lines()).setdefault(kind, set()).add(finding.location.line)
                if kind == "data_dependent":
                    for frame_path, line, _ in result.verdict.error_frames:
                        if is_user_file(frame_path):
                            lines.setdefault(os.path.realpath(frame_path), _no_lines())[kind].add(int(line))
        # where a failed export stopped in the user's code (session.py located it while the file existed)
        raised = getattr(result, "raised_at", None)
        if raised is not None:
            lines.setdefault(os.path.realpath(raised[0]), _no_lines()).setdefault("raised", set()).add(raised[1])
    return lines


def _no_lines() -> dict[str, set[int]]:
    return {kind: set() for kind in {*GUARD_LINES.values(), *WARNING_LINES.values()}}


def retarget(target: Target, source: Path, copy: Path) -> Target:
    """Point every spec that names the model's file at a copy of it."""
    def moved(spec: str | None) -> str | None:
        if spec is None:
            return None
        path, _, name = spec.rpartition(":")
        return f"{copy}:{name}" if Path(path).resolve() == source.resolve() else spec

    # a live model's classes are found by module name: load the copy under that name
    modules = {name: str(copy) if Path(path).resolve() == source.resolve() else path
               for name, path in target.modules.items()}
    return replace(target, model=moved(target.model), inputs=moved(target.inputs), probes=moved(target.probes),
                   modules=modules)
