"""A transformers model that returns its KV cache. A decoder's DynamicCache is exported with the
model (kv_cache.py, issue #25); other cache types and other types torch.export cannot flatten
(issue #12 item 7) become ONX916 at the factory's config call, where `export --fix` / `--write`
can set use_cache=False."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from onnxfix.exporter import outputs, plan, render, session
from onnxfix.exporter.locations import Location
from onnxfix.exporter.result import Verdict
from onnxfix.exporter.session import FIX_TEMPORARY, FIX_WRITE, ExporterResult, NoProgress, run_target
from onnxfix.exporter.sourcemap import findings_for

REPO = Path(__file__).resolve().parent.parent
MODEL = REPO / "tests" / "export_models" / "gpt2_cache.py"
CONFIG_LINE = "    config = GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=100, n_positions=64)\n"
FINDING = (
    "tests/export_models/gpt2_cache.py:11:14: ONX916 [{exporter}] forward returns a {kind}, which {who} cannot "
    "flatten: the model returns its KV cache because config.use_cache is on; export with use_cache=False "
    "(`onnxfix export --fix` sets it here), or register the type as a pytree node "
    "(torch.utils._pytree.register_pytree_node)"
)


pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def test_returned_dynamic_cache_is_exported_with_the_model_and_not_turned_off():
    """A decoder's DynamicCache is exported as a decoder with past (tests/test_export_kv_cache.py):
    no ONX916, no use_cache=False, the factory untouched."""
    original = MODEL.read_text()
    target = plan.make_target("tests/export_models/gpt2_cache.py:make_model", exporters=("dynamo",))
    result = run_target(target, NoProgress(), fix=FIX_TEMPORARY, unsafe_fixes=False)
    assert MODEL.read_text() == original
    (before,) = result.results
    assert (before.verdict.verdict, before.findings) == ("OK", [])
    assert before.verdict.layout.startswith("decoder with past (1 layer)")
    assert result.fix is None or (result.fix.fixes_applied, result.fix.diff) == (0, "")


def test_legacy_error_text_maps_to_the_same_finding():
    error = ("RuntimeError: Only tuples, lists and Variables are supported as JIT inputs/outputs. Dictionaries and "
             "strings are also accepted, but their usage is not recommended. Here, received an input of unsupported "
             "type: DynamicCache")
    verdict = Verdict("legacy", "EXPORT-FAILS", failed_stage="export", error=error)
    findings = findings_for(verdict, Location(str(MODEL), 8), [])
    outputs.refine(findings, verdict, Path("tests/export_models/gpt2_cache.py"), "make_model")
    assert [render.finding_line(f) for f in findings] == [FINDING.format(
        exporter="legacy", kind="DynamicCache", who="the legacy exporter")]


def test_other_unflattenable_types_get_the_pytree_advice_at_the_factory():
    error = "TorchExportError: Failed\n  <- RuntimeError: Found <class 'mylib.Box'> in output, which is not a known type."
    verdict = Verdict("dynamo", "EXPORT-FAILS", failed_stage="export", error=error)
    findings = findings_for(verdict, Location(str(MODEL), 8), [])
    outputs.refine(findings, verdict, MODEL, "make_model")
    assert [(f.code, f.location.line, f.message) for f in findings] == [(
        "ONX916", 8, "forward returns a Box (mylib.Box), which torch.export cannot flatten: pass or return its tensors "
        "(tuples, lists, dicts), or register the type as a pytree node (torch.utils._pytree.register_pytree_node)")]


@pytest.mark.parametrize("source, fixed", [
    ("def f():\n    c = AutoConfig.from_pretrained('x')\n    c.use_cache = True\n    return M(c)\n",
     "def f():\n    c = AutoConfig.from_pretrained('x')\n    c.use_cache = False\n    return M(c)\n"),
    ("def f():\n    return M.from_pretrained('x', use_cache=True)\n", "def f():\n    return M.from_pretrained('x', use_cache=False)\n"),
    ("def f():\n    return M.from_pretrained('x')\n", "def f():\n    return M.from_pretrained('x', use_cache=False)\n"),
    ("def f():\n    return M(LlamaConfig())\n", "def f():\n    return M(LlamaConfig(use_cache=False))\n"),
    ("def f():\n    return M(LlamaConfig(\n        hidden_size=8,\n    ))\n",
     "def f():\n    return M(LlamaConfig(\n        hidden_size=8, use_cache=False,\n    ))\n"),
    ("def g():\n    return M(LlamaConfig())\n\n\ndef f():\n    return M()\n", None),  # not the factory: the module's
])
def test_turning_the_cache_off_edits_the_factory_call(source, fixed):
    result = outputs.turn_cache_off(source, "f")
    if fixed is None:
        assert result == ("def g():\n    return M(LlamaConfig(use_cache=False))\n\n\ndef f():\n    return M()\n", 2)
    else:
        assert result[0] == fixed


def test_write_turns_the_cache_off_in_place(tmp_path, monkeypatch):
    shutil.copy(MODEL, tmp_path / "gpt2_cache.py")
    monkeypatch.chdir(tmp_path)
    # the export itself is tested above: here the cache switch makes it OK
    monkeypatch.setattr(session, "export_all", lambda *args, **kwargs: [ExporterResult(Verdict("dynamo", "OK"), [])])
    target = plan.make_target("gpt2_cache.py:make_model", exporters=("dynamo",))
    before = [ExporterResult(Verdict("dynamo", "EXPORT-FAILS"), [])]
    outcome = session.fix_and_reexport(target, FIX_WRITE, False, NoProgress(), before, cache_off=True)
    assert (outcome.fixes_applied, outcome.written, [r.verdict.verdict for r in outcome.results]) == (1, True, ["OK"])
    text = (tmp_path / "gpt2_cache.py").read_text()
    assert CONFIG_LINE.replace(")\n", ", use_cache=False)\n") in text and CONFIG_LINE not in text


def test_no_cache_finding_no_cache_edit():
    finding = ExporterResult(Verdict("dynamo", "EXPORT-FAILS"), [])
    assert not outputs.needs_cache_off([finding])
