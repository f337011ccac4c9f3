"""Probe every entry of torch's OpInfo database (`op_db`) under both ONNX exporters.

    python bench/opdb_probe.py --jobs 2          # resume: probe what bench/out/opdb/ lacks
    python bench/opdb_probe.py --only scatter_reduce --only linalg.svd
    python bench/opdb_probe.py --render          # merge the shards into onnxfix/data/opdb_verdicts.json
                                                 # and docs/opdb.md (also done at the end of a run)

What torch.onnx's own op-consistency tests are built on is the widest list of ops and argument
patterns there is: 702 OpInfo entries in torch 2.13, each with sample inputs. Per entry and dtype
(float32, and int64 / bool where the op supports them), the samples are reduced to their argument
patterns (tensor ranks, non-tensor arguments, keyword arguments: `reduce='mean'`, `include_self=False`,
`dim=1`, ...); each pattern's first sample is wrapped in a module and exported with
torch.export + torch.onnx (dynamo) and with the TorchScript exporter (legacy), at opset 20, then run
in onnxruntime against eager on the sample. Verdicts: OK, EXPORT-FAILS, ORT-FAILS (the model does not
load or run), SILENTLY-WRONG (values or dtype differ), CRASH / TIMEOUT (the exporter killed or hung
the child), SKIP (with the reason: random op, non-tensor output, ...). The ATen overloads torch.export
traced are stored with each record: the rules key operators on them.

Needs `expecttest` (torch's test helpers import it): `pip install expecttest`. Hours are fine: the run
is sharded (`--jobs`), each shard appends to its own JSON-lines file, and a run resumes where the last
stopped. A child that segfaults or hangs costs the pattern it was on, recorded as CRASH / TIMEOUT.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
OUT = Path(__file__).resolve().parent / "out" / "opdb"
PATTERN_TIMEOUT = 180.0
MAX_PATTERNS = {"float32": 4, "int64": 1, "bool": 1}
OPSET = 20


# ------------------------------------------------------------------------------ child side

def _describe(value) -> str:
    """A sample argument as a pattern: tensors by rank and dtype, the rest by value."""
    import torch
    if isinstance(value, torch.Tensor):
        return f"T{value.dim()}" + ("" if value.dtype == torch.float32 else f":{str(value.dtype)[6:]}")
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_describe(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, float):
        return repr(round(value, 4))
    if callable(value):
        return getattr(value, "__name__", type(value).__name__)
    return repr(value)


def pattern_of(sample) -> str:
    parts = [_describe(sample.input)] + [_describe(a) for a in sample.args]
    parts += [f"{k}={_describe(v)}" for k, v in sorted(sample.kwargs.items())]
    return ", ".join(parts)


def op_key(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def probe_dtypes(op) -> list:
    import torch
    supported = op.supported_dtypes("cpu")
    chosen = [d for d in (torch.float32, torch.int64, torch.bool) if d in supported]
    return chosen or sorted(supported, key=str)[:1]


def tasks_of(op):
    """(key, dtype name, pattern, sample) per distinct argument pattern, capped per dtype."""
    import torch
    for dtype in probe_dtypes(op):
        name = str(dtype)[6:]
        torch.manual_seed(0)
        seen = []
        for sample in op.sample_inputs("cpu", dtype, requires_grad=False):
            pattern = pattern_of(sample)
            if pattern in seen:
                continue
            seen.append(pattern)
            yield f"{op_key(op)}|{name}|{pattern}", name, pattern, sample
            if len(seen) >= MAX_PATTERNS.get(name, 1):
                break


def _module_for(op, sample):
    """A module whose forward takes the sample's tensors and calls the op on them."""
    import torch
    from torch.utils._pytree import tree_flatten, tree_unflatten
    leaves, spec = tree_flatten((sample.input, list(sample.args), dict(sample.kwargs)))
    where = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]
    fn = op.op

    class OpCase(torch.nn.Module):
        def forward(self, *tensors):
            filled = list(leaves)
            for i, t in zip(where, tensors):
                filled[i] = t
            inp, args, kwargs = tree_unflatten(filled, spec)
            out, _ = tree_flatten(fn(inp, *args, **kwargs))
            # A complex result leaves the graph as (real, imag) pairs: ONNX has no complex outputs,
            # and this is how a model returns one (the op inside is what the probe measures).
            return tuple(torch.view_as_real(o.resolve_conj()) if o.is_complex() else o for o in out if isinstance(o, torch.Tensor))

    return OpCase().eval(), tuple(leaves[i].detach().clone() for i in where)


