"""Export a model with one exporter and check it against eager PyTorch in onnxruntime.

Imports torch: only the export worker and the tests use this module. Run it through
``isolate.run_isolated`` so that an exporter segfault is a result, not a crash of onnxfix.

Stages (result.STAGES): load (the model is built and runs eagerly on the export inputs),
export, checker (``onnx.checker``), runtime (onnxruntime runs the model), numerics (every
output matches eager on the export inputs and on every probe).
"""

from __future__ import annotations

import contextlib
import inspect
import re
import tempfile
import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator

import torch

from onnxfix.exporter.comparison import (  # noqa: F401  (Runtime, compare, runtime_error re-exported)
    Runtime, compare, identical_values, runtime_error, within_eager_spread,
)
from onnxfix.exporter import kv_cache
from onnxfix.exporter.model_io import (  # noqa: F401  (re-exported)
    DEFAULTS_KEY, FLAT_KEY, WRAPPED_KEY, FlatOutputs, GivenArguments, appended_defaults, exporter_args, flatten, input_names, int_defaults,
    tensor_leaves, text_outputs, wrapped_forward,
)  # noqa: F401  (re-exported)
from onnxfix.exporter.model_state import attributes_kept
from onnxfix.exporter.probes import Probe, claim_probes
from onnxfix.exporter.nn_layers import fresh_rnn_dispatch, recurrent_layers
from onnxfix.exporter.number_buffers import size_buffers
from onnxfix.exporter.errors import describe
from onnxfix.exporter.failure_facts import (
    error_frames, failing_node_traces, onnx_node_traces, op_histogram, untranslatable_ops,
)
from onnxfix.exporter.python_arguments import baked_arguments
from onnxfix.exporter.onnx_registry import reuse_onnx_registry
from onnxfix.exporter.unit_dims import GROW_KEY, grown_examples, unit_dim_names
from onnxfix.exporter.result import (  # noqa: F401  (re-exported: one place defines verdicts)
    CRASH, EXPORT_FAILS, LOAD_FAILS, OK, ORT_FAILS, SILENTLY_WRONG, TIMEOUT,
    OutputError, ProbeResult, Verdict,
)



def export_model(
    model: torch.nn.Module,
    args: tuple,
    exporter: str,
    path: Path,
    dynamic: dict[int, dict[int, str]] | None = None,
    opset: int | None = None,
) -> None:
    """dynamic: {input index: {dim: name}}, used for both exporters' dynamic-shape specs."""
    names = input_names(model, len(args))
    outputs = getattr(model, "onnxfix_output_names", None)  # kv_cache.DecoderWithPast's
    dynamic = dynamic or {}
    specs = _dynamo_shapes(model, names, args, dynamic, bool(outputs)) if exporter != "legacy" else None
    args = exporter_args(args)
    if exporter == "legacy":
        axes = {names[i]: dims for i, dims in dynamic.items()} | getattr(model, "onnxfix_output_axes", {})
        torch.onnx.export(
            _without_fx_graph(model, len(names)) if axes and not outputs else model, args, str(path), dynamo=False, input_names=names, output_names=outputs,
            dynamic_axes=axes or None, opset_version=opset,
        )
        return
    reuse_onnx_registry()
    fresh_rnn_dispatch()
    program = torch.onnx.export(
        model, args, dynamo=True, verbose=False, dynamic_shapes=specs,
        opset_version=opset, input_names=names if outputs else None, output_names=outputs,
    )
    program.save(str(path), external_data=False)


def _without_fx_graph(model: torch.nn.Module, count: int) -> torch.nn.Module:
    """A torch.fx GraphModule called from a plain module: with dynamic axes and no output names,
    the legacy exporter reads any model's `.graph` as a TorchScript graph (`model.graph.outputs()`:
    "'Graph' object has no attribute 'outputs'" for an fx Graph, e.g. a prepare_qat_fx model)."""
    return GivenArguments(model, count) if isinstance(getattr(model, "graph", None), torch.fx.Graph) else model


