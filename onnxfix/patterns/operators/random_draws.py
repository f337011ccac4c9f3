"""ONX538: random fills the exporters refuse (decompositions/registry_random.py)."""

from __future__ import annotations

from onnxfix.patterns.operators.base import DecompositionRule, rule_doc


class RandomFill(DecompositionRule):
    code = "ONX538"
    name = "random-fill"
    summary = "Random fills (`uniform_`, `exponential_`) do not export: draw with rand_like instead"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `Tensor.uniform_` (no translation under either exporter: dynamo fails on "
        "`prims.uniform`, legacy on `aten::uniform`) and `Tensor.exponential_` (the legacy exporter "
        "has no symbolic for `aten::exponential`; gpt-fast's sampling without a device sync, "
        "`torch.argmax(probs / torch.empty_like(probs).exponential_(1))`, copied into many TTS and "
        "LLM decoders) in code that runs at export time: noise "
        "injection, dithering, sampling heads.",
        "Both are ATen random fills with no ONNX translation, while `torch.rand_like` exports "
        "(RandomUniformLike) under both exporters. The legacy exporter refuses the whole model at "
        "the first such call.",
        "def forward(self, logits):\n    probs = torch.softmax(logits, -1)\n"
        "    q = torch.empty_like(probs).exponential_(1)\n    return torch.argmax(probs / q, dim=-1)",
        "def forward(self, logits):\n    probs = torch.softmax(logits, -1)\n"
        "    q = _onnx_exponential(torch.empty_like(probs), 1)\n    return torch.argmax(probs / q, dim=-1)",
        "Safe. Each helper returns the op itself outside export (`_onnx_exponential` under dynamo "
        "too): the same draws from PyTorch's generator in eager, bit for bit. Exported, it draws "
        "from the same distribution with onnxruntime's generator (uniform draws scaled into "
        "[low, to); the inverse distribution function -log(1 - u) / lambd), written into the tensor "
        "as the in-place op does; no export reproduces PyTorch's draws, so outputs that depend on "
        "them are compared by `onnxfix export` only where they do not vary from run to run.",
        code,
    )


RULES = [RandomFill]
