"""Decoder-with-past (issue #25 item 1): a transformers language model that returns its KV cache
is exported with it, through `onnxfix export` and through `onnxfix.export(...)`, and onnxruntime
matches eager transformers over a generation: prefill, then two decode steps fed with the ONNX
model's own present cache, at two batch sizes and two prompt lengths."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import onnx
import pytest
import torch

import onnxfix
from onnxfix.exporter import plan, render
from onnxfix.exporter.session import NoProgress, run_target

# One of each cache and attention layout through the command: GPT-2 (its own attention, learned
# positions), Mistral (Llama's layout, and the layout's note on an unfilled window), Phi (partial
# rotary, parallel blocks), Gemma 2 (a filled sliding window). Llama, Qwen2, Gemma and Phi-3 share
# these paths: bench/kv_cache.py exports every architecture under both exporters for
# docs/kv_cache.md, and test_python_api_with_a_cache_in_the_inputs takes Llama through the API.
ARCHS = ("gpt2", "mistral", "phi", "gemma2_window")
GENERATION = [f"generation batch {b}, prompt {p}: {step}" for b, p in ((1, 5), (3, 2))
              for step in ("prefill", "decode step 1", "decode step 2")]
INPUTS = ["input_ids", "attention_mask", "past_key_values.0.key", "past_key_values.0.value"]
OUTPUTS = ["logits", "present.0.key", "present.0.value"]
LAYOUT = ("decoder with past (1 layer): input_ids, attention_mask, past_key_values.{i}.key/.value -> logits, "
          "present.{i}.key/.value (dynamic batch, sequence, past_sequence, total_sequence)")

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def dims(values) -> dict[str, list]:
    return {v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim] for v in values}


# Mistral's layers slide over 4096 tokens: the generation checked here does not fill the window
WINDOW = "; sliding window of 4096 tokens: the generation checked (7 tokens) does not fill it"


def assert_generation_matches(verdict, arch="llama"):
    layout = LAYOUT.replace("(1 layer)", "(2 layers)") if arch == "gemma2_window" else LAYOUT
    assert (verdict.verdict, verdict.layout) == ("OK", layout + (WINDOW if arch == "mistral" else ""))
    assert [p.probe for p in verdict.probes] == ["export inputs", *GENERATION]
    assert all(p.ok and p.max_abs <= 1e-4 for p in verdict.probes), [(p.probe, p.max_abs, p.note) for p in verdict.probes]


def assert_named_cache(path, arch):
    graph = onnx.load(path).graph
    inputs, outputs = dims(graph.input), dims(graph.output)
    layers = 2 if arch == "gemma2_window" else 1
    names = [f"{i}.{kind}" for i in range(layers) for kind in ("key", "value")]
    assert list(inputs) == INPUTS[:2] + [f"past_key_values.{n}" for n in names]
    assert list(outputs) == ["logits"] + [f"present.{n}" for n in names]
    assert inputs["input_ids"] == ["batch", "sequence"] and inputs["attention_mask"] == ["batch", "total_sequence"]
    key = inputs["past_key_values.0.key"]
    past = "past_window_sequence" if arch == "gemma2_window" else "past_sequence"
    assert key[0] == "batch" and key[2] == past and all(isinstance(d, int) for d in key[1::2])
    if layers == 2:
        assert inputs["past_key_values.1.key"][2] == "past_sequence"
    assert outputs["logits"][:2] == ["batch", "sequence"]
    # past + new tokens (a sliding-window layer caps it: "... Max(0, past_sequence - 4095) ...")
    present = outputs["present.0.key"][2]
    if present != "present_window_sequence":  # legacy's name for a window layer's present; dynamo derives one
        assert past in present and "sequence" in present.replace(past, "")


@pytest.mark.parametrize("arch", ARCHS)
def test_export_command_exports_the_cache_and_generates_like_transformers(arch, tmp_path):
    """gemma2_window: two layers, the first sliding over 4 tokens, which the prompt of 5 fills: its
    past is named past_window_sequence and the generation goes past the window."""
    target = plan.make_target(f"tests/export_models/kv_decoders.py:make_{arch}", output=str(tmp_path / "m.onnx"),
                              exporters=("dynamo", "legacy"))
    result = run_target(target, NoProgress())
    for exported in result.results:  # docs/kv_cache.md's claim: both exporters
        assert exported.findings == []
        assert_generation_matches(exported.verdict, arch)
        assert_named_cache(tmp_path / f"m.{exported.verdict.exporter}.onnx", arch)
    assert [r.verdict.exporter for r in result.results] == ["dynamo", "legacy"]
    assert render.verdict_lines(result.results)[2] == f"          exported as a {result.results[0].verdict.layout}"


def model(arch):
    spec = importlib.util.spec_from_file_location("kv_decoders", Path(__file__).parent / "export_models" / "kv_decoders.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build(arch).eval()


def test_python_api_with_a_cache_in_the_inputs(tmp_path):
    """The notebook's way: the past from a prefill, passed as past_key_values."""
    llama = model("llama")
    ids = torch.randint(0, 100, (1, 6), generator=torch.Generator().manual_seed(1))  # batch 1: repeated to 2
    with torch.no_grad():
        cache = llama(input_ids=ids[:, :4], use_cache=True).past_key_values
    report = onnxfix.export(llama, (ids[:, 4:],), kwargs={"past_key_values": cache}, f=tmp_path / "llama.onnx")
    (result,) = report.results
    assert_generation_matches(result.verdict)


def test_python_api_with_tokens_only(tmp_path):
    report = onnxfix.export(model("gpt2"), (torch.randint(0, 100, (1, 6)),), f=tmp_path / "gpt2.onnx")
    (result,) = report.results
    assert_generation_matches(result.verdict)
    assert report.to_json()["results"][0]["layout"] == LAYOUT


def test_given_dynamic_dims_and_probes_are_said_to_be_replaced():
    from onnxfix.exporter import kv_cache

    ids = torch.randint(0, 100, (1, 6))
    wrapper, args, probes, dynamic = kv_cache.prepare(model("gpt2"), (ids,), [("probe",)], {0: {0: "batch"}})
    assert wrapper.onnxfix_layout == LAYOUT + "; the dynamic dims and probe inputs given are replaced by these dims and the generation"
    assert (probes, [a.shape[0] for a in args]) == ([], [2, 2, 2, 2])  # batch 1 -> 2: torch.export specializes 1
    assert dynamic[2] == {0: "batch", 2: "past_sequence"}