def _dynamo_shapes(model, names: list[str], args: tuple, dynamic: dict[int, dict[int, str]], named: bool = False):
    """Dim.DYNAMIC lets torch.export infer which dynamic dims are equal (named Dims would fail
    the export on an example size of 1, which Dim.DYNAMIC tolerates). ``named``: the dims' names
    as strings, which torch.onnx turns into Dim.DYNAMIC and writes as the ONNX model's dim names
    (a decoder with past: batch, sequence, past_sequence, total_sequence)."""
    if not dynamic:
        return None
    specs = [{d: (dims[d] if named else torch.export.Dim.DYNAMIC) for d in dims} if (dims := dynamic.get(i)) else None
             for i in range(len(args))]
    params = inspect.signature(model.forward).parameters.values()
    varargs = next((p.name for p in params if p.kind is inspect.Parameter.VAR_POSITIONAL), None)
    if varargs is None:
        return dict(zip(names, specs))
    # forward(a, b, *rest): torch.export binds the trailing inputs to one tuple named `rest`
    fixed = [p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    return {**dict(zip(fixed, specs)), varargs: tuple(specs[len(fixed):])}


def eager(model: torch.nn.Module, args: tuple, raw: bool = False):
    cloned = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
    with torch.no_grad():
        output = model(*cloned)
    return output if raw else flatten(output)


def verify(
    make_model: Callable[[], torch.nn.Module],
    args: tuple,
    probes: list[Probe],
    exporter: str,
    dynamic: dict[int, dict[int, str]] | None = None,
    opset: int | None = None,
    out: Path | None = None,
    on_stage: Callable[[str], None] = lambda stage: None,
    decompose: list[str] | None = None,
) -> Verdict:
    """Export once, then compare onnxruntime with eager on the export inputs and each probe.
    ``decompose``: onnxfix's operator decompositions to apply during the export only (``[]`` =
    all); eager PyTorch still runs the original ops, so the comparison proves them equivalent."""
    started = time.monotonic()
    verdict = Verdict(exporter=exporter, verdict=OK, onnx_path=str(out or ""))
    on_stage("load")
    try:
        torch.manual_seed(0)
        model = make_model().eval()
        verdict.layout = getattr(model, "onnxfix_layout", "")
        verdict.text_outputs, verdict.text_output_site = text_outputs(model, eager(model, args, raw=True))
    except Exception as exc:  # the user's model does not build or run: nothing to export
        return _failed(verdict, LOAD_FAILS, "load", f"the model does not run eagerly: {describe(exc)}", started)
    verdict.unit_dims = unit_dim_names(args, dynamic)
    # the unit-dims repair exports with those dims grown to 2; the comparison keeps the user's example
    export_args = grown_examples(args, dynamic) if GROW_KEY in (decompose or ()) else args
    # the flat-outputs repair exports the output's tensors only, in the order eager is compared in
    exported = FlatOutputs(model, len(args), tensor_leaves(model, args)) if FLAT_KEY in (decompose or ()) else model
    # the defaults repair: forward(*args), so the legacy exporter appends no default as an input
    if verdict.exporter == "dynamo" and dynamic:
        verdict.recurrent_layers = recurrent_layers(model)
    if verdict.exporter == "dynamo":
        verdict.size_buffers = size_buffers(model)
    if verdict.exporter == "legacy":
        verdict.appended_defaults = appended_defaults(model, len(args))
        if DEFAULTS_KEY in (decompose or ()) and exported is model:
            exported = GivenArguments(model, len(args))
    verdict.wrapped_forward = wrapped_forward(model)
    if WRAPPED_KEY in (decompose or ()) and exported is model:  # torch.export binds the call, not the wrapper
        exported = GivenArguments(model, len(args))
    with _model_file(out) as path:
        # the runtime stage re-exports for the divergence's source lines (legacy): with the same decompositions
        # and of the model as exported (a flat-outputs wrapper, grown examples), not as given
        numerics = lambda *a: _numerics(*a, exporting=lambda: _decompositions(decompose, model),  # noqa: E731
                                        reexported=(exported, export_args))
        for stage, step in (("export", _export), ("checker", _check_onnx), ("runtime", numerics)):
            on_stage(stage)
            with _decompositions(decompose, model) if stage == "export" else contextlib.nullcontext() as mode, \
                    attributes_kept(model) if stage == "export" else contextlib.nullcontext():
                if stage == "export":
                    step(verdict, exported, export_args, probes, dynamic, opset, path)
                else:
                    step(verdict, model, args, probes, dynamic, opset, path)
            if mode is not None:
                verdict.decomposed_at = sorted([key, path_, line] for key, path_, line in mode.sites)
                verdict.decompositions_used = sorted(mode.used)
            if verdict.verdict != OK:
                break
    verdict.latent_guards = []  # tested on the probes (_numerics), or never: no claim to carry
    verdict.seconds = round(time.monotonic() - started, 2)
    return verdict


@contextlib.contextmanager
def _model_file(out: Path | None) -> Iterator[Path]:
    """Where the export is written: ``out``, kept; or a temporary folder deleted afterwards
    (a model can be hundreds of MB, and a pre-commit hook exports on every commit)."""
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        yield out
        return
    with tempfile.TemporaryDirectory(prefix="onnxfix-") as folder:
        yield Path(folder) / "model.onnx"


def _decompositions(ops: list[str] | None, model):
    if ops is None:
        return contextlib.nullcontext()
    from onnxfix.exporter.decompose import decomposition_context

    return decomposition_context(ops or None, model)


def _failed(verdict: Verdict, kind: str, stage: str, error: str, started: float) -> Verdict:
    verdict.verdict, verdict.failed_stage, verdict.error = kind, stage, error
    verdict.seconds = round(time.monotonic() - started, 2)
    return verdict


def _export(verdict: Verdict, model, args, probes, dynamic, opset, path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with _guards_recorded(verdict, model, args, dynamic):
            try:
                export_model(model, args, verdict.exporter, path, dynamic, opset)
            except Exception as exc:  # the exporter's own error is the result
                verdict.verdict, verdict.failed_stage, verdict.error = EXPORT_FAILS, "export", describe(exc)
                verdict.node_traces = failing_node_traces(exc)
                verdict.error_frames = error_frames(exc)
                verdict.unsupported = untranslatable_ops(exc)
    verdict.warnings = [
        {"category": w.category.__name__, "message": str(w.message)[:500], "filename": w.filename, "lineno": w.lineno}
        for w in caught
        if not issubclass(w.category, DeprecationWarning)
    ]


@contextlib.contextmanager
def _guards_recorded(verdict: Verdict, model, args, dynamic) -> Iterator[None]:
    """dynamo: keep the shape guards that restrict declared dynamic dims, and where each
    data-dependent symbol was made (guards.py)."""
    if verdict.exporter != "dynamo":
        yield
        return
    from onnxfix.exporter.guards import guard_reports, recording, user_frames

    with recording() as record:
        yield
    try:
        capture_failed = verdict.error.startswith("TorchExportError")  # torch.onnx step 1: every attempt failed
        verdict.guards = guard_reports(record.guards, input_names(model, len(args)), dynamic or {}, capture_failed,
                                       verdict.latent_guards)
        verdict.unbacked = {s: user_frames(frames) for s, frames in record.unbacked.items()
                            if re.search(rf"\b{re.escape(s)}\b", verdict.error)}
    except Exception as exc:  # the diagnosis must never change the verdict; say it failed
        verdict.warnings.append({"category": "onnxfix", "message": f"shape-guard analysis failed: {describe(exc)}",
                                 "filename": "", "lineno": 0})


def _check_onnx(verdict: Verdict, model, args, probes, dynamic, opset, path: Path) -> None:
    import onnx

    try:
        onnx.checker.check_model(str(path))
    except Exception as exc:  # onnx.checker.ValidationError and friends
        verdict.verdict, verdict.failed_stage, verdict.error = EXPORT_FAILS, "checker", describe(exc)
        return
    verdict.op_histogram = op_histogram(path)


def _numerics(verdict: Verdict, model, args, probes, dynamic, opset, path: Path,
              exporting=contextlib.nullcontext, reexported: tuple | None = None) -> None:
    names = input_names(model, len(args))
    try:
        runtime = Runtime(path)
    except Exception as exc:
        verdict.verdict, verdict.failed_stage, verdict.error = ORT_FAILS, "runtime", f"onnxruntime: {runtime_error(exc)}"
        return
    if verdict.exporter == "legacy":
        runtime.defaults = int_defaults(model, len(args))
    passed, failed = [], []
    for probe in [Probe("export inputs", args), *probes]:
        result = _check_probe(model, runtime, probe, names)
        if not result.ok and probe.redraw is not None:
            from onnxfix.exporter.ties import drawn_without_ties

            check = lambda other: _check_probe(model, runtime, Probe(probe.name, other), names)  # noqa: E731
            result, drawn = drawn_without_ties(model, probe.args, probe.redraw, check, result)
            probe = Probe(probe.name, drawn)
        if not result.ok:
            result.baked = baked_arguments(args, probe.args, names)
        if result.ok and not result.note.startswith("skipped"):
            passed.append(probe.args)
        elif not result.ok:
            failed.append((probe.name, probe.args))
        if _record(verdict, result, path):
            from onnxfix.exporter import divergence

            exported, export_args = reexported or (model, args)
            verdict.divergence = divergence.find(verdict.exporter, path, exported, export_args, probe.args, names, dynamic,
                                                 opset, exporting)
    if isinstance(model, kv_cache.DecoderWithPast) and verdict.verdict == OK:
        for result in kv_cache.generation_probes(model, runtime):
            _record(verdict, result, path)
    if verdict.verdict == OK:  # a guard's "fails e.g. for N" where no probe tried N: measured, not assumed
        passed.extend(_claims_held(model, runtime, names, verdict, args, dynamic, passed, failed))
    if verdict.guards or verdict.latent_guards:
        from onnxfix.exporter.guards import settled

        verdict.guards = settled(verdict.guards, verdict.latent_guards, passed, failed)


def _claims_held(model, runtime: Runtime, names: list[str], verdict: Verdict, args, dynamic, passed, failed) -> list:
    """The args of the probes at a guard report's first excluded size that match eager: they prove
    the report's claim wrong (guards.unenforced drops it). A failing one leaves the claim standing
    and the verdict as it is (the report already says so)."""
    from onnxfix.exporter.guards import EXCLUDED

    claims = [report[EXCLUDED] for report in verdict.guards if EXCLUDED in report]
    tried = [*passed, *(probe_args for _, probe_args in failed)]
    return [probe.args for probe in claim_probes(claims, args, dynamic or {}, tried)
            if _check_probe(model, runtime, probe, names).ok]


def _record(verdict: Verdict, result: ProbeResult, path: Path) -> bool:
    """Adds a probe's result; True when it is the first failure (the verdict now says why)."""
    verdict.probes.append(result)
    if result.ok or verdict.verdict != OK:
        return False
    verdict.failing_probe = result.probe
    if result.note.startswith("onnxruntime"):
        verdict.verdict, verdict.failed_stage = ORT_FAILS, "runtime"
        verdict.error = f"{result.note} (on {result.probe})"  # the runtime error, as the JSON schema says
        verdict.node_traces = onnx_node_traces(path, result.note)
    else:
        verdict.verdict, verdict.failed_stage = SILENTLY_WRONG, "numerics"
    return True


def _redrawn(draw, first: list, failed: list[int], as_tensor) -> list:
    """A second call's outputs, drawn again (three more times at most) while a failed integer output
    repeats the first call's values: a token sampled from the top 15 comes out alike in one pair of
    calls in 15, which proves nothing about sampling. A float output repeated bit for bit is no
    sample: a deterministic failure is not drawn again."""
    values = draw()
    for _ in range(3):
        if len(values) != len(first) or not any(
                not as_tensor(first[i]).is_floating_point() and identical_values(as_tensor(values[i]), as_tensor(first[i]))
                for i in failed):
            break
        values = draw()
    return values


def _check_probe(model, runtime: Runtime, probe: Probe, names: list[str]) -> ProbeResult:
    try:
        expected = eager(model, probe.args)
    except Exception as exc:
        return ProbeResult(probe.name, ok=True, note=f"skipped: eager rejects this probe ({describe(exc)[:120]})")
    try:
        actual = runtime.run(probe.args, names)
    except Exception as exc:
        return ProbeResult(probe.name, ok=False, note=f"onnxruntime: {runtime_error(exc)}")
    outputs = _random_not_compared(model, runtime, probe, names, expected, actual, compare(expected, actual))
    known = [o for o in outputs if o.max_abs is not None]
    ok = all(o.ok for o in outputs)
    note = "; ".join(f"output {o.index}: {o.note}" for o in outputs if o.note)
    return ProbeResult(
        probe.name,
        max_abs=max((o.max_abs for o in known), default=None) if len(known) == len(outputs) else None,
        max_rel=max((o.max_rel for o in known), default=None) if len(known) == len(outputs) else None,
        ok=ok, note=note, outputs=outputs,
    )


RANDOM_NOTE = "random: eager and onnxruntime each give other values on a second call, not compared"


def _random_not_compared(model, runtime: Runtime, probe: Probe, names: list[str], expected: list[torch.Tensor],
                         actual: list, outputs: list[OutputError]) -> list[OutputError]:
    """Outputs that differ from onnxruntime's, where a second eager call and a second
    onnxruntime run on the same input both give other values (and onnxruntime's is within eager's
    own spread, with its shape and dtype), are sampled
    (`Normal(...).rsample()` on a policy's stochastic path): no export can match them value for
    value, so they are not compared, and say so; the other outputs still are. An output only
    eager samples (the legacy trace froze the branch that samples) still fails."""
    failed = [o.index for o in outputs if not o.ok and o.index >= 0]
    if not failed:
        return outputs
    try:
        again = _redrawn(lambda: eager(model, probe.args), expected, failed, lambda v: v)
        rerun = _redrawn(lambda: runtime.run(probe.args, names), actual, failed, torch.from_numpy)
    except Exception:  # noqa: BLE001 - they ran once: a second failure proves nothing either way
        return outputs
    if len(again) != len(expected) or len(rerun) != len(actual):
        return outputs
    random = {
        i for i in failed
        if not identical_values(expected[i], again[i])
        and not identical_values(torch.from_numpy(actual[i]), torch.from_numpy(rerun[i]))
        and within_eager_spread(expected[i], again[i], torch.from_numpy(actual[i]))
    }
    return [replace(o, max_abs=None, max_rel=None, ok=True, note=RANDOM_NOTE) if o.index in random else o for o in outputs]
