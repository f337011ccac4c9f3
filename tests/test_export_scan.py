"""ONX603's scan rewrite, proven on tests/export_models/scan_recurrence.py: the rewritten model
keeps eager outputs bit-identical (eager runs the original loops), and `onnxfix export --fix
--unsafe-fixes` applies the rewrite and gradients_off, after which the dynamo export matches
eager in onnxruntime on other sequence lengths; the legacy verdict stays what it was (the per-item
model's test)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from example_proofs import eager_outputs, identical, rewrite_copy
from onnxfix.cli import main as cli_main

MODEL = Path(__file__).parent / "export_models" / "scan_recurrence.py"
PER_ITEM = Path(__file__).parent / "export_models" / "scan_per_item.py"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def test_scan_rewrite_keeps_eager_outputs_identical(tmp_path):
    rewritten = rewrite_copy(MODEL, tmp_path, unsafe=True)
    text = rewritten.read_text()
    assert text.count("torch._higher_order_ops.scan(") == 3 and text.count("if torch.compiler.is_exporting():") == 3
    assert identical(eager_outputs(MODEL), eager_outputs(rewritten))


def test_export_fix_runs_the_recurrences_as_scans(capsys):
    # dynamo alone (the legacy exporter runs the loops the scans' guards keep for it: its verdict under
    # the rewrite is the per-item test's below, and the never-worse loop's everywhere)
    cli_main(["export", "--format", "json", f"{MODEL}:make_model", "--dynamic", "0:0=batch,1=time",
              "--exporter", "dynamo", "--fix", "--unsafe-fixes"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS"]
    fix = target["fix"]
    assert "+            (ssm_state,), (_ys0,) = torch._higher_order_ops.scan(\n" in fix["diff"]
    assert "+            (h,), (_ys0,) = torch._higher_order_ops.scan(\n" in fix["diff"]
    assert "+                (h.contiguous(),),\n+                (y.movedim(1, 0),),\n" in fix["diff"]
    assert "+            gated[:, :seq_len] = _ys0.movedim(0, 1)\n" in fix["diff"]
    assert [r["verdict"] for r in fix["results"]] == ["OK"]
    dynamo = fix["results"][0]
    assert any(p["probe"] == "probe 2 (user)" and p["ok"] for p in dynamo["probes"]), dynamo["probes"]


def test_per_item_lengths_rewrite_keeps_eager_outputs_identical(tmp_path):
    rewritten = rewrite_copy(PER_ITEM, tmp_path, unsafe=True)
    text = rewritten.read_text()
    # Jasper's statistics: reductions over a mask of the lengths while exporting (length_reductions.py)
    assert "            _onnx_rows = x.masked_fill(~_onnx_valid, 0).sum(2) / _onnx_valid.expand_as(x).sum(2)\n" in text
    assert "                _y0 = torch.broadcast_to(_x0 - _x0[:, 0:_x1].mean(1, keepdim=True), normed[0].shape)\n" in text
    assert "            normed[:normed.shape[0]] = _ys0\n" in text
    assert identical(eager_outputs(PER_ITEM), eager_outputs(rewritten))


def test_export_fix_scans_the_batch_with_each_items_length(capsys):
    """The slices to each item's length are data-dependent inside the step; the scan exports once
    gradients are off (with them, autograd's trace loses the step's unbacked size). The statistics
    loop is reduced over a mask instead; the legacy exporter still unrolls the scanned loop."""
    cli_main(["export", "--format", "json", f"{PER_ITEM}:make_model", "--exporter", "both", "--fix", "--unsafe-fixes"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS", "SILENTLY-WRONG"]
    fix = target["fix"]
    assert fix["diff"].count("torch._higher_order_ops.scan(\n") == 1
    assert fix["diff"].count("if torch.onnx.is_in_onnx_export():") == 1
    assert [r["verdict"] for r in fix["results"]] == ["OK", "ORT-FAILS"]
    dynamo = fix["results"][0]
    assert any(p["probe"] == "probe 1 (user)" and p["ok"] for p in dynamo["probes"]), dynamo["probes"]


RECURRENCE = (
    "import torch\n\n\n"
    "class M(torch.nn.Module):\n"
    "{i}def forward(self, x, h):\n"
    "{i}{i}outs = []\n"
    "{i}{i}for t in range(x.shape[1]): h = torch.tanh(x[:, t] + \\\n"
    "{i}{i}{i}h); outs.append(h)\n"
    "{i}{i}return torch.stack(outs, 1)\n"
)


@pytest.mark.parametrize("indent, newline", [("    ", "\r\n"), ("\t", "\n")])
def test_scan_rewrite_keeps_line_endings_and_indentation(tmp_path, indent, newline):
    """A one-line loop with a backslash continuation, in a CRLF file and in a tab-indented one:
    the rewrite parses, keeps the file's line endings and indentation, and is idempotent."""
    path = tmp_path / "m.py"
    path.write_bytes(RECURRENCE.format(i=indent).replace("\n", newline).encode())
    rewritten = rewrite_copy(path, tmp_path / "out", unsafe=True).read_bytes().decode()
    assert "torch._higher_order_ops.scan(" in rewritten
    assert rewritten.count(newline) == rewritten.count("\n") and "\r\r" not in rewritten
    assert ("\t" in rewritten) == (indent == "\t") and ("    " in rewritten) == (indent == "    ")
    again = rewrite_copy(tmp_path / "out" / "m.py", tmp_path / "again", unsafe=True)
    assert again.read_bytes().decode() == rewritten


