"""The op_db probe's stored verdicts (bench/opdb_probe.py): every OpInfo entry of torch is probed
or listed with the reason it is not, the rules' small index and the generated page agree with the
stored data, and ONX524 reads them."""

import sys
from pathlib import Path

from onnxfix import opdb_catalog

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import opdb_doc  # noqa: E402


def test_every_entry_is_probed_or_says_why_not_and_the_verdicts_count():
    data = opdb_catalog.verdicts()
    assert data["torch"].startswith("2.13") and len(data["ops"]) == data["entries"] == 702
    assert all(e["patterns"] or e["not_probed"] for e in data["ops"].values())
    totals = opdb_doc.totals(data)
    assert totals["verdicts"] >= 2000, totals["verdicts"]
    verdicts = {p[e]["verdict"] for entry in data["ops"].values() for p in entry["patterns"] for e in ("dynamo", "legacy")}
    assert verdicts <= {"OK", "EXPORTS", "EXPORT-FAILS", "ORT-FAILS", "SILENTLY-WRONG", "CRASH", "TIMEOUT"}


def test_the_rules_index_and_the_page_are_generated_from_the_stored_verdicts():
    data = opdb_catalog.verdicts()
    assert opdb_catalog.index_of(data) == opdb_catalog.failing_index()
    assert (ROOT / "docs" / "opdb.md").read_text() == opdb_doc.render(data)


def test_failure_classes_name_the_aten_overload_or_the_kernel():
    assert opdb_doc.short_error({"verdict": "EXPORT-FAILS", "error": "ConversionError <- DispatchError: No ONNX function "
                                 "found for <OpOverload(op='aten.cholesky_inverse', overload='default')>. Failure"}) == \
        "no ONNX function for aten.cholesky_inverse.default"
    assert opdb_doc.failure_class({"verdict": "ORT-FAILS", "error": "NOT_IMPLEMENTED : Could not find an "
                                   "implementation for CumSum(14) node with name ''"}) == "ort-kernel-gap"
    assert opdb_doc.failure_class({"verdict": "EXPORT-FAILS", "stage": "torch.export",
                                   "error": "GuardOnDataDependentSymNode: Could not guard on data-dependent"}) == "data-dependent"


def test_every_spelling_reaches_the_entry():
    fmax = opdb_catalog.fails_always("torch.fmax")
    assert set(fmax) == {"dynamo", "legacy"} and "prims.fmax.default" in fmax["dynamo"].error
    assert opdb_catalog.fails_always("Tensor.fmax").keys() == fmax.keys()
    assert "Tensor.fmax" in opdb_catalog.siblings("torch.fmax")
    assert opdb_catalog.fails_always("torch.relu") == {}  # exports: not in the index


def test_the_readme_quotes_the_stored_totals():
    data = opdb_catalog.verdicts()
    totals = opdb_doc.totals(data)
    quoted = (f"{totals['probed']:,} of its {data['entries']:,} entries, {totals['patterns']:,} argument patterns, "
              f"{totals['verdicts']:,} verdicts")
    assert quoted in " ".join((ROOT / "README.md").read_text().split()), quoted


def test_tensor_first_functions_leave_out_those_eager_takes_a_number_or_a_list_first_for():
    first = opdb_catalog.tensor_first_functions()
    assert {"torch.softmax", "torch.nn.functional.pad", "torch.where", "torch.linalg.norm"} <= first
    # `torch.pow(2, t)` and `torch.add(1, t)` take a number first, `torch.cat` a list, `torch.zeros` sizes
    assert not {"torch.pow", "torch.add", "torch.polygamma", "torch.cat", "torch.zeros", "torch.arange"} & first
    assert "torch.pow" in opdb_catalog.verdicts()["number_first"]
