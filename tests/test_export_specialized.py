"""`onnxfix export --fix` keyed on the run's specialization: the lines whose guards specialized a
dynamic dim (ONX914) make the ints read there sizes for the static rules (rewriter/sizes.py), so
the fixes at the line the export named apply where no static rule could follow the size."""
from __future__ import annotations

import json
from pathlib import Path

from onnxfix.cli import main as cli_main

MODELS = Path(__file__).parent / "export_models"


def test_a_size_read_through_a_tuple_of_maxima_is_fixed_at_the_specialized_line(capsys):
    spec = MODELS / "padded_batch.py"
    code = cli_main(["export", "--format", "json", f"{spec}:make_model", "--inputs", f"{spec}:example_inputs",
                     "--probe-inputs", f"{spec}:probe_inputs",
                     "--dynamic", "0:1=height,2=width", "--exporter", "dynamo", "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert [r["verdict"] for r in target["results"]] == ["SILENTLY-WRONG"]
    assert [(f["code"], f["location"]["row"]) for f in target["results"][0]["findings"]][:2] == [
        ("ONX914", 16), ("ONX914", 17)]
    assert target["static_findings"] == []  # statically, nothing is known to be a size here
    fix = target["fix"]
    assert [r["verdict"] for r in fix["results"]] == ["OK"]
    assert "-        max_size[-2] = int(math.ceil(max_size[-2] / stride) * stride)\n" in fix["diff"]
    assert "+        max_size[-2] = math.ceil(max_size[-2] / stride) * stride\n" in fix["diff"]
    assert code == 0  # every export OK once fixed (the temporary copy; the file is unchanged)


def test_an_unreadable_file_named_by_a_guard_is_skipped(tmp_path):
    """A guard's frame in a file the rules cannot decode notes nothing and stops nothing."""
    from types import SimpleNamespace

    from onnxfix.exporter.locations import ExportFinding, Location
    from onnxfix.exporter.run_evidence import note_specialized
    from onnxfix.rewriter import evidence

    broken, model = tmp_path / "broken.py", tmp_path / "model.py"
    broken.write_bytes(b"x = 1\x00\n")
    model.write_text("import torch\n\n\ndef f(x):\n    return x\n", encoding="utf-8")
    findings = [ExportFinding("ONX914", "specialized", Location(str(path), line), "dynamo")
                for path, line in ((broken, 1), (model, 5))]
    note_specialized(tmp_path / "evidence", [SimpleNamespace(findings=findings)])
    recorded = evidence.load(str(tmp_path / "evidence"), model.read_text(encoding="utf-8"))
    assert recorded is not None and recorded.specialized == frozenset({5})


def test_the_loop_notes_the_guard_lines_of_each_text_it_exports(capsys, tmp_path):
    """DNTextSpotter's `int(np.ceil(float(h) / self.feature_strides[idx]))`, `h` out of a list of
    image sizes: the first export's guards make `h` a size and `float()` goes; the export of that
    text specializes the same line again, and only its guard lines (noted for that text) let the
    ceil division follow. Both exporters OK; the written model computes what the original does."""
    import shutil

    import torch

    from onnxfix.exporter.targets import load_module

    spec = tmp_path / "padding_mask_strides.py"
    shutil.copy(MODELS / spec.name, spec)
    code = cli_main(["export", "--format", "json", f"{spec}:make_model", "--inputs", f"{spec}:example_inputs",
                     "--probe-inputs", f"{spec}:probe_inputs", "--dynamic", "0:1=height,2=width",
                     "--exporter", "both", "--write"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert [r["verdict"] for r in target["results"]] == ["SILENTLY-WRONG", "SILENTLY-WRONG"]
    assert [r["verdict"] for r in target["fix"]["results"]] == ["OK", "OK"]
    assert code == 0
    ceil = "(h + self.feature_strides[idx] - 1) // self.feature_strides[idx]"
    (line,) = [line for line in spec.read_text().splitlines() if "total = total +" in line]
    assert ceil in line and "float(" not in line and "import numpy" not in spec.read_text()
    original, fixed = load_module(MODELS / spec.name), load_module(spec)
    for shape in ((2, 16, 24), (2, 21, 13), (3, 9, 30), (1, 1, 5)):
        x = torch.randn(*shape)
        assert torch.equal(original.make_model()(x), fixed.make_model()(x))


def test_a_guard_the_onnx_graph_does_not_enforce_is_measured_and_not_reported(capsys):
    """`if x.shape[0] < 16:` choosing between two routes to the same math (a backend heuristic):
    torch.export records `batch < 16`, which would say the model fails at 16; no probe tried 16, so
    one at 16 is run: it matches eager, and no ONX914 claims otherwise."""
    spec = MODELS / "heuristic_branch.py"
    cli_main(["export", "--format", "json", f"{spec}:make_model", "--exporter", "dynamo"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert [r["verdict"] for r in target["results"]] == ["OK"]
    assert [f["code"] for f in target["results"][0]["findings"] if f["code"] in ("ONX914", "ONX915")] == []


def test_a_guard_claim_is_probed_at_its_first_excluded_size_only_where_small_and_untried():
    import torch

    from onnxfix.exporter.probes import claim_probes

    args, dynamic = (torch.randn(2, 6), torch.randn(2, 3)), {0: {0: "batch"}, 1: {0: "batch"}}
    (probe,) = claim_probes([[0, 0, [16, 17, 18]]], args, dynamic, tried=[])
    assert probe.name == "guard claim (batch=16)" and [a.shape[0] for a in probe.args] == [16, 16]
    assert claim_probes([[0, 0, [16, 17]]], args, dynamic, tried=[(torch.randn(17, 6), torch.randn(17, 3))]) == []
    assert claim_probes([[0, 0, [1000]]], args, dynamic, tried=[]) == []  # past CLAIM_MAX_SIZE
