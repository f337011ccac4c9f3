"""Run the real-world corpus (tests/realworld/) through the whole onnxfix loop and write docs/realworld.md.

Per case, in its own subprocess with a timeout:
  1. `onnxfix` report on a copy of the case (--exporters dynamo,legacy, JSON);
  2. `onnxfix --write` on a second copy (safe fixes), `--write --unsafe-fixes` on a third;
  3. eager outputs of each fixed copy vs the original: torch.equal on example_inputs() and
     every other_inputs() set (same seed before make_model, so the weights are the same);
  4. export with dynamo (torch.onnx.export(dynamo=True), the default) and legacy (dynamo=False),
     before and after each fix, through onnxfix's own export checker (onnxfix.exporter.isolate:
     one child process per export; onnxruntime on example_inputs(), other_inputs(), re-drawn
     values and grown dynamic dims, vs eager). A fixed copy identical to the original reuses the
     original's verdict.

Usage:
  python bench/realworld.py                       # every case, writes docs/realworld.md
  python bench/realworld.py CASE_NAME [...]       # a subset (by file stem), writes nothing unless --out
  python bench/realworld.py --json out.json ...   # also keep the raw results
  python bench/realworld.py --update CASE [...]   # re-run some cases, merge into bench/out/realworld.json,
                                                  # rewrite docs/realworld.md
  python bench/realworld.py --blind --export-fix --update   # the blind cases, also through
                                                  # `onnxfix export --write --unsafe-fixes`, merged
The raw results of a full run are kept in bench/out/realworld.json.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the shared bench modules
import realworld_doc  # noqa: E402  (docs/realworld.md, shared with transformers_export.py)
from realworld_doc import EXPORTERS, RAW, VARIANTS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "realworld"
CASE_TIMEOUT = 900.0
EXPORT_TIMEOUT = 240.0
EXPORT_FIX_TIMEOUT = 900.0


# ---------------------------------------------------------------- reading a case (no import)

def case_meta(path: Path) -> dict:
    """CLASS, FAMILY, CONTROL, DYNAMIC and the docstring's first line, read from the syntax tree."""
    tree = ast.parse(path.read_text())
    meta = {"name": path.stem, "doc": (ast.get_docstring(tree) or "").strip(), "DYNAMIC": {}, "CONTROL": False,
            "CLASS": "", "FAMILY": "", "BLIND": ""}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("DYNAMIC", "CONTROL", "CLASS", "FAMILY", "BLIND"):
                meta[node.targets[0].id] = ast.literal_eval(node.value)
    meta["url"] = next((w for w in meta["doc"].split() if w.startswith(("https://", "http://"))), "")
    return meta


def case_paths(names: list[str]) -> list[Path]:
    every = sorted(p for p in CORPUS.glob("*.py") if not p.name.startswith("_"))
    if not names:
        return every
    by_name = {p.stem: p for p in every}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise SystemExit(f"no such case(s) in {CORPUS}: {', '.join(missing)}")
    return [by_name[n] for n in names]


# ---------------------------------------------------------------- one case (child process)

def onnxfix_cli(path: Path, *flags: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "onnxfix", str(path), "--exporters", "dynamo,legacy", "--no-cache", *flags]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=path.parent, env=_env(), timeout=300)


def _env() -> dict:
    import os
    return dict(os.environ, PYTHONPATH=str(ROOT) + (":" + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else ""))


def static_report(path: Path) -> list[dict]:
    done = onnxfix_cli(path, "--format", "json", "--exit-zero")
    if done.returncode != 0:
        raise RuntimeError(f"onnxfix report failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return [{"code": f["code"], "line": f["location"]["row"], "fix": (f["fix"] or {}).get("applicability")}
            for f in json.loads(done.stdout)]


