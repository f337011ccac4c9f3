"""Run-time evidence: what one eager run of the model saw in the user's functions.

`onnxfix export --fix/--write` runs the target once with a recorder (exporter/recorder.py) and
stores, per user file, one JSON file named by the hash of the file's text. The static rules
read it through ``FunctionContext.evidence`` only where a run left some: the static path never
imports torch nor runs user code. Evidence is keyed by content, so an edited file (or a later
fix round, whose text differs) simply has none, and line numbers always match the text.

What a run proves is limited to what it saw: a name is "a tensor" only when every value it
held at a line boundary of every recorded call was one. One run is one set of inputs, so the
rules use evidence for *types* (tensor vs PackedSequence, dtype, rank), never for values.
"""

from __future__ import annotations

import ast
import hashlib
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path

FORMAT = 1


@dataclass(frozen=True)
class Value:
    """One observed value: kind "tensor", "int", "float", "bool", "none" or "other"."""

    kind: str
    dtype: str = ""  # tensors: "float32", "int64", ...
    rank: int = -1  # tensors: dim()
    device: str = ""  # tensors: "cpu", "cuda", ...
    type: str = ""  # "other": the qualified class name (torch.nn.utils.rnn.PackedSequence)
    # tensors: some axis has size 1, so an index write may broadcast it (CosyVoice's `x_in[:] = x`
    # of a (1, 80, T) `x` into a (2, 80, T) buffer)
    unit: bool = False

    def to_json(self) -> list:
        return [self.kind, self.dtype, self.rank, self.device, self.type, self.unit]

    @classmethod
    def from_json(cls, data: list) -> "Value":
        kind, dtype, rank, device, type_, *unit = data  # evidence written before `unit` has five fields
        return cls(str(kind), str(dtype), int(rank), str(device), str(type_), bool(unit and unit[0]))


@dataclass
class FunctionEvidence:
    name: str
    line: int  # code object's first line: the def line, or the first decorator's
    calls: int = 0
    lines: frozenset[int] = frozenset()  # lines that ran
    names: dict[str, frozenset[Value]] = field(default_factory=dict)  # every value each local held
    returns: dict[int, frozenset[Value]] = field(default_factory=dict)  # return line -> values
    # every value each parameter held as passed, before the body rebinds it (`lengths =
    # lengths.tolist()`: a tensor on entry, a list afterwards)
    entry: dict[str, frozenset[Value]] = field(default_factory=dict)

    def values(self, name: str) -> frozenset[Value] | None:
        return self.names.get(name) or None

    def passed(self, name: str) -> frozenset[Value] | None:
        return self.entry.get(name) or None


