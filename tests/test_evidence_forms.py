"""Run-time evidence on every line (issue 26): a function's first statement, lines inside a
multi-line statement, comprehensions, generator expressions, lambdas and nested functions,
and evidence that outlives the fix round that first edits the file.

Cheap: each test records one eager run (no export) and asks the static rules with and
without its evidence. Models: tests/evidence_models/.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from onnxfix.exporter.evidence_worker import record
from onnxfix.rewriter import evidence
from onnxfix.rewriter.engine import fix_key
from onnxfix.rewriter.runner import run

REPO = Path(__file__).resolve().parent.parent
MODELS = "tests/evidence_models"
BOTH = frozenset({"dynamo", "legacy"})


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def _run(path: str, folder: str | None, mode: str = "check", keys: frozenset[str] | None = None):
    result = run([Path(path)], mode, use_cache=False, exporters=BOTH, evidence_dir=folder, fix_only=keys)
    (file,) = result.files
    return file


def _findings(file) -> list[tuple]:
    return [(f.code, f.line, f.col, f.fix.applicability if f.fix else None) for f in file.findings]


def test_data_gate_first_statement_is_proven_and_stays_proven_after_a_fix(tmp_path):
    """The torch docs' pitfall over two lines (issue 26): `x.data` in forward's first statement.
    The evidence proves it; when the fix loop keeps the fix of line 17 first, the text changes
    and has no evidence of its own, yet line 16's fix stays safe, and both keys together are
    applied from the recorded text."""
    path = f"{MODELS}/data_gate.py"
    text = Path(path).read_text()
    assert _findings(_run(path, None)) == [("ONX301", 16, 30, "unsafe"), ("ONX301", 17, 27, "safe")]
    assert record(f"{path}:make_model", f"{path}:example_inputs", tmp_path) == {"files": 1, "functions": 1}
    forward = evidence.load(str(tmp_path), text).functions[("forward", 15)]
    tensor = evidence.Value("tensor", "float32", 2, "cpu")
    assert (forward.calls, sorted(forward.lines)) == (1, [16, 17])
    assert forward.names["x"] == forward.names["gate"] == {tensor}
    assert forward.returns == {17: frozenset({tensor})}
    start = _run(path, str(tmp_path), "diff", frozenset())
    assert _findings(start) == [("ONX301", 16, 30, "safe"), ("ONX301", 17, 27, "safe")]
    first, second = (fix_key(f, text) for f in start.findings)
    assert (first, second) == ("ONX301:x.data", "ONX301:self.scale.data")
    after_one = _run(path, str(tmp_path), "diff", frozenset({second}))
    assert after_one.fixed_text.splitlines()[15:17] == [
        "        gate = torch.sigmoid(x.data)", "        return x * gate + self.scale.detach()"]
    assert _findings(after_one) == [("ONX301", 16, 30, "safe")]
    both = _run(path, str(tmp_path), "diff", frozenset({first, second}))
    assert both.findings == [] and both.fixes_applied == 2
    assert both.fixed_text.splitlines()[15:17] == [
        "        gate = torch.sigmoid(x.detach())", "        return x * gate + self.scale.detach()"]
    # without evidence the kept fix leaves line 16 unsafe, as static analysis must
    assert _findings(_run(path, None, "diff", frozenset({second}))) == [("ONX301", 16, 30, "unsafe")]


TENSOR = evidence.Value("tensor", "float32", 2, "cpu")
PACKED = evidence.Value("other", type="torch.nn.utils.rnn.PackedSequence")
INLINED = pytest.mark.skipif(sys.version_info >= (3, 12), reason="PEP 709 inlines list/dict/set comprehensions")


def _other(kind: str) -> frozenset:
    return frozenset({evidence.Value("other", type=kind)})


@pytest.fixture(scope="module")
def forms(tmp_path_factory):
    """tests/evidence_models/forms.py recorded once: (evidence folder, its FileEvidence)."""
    folder = tmp_path_factory.mktemp("forms")
    path = f"{MODELS}/forms.py"
    assert record(f"{REPO / path}:Forms", f"{REPO / path}:example_inputs", folder) == {"files": 1, "functions": 8}
    return str(folder), evidence.load(str(folder), (REPO / path).read_text())


FORMS_STATIC = [("ONX301", line, col, "unsafe") for line, col in
                [(13, 17), (14, 19), (15, 21), (16, 19), (17, 21), (18, 28), (21, 20), (25, 14), (29, 13)]]

# form: (the code object's record (name, first line), what it recorded: calls, lines, names
# (None: not asserted), the finding it proves (line, col))
FORMS = {
    "first statement": (("forward", 12), 1, None, {"x": {TENSOR}, "first": {TENSOR}}, (13, 17)),
    "line inside a multi-line call": (("forward", 12), 1, {23, 24, 25, 26}, {"x": {TENSOR}}, (25, 14)),
    "list comprehension": (("<listcomp>", 14), 1, {14}, {".0": _other("builtins.list_iterator"), "t": {TENSOR}},
                           (14, 19)),
    "dict comprehension": (("<dictcomp>", 15), 1, {15}, {
        ".0": _other("builtins.enumerate"), "i": {evidence.Value("int")}, "t": {TENSOR}}, (15, 21)),
    "set comprehension": (("<setcomp>", 16), 1, {16}, {".0": _other("builtins.list_iterator"), "t": {TENSOR}},
                          (16, 19)),
    # a generator frame is entered again at each resume: 2 items and the end
    "generator expression": (("<genexpr>", 17), 3, {17}, {".0": _other("builtins.list_iterator"), "t": {TENSOR}},
                             (17, 21)),
    "lambda": (("<lambda>", 18), 1, {18}, {"u": {TENSOR}}, (18, 28)),
    "nested function": (("shift", 20), 1, {21}, {"v": {TENSOR}}, (21, 20)),
    "line inside a multi-line comprehension": (("<listcomp>", 28), 1, {28, 29, 30}, {
        ".0": _other("builtins.list_iterator"), "w": {TENSOR}}, (29, 13)),
}


@pytest.mark.parametrize("form", [pytest.param(f, marks=INLINED) if "comprehension" in f else f for f in FORMS])
def test_each_form_is_recorded_and_proves_its_fix(form, forms):
    folder, recorded = forms
    key, calls, lines, names, (line, col) = FORMS[form]
    record_ = recorded.functions[key]
    assert record_.calls == calls
    if lines is not None:
        assert lines <= record_.lines if key[0] == "forward" else record_.lines == lines
    if key[0] != "forward":
        assert record_.names == names
    else:
        assert {n: record_.names[n] for n in names} == names
    assert ("ONX301", line, col, "unsafe") in FORMS_STATIC
    assert ("ONX301", line, col, "safe") in _findings(_run(f"{MODELS}/forms.py", folder))


@INLINED
def test_forms_every_fix_static_unsafe_then_safe_and_returns_keyed_by_the_return_line(forms):
    folder, recorded = forms
    path = f"{MODELS}/forms.py"
    assert _findings(_run(path, None)) == FORMS_STATIC
    assert _findings(_run(path, folder)) == [(c, line, col, "safe") for c, line, col, _ in FORMS_STATIC]
    forward = recorded.functions[("forward", 12)]
    assert forward.lines == {13, 14, 15, 16, 17, 18, 20, 23, 24, 25, 26, 28, 30, 32, 33, 34}
    assert forward.returns == {32: frozenset({TENSOR})}  # a three-line return: at its first line


def test_evidence_of_one_scope_is_not_anothers(tmp_path):
    """A comprehension variable and a lambda parameter shadowing forward's names are looked up
    in their own code object's record; a comprehension's first iterable in forward's; two
    lambdas on one line merge their records (a tensor and a PackedSequence: neither fix is
    proven)."""
    path = f"{MODELS}/shadow.py"
    static = [("ONX301", 13, 18, "unsafe"), ("ONX301", 14, 17, "unsafe"), ("ONX301", 14, 33, "unsafe"),
              ("ONX301", 15, 27, "unsafe"), ("ONX301", 15, 47, "unsafe"), ("ONX301", 16, 16, "unsafe")]
    assert _findings(_run(path, None)) == static
    assert record(f"{path}:Shadow", f"{path}:example_inputs", tmp_path) == {"files": 1, "functions": 5}
    recorded = evidence.load(str(tmp_path), Path(path).read_text())
    assert recorded.functions[("forward", 11)].names["t"] == {TENSOR}
    assert recorded.functions[("<lambda>", 15)].calls == 2
    assert recorded.functions[("<lambda>", 15)].names == {"u": {TENSOR, PACKED}}
    if sys.version_info < (3, 12):
        assert recorded.functions[("<listcomp>", 13)].names["t"] == {PACKED}
    assert _findings(_run(path, str(tmp_path))) == [
        ("ONX301", 13, 18, "unsafe"),  # [t.data.shape[0] for t in ps]: PackedSequences, not forward's t = x
        ("ONX301", 14, 17, "safe" if sys.version_info < (3, 12) else "unsafe"),  # [p.data for p in p.data]: rows
        ("ONX301", 14, 33, "unsafe"),  # ... in p.data: forward's p, a PackedSequence
        ("ONX301", 15, 27, "unsafe"), ("ONX301", 15, 47, "unsafe"),
        ("ONX301", 16, 16, "safe"),  # forward's t
    ]


def test_a_lambda_parameter_or_comprehension_variable_is_not_the_functions_name():
    """Statically too: `t = torch.zeros(3)` says nothing of the `t` of `[t.data for t in ps]` or
    of `lambda t: t.data`."""
    path = f"{MODELS}/shadow_static.py"
    assert _findings(_run(path, None)) == [("ONX301", 10, 14, "unsafe"), ("ONX301", 11, 23, "unsafe"),
                                           ("ONX301", 12, 16, "safe")]


def test_merged_records_keep_only_names_both_recorded():
    one = evidence.FunctionEvidence("<listcomp>", 3, 1, frozenset({3}), {"t": frozenset({TENSOR}), "a": frozenset({TENSOR})})
    two = evidence.FunctionEvidence("<listcomp>", 3, 2, frozenset({3}), {"t": frozenset({PACKED})})
    file = evidence.FileEvidence()
    file.add(one)
    file.add(two)
    merged = file.functions[("<listcomp>", 3)]
    assert (merged.calls, merged.names) == (3, {"t": frozenset({TENSOR, PACKED})})


def test_a_forward_under_a_decorator_is_recorded(tmp_path):
    """`@torch.no_grad()` replaces the class's forward by torch's wrapper: the recorder unwraps it
    and records the forward and what it calls (it used to take the module for a library one and
    switch tracing off for all of it)."""
    path = f"{MODELS}/decorated_forward.py"
    assert record(f"{path}:make_model", f"{path}:example_inputs", tmp_path) == {"files": 1, "functions": 2}
    functions = evidence.load(str(tmp_path), Path(path).read_text()).functions
    assert {name for name, _ in functions} == {"forward", "crop"}


def test_a_forward_set_on_the_instance_is_recorded(tmp_path):
    """`checker.forward = checker.forward_onnx` on a class with no forward (diffusers' safety checker
    export): the class's forward is torch's, the instance's is the user's: recorded, with its callee."""
    path = f"{MODELS}/instance_forward.py"
    assert record(f"{path}:make_model", f"{path}:example_inputs", tmp_path) == {"files": 1, "functions": 2}
    functions = evidence.load(str(tmp_path), Path(path).read_text()).functions
    assert {name for name, _ in functions} == {"forward_onnx", "black_out"}


def test_items_of_a_recorded_tuple_of_tensors_are_tensors(tmp_path):
    """`local_index[0]` of a tuple the run saw hold tensors only (a `nonzero(as_tuple=True)` kept
    whole): a tensor index, so ONX702 rewrites the write with a slice between two of them."""
    path = f"{MODELS}/index_tuple_write.py"
    assert _findings(_run(path, None)) == []
    assert record(f"{path}:make_model", f"{path}:example_inputs", tmp_path)["functions"] == 2
    forward = evidence.load(str(tmp_path), Path(path).read_text()).functions[("forward", 12)]
    assert forward.names["local_index"] == {evidence.Value("other", "tensor", -1, "", "builtins.tuple")}
    assert _findings(_run(path, str(tmp_path))) == [("ONX702", 15, 9, "unsafe")]


def test_a_parameter_read_before_its_rebinding_is_what_the_callers_passed(tmp_path):
    """`lengths = lengths.tolist()` under a type test: the name held a tensor and a list, the run
    saw a tensor passed; the `.tolist()` reads the argument, so ONX202 reports it with evidence (no fix:
    no legacy export warned there that it recorded the list)."""
    path = f"{MODELS}/rebound_lengths.py"
    assert _findings(_run(path, None)) == []
    assert record(f"{path}:make_model", f"{path}:example_inputs", tmp_path) == {"files": 1, "functions": 2}
    mask = evidence.load(str(tmp_path), Path(path).read_text()).functions[("make_pad_mask", 10)]
    assert mask.entry == {"lengths": frozenset({evidence.Value("tensor", "int64", 1, "cpu")})}
    assert {v.kind for v in mask.names["lengths"]} == {"tensor", "other"}
    assert ("ONX202", 12, 19, None) in _findings(_run(path, str(tmp_path)))