def fixed_copy(case: Path, folder: Path, unsafe: bool) -> tuple[Path, str]:
    folder.mkdir(parents=True)
    copy = folder / case.name
    shutil.copy(case, copy)
    flags = ["--write", "--quiet", "--exit-zero"] + (["--unsafe-fixes"] if unsafe else [])
    done = onnxfix_cli(copy, *flags)
    status = "" if done.returncode == 0 else f"onnxfix --write exited {done.returncode}: {done.stderr.strip()[-300:]}"
    return copy, status


def export_fixed_copy(case: Path, folder: Path) -> tuple[Path, str, list[str]]:
    """`onnxfix export CASE:make_model --exporter both --write --unsafe-fixes` on a copy: the fix loop
    that runs the model, repairs by the run's failures and keeps a fix only if no verdict gets worse.
    Also the export-time decompositions its last export ran with (code it does not edit: the
    ONNX file the command writes carries them)."""
    folder.mkdir(parents=True)
    copy = folder / case.name
    shutil.copy(case, copy)
    cmd = [sys.executable, "-m", "onnxfix", "export", f"{copy}:make_model", "--exporter", "both", "--write",
           "--unsafe-fixes", "--no-progress", "--format", "json"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=folder, env=_env(), timeout=EXPORT_FIX_TIMEOUT)
    except subprocess.TimeoutExpired:
        return copy, f"onnxfix export --write timed out after {EXPORT_FIX_TIMEOUT:g} s", []
    if done.returncode not in (0, 1):
        return copy, f"onnxfix export --write exited {done.returncode}: {done.stderr.strip()[-300:]}", []
    try:
        fix = json.loads(done.stdout)["targets"][0].get("fix") or {}
    except (ValueError, KeyError, IndexError):
        fix = {}
    return copy, "", list(fix.get("decompositions") or [])


def load_case(path: Path, tag: str):
    spec = importlib.util.spec_from_file_location(f"realworld_{tag}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def eager_outputs(path: Path, tag: str) -> list:
    import torch
    module = load_case(path, tag)
    torch.manual_seed(0)
    model = module.make_model().eval()
    sets = [module.example_inputs()] + list(module.other_inputs())
    outs = []
    with torch.no_grad():
        for args in sets:
            out = model(*(args if isinstance(args, tuple) else (args,)))
            outs.append(out if isinstance(out, (tuple, list)) else (out,))
    return outs


def eager_unchanged(original: Path, fixed: Path) -> str:
    """"" when every output is torch.equal on every input set, else what differs."""
    import torch
    try:
        ref, got = eager_outputs(original, "orig"), eager_outputs(fixed, "fixed")
    except Exception as exc:  # the fixed file no longer runs: that is a changed result
        return f"fixed copy does not run: {type(exc).__name__}: {exc}"[:300]
    for i, (a, b) in enumerate(zip(ref, got)):
        if not _same_output(a, b, torch):
            return f"input set {i}: outputs differ"
    return ""


def _same_output(a, b, torch) -> bool:
    """Bit-identical tensors in the same structure (lists of tensors, dicts, numbers); NaN where NaN
    (VietOCR's per-sample probabilities are 0 / 0 in the original too)."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape):
            return False
        if a.is_floating_point() or a.is_complex():
            return bool(torch.equal(a.isnan(), b.isnan()) and torch.equal(a.nan_to_num(0.0), b.nan_to_num(0.0)))
        return torch.equal(a, b)
    if type(a).__name__ == "ndarray" or type(b).__name__ == "ndarray":  # a model returning NumPy (MMFlow's flow dicts)
        import numpy
        return (type(a).__name__ == type(b).__name__ and a.dtype == b.dtype and a.shape == b.shape
                and numpy.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_output(x, y, torch) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_output(a[k], b[k], torch) for k in a)
    if type(a).__name__ == type(b).__name__ and hasattr(a, "__dict__") and hasattr(b, "__dict__"):
        # an object of the case's own class (a cache, a dataclass): the two copies load the class
        # twice, so compare what the objects hold, not their identity
        return _same_output(vars(a), vars(b), torch)
    return a == b


def export_verdict(path: Path, exporter: str, dynamic: dict, isolated: bool, decompose: list[str] | None = None) -> dict:
    """One export + onnxruntime check through onnxfix's export checker.

    In the case's own process by default (importing torch once per case instead of once per export
    is what makes the corpus run in minutes on a loaded machine); ``isolated`` runs each export in
    its own child (onnxfix.exporter.isolate), the fallback when a case's process dies."""
    from onnxfix.exporter.isolate import ExportRequest, run_isolated
    request = ExportRequest(model=f"{path}:make_model", inputs=f"{path}:example_inputs", exporter=exporter,
                            probes=f"{path}:other_inputs", dynamic=dynamic, sys_path=[str(path.parent)],
                            decompose=decompose or None)
    global _LEGACY_TAINTED
    if isolated or (exporter == "legacy" and _LEGACY_TAINTED):
        verdict = run_isolated(request, timeout=EXPORT_TIMEOUT)
    else:
        verdict = _in_process(request)
        # a legacy trace that raised leaves TorchScript's stash of traced size lists behind: the next
        # legacy trace in this process pops it and fails ("size == list_trace.size() INTERNAL ASSERT",
        # measured on torch 2.13 after Chatterbox's "Cannot insert a Tensor that requires grad"), so
        # this process's later legacy exports run in children (onnxfix export always isolates them)
        _LEGACY_TAINTED |= exporter == "legacy" and verdict.failed_stage == "export"
    error, cause = realworld_doc.error_and_cause(verdict)
    return {"verdict": verdict.verdict, "error": error[:200], "cause": cause[:300], "probe": verdict.failing_probe}