def _first_line(exc: BaseException) -> str:
    """The exception's first line, behind the causes' (`ConversionError <- DispatchError: No ONNX
    function found for <OpOverload(op='aten.cholesky', ...)>`): the innermost cause names the op."""
    import re
    chain, seen = [], exc
    while seen is not None and len(chain) < 4:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    inner = chain[-1]
    line = next((l for l in str(inner).splitlines() if l.strip()), "")
    text = " <- ".join(type(e).__name__ for e in chain) + f": {line}"
    return re.sub(r"\x1b\[[0-9;]*m", "", text)[:300]


def _compare(expected, got) -> str:
    """"" when onnxruntime's outputs match eager's, else how they differ."""
    import numpy as np
    if len(expected) != len(got):
        return f"{len(got)} outputs, eager has {len(expected)}"
    for i, (e, g) in enumerate(zip(expected, got)):
        e = e.detach().numpy() if e.dtype != __import__("torch").bfloat16 else e.float().numpy()
        g = np.asarray(g)
        if e.shape != g.shape:
            return f"output {i}: shape {list(g.shape)}, eager {list(e.shape)}"
        if e.dtype != g.dtype:
            return f"output {i}: dtype {g.dtype}, eager {e.dtype}"
        if e.dtype == bool or np.issubdtype(e.dtype, np.integer):
            if not np.array_equal(e, g):
                return f"output {i}: {int((e != g).sum())} of {e.size} values differ"
            continue
        scale = max(1.0, float(np.nanmax(np.abs(e))) if e.size and np.isfinite(e).any() else 1.0)
        if not np.allclose(e, g, rtol=1e-3, atol=1e-4 * scale, equal_nan=True):
            err = np.nanmax(np.abs(e.astype(np.float64) - g.astype(np.float64))) if e.size else 0.0
            return f"output {i}: max abs error {err:.3g}"
    return ""


def _run_onnx(model_bytes: bytes, inputs, expected) -> dict:
    import onnxruntime as ort
    try:
        session = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    except Exception as exc:
        return {"verdict": "ORT-FAILS", "error": _first_line(exc)}
    names = [i.name for i in session.get_inputs()]
    feed = {n: t.numpy() for n, t in zip([f"in{i}" for i in range(len(inputs))], inputs) if n in names}
    if len(feed) != len(names):  # the exporter renamed its inputs: feed them in order
        feed = {n: t.numpy() for n, t in zip(names, inputs)}
    try:
        got = session.run(None, feed)
    except Exception as exc:
        return {"verdict": "ORT-FAILS", "error": _first_line(exc)}
    differs = _compare(expected, got)
    return {"verdict": "SILENTLY-WRONG", "error": differs} if differs else {"verdict": "OK", "error": ""}


def export_dynamo(model, inputs, expected) -> tuple[dict, list[str]]:
    import torch
    names = [f"in{i}" for i in range(len(inputs))]
    try:
        ep = torch.export.export(model, inputs, strict=False)
    except Exception as exc:
        return {"verdict": "EXPORT-FAILS", "stage": "torch.export", "error": _first_line(exc)}, []
    aten = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"
                   and isinstance(n.target, torch._ops.OpOverload)})
    try:
        program = torch.onnx.export(ep, inputs, dynamo=True, opset_version=OPSET, input_names=names, verbose=False)
        data = program.model_proto.SerializeToString()
    except Exception as exc:
        return {"verdict": "EXPORT-FAILS", "stage": "onnx", "error": _first_line(exc)}, aten
    return _run_onnx(data, inputs, expected), aten


def export_legacy(model, inputs, expected) -> dict:
    import io
    import warnings

    import torch
    buffer = io.BytesIO()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, inputs, buffer, dynamo=False, opset_version=OPSET,
                              input_names=[f"in{i}" for i in range(len(inputs))])
    except Exception as exc:
        return {"verdict": "EXPORT-FAILS", "error": _first_line(exc)}
    return _run_onnx(buffer.getvalue(), inputs, expected)


def probe_one(op, sample) -> dict:
    import torch
    model, inputs = _module_for(op, sample)
    try:
        with torch.no_grad():
            first, second = model(*inputs), model(*inputs)
    except Exception as exc:
        return {"skip": f"eager fails: {_first_line(exc)}"}
    if not first:
        return {"skip": "no tensor output"}
    if not all(a.shape == b.shape and torch.equal(a.nan_to_num(), b.nan_to_num()) for a, b in zip(first, second)):
        return {"skip": "random: two eager calls differ"}
    if any(t.is_complex() for t in inputs):
        return {"skip": "complex inputs (ONNX has no complex inputs; complex results are probed as view_as_real pairs)"}
    dynamo, aten = export_dynamo(model, inputs, first)
    return {"aten": aten, "dynamo": dynamo, "legacy": export_legacy(model, inputs, first)}


