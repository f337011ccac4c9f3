"""Measure which operator variants export, under which exporter and opset, on the installed torch.

    python -m onnxfix.exporter.catalog_probe            # resume: probe what is missing
    python -m onnxfix.exporter.catalog_probe --force    # re-probe everything (after a torch upgrade
                                                        # this happens anyway: records carry the version)
    python -m onnxfix.exporter.catalog_probe --only cumprod --only linalg
    python -m onnxfix.exporter.catalog_probe --merge shard.json   # records of a run with --out

Writes ``onnxfix/data/operator_catalog.json`` after every case (so an interrupted run resumes
where it stopped). For each case (catalog_cases.CASES) and exporter, it exports at the default
opset 20 and, if that works, walks down the opsets (legacy 18, 17, 16, 13, 11; dynamo 18)
until one fails: ``lowest_opset`` is the lowest that worked. Each export is compared with eager
PyTorch in onnxruntime on the export inputs and two other value sets.

Cases run in batches in child processes: a child that segfaults (the dynamo exporter does on some
graphs) or hangs costs only the case it was on (CRASH / TIMEOUT), and a fresh child continues.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from onnxfix.exporter.catalog_cases import CASES, Case

CATALOG_PATH = Path(__file__).resolve().parent.parent / "data" / "operator_catalog.json"
DEFAULT_OPSET = 20
LOWER_OPSETS = {"legacy": (18, 17, 16, 13, 11), "dynamo": (18,)}  # dynamo below 18 = version conversion
EXPORTERS = ("dynamo", "legacy")
CASE_TIMEOUT = 240.0
MARKER = "CATALOG-RESULT "


# ---- child side -------------------------------------------------------------------------------
def _generators(seed: int):
    import torch

    g = torch.Generator().manual_seed(seed)

    def R(*shape):  # noqa: N802 - short names keep the case table readable
        return torch.randn(shape, generator=g)

    def P(*shape):  # noqa: N802
        return torch.rand(shape, generator=g) * 3 + 0.2

    def U(lo, hi, *shape):  # noqa: N802
        return torch.rand(shape, generator=g) * (hi - lo) + lo

    def I(lo, hi, *shape):  # noqa: N802, E743
        return torch.randint(lo, hi, shape, generator=g)

    def T(*shape):  # noqa: N802 - values with ties
        return torch.randint(0, 4, shape, generator=g).float()

    def S(n):  # noqa: N802
        return torch.randn(n, generator=g).sort().values

    def WC(n, *batch):  # noqa: N802 - well conditioned
        return torch.randn(*batch, n, n, generator=g) + n * torch.eye(n)

    def SPD(n):  # noqa: N802
        a = torch.randn(n, n, generator=g)
        return a @ a.T + n * torch.eye(n)

    return {"torch": torch, "R": R, "P": P, "U": U, "I": I, "T": T, "S": S, "WC": WC, "SPD": SPD}


def make_module(case: Case):
    import torch

    from onnxfix.exporter.decompose import register_libraries

    register_libraries(case.op)  # a custom op's library registers it
    namespace = {"torch": torch}
    exec(f"def forward(self, {case.params}):\n    return {case.expr}\n", namespace)  # noqa: S102 - our own table
    return type("OpCase", (torch.nn.Module,), {"forward": namespace["forward"]})()


def case_inputs(case: Case, seed: int) -> tuple:
    if case.proof:
        import torch

        from onnxfix.exporter.proof_inputs import evaluate

        return evaluate(case.inputs, torch.Generator().manual_seed(seed), 2)
    return tuple(eval(case.inputs, _generators(seed)))  # noqa: S307 - our own table


GROWN = -1  # the probe whose dynamic dims are one longer than the export's


def _grown(args: tuple, dynamic: tuple[tuple[int, int], ...]) -> tuple:
    """``args`` with each dynamic dim one longer (its first slice repeated at the end): a case
    exported with dynamic sizes is also run on sizes it was not exported with, values in range."""
    import torch

    args = list(args)
    for index, dim in dynamic:
        tensor = args[index]
        args[index] = torch.cat([tensor, tensor.narrow(dim, 0, 1)], dim)
    return tuple(args)


def probe_one(case: Case, exporter: str, opset: int) -> dict:
    """Export ``case`` at ``opset`` and compare with eager: {"verdict", "error", ...}."""
    with tempfile.TemporaryDirectory(prefix="onnxfix-cat-") as folder:
        return _probe_into(case, exporter, opset, Path(folder) / "m.onnx")


def _probe_into(case: Case, exporter: str, opset: int, path: Path) -> dict:
    import warnings

    import torch

    from onnxfix.exporter import comparison, verify

    model = make_module(case).eval()
    args = case_inputs(case, 0)
    verify.eager(model, args)  # a case eager PyTorch rejects is a bug in the table: CASE-ERROR
    names = verify.input_names(model, len(args))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with open(os.devnull, "w") as devnull, _redirect_stdout(devnull):
                verify.export_model(model, args, exporter, path, case.dynamic_spec(), opset)
        except Exception as exc:  # the exporter's error is the measurement
            return {"verdict": verify.EXPORT_FAILS, "error": _short_error(exc)}
    for seed in (0, 1, 2, *((GROWN,) if case.dynamic else ())):
        probe = _grown(case_inputs(case, 1), case.dynamic) if seed == GROWN else case_inputs(case, seed)
        expected = verify.eager(model, probe)
        try:
            actual = comparison.run_onnx(path, probe, names)
        except Exception as exc:
            return {"verdict": verify.ORT_FAILS, "error": _short_error(exc)}
        if case.random:
            ok = [tuple(e.shape) for e in expected] == [tuple(a.shape) for a in actual]
            max_abs = 0.0
        else:
            errors = comparison.compare(expected, actual)
            ok = all(e.ok for e in errors)
            max_abs = max((float("inf") if e.max_abs is None else e.max_abs for e in errors), default=0.0)
        if not ok:
            where = ("export inputs" if seed == 0 else "other sizes of its dynamic dims" if seed == GROWN
                     else f"other values (seed {seed})")
            return {"verdict": verify.SILENTLY_WRONG, "error": f"differs on {where}: max abs error {max_abs:.3g}"}
    del torch
    return {"verdict": verify.OK, "error": ""}


class _redirect_stdout:
    """The dynamo exporter prints progress to stdout; the child's stdout is our result channel."""

    def __init__(self, target):
        self.target = target

    def __enter__(self):
        sys.stdout.flush()
        self.saved = os.dup(1)
        os.dup2(self.target.fileno(), 1)

    def __exit__(self, *exc):
        sys.stdout.flush()
        os.dup2(self.saved, 1)
        os.close(self.saved)