@dataclass
class FileEvidence:
    functions: dict[tuple[str, int], FunctionEvidence] = field(default_factory=dict)
    # line -> keys of onnxfix decompositions an export substituted for a call on that line, in
    # an export the fix loop kept (it turned a verdict OK): the run's proof that the call fails
    # there and that the helper repairs it, whatever the static rules could see of its arguments
    decomposed: dict[int, frozenset[str]] = field(default_factory=dict)
    # lines where an export's guard specialized a dynamic dim (ONX914/ONX915 of the first run):
    # the int values read there are sizes, whatever the static size oracle could follow
    specialized: frozenset[int] = frozenset()
    # lines where an export stopped on a guard of a data-dependent size or value (ONX913 of the
    # first run: `if boxes.numel() == 0:` after a boolean-mask selection the rules could not follow)
    data_dependent: frozenset[int] = frozenset()
    # lines where an export stopped on an exception the user's code raised or met there (its innermost
    # user frame): an input check that eager passed on the same inputs (Transformers4Rec's
    # `if len(set(shapes)) > 1: raise`, sizes unhashable under torch.export, traced tensors hashed by
    # identity under the legacy exporter) failed only because it was exported
    raised: frozenset[int] = frozenset()
    # lines where the legacy trace warned "Using len to get tensor shape": a `len()` there took a
    # tensor, whatever the static rules could see of its argument (NequIP's `len(data["num_atoms"])`)
    tensor_len: frozenset[int] = frozenset()
    # lines where the legacy trace warned "Converting a tensor to a Python list": a `.tolist()` there
    # was recorded as constants (GraniteMoE's expert sizes)
    tensor_list: frozenset[int] = frozenset()
    # lines where the first value of an export that differs from eager is a sort's (ONX945 at an
    # onnxruntime TopK): the order of equal keys, which ATen leaves unspecified (ONX537)
    sort_diverged: frozenset[int] = frozenset()
    # line -> arguments a legacy symbolic took only as constants and got graph values for there
    # (group_norm's num_groups read from a traced shape: ONX922's "Expected node type 'onnx::Constant'")
    constant_arguments: dict[int, frozenset[str]] = field(default_factory=dict)
    # line -> the conditions torch.export suggested checking before that line (a data-dependent
    # guard it could not decide) that held every time a run evaluated them there, and every
    # (line, condition) a run evaluated (exporter/suggested_checks.py)
    checks: dict[int, tuple[str, ...]] = field(default_factory=dict)
    evaluated: frozenset[tuple[int, str]] = frozenset()

    def guarded(self, node: ast.AST, kinds: tuple[str, ...] = ("specialized", "data_dependent")) -> bool:
        """A guard of these kinds at a line of ``node``: a test split over lines (black's style, transformers'
        `if (a\n and b.shape[2] == c.shape[1]\n):`) has its guard at the line of the comparison that made it."""
        lines = frozenset().union(*(getattr(self, kind) for kind in kinds))
        return any(line in lines for line in range(node.lineno, (getattr(node, "end_lineno", None) or node.lineno) + 1))

    def for_function(self, node: ast.AST) -> FunctionEvidence | None:
        """The record of ``node`` (a def): matched by name and first line."""
        name = getattr(node, "name", None)
        lines = [node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))]
        for line in lines:
            found = self.functions.get((name, line))
            if found is not None:
                return found
        return None

    def for_scope(self, node: ast.AST) -> FunctionEvidence | None:
        """The record of a lambda, comprehension or generator expression: each runs as a code
        object of its own, named ``<lambda>``, ``<listcomp>``, ... and starting at the node's
        line. Two of one kind starting on one line share a record (merged: a name keeps the
        union of its values, and only when both recorded it: one whose loop never ran does not
        borrow the other's). None when it never ran, and on Pythons that inline comprehensions
        (3.12+, PEP 709): their variables are not told apart from the function's."""
        return self.functions.get((SCOPE_CODE_NAMES.get(type(node)), node.lineno))

    def add(self, record: FunctionEvidence) -> None:
        """Records sharing a name and first line (two lambdas on one line) are merged."""
        key = (record.name, record.line)
        seen = self.functions.get(key)
        self.functions[key] = record if seen is None else _merged(seen, record)


SCOPE_CODE_NAMES = {
    ast.Lambda: "<lambda>", ast.ListComp: "<listcomp>", ast.SetComp: "<setcomp>",
    ast.DictComp: "<dictcomp>", ast.GeneratorExp: "<genexpr>",
}


def _merged(a: FunctionEvidence, b: FunctionEvidence) -> FunctionEvidence:
    return FunctionEvidence(
        a.name, a.line, a.calls + b.calls, a.lines | b.lines,
        {n: a.names[n] | b.names[n] for n in a.names.keys() & b.names.keys()},
        {k: a.returns.get(k, frozenset()) | b.returns.get(k, frozenset()) for k in a.returns.keys() | b.returns.keys()},
        {n: a.entry[n] | b.entry[n] for n in a.entry.keys() & b.entry.keys()},
    )