TUPLE_STATE = Path(__file__).parent / "export_models" / "scan_tuple_state.py"


def test_export_fix_scans_a_tuple_state_and_an_augmented_append(capsys, tmp_path):
    """`lifted += [...]` is an append; the LSTMCell's state, which the run saw hold a tuple, is
    carried leaf by leaf (torch.utils._pytree.tree_map): both loops become scans and export."""
    cli_main(["export", "--format", "json", f"{TUPLE_STATE}:make_model", "--exporter", "dynamo", "--fix",
              "--unsafe-fixes"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS"]
    fix = target["fix"]
    assert fix["diff"].count("torch._higher_order_ops.scan(\n") == 2
    assert "+                (torch.utils._pytree.tree_map(torch.Tensor.contiguous, state),),\n" in fix["diff"]
    assert [r["verdict"] for r in fix["results"]] == ["OK"]
    rewritten = rewrite_copy(TUPLE_STATE, tmp_path, unsafe=True)
    assert identical(eager_outputs(TUPLE_STATE), eager_outputs(rewritten))


MASKED_ROWS = Path(__file__).parent / "export_models" / "scan_masked_rows.py"


def test_masked_row_write_rewrite_keeps_eager_outputs_identical(tmp_path):
    """LaneATT's per-image anchor cut: `rois[self.invalid_mask] = 0` on the step's own gather is a
    `_onnx_masked_write` in the scan's step (its body takes no in-place write); eager runs the loop."""
    rewritten = rewrite_copy(MASKED_ROWS, tmp_path, unsafe=True)
    text = rewritten.read_text()
    assert "                rois = _onnx_masked_write(rois, self.invalid_mask, 0)\n" in text
    assert "                rois[self.invalid_mask] = 0\n" in text  # the eager loop, as written
    assert identical(eager_outputs(MASKED_ROWS), eager_outputs(rewritten))


def test_export_fix_scans_the_masked_row_writes(capsys):
    cli_main(["export", "--format", "json", f"{MASKED_ROWS}:make_model", "--dynamic", "0:0=batch",
              "--exporter", "dynamo", "--fix", "--unsafe-fixes"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS"]
    assert "_onnx_masked_write(rois, self.invalid_mask, 0)" in target["fix"]["diff"]
    assert [r["verdict"] for r in target["fix"]["results"]] == ["OK"]
