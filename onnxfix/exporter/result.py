"""What one export + verification produced. Plain data, no torch: the parent process reads it.

A Verdict travels from the worker process to onnxfix as JSON (``to_json``/``from_json``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

OK, SILENTLY_WRONG, ORT_FAILS, EXPORT_FAILS, CRASH, TIMEOUT = (
    "OK", "SILENTLY-WRONG", "ORT-FAILS", "EXPORT-FAILS", "CRASH", "TIMEOUT",
)
LOAD_FAILS = "LOAD-FAILS"  # the model did not load or run eagerly: nothing was exported

# The checklist shown per exporter, in order. A stage is "ok", "failed" or "skipped".
STAGES = ("load", "export", "checker", "runtime", "numerics")
STAGE_OK, STAGE_FAILED, STAGE_SKIPPED = "ok", "failed", "skipped"


@dataclass
class OutputError:
    index: int
    max_abs: float | None
    max_rel: float | None
    ok: bool
    note: str = ""


@dataclass
class ProbeResult:
    probe: str  # "export inputs", "probe 1 (user)", "generated (other values)", ...
    max_abs: float | None = None
    max_rel: float | None = None
    ok: bool = True
    note: str = ""
    outputs: list[OutputError] = field(default_factory=list)
    baked: str = ""  # a failing probe's Python arguments that differ from the export's (python_arguments.py)


@dataclass
class NodeTrace:
    """Where a graph node the exporter stopped at came from.

    style "py": a Python stack, outermost first (torch.fx / torch.export ``stack_trace``);
    style "ts": a TorchScript ``sourceRange()``, innermost first.
    """

    node: str
    stack: str
    style: str = "py"


@dataclass
class UnsupportedOp:
    """An operator of the captured graph the dynamo exporter has no ONNX translation for."""

    op: str  # repr of the FX target: "<OpOverload(op='aten.cholesky_solve', overload='default')>"
    stack: str  # node.meta["stack_trace"]: where the user's code called it
    decomposition: str = ""  # the onnxfix decomposition key covering it (`--decompose-ops KEY`)


@dataclass
class Verdict:
    exporter: str
    verdict: str
    error: str = ""
    failing_probe: str = ""
    failed_stage: str = ""  # the first stage of STAGES that failed ("" when OK)
    probes: list[ProbeResult] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)  # {"category", "message", "filename", "lineno"}
    node_traces: list[NodeTrace] = field(default_factory=list)
    # frames of the export error's traceback chain, outermost first: [filename, lineno, function]
    error_frames: list[list] = field(default_factory=list)
    op_histogram: dict[str, int] = field(default_factory=dict)
    # every untranslatable operator of the graph, not only the first one the exporter met
    unsupported: list[UnsupportedOp] = field(default_factory=list)
    # shape guards that restrict a declared dynamic dim (guards.guard_reports): {"code", "message", "frames"}
    guards: list[dict] = field(default_factory=list)
    # worker only: (guard, dims) of the guards no tried size breaks, to test on the failing probes'
    # sizes (guards.violated_by_probes); emptied before the verdict leaves the worker (not JSON)
    latent_guards: list[tuple] = field(default_factory=list)
    # calls the export's decompositions replaced: [key, file, line] (exporter/decompose.py)
    decomposed_at: list[list] = field(default_factory=list)
    # the keys of the decompositions that replaced some call while exporting (the others never ran)
    decompositions_used: list[str] = field(default_factory=list)
    # data-dependent symbols ("u0", "zuf0") -> the frames where torch.export created them
    unbacked: dict[str, list] = field(default_factory=dict)
    # the first user line whose ONNX value differs from eager on the failing probe
    # (exporter/divergence.py): {"node", "stack", "style", "detail", "repairs"}, {"repairs"} alone
    # when no line differs but calls on lines the graph lost name repairs, or {} when not found
    divergence: dict = field(default_factory=dict)
    onnx_path: str = ""
    seconds: float = 0.0
    # how the model was laid out for export when not as written (kv_cache.DecoderWithPast.onnxfix_layout)
    layout: str = ""
    # declared dynamic dims whose example size is 1 (unit_dims.py: torch.export specializes them)
    unit_dims: list[str] = field(default_factory=list)
    # legacy: forward's defaults the call does not pass, which the exporter appends as inputs (model_io.py)
    appended_defaults: list[str] = field(default_factory=list)
    # dynamo: the model's LSTM / GRU classes, when a dim is dynamic (nn_layers.rnn_while_loops)
    recurrent_layers: list[str] = field(default_factory=list)
    # dynamo: the model's 0-d int64 buffers, `Class.name` (number_buffers.int_buffers_as_numbers)
    size_buffers: list[str] = field(default_factory=list)
    # forward replaced by a functools.partial (a hook registry's), whose signature torch.export reads
    # through __wrapped__ (model_io.wrapped_forward)
    wrapped_forward: str = ""
    # text in the eager output (`output[0][0]: 'abc'`) and [file, line] of forward's return (model_io.text_outputs)
    text_outputs: list[str] = field(default_factory=list)
    text_output_site: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.verdict == OK

    def stages(self) -> dict[str, str]:
        """The checklist: every stage before the failed one passed, the rest were skipped."""
        failed = self.failed_stage or (None if self.ok else "export")
        result, reached = {}, True
        for stage in STAGES:
            if not reached:
                result[stage] = STAGE_SKIPPED
            elif stage == failed:
                result[stage], reached = STAGE_FAILED, False
            else:
                result[stage] = STAGE_OK
        return result

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "Verdict":
        data = dict(data)
        probes = [
            ProbeResult(**{**p, "outputs": [OutputError(**o) for o in p.get("outputs", [])]})
            for p in data.pop("probes", [])
        ]
        traces = [NodeTrace(**t) for t in data.pop("node_traces", [])]
        unsupported = [UnsupportedOp(**u) for u in data.pop("unsupported", [])]
        return cls(probes=probes, node_traces=traces, unsupported=unsupported, **data)