_LEGACY_TAINTED = False


def _in_process(request):
    import warnings

    from onnxfix.exporter.errors import describe
    from onnxfix.exporter.verify import LOAD_FAILS, Verdict, verify
    from onnxfix.exporter.worker import load
    try:
        model, args, probes, dynamic = load(request)
    except Exception as exc:
        return Verdict(request.exporter, LOAD_FAILS, failed_stage="load", error=f"could not load target: {describe(exc)}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return verify(lambda: model, args, probes, request.exporter, dynamic, None, None, decompose=request.decompose)


_TORCH_GLOBALS: dict | None = None


def restore_torch_globals() -> None:
    """Process-wide torch switches as they were when this worker measured its first case. Cases share
    the worker's process, and one that runs torch.compile (pi0.5's compiled forward, kornia's) makes
    dynamo patch torch for good: `Distribution.set_default_validate_args(False)` among others
    (torch/_dynamo/eval_frame.py), which let a later case's `Normal` skip its data-dependent
    argument check and export OK here only (godot_rl's SB3 actor, fails alone)."""
    global _TORCH_GLOBALS
    import torch
    Distribution = torch.distributions.Distribution
    if _TORCH_GLOBALS is None:
        _TORCH_GLOBALS = {"validate_args": Distribution._validate_args, "dtype": torch.get_default_dtype(),
                          "grad": torch.is_grad_enabled(),
                          "deterministic": torch.are_deterministic_algorithms_enabled()}
    Distribution.set_default_validate_args(_TORCH_GLOBALS["validate_args"])
    torch.set_default_dtype(_TORCH_GLOBALS["dtype"])
    torch.set_grad_enabled(_TORCH_GLOBALS["grad"])
    torch.use_deterministic_algorithms(_TORCH_GLOBALS["deterministic"])


def run_case(case: Path, isolated: bool = False, export_fix: bool = False) -> dict:
    restore_torch_globals()
    meta = case_meta(case)
    result = {"name": case.stem, "class": meta["CLASS"], "family": meta["FAMILY"], "control": meta["CONTROL"],
              "blind": meta["BLIND"], "url": meta["url"], "exports": {}, "changed": {}, "eager": {}, "write_status": {}}
    with tempfile.TemporaryDirectory(prefix="realworld_") as tmp:
        base = Path(tmp) / "before"
        base.mkdir()
        original = base / case.name
        shutil.copy(case, original)
        result["findings"] = static_report(original)
        paths = {"before": original}
        for variant in ("safe", "unsafe"):
            copy, status = fixed_copy(case, Path(tmp) / variant, variant == "unsafe")
            paths[variant] = copy
            result["write_status"][variant] = status
            result["changed"][variant] = copy.read_text() != case.read_text()
            result["eager"][variant] = eager_unchanged(original, copy) if result["changed"][variant] else ""
        for exporter in EXPORTERS:
            row = result["exports"][exporter] = {}
            for variant in VARIANTS:
                same_as = next((v for v in VARIANTS[:VARIANTS.index(variant)]
                                if paths[v].read_text() == paths[variant].read_text()), None)
                row[variant] = dict(row[same_as]) if same_as else export_verdict(paths[variant], exporter, meta["DYNAMIC"], isolated)
                if not same_as and not isolated and _worse(row["before"]["verdict"], row[variant]["verdict"]):
                    # confirmed in a fresh process before it counts: state left in the case's process by
                    # its earlier exports made RLlib's fixed sequence_mask fail dynamo here, OK alone
                    row[variant] = export_verdict(paths[variant], exporter, meta["DYNAMIC"], True)
        if export_fix:
            result["export_fix"] = run_export_fix(case, Path(tmp), paths, result, meta)
    return result


def _worse(before: str, after: str) -> bool:
    """onnxfix's own never-worse rule (exporter/fixloop.py): an OK lost, or a failure gone silent."""
    from onnxfix.exporter.fixloop import worse
    return worse(before, after)


def run_export_fix(case: Path, tmp: Path, paths: dict, result: dict, meta: dict) -> dict:
    """The `onnxfix export --write --unsafe-fixes` variant: its edits, eager check and verdicts."""
    copy, status, decompositions = export_fixed_copy(case, tmp / "export")
    changed = copy.read_text() != case.read_text()
    fixed = {"status": status, "changed": changed, "eager": eager_unchanged(paths["before"], copy) if changed else "",
             "exports": {}, "decompositions": decompositions}
    for exporter in EXPORTERS:
        same_as = next((v for v in VARIANTS if paths[v].read_text() == copy.read_text()), None)
        # a copy no variant has, each export in its own process, as `onnxfix export` runs them: in
        # the case's process, state left by its earlier exports changed the outcome (DeepFilterNet's
        # dynamo export with decompositions, RLlib's sequence_mask after `len(t)` -> `t.shape[0]`:
        # both failed here and passed in a fresh process)
        fixed["exports"][exporter] = (dict(result["exports"][exporter][same_as]) if same_as and not decompositions
                                      else export_verdict(copy, exporter, meta["DYNAMIC"], True, decompositions))
    return fixed


# ---------------------------------------------------------------- the whole corpus (parent)

EXPORT_FIX = []  # ["--export-fix"] when the parent runs with it: passed on to the children


def run_in_child(case: Path, isolated: bool = False) -> dict:
    """The case in its own process; if that process dies (an exporter segfault), again with every
    export in its own child."""
    meta = case_meta(case)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", str(case)] + (["--isolated"] if isolated else []) + EXPORT_FIX
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=CASE_TIMEOUT, env=_env(), cwd=ROOT)
    except subprocess.TimeoutExpired:
        return _broken(meta, f"case timed out after {CASE_TIMEOUT:g} s")
    lines = [l for l in done.stdout.splitlines() if l.startswith("REALWORLD-RESULT ")]
    if (done.returncode != 0 or not lines) and not isolated:
        return run_in_child(case, isolated=True)
    if done.returncode != 0 or not lines:
        return _broken(meta, f"runner exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return json.loads(lines[-1][len("REALWORLD-RESULT "):])


def run_chunk(cases: list[Path]) -> list[dict]:
    """Several cases in one long-lived child (torch is imported once: on a loaded machine the import
    alone takes most of a minute). Cases whose result did not come back (the child died or timed
    out) run again one by one, each export isolated."""
    cmd = [sys.executable, str(Path(__file__).resolve()), *EXPORT_FIX, "--many", *map(str, cases)]
    lines = []
    try:
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=_env(), cwd=ROOT) as proc:
            import threading
            timer = threading.Timer(CASE_TIMEOUT * len(cases), proc.kill)
            timer.start()
            for line in proc.stdout:
                if line.startswith("REALWORLD-RESULT "):
                    lines.append(json.loads(line[len("REALWORLD-RESULT "):]))
                    print(verdict_row(lines[-1]), flush=True)
            timer.cancel()
    except OSError as exc:
        print(f"chunk failed to start: {exc}", flush=True)
    done = {r["name"]: r for r in lines}
    for case in cases:
        if case.stem not in done:
            done[case.stem] = run_in_child(case, isolated=True)
            print(verdict_row(done[case.stem]) + "  (re-run isolated)", flush=True)
    return [done[c.stem] for c in cases]