def _short_error(exc: BaseException) -> str:
    """The most specific line: the innermost cause's type and first message line."""
    inner = exc
    while inner.__cause__ is not None:
        inner = inner.__cause__
    text = str(inner).strip().splitlines()
    first = next((line for line in text if "No ONNX function found" in line or "Unsupported" in line), text[0] if text else "")
    message = f"{type(inner).__name__}: {first}"
    if inner is not exc:
        message = f"{type(exc).__name__} <- {message}"
    return message[:300]


def probe_case(case: Case, exporter: str) -> dict:
    """Default opset first; if it works, walk down until an opset fails."""
    default = probe_one(case, exporter, DEFAULT_OPSET)
    record = {"verdict": default["verdict"], "error": default["error"], "opsets": {str(DEFAULT_OPSET): default["verdict"]}}
    lowest = DEFAULT_OPSET if default["verdict"] == "OK" else None
    if lowest is not None:
        for opset in LOWER_OPSETS[exporter]:
            result = probe_one(case, exporter, opset)
            record["opsets"][str(opset)] = result["verdict"]
            if result["verdict"] != "OK":
                record["lowest_opset_error"] = result["error"]
                break
            lowest = opset
    record["lowest_opset"] = lowest
    return record


def child_main() -> None:
    jobs = json.loads(sys.stdin.read())
    by_id = {c.id: c for c in CASES}
    for case_id, exporter in jobs:
        print(MARKER + json.dumps({"start": [case_id, exporter]}), flush=True)
        try:
            record = probe_case(by_id[case_id], exporter)
        except Exception as exc:  # building inputs or eager failed: a bug in the case table
            record = {"verdict": "CASE-ERROR", "error": _short_error(exc), "opsets": {}, "lowest_opset": None}
        print(MARKER + json.dumps({"done": [case_id, exporter], "record": record}), flush=True)


# ---- parent side ------------------------------------------------------------------------------
def torch_versions() -> dict:
    from importlib.metadata import version

    return {name: version(name) for name in ("torch", "onnx", "onnxruntime", "onnxscript")}


def load_catalog(path: Path) -> dict:
    if path.exists():
        return json.loads(path.read_text())
    return {}


