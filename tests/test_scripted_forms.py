"""The decompositions' scripted forms (Decomposition.scripted), written at a call in a function
TorchScript compiles (onnxfix/patterns/operators/scripted_forms.py): each compiled by TorchScript
is bit-identical to the op on its proof's inputs (a form must be exact by construction: eager runs
it), and the legacy exporter, tracing through the compiled functions, exports them all in one
model that onnxruntime runs like eager on other values and another batch size. The static rule's
side: tests/fixtures/ONX519/scripted_labels.py, and the calls that get no form below."""

from __future__ import annotations

import ast
import warnings

import pytest
import torch

from decomposition_exports import build, case_expression, case_params, dynamic_spec, inputs, inputs_of
from onnxfix.decompositions import BY_KEY, DECOMPOSITIONS
from onnxfix.exporter import verify
from onnxfix.exporter.probes import Probe
from onnxfix.patterns.operators.scripted_forms import bound_arguments, scripted_text
from static_findings import findings
from test_decompositions_records import SEEDS_AND_BATCHES, assert_matches

FORMS = sorted(d.key for d in DECOMPOSITIONS if d.scripted)


def scripted_expression(key: str) -> str:
    """The proof's original expression with the op's call written as the record's scripted form,
    as the fix writes it where TorchScript compiles."""
    record, text = BY_KEY[key], case_expression(key, "original")
    for node in ast.walk(ast.parse(text, mode="eval")):
        if not isinstance(node, ast.Call):
            continue
        name = ast.unparse(node.func)
        method = isinstance(node.func, ast.Attribute) and f"Tensor.{node.func.attr}" in record.targets \
            and name not in record.targets
        if name in record.targets or method:
            bound = bound_arguments(record, node, method)
            assert bound is not None, f"{key}: the proof's call does not bind the scripted form's parameters"
            form = scripted_text(record, bound, lambda value: ast.get_source_segment(text, value))
            return text[: node.col_offset] + form + text[node.end_col_offset :]  # a one-line expression
    raise AssertionError(f"{key}: no call of {record.targets} in the proof")


def build_scripted(keys: list[str]) -> torch.nn.Module:
    """decomposition_exports.build's module, each case a TorchScript function computing the scripted
    form: compiled in eager too (as `@torch.jit.script` code), its graph inlined into a legacy trace
    (as `script_if_tracing` code is)."""
    source = "".join(f"def case_{key}({', '.join(case_params(key))}):\n    return ({scripted_expression(key)},)\n"
                     for key in keys)
    namespace = {"scripted": torch.jit.CompilationUnit(source)}
    params = ", ".join(p for key in keys for p in case_params(key))
    outputs = ", ".join(f"scripted.case_{key}({', '.join(case_params(key))})" for key in keys)
    exec(f"def forward(self, {params}):\n    return ({outputs},)\n", namespace)
    return type("ScriptedForms", (torch.nn.Module,), {"forward": namespace["forward"]})().eval()


def test_the_forms_are_the_exact_ones():
    """A form is written unguarded, so only ops it computes exactly carry one (a new form is
    reviewed here): argwhere is nonzero, isin an equality, the others a view or a flip."""
    assert FORMS == ["argwhere", "fliplr", "flipud", "isin", "ravel"]


@pytest.mark.parametrize("key", FORMS)
def test_scripted_form_is_the_op_in_eager(key):
    original, scripted = build([key], "original"), build_scripted([key])
    for seed, batch in SEEDS_AND_BATCHES:
        args = inputs_of(key, seed, batch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want, got = verify.eager(original, args), verify.eager(scripted, args)
        assert len(got) == len(want) > 0
        for index, (g, w) in enumerate(zip(got, want)):
            assert_matches(g, w, 0.0, f"{key}, seed {seed}, batch {batch}, output {index}")


def test_scripted_forms_export_with_the_legacy_exporter():
    model, args = build_scripted(FORMS), inputs(FORMS, 0, 2)
    probes = [Probe(f"seed {seed}, batch {batch}", inputs(FORMS, seed, batch)) for seed, batch in ((1, 2), (3, 3))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        verdict = verify.verify(lambda: model, args, probes, "legacy", dynamic_spec(FORMS, args))
    assert verdict.verdict == "OK", verdict.error
    assert [p.probe for p in verdict.probes] == ["export inputs", *(p.name for p in probes)]


def test_a_call_binding_more_than_the_form_keeps_no_fix(tmp_path):
    """isin(..., invert=True) is not the form's expression, a list of test elements is no tensor
    (TorchScript would type it List[int], and the form reshapes it), and outside compiled code the
    helper is written, as before."""
    assert findings(tmp_path, """
        import torch

        @torch.jit.script_if_tracing
        def outside(labels: torch.Tensor, merged: torch.Tensor) -> torch.Tensor:
            return torch.isin(labels, merged, invert=True)

        @torch.jit.script_if_tracing
        def listed(labels: torch.Tensor) -> torch.Tensor:
            return torch.isin(labels, [1, 2])

        def plain(labels, merged):
            return torch.isin(labels, merged)

        class M(torch.nn.Module):
            def forward(self, labels, merged):
                return outside(labels, merged), listed(labels), plain(labels, merged)
    """) == [("ONX519", 6, None), ("ONX519", 10, None), ("ONX519", 13, True)]


def test_helper_binding_leaves_out_no_argument():
    """Past a helper's named parameters (its *operands, or after a call's `*args`) the arguments are
    kept under "*", so no caller reads a binding that silently dropped some."""
    from onnxfix.decompositions import helper_binding

    call = ast.parse("torch.einsum('ij,jk,kl', a, b, c)").body[0].value
    bound = helper_binding("einsum_ellipsis", call, False)
    assert ast.unparse(bound["equation"]) == "'ij,jk,kl'"
    assert [ast.unparse(e) for e in bound["*"].elts] == ["a", "b", "c"]
    splatted = helper_binding("einsum_ellipsis", ast.parse("torch.einsum(*parts)").body[0].value, False)
    assert list(splatted) == ["*"] and ast.unparse(splatted["*"]) == "(*parts,)"