def _broken(meta: dict, error: str) -> dict:
    bad = {"verdict": "RUNNER-ERROR", "error": error, "probe": ""}
    return {"name": meta["name"], "class": meta["CLASS"], "family": meta["FAMILY"], "control": meta["CONTROL"],
            "url": meta["url"], "findings": [], "changed": {}, "eager": {}, "write_status": {},
            "exports": {e: {v: dict(bad) for v in VARIANTS} for e in EXPORTERS}}


def verdict_row(r: dict) -> str:
    """One line per case, the format the fast test asserts on."""
    cells = [f"{e}: " + " -> ".join(r["exports"][e][v]["verdict"] for v in VARIANTS) for e in EXPORTERS]
    return f"{r['name']}: " + " | ".join(cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="case names (file stems); default all")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--many", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--isolated", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help="markdown output (default docs/realworld.md when running every case)")
    parser.add_argument("--json", help="also write the raw results here")
    parser.add_argument("--render", action="store_true", help="rewrite docs/realworld.md from bench/out/realworld.json")
    parser.add_argument("--update", action="store_true", help="merge the named cases into bench/out/realworld.json")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument("--export-fix", action="store_true",
                        help="also run `onnxfix export --exporter both --write --unsafe-fixes` on a copy of each case")
    parser.add_argument("--blind", action="store_true", help="only the blind cases (BLIND = \"batch\")")
    args = parser.parse_args(argv)
    if args.export_fix:
        EXPORT_FIX.append("--export-fix")
    if args.render:
        realworld_doc.write()
        return 0
    if args.one:
        print("REALWORLD-RESULT " + json.dumps(run_case(Path(args.one), args.isolated, args.export_fix)), flush=True)
        return 0
    if args.many:
        for case in args.many:
            print("REALWORLD-RESULT " + json.dumps(run_case(Path(case), export_fix=args.export_fix)), flush=True)
        return 0
    from concurrent.futures import ThreadPoolExecutor
    paths = case_paths(args.cases)
    if args.blind:
        paths = [p for p in paths if case_meta(p)["BLIND"]]
    chunks = [paths[i::args.jobs] for i in range(args.jobs)]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:  # one long-lived child per job
        by_name = {r["name"]: r for rs in pool.map(run_chunk, chunks) for r in rs}
    results = [by_name[p.stem] for p in paths]
    if args.update:
        fresh = {r["name"]: r for r in results}
        results = [fresh.pop(r["name"], r) for r in json.loads(RAW.read_text())] + list(fresh.values())
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    if any(r.get("blind") for r in results):
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
        realworld_doc.record_first_blind_results(results, commit)
    subset = bool(args.cases) or args.blind
    if args.update or not subset:
        RAW.parent.mkdir(parents=True, exist_ok=True)
        RAW.write_text(json.dumps(results, indent=1))
    out = args.out or (None if subset and not args.update else str(realworld_doc.DOC))
    if out:
        realworld_doc.write(results, Path(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