def save_catalog(path: Path, catalog: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(catalog, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def run_batch(jobs: list[tuple[str, str]], on_record) -> list[tuple[str, str]]:
    """Run jobs in one child; returns the jobs left when the child died (the dying one excluded)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "onnxfix.exporter.catalog_probe", "--child"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    proc.stdin.write(json.dumps(jobs))
    proc.stdin.close()
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    remaining = list(jobs)
    current = None
    deadline = time.monotonic() + CASE_TIMEOUT
    while True:
        if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
            proc.kill()
            proc.wait()
            if current:
                on_record(current, {"verdict": "TIMEOUT", "error": f"no result in {CASE_TIMEOUT:.0f} s", "opsets": {}, "lowest_opset": None})
                remaining.remove(current)
            return remaining
        line = proc.stdout.readline()
        if not line:
            code = proc.wait()
            if current:
                on_record(current, {"verdict": "CRASH", "error": f"exporter process died (exit {code})", "opsets": {}, "lowest_opset": None})
                remaining.remove(current)
            return remaining
        if not line.startswith(MARKER):
            continue
        message = json.loads(line[len(MARKER):])
        if "start" in message:
            current = tuple(message["start"])
            deadline = time.monotonic() + CASE_TIMEOUT
        else:
            job = tuple(message["done"])
            on_record(job, message["record"])
            remaining.remove(job)
            current = None


def _merge(ops: dict, other: dict, torch_version: str) -> None:
    for case_id, entry in other.get("ops", {}).items():
        for exporter, record in entry.get("exporters", {}).items():
            if case_id in ops and not _needs_probe(record, torch_version):
                ops[case_id]["exporters"][exporter] = record


def _needs_probe(record: dict, torch_version: str) -> bool:
    """Not measured on this torch yet, or the case itself was broken (CASE-ERROR)."""
    return record.get("torch") != torch_version or record.get("verdict") == "CASE-ERROR"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m onnxfix.exporter.catalog_probe", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=CATALOG_PATH)
    parser.add_argument("--force", action="store_true", help="re-probe cases already measured on this torch")
    parser.add_argument("--only", action="append", default=[], help="probe only cases whose id contains this text")
    parser.add_argument("--exporter", choices=EXPORTERS, action="append")
    parser.add_argument("--batch", type=int, default=25, help="cases per child process")
    parser.add_argument("--merge", type=Path, action="append", default=[],
                        help="copy the records of another catalog file (a parallel run's --out) measured on this torch")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.child:
        child_main()
        return 0
    versions = torch_versions()
    catalog = load_catalog(options.out)
    if catalog.get("versions") != versions:
        catalog = {"versions": versions, "ops": catalog.get("ops", {}), "stale": True}
    catalog["versions"] = versions
    catalog["default_opset"] = DEFAULT_OPSET
    catalog["probed_opsets"] = {e: [DEFAULT_OPSET, *LOWER_OPSETS[e]] for e in EXPORTERS}
    ops = catalog.setdefault("ops", {})
    for case in CASES:  # the table may have changed: keep the metadata current
        entry = ops.setdefault(case.id, {"exporters": {}})
        entry.update(op=case.op, variant=case.variant, call=case.expr, random=case.random)
    for stale in set(ops) - {c.id for c in CASES}:
        del ops[stale]
    for shard in options.merge:
        _merge(ops, load_catalog(shard), versions["torch"])
        save_catalog(options.out, catalog)
    if options.merge:
        return 0
    exporters = options.exporter or list(EXPORTERS)
    jobs = [
        (case.id, exporter)
        for case in CASES
        if not options.only or any(text in case.id for text in options.only)
        for exporter in exporters
        if options.force or _needs_probe(ops[case.id]["exporters"].get(exporter, {}), versions["torch"])
    ]
    print(f"{len(jobs)} export jobs to run ({len(CASES)} cases, torch {versions['torch']})", flush=True)

    def on_record(job, record):
        case_id, exporter = job
        record["torch"] = versions["torch"]
        ops[case_id]["exporters"][exporter] = record
        save_catalog(options.out, catalog)
        print(f"{exporter:7} {record['verdict']:15} lowest={record.get('lowest_opset')}  {case_id}", flush=True)

    save_catalog(options.out, catalog)
    while jobs:
        batch, jobs = jobs[: options.batch], jobs[options.batch :]
        left = run_batch(batch, on_record)
        jobs = left + jobs
    catalog.pop("stale", None)
    save_catalog(options.out, catalog)
    return 0


if __name__ == "__main__":
    sys.exit(main())
