"""ONX9xx: export-time findings. Not static rules: they come from running the exporters.

`onnxfix export` turns what the exporters say (warnings, errors, crashes, wrong numbers) into
findings ``path:line:col: ONX9nn message``, located at the user's line when the exporter's
output leads there, and linked to the static rules (``fixed_by``) that fix the cause. This
module is plain data (no torch), so that ``onnxfix rule ONX9nn`` works without torch.
"""

from __future__ import annotations

from dataclasses import dataclass

from onnxfix.config import DYNAMO, LEGACY
from onnxfix.rewriter.rule import RuleDoc


@dataclass(frozen=True)
class ExportCode:
    code: str
    name: str
    summary: str
    doc: RuleDoc
    exporters: tuple[str, ...]
    fixed_by: tuple[str, ...] = ()  # static rules that usually remove the cause

    # The fields `onnxfix rules` prints for static rules, so one table can list both.
    fix_availability = "never"
    default_safety = "-"


def _doc(what: str, why: str, example: str, use_instead: str) -> RuleDoc:
    return RuleDoc(
        what=what, why=why, example=example, use_instead=use_instead,
        fix_safety=(
            "Export-time finding: there is no fix of its own. When a static rule is linked "
            "(`fixed by`), `onnxfix export --fix` applies that rule's fixes, exports again and "
            "shows the verdicts before and after."
        ),
        references=("docs/export-cmd.md",),
    )