def text_key(text: str) -> str:
    """Evidence is keyed by the decoded text the rules see (what SourceFile.text holds)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


def evidence_path(folder: Path, text: str) -> Path:
    return Path(folder) / f"{text_key(text)}.json"


def to_json(records: list[FunctionEvidence]) -> dict:
    return {
        "format": FORMAT,
        "functions": [
            {
                "name": r.name, "line": r.line, "calls": r.calls, "lines": sorted(r.lines),
                "names": {n: sorted(v.to_json() for v in vs) for n, vs in sorted(r.names.items())},
                "returns": {str(line): sorted(v.to_json() for v in vs) for line, vs in sorted(r.returns.items())},
                "entry": {n: sorted(v.to_json() for v in vs) for n, vs in sorted(r.entry.items())},
            }
            for r in records
        ],
    }


def from_json(data: dict) -> FileEvidence:
    if data.get("format") != FORMAT:
        raise ValueError(f"evidence format {data.get('format')!r}, expected {FORMAT}")
    evidence = FileEvidence()
    for entry in data["functions"]:
        record = FunctionEvidence(
            name=str(entry["name"]), line=int(entry["line"]), calls=int(entry["calls"]),
            lines=frozenset(int(n) for n in entry["lines"]),
            names={str(n): frozenset(Value.from_json(v) for v in vs) for n, vs in entry["names"].items()},
            returns={int(k): frozenset(Value.from_json(v) for v in vs) for k, vs in entry["returns"].items()},
            entry={str(n): frozenset(Value.from_json(v) for v in vs) for n, vs in entry.get("entry", {}).items()},
        )
        evidence.add(record)
    for key, line in data.get("decomposed", []):
        evidence.decomposed[int(line)] = evidence.decomposed.get(int(line), frozenset()) | {str(key)}
    evidence.specialized = frozenset(int(line) for line in data.get("specialized", []))
    evidence.data_dependent = frozenset(int(line) for line in data.get("data_dependent", []))
    evidence.tensor_len = frozenset(int(line) for line in data.get("tensor_len", []))
    evidence.raised = frozenset(int(line) for line in data.get("raised", []))
    evidence.tensor_list = frozenset(int(line) for line in data.get("tensor_list", []))
    evidence.sort_diverged = frozenset(int(line) for line in data.get("sort_diverged", []))
    for key, found in data.items():
        kind, _, argument = key.partition(":")
        if kind == "constant_argument":
            for line in found:
                evidence.constant_arguments[int(line)] = evidence.constant_arguments.get(int(line), frozenset()) | {argument}
    for line, condition, held in data.get("checks", []):
        evidence.evaluated |= {(int(line), str(condition))}
        if held:
            evidence.checks[int(line)] = (*evidence.checks.get(int(line), ()), str(condition))
    return evidence


def load(folder: str | None, text: str) -> FileEvidence | None:
    """The evidence a run left for exactly this text, if any (a corrupt file counts as none)."""
    if not folder:
        return None
    try:
        return from_json(json.loads(evidence_path(Path(folder), text).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(folder: Path, text: str, data: dict) -> Path:
    path = evidence_path(folder, text)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
    temporary.replace(path)  # never a half-written evidence file
    return path


# ---- questions the rules ask ---------------------------------------------------------------

FLOAT_DTYPES = frozenset({"float32", "float64"})


# this process's runs: guard lines of one session accumulate, another session's are replaced
_SESSION = uuid.uuid4().hex


def add_guard_lines(folder: Path, text: str, lines: dict[str, set[int]]) -> None:
    """Note the lines of this run's guards in this text's evidence, by kind ("specialized",
    "data_dependent"): beside those an earlier run of this session noted for the same text (runs
    under other repairs name other lines: a legacy export under flat_outputs no longer warned of
    super-gradients' `len(anchors[-1])`, and replacing the lines took the fix the first run had
    offered there), replacing those of another session (the evidence folder is a long-lived cache:
    other inputs, `--dynamic` specs or torch versions name other lines)."""
    path = evidence_path(folder, text)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {"format": FORMAT, "functions": []}
    same_session = data.get("guard_session") == _SESSION
    for kind, found in lines.items():
        data[kind] = sorted(set(data.get(kind, ()) if same_session else ()) | set(found))
    data["guard_session"] = _SESSION
    store(folder, text, data)


def add_checks(folder: Path, text: str, records: dict | None, checks: list[tuple[int, str, bool]]) -> None:
    """Store a run's evaluations of suggested checks in this text's evidence (beside the ones
    of earlier runs), with the run's ``records`` (to_json) when it recorded this text; the
    guard lines noted before are kept."""
    path = evidence_path(folder, text)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {"format": FORMAT, "functions": []}
    if records is not None:
        data.update(records)
    known = {(int(line), str(condition)): bool(held) for line, condition, held in data.get("checks", [])}
    known.update({(line, condition): held for line, condition, held in checks})
    data["checks"] = sorted([line, condition, held] for (line, condition), held in known.items())
    store(folder, text, data)


def all_int_sequences(values: frozenset[Value] | None) -> bool:
    """Every observed value was a tuple, list or torch.Size of ints."""
    return bool(values) and all(v.kind == "other" and v.dtype == "int" for v in values)


def all_tensor_sequences(values: frozenset[Value] | None) -> bool:
    """Every observed value was a tuple or list of tensors (Longformer's `nonzero(as_tuple=True)` kept whole)."""
    return bool(values) and all(v.kind == "other" and v.dtype == "tensor" for v in values)


def all_tensors(values: frozenset[Value] | None) -> bool:
    return bool(values) and all(v.kind == "tensor" for v in values)


def all_ints(values: frozenset[Value] | None) -> bool:
    """Every observed value a Python int (a type, not a value: one run proves no sign)."""
    return bool(values) and all(v.kind == "int" for v in values)


def one_dtype(values: frozenset[Value] | None) -> str | None:
    """The dtype every observed value had, when all were tensors of one dtype."""
    if not all_tensors(values):
        return None
    dtypes = {v.dtype for v in values}
    return dtypes.pop() if len(dtypes) == 1 else None


def scalar_tensor_dtype(values: frozenset[Value] | None) -> str | None:
    """The dtype of a value that was always a 0-d tensor of one dtype."""
    dtype = one_dtype(values)
    return dtype if dtype and all(v.rank == 0 for v in values) else None