def _reuse_onnx_registry() -> None:
    """torch.onnx builds its ATen -> ONNX registry from torchlib on every export (~2.5 s, most of a
    small op's export): build it once per opset. The probe passes no custom translation table, so
    nothing registers into it."""
    from torch.onnx._internal.exporter import _registration
    build = _registration.ONNXRegistry.from_torchlib.__func__
    built = {}

    def from_torchlib(cls, opset_version=_registration._constants.TORCHLIB_OPSET):
        if opset_version not in built:
            built[opset_version] = build(cls, opset_version)
        return built[opset_version]

    _registration.ONNXRegistry.from_torchlib = classmethod(from_torchlib)


def child(shard: int, jobs: int, only: list[str], done_path: Path, beat_path: Path) -> None:
    _reuse_onnx_registry()
    import warnings
    warnings.simplefilter("ignore")
    import logging
    logging.disable(logging.WARNING)
    from torch.testing._internal.common_methods_invocations import op_db
    done = set().union(*map(_done_keys, OUT.glob("shard*.jsonl")))
    with done_path.open("a") as out:
        for index, op in enumerate(op_db):
            if index % jobs != shard or (only and not any(o in op_key(op) for o in only)):
                continue
            try:
                tasks = list(tasks_of(op))
            except Exception as exc:
                key = f"{op_key(op)}|-|-"
                if key not in done:
                    out.write(json.dumps({"key": key, "op": op_key(op), "skip": f"samples fail: {_first_line(exc)}"}) + "\n")
                    out.flush()
                continue
            if not tasks:
                key = f"{op_key(op)}|-|-"
                if key not in done:
                    out.write(json.dumps({"key": key, "op": op_key(op), "skip": "no sample inputs on CPU for float32, int64 or bool"}) + "\n")
                    out.flush()
            for key, dtype, pattern, sample in tasks:
                if key in done:
                    continue
                beat_path.write_text(key)
                record = {"key": key, "op": op_key(op), "aten_name": op.aten_name, "dtype": dtype, "pattern": pattern}
                record.update(probe_one(op, sample))
                out.write(json.dumps(record) + "\n")
                out.flush()
    beat_path.write_text("")


# ------------------------------------------------------------------------------ parent side

def _done_keys(path: Path) -> set[str]:
    if not path.exists():
        return set()
    keys = set()
    for line in path.read_text().splitlines():
        try:
            keys.add(json.loads(line)["key"])
        except (ValueError, KeyError):
            continue  # a line cut by a crash
    return keys


def run_shard(shard: int, jobs: int, only: list[str]) -> None:
    """Children until the shard is done; a dead or hung child's pattern is recorded and skipped."""
    done_path, beat_path = OUT / f"shard{shard}.jsonl", OUT / f"shard{shard}.beat"
    while True:
        beat_path.write_text("")
        cmd = [sys.executable, __file__, "--child", str(shard), "--jobs", str(jobs)] + [a for o in only for a in ("--only", o)]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        verdict = None
        while proc.poll() is None:
            time.sleep(2)
            if beat_path.read_text() and time.time() - beat_path.stat().st_mtime > PATTERN_TIMEOUT:
                proc.kill()
                proc.wait()
                verdict = "TIMEOUT"
        key = beat_path.read_text()
        if proc.returncode == 0 and not key:
            return
        if not key:  # died before its first pattern (an import failed): nothing to skip
            raise SystemExit(f"shard {shard}: the child exited {proc.returncode} before probing")
        if key in _done_keys(done_path):  # died between patterns
            continue
        verdict = verdict or f"CRASH (exit {proc.returncode})"
        op = key.split("|")[0]
        failed = {"verdict": verdict.split()[0], "error": verdict}
        with done_path.open("a") as out:
            out.write(json.dumps({"key": key, "op": op, "dtype": key.split("|")[1], "pattern": key.split("|", 2)[2],
                                  "dynamo": failed, "legacy": failed, "aten": []}) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="shards run at once (default 2)")
    parser.add_argument("--only", action="append", default=[], help="op names containing this (repeatable)")
    parser.add_argument("--render", action="store_true", help="only merge the shards and write the page")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.child is not None:
        child(args.child, args.jobs, args.only, OUT / f"shard{args.child}.jsonl", OUT / f"shard{args.child}.beat")
        return 0
    if not args.render:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            list(pool.map(lambda s: run_shard(s, args.jobs, args.only), range(args.jobs)))
    import opdb_doc
    opdb_doc.write(sorted(OUT.glob("shard*.jsonl")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