CODES: tuple[ExportCode, ...] = (
    ExportCode(
        "ONX901", "traced-python-value", "the legacy tracer turned a tensor into a Python value (now a constant)",
        _doc(
            "Reports a TracerWarning `Converting a tensor to a Python number/float/integer/boolean/list/NumPy array`, at the line the warning names.",
            "The TorchScript tracer records the value seen with the example inputs as a constant. The ONNX model then computes with that constant for every input: wrong on any other input, with no error.",
            "n = int(count.item())\nreturn x.reshape(n, -1)",
            "return x.reshape(count, -1)  # keep it a tensor (see the linked rule)",
        ),
        (LEGACY,), ("ONX201", "ONX102"),
    ),
    ExportCode(
        "ONX902", "traced-constant-tensor", "the legacy tracer recorded a tensor built from data as a constant",
        _doc(
            "Reports a TracerWarning `torch.from_numpy / torch.tensor / torch.as_tensor results are registered as constants in the trace`.",
            "A tensor built from Python or NumPy data inside forward is baked into the graph with the value of the export run.",
            "return x + torch.from_numpy(np.arange(x.shape[1]))",
            "return x + torch.arange(x.shape[1])",
        ),
        (LEGACY,), ("ONX103",),
    ),
    ExportCode(
        "ONX903", "traced-shape-assumption", "the legacy tracer fixed a loop count or a length",
        _doc(
            "Reports a TracerWarning about iterating over a tensor or `len(tensor)`.",
            "The tracer unrolls the loop for the example's size; other sizes give wrong results or fail.",
            "for row in x:\n    out.append(row * 2)",
            "out = x * 2",
        ),
        (LEGACY,),
    ),
    ExportCode(
        "ONX904", "tracer-warning", "another warning of the exporter pointing at model code",
        _doc(
            "Reports any other warning the exporter raised at a line of your code.",
            "The exporter warns when it had to assume something about the code at that line; the ONNX model may not generalise.",
            "...", "...",
        ),
        (DYNAMO, LEGACY),
    ),
    ExportCode(
        "ONX910", "capture-failed", "torch.export could not capture the model at this line",
        _doc(
            "Reports the user line at which torch.export (the dynamo exporter's first step) stopped, e.g. a data-dependent `if` or a Python value taken from a tensor.",
            "torch.export traces forward with symbolic tensors; control flow or Python conversions that need a concrete value cannot be captured.",
            "if x.sum() > 0:\n    return x\nreturn -x",
            "return torch.where(x.sum() > 0, x, -x)",
        ),
        (DYNAMO,), ("ONX201",),
    ),
    ExportCode(
        "ONX911", "capture-numpy", "torch.export met NumPy conversion of a traced tensor",
        _doc(
            "Reports `.numpy() is not supported for tensor subclasses` (and similar) from torch.export, at the user's line.",
            "torch.export traces with fake tensors that have no data; NumPy needs the data.",
            "return torch.from_numpy(np.cumsum(x.numpy(), 1))",
            "return torch.cumsum(x, 1)",
        ),
        (DYNAMO,), ("ONX101", "ONX102"),
    ),
    ExportCode(
        "ONX912", "capture-data-constant", "torch.export found a fake tensor among constants (`.data`)",
        _doc(
            "Reports `We found a fake tensor in the exported program constant's list`, which `.data` reads cause.",
            "`.data` detaches from the traced graph, so torch.export stores a traced value as a constant.",
            "w = self.lin.weight.data",
            "w = self.lin.weight.detach()",
        ),
        (DYNAMO,), ("ONX301", "ONX302"),
    ),
    ExportCode(
        "ONX913", "data-dependent-guard", "torch.export needed a Python answer about a value computed from tensor data",
        _doc(
            "Reports `GuardOnDataDependentSymNode` (\"Could not guard on data-dependent expression\") and the related data-dependent errors of torch.export, at the user line that asked for the answer: an `if`, `bool()`, `int()` or a size built from a value read out of a tensor (`.item()`, `.tolist()`, `nonzero()`).",
            "torch.export traces with fake tensors: a value read out of a tensor is an unknown symbol (`u0`, `zuf0`), and Python control flow or a conversion on it has no answer at export time, so the capture stops.",
            "if x.sum().item() > 0:\n    return x * 2\nreturn -x",
            "return torch.where(x.sum() > 0, x * 2, -x)",
        ),
        (DYNAMO,), ("ONX201", "ONX601"),
    ),
    ExportCode(
        "ONX914", "dynamic-dim-specialized", "a dimension declared dynamic was fixed to the example's size by a guard at this line",
        _doc(
            "Reports a shape guard that torch.export added at your line while exporting with dynamic dims, when it pins an expression of a declared dynamic dimension to a constant (`Eq(ToFloat((s25//4)) + 0.1, 8.1)`: `img.shape[3] // 4 == 8`). The message names the input dimension, the guard as `TORCH_LOGS=+dynamic` prints it, the sizes for which the exported model works and one for which it does not. onnxfix exports with `Dim.DYNAMIC`, which lets torch.export specialize silently; the guards are collected from the symbolic shape environment (`ShapeEnv`) during the export, each at the innermost frame in your files. A guard need not be in the ONNX graph (a branch between two routes to the same math): where no probe tried a size the guard excludes, one probe at the first such size runs (up to 128), and a match with eager drops the report (tests/export_models/heuristic_branch.py).",
            "Python code that needs a concrete number from a symbolic size (`float(size)`, `int(size)`, `math.floor(size / 2)`) makes torch.export record the example's answer: the graph computes with that constant. The export succeeds; onnxruntime fails or gives wrong numbers on another size, at a node far from this line.",
            "scale_x = float(cols + self.interpolate_offset) / side  # cols = img.shape[3] // patch\ngrid = F.interpolate(grid, scale_factor=(1.0, scale_x))",
            "grid = F.interpolate(grid, size=(side, cols))  # a symbolic size, no Python float (samples at cols / side, not the offset scale)",
        ),
        (DYNAMO,), ("ONX203", "ONX402"),
    ),
    ExportCode(
        "ONX915", "dynamic-dim-restricted", "a guard at this line restricts which sizes of a dynamic dimension the exported model handles",
        _doc(
            "Reports a shape guard that torch.export added at your line and that excludes sizes of a declared dynamic dimension without pinning it: parity (`Ne(Mod((s23//4), 2), 1)`: `img.shape[2] // 4` must be even), divisibility, a range, or equality with another dimension. The sizes the exported model works for are found by evaluating the guard on sizes from the example's to four times larger; the message says which hold and one that fails. Guards implied by an earlier reported one are not reported again.",
            "A Python `if` or boolean on a size takes the branch of the example: the other branch (e.g. the padding for odd sizes) is not in the graph, so the ONNX model fails or is wrong on sizes that would take it.",
            "pad_input = (H % 2 == 1) or (W % 2 == 1)\nif pad_input:\n    x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))",
            "x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))  # pads by 0 when even: no branch",
        ),
        (DYNAMO,),
    ),
    ExportCode(
        "ONX916", "unflattenable-value", "forward returns (or takes) a value torch.export cannot flatten, e.g. a KV cache",
        _doc(
            "Reports torch.export's `Found <class '...'> in output, which is not a known type` (legacy: `Only tuples, lists and Variables are supported as JIT inputs/outputs ... unsupported type: DynamicCache`). A decoder-only model's `DynamicCache` never gets here: `onnxfix export` exports it with the model, as a decoder with past (flat `past_key_values.{i}.key/.value` inputs and `present.{i}.key/.value` outputs, proven by a generation). For the other transformers caches (encoder-decoder, static, hybrid; returned because `config.use_cache` is on, the default) the finding is at the factory's line that builds the config or the model (`T5Config(...)`, `from_pretrained(...)`, `config.use_cache = ...`), and `onnxfix export --fix` / `--write` sets `use_cache=False` there.",
            "torch.export flattens outputs into tensors with pytree; a class it has no pytree registration for stops the capture. With `use_cache=False` the model returns only its logits (computed the same way) and exports.",
            "config = GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=100)\nreturn GPT2LMHeadModel(config)",
            "config = GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=100, use_cache=False)\nreturn GPT2LMHeadModel(config)  # or register the type with torch.utils._pytree.register_pytree_node",
        ),
        (DYNAMO, LEGACY),
    ),
    ExportCode(
        "ONX917", "text-output", "forward returns text (strings), which no ONNX model can output",
        _doc(
            "Reports, at the `return` of the model's forward, strings in its eager output (a CTC or tokenizer decoder inside the model: CnOCR's `[(word, prob), ...]`) when an export failed; the message shows where in the output they are.",
            "An ONNX graph's outputs are tensors. The text comes from Python lookups of tensor values (a vocabulary indexed by `.tolist()` items): the legacy trace finds outputs that do not depend on the inputs, torch.export stops on the data-dependent values. No rewrite of the model returns the same strings, so `onnxfix export --fix` does not try one.",
            "words = [vocab[i] for i in best_path.tolist()]\nreturn logits, words",
            "return logits, best_path  # decode the words after the model",
        ),
        (DYNAMO, LEGACY),
    ),
    ExportCode(
        "ONX920", "unsupported-operator", "an operator has no ONNX translation in this exporter",
        _doc(
            "Reports the user line of the graph node the exporter could not translate (legacy: the TorchScript node's source range). Dynamo: every operator of the captured graph its translation table cannot translate, each at its own line (the FX node's stack trace), custom operators included, with the onnxfix decomposition that covers it when there is one.",
            "The exporter has no ONNX function for this operator at the requested opset.",
            "inv = torch.linalg.inv(m)",
            "Use an equivalent built from supported operators, or a newer opset.",
        ),
        (DYNAMO, LEGACY),
    ),
    ExportCode(
        "ONX921", "conversion-failed", "the exporter failed translating the graph at this line",
        _doc(
            "Reports another error raised while translating or decomposing a graph node, at that node's user line.",
            "The operator's translation rejected the arguments it was given (dtype, rank, or a value it needs to be constant).",
            "...", "...",
        ),
        (DYNAMO, LEGACY),
    ),
    ExportCode(
        "ONX922", "export-failed", "the exporter raised an error",
        _doc(
            "Reports an export error that none of the other codes describe, at the innermost user line in its traceback (or at the target when there is none).",
            "See the error text; it is shown in full with `--format json` and in `--report`.",
            "...", "...",
        ),
        (DYNAMO, LEGACY),
    ),
    ExportCode(
        "ONX930", "exporter-crashed", "the exporter process crashed (segfault or abort)",
        _doc(
            "Reports an export whose process died; onnxfix runs each export in a child process, so this is a result, not a crash of onnxfix.",
            "On torch 2.13 the dynamo exporter segfaults on some `.data` patterns (e.g. `x.data * 2 + x`).",
            "return out + x.data * 0.5",
            "return out + x.detach() * 0.5",
        ),
        (DYNAMO, LEGACY), ("ONX301", "ONX302"),
    ),
    ExportCode(
        "ONX931", "export-timeout", "the export did not finish within the timeout",
        _doc(
            "Reports an export or verification that ran past `--timeout` seconds and was stopped.",
            "Large unrolled loops or a hung exporter; raise `--timeout` for big models.",
            "...", "...",
        ),
        (DYNAMO, LEGACY),
    ),
    ExportCode(
        "ONX940", "silently-wrong", "the ONNX model computes something else than PyTorch",
        _doc(
            "Reports an export that succeeded but whose onnxruntime outputs differ from eager PyTorch on the named input (the export inputs, your probes, or generated probes with re-drawn values and other sizes of dynamic dims). A probe that passes forward another Python value (a number, a bool, a string) than the export did is named with it: the ONNX model has no input for that value, the export's is a constant.",
            "A value was baked in as a constant, a mutation was dropped, or a shape was fixed. The exporters' own checks compare on the export inputs only and miss most of these.",
            "y.data[:, 0] = 0",
            "y = y.clone(); y[:, 0] = 0  # or the linked rule's fix",
        ),
        (DYNAMO, LEGACY), ("ONX201", "ONX301", "ONX302", "ONX101", "ONX102", "ONX103"),
    ),
    ExportCode(
        "ONX941", "runtime-failed", "onnxruntime cannot load or run the exported model",
        _doc(
            "Reports an onnxruntime error, at the user line of the failing node when the dynamo exporter recorded it.",
            "The exported graph is valid ONNX but fixed a shape or type the new input does not have.",
            "...", "...",
        ),
        (DYNAMO, LEGACY),
    ),
    ExportCode(
        "ONX945", "first-divergence", "the first line whose ONNX value differs from eager PyTorch",
        _doc(
            "Shown before ONX940/ONX941: on the input where the export went wrong, the first user line (in graph order) whose value in onnxruntime differs from the value eager PyTorch computed at that line, or that onnxruntime cannot compute. The line comes from the node's recorded source (dynamo: `pkg.torch.onnx.stack_trace` metadata; legacy: the node's doc_string of a verbose re-export).",
            "The output-level symptom (a wrong output, a failing node) is often lines after the cause: a constant baked in at one line is only noticed where it meets the output.",
            "s = scale.item()\nreturn self.fc(x) * s  # ONX945 here: Mul differs",
            "return self.fc(x) * scale  # or the linked rule's fix",
        ),
        (DYNAMO, LEGACY), ("ONX201", "ONX203", "ONX301", "ONX302"),
    ),
    ExportCode(
        "ONX942", "invalid-onnx", "onnx.checker rejects the exported model",
        _doc(
            "Reports an `onnx.checker` failure on the exported file.",
            "The exporter wrote a model that violates the ONNX spec; other runtimes may reject it.",
            "...", "...",
        ),
        (DYNAMO, LEGACY),
    ),
)

BY_CODE = {c.code: c for c in CODES}


def export_code(code: str) -> ExportCode | None:
    code = code.upper()
    return BY_CODE.get(code) or next((c for c in CODES if c.name == code.lower()), None)


def render_doc(code: ExportCode) -> str:
    text = code.doc.render(code.code, code.name)
    header = f"Export-time finding (from `onnxfix export`), exporters: {', '.join(code.exporters)}."
    if code.fixed_by:
        header += f" Usually fixed by: {', '.join(code.fixed_by)}."
    first, _, rest = text.partition("\n\n")
    return f"{first}\n\n{header}\n\n{rest}"
