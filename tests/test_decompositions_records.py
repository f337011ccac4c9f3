"""Every decomposition record (onnxfix/decompositions/registry_<family>.py) is complete and proven
by what it declares: its helper module, its rule, a catalog case measuring the original op, and
its `proof`, run here in eager (the helper against the original op, bit-identical; a guarded
helper's export branch, torch.onnx.is_in_onnx_export() forced True, within the proof's
`decomposition_tol`) and exported by tests/test_decompositions.py (legacy; `python
tests/decomposition_exports.py dynamo` by hand). So a new record is never untested. The family files
(tests/test_decompositions_<family>.py) go deeper: edge cases, dtypes, bounds against the true
value."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

from decomposition_exports import build, inputs_of
from onnxfix import operator_catalog
from onnxfix.decompositions import (
    BY_KEY,
    DECOMPOSITIONS,
    SUPPORT,
    dynamo_guarded,
    eager_guarded,
    legacy_guarded,
    module_source,
    registry_legacy,
    registry_legacy_composite,
    registry_legacy_elementwise,
    registry_legacy_structural,
)
from onnxfix.exporter import verify
from onnxfix.exporter.catalog_cases import CASES as CATALOG_CASES
from onnxfix.exporter.proof_inputs import evaluate
from onnxfix.patterns import all_rules
from onnxfix.patterns.operators.base import DecompositionRule

KEYS = [d.key for d in DECOMPOSITIONS]
SEEDS_AND_BATCHES = ((0, 2), (1, 2), (2, 2), (3, 3))  # the export's inputs, then its probes


def assert_matches(got: torch.Tensor, want: torch.Tensor, tolerance: float, where: str) -> None:
    assert (got.shape, got.dtype) == (want.shape, want.dtype), where
    if tolerance and want.is_floating_point():
        torch.testing.assert_close(got, want, rtol=tolerance, atol=tolerance, equal_nan=True, msg=lambda m: f"{where}: {m}")
        return
    if want.is_floating_point():  # NaN-aware bit identity
        nan = want.isnan()
        assert torch.equal(got.isnan(), nan), f"{where}: NaN at other positions"
        got, want = got.masked_fill(nan, 0), want.masked_fill(nan, 0)
    assert torch.equal(got, want), f"{where}: not bit-identical (max difference {(got.double() - want.double()).abs().max().item():.3g})"


# Ops whose eager result differs from itself between two calls on the same inputs: the helper,
# which calls the op in eager, can only match within the proof's tolerance. torch.linalg.lstsq's
# default CPU driver (gelsy): 20 of 50 repeated calls differ, by up to 3.3e-7 (torch 2.13).
NOT_REPRODUCIBLE = {"linalg_lstsq"}


def _compare(key: str, tolerance: float) -> None:
    original, helper = build([key], "original"), build([key], "helper")
    for seed, batch in SEEDS_AND_BATCHES:
        args = inputs_of(key, seed, batch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated forms (scatter reduce=) are the point
            want, got = verify.eager(original, args), verify.eager(helper, args)
        assert len(got) == len(want) > 0
        limit = BY_KEY[key].proof.decomposition_tol if key in NOT_REPRODUCIBLE else tolerance
        for index, (g, w) in enumerate(zip(got, want)):
            assert_matches(g, w, limit, f"{key}, seed {seed}, batch {batch}, output {index}")


@pytest.mark.parametrize("key", KEYS)
def test_helper_matches_original_in_eager(key):
    """The proof's helper expression against its original expression, on the proof's inputs at
    the seeds and batch sizes the export uses: bit-identical (NaN where NaN), whatever the
    decomposition's accuracy, since a helper that does not reproduce the op bit for bit returns
    the op itself outside export."""
    _compare(key, 0.0)


GUARDED = [key for key in KEYS if eager_guarded(key)]


@pytest.mark.parametrize("key", GUARDED)
def test_export_branch_matches_original(key, monkeypatch):
    """A guarded helper's decomposition (what both exporters trace: the flag forced True) against
    the original in eager, within the proof's decomposition_tol."""
    # decomposition_tol=0 (bit-identical) only where the export branch is exact BY CONSTRUCTION
    # on the proof's inputs, whatever the CPU kernel path: mode, copysign, signbit (comparisons,
    # selection, negation), sgn (real inputs: torch.sign, the kernel torch.sgn runs), float_power
    # (ATen's own ops: the cast to float64, then pow), frexp (an exact result: the log2 estimate
    # is corrected by exact power-of-two scaling), vander (ATen's cumprod accumulates float32 in
    # double on CPU, as the helper does, then one rounding to float32), histc (ATen's histc
    # kernel computes (x - min) * bins / (max - min) with the same three IEEE operations, none
    # fusable into an FMA; counts are integers) and linalg_matrix_rank (an integer: on the
    # proof's zeroed columns the singular values are exactly 0 or > 1e5 times the threshold).
    # The others (another kernel's summation or product order, or a transcendental function)
    # have a tolerance.

    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)
    if dynamo_guarded(key):
        monkeypatch.setattr(torch.compiler, "is_exporting", lambda: True)
    _compare(key, BY_KEY[key].proof.decomposition_tol)


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {flag for line in text.splitlines() if line.startswith("flags") for flag in line.split(":", 1)[1].split()}


# ATEN_CPU_CAPABILITY -> the CPU flags ATen requires for it (aten/src/ATen/native/DispatchStub.cpp)
# and what torch.backends.cpu.get_cpu_capability() then reports (x86-64; ATen's other
# capabilities are for other architectures).
CAPABILITIES = {
    "default": ((), "DEFAULT"),
    "avx2": (("avx2", "fma"), "AVX2"),
    "avx512": (("avx512f", "avx512bw", "avx512vl", "avx512dq", "fma"), "AVX512"),
}


@pytest.mark.parametrize("capability", list(CAPABILITIES))
def test_unguarded_helpers_on_every_kernel_path(capability):
    """Safe means safe on every machine: a helper that runs its decomposition in eager (not
    guarded) must reproduce the op bit for bit BY CONSTRUCTION (exact ops only, or the very ops
    ATen runs, in its order), never by a bit-identity measured on one kernel path: ATen's default,
    AVX2 and AVX-512 kernels round transcendental functions and reductions differently (#23,
    #26: logaddexp). So every unguarded helper's eager check runs again under each CPU
    capability this machine has, in one child process per capability (ATen reads
    ATEN_CPU_CAPABILITY at start-up), which must report those kernels in use."""
    needed, reported = CAPABILITIES[capability]
    missing = [flag for flag in needed if flag not in _cpu_flags()]
    if missing:
        pytest.skip(f"this CPU has no {', '.join(missing)}: ATen cannot run its {capability} kernels here")
    env = {**os.environ, "ATEN_CPU_CAPABILITY": capability}
    proc = subprocess.run([sys.executable, str(Path(__file__).parent / "eager_capability_worker.py")],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["capability"] == reported, f"ATEN_CPU_CAPABILITY={capability} did not take effect: {result['capability']}"
    assert result["checked"] == [key for key in KEYS if not eager_guarded(key)]
    assert not result["failures"], "\n".join(result["failures"])


def _decomposition_rules() -> dict[str, DecompositionRule]:
    return {rule.code: rule for rule in all_rules() if isinstance(rule, DecompositionRule)}


def test_every_record_is_complete():
    """Helper, rule, proof and catalog case, for every record (the three places a decomposition
    touches are its helper module, its record and its fixtures: this checks nothing else is
    missing)."""
    rules = _decomposition_rules()
    catalog_ids = {case.id for case in CATALOG_CASES}
    measured = operator_catalog.load()["ops"]
    problems = []
    for d in DECOMPOSITIONS:
        functions = [n.name for n in ast.parse(module_source(d.key)).body if isinstance(n, ast.FunctionDef)]
        if functions[:1] != [d.helper]:
            problems.append(f"{d.key}: onnxfix/decompositions/{d.key}.py must define {d.helper} (first)")
        imports = [ast.unparse(n) for n in ast.parse(module_source(d.key)).body if isinstance(n, (ast.Import, ast.ImportFrom))]
        if imports != ["import torch"]:  # the fix writes the helper under the file's `import torch` only
            problems.append(f"{d.key}: its module may import torch only, not {imports}")
        if d.rule not in rules or d.key not in rules[d.rule].keys:
            problems.append(f"{d.key}: rule {d.rule!r} is not a decomposition rule")
        for required in d.requires:
            if required not in BY_KEY and required not in SUPPORT:
                problems.append(f"{d.key}: requires {required!r}, neither a record nor SUPPORT")
        proof = d.proof
        count = len(proof.params.split(","))
        if not re.search(rf"\b{d.helper}\(", proof.helper) or d.helper in proof.original:
            problems.append(f"{d.key}: the proof's helper expression must call {d.helper}, its original the torch op")
        if not any(re.search(rf"\b{re.escape(t.rsplit('.', 1)[-1])}\(", proof.original) for t in d.targets):
            problems.append(f"{d.key}: the proof's original expression calls none of {d.targets}")
        if any(not 0 <= i < count for i in proof.static) or len(evaluate(proof.inputs, torch.Generator().manual_seed(0), 2)) != count:
            problems.append(f"{d.key}: the proof's inputs, params and static positions disagree")
        if d.exact and proof.decomposition_tol > 1e-5:
            problems.append(f"{d.key}: exact, but the proof allows {proof.decomposition_tol}")
        if (proof.decomposition_tol or not d.exact) and not eager_guarded(d.key):
            problems.append(f"{d.key}: not bit-identical, but its helper does not open with "
                            "`if not torch.onnx.is_in_onnx_export(): return <the op>`")
        for case in d.catalog_cases:  # declared, or derived from the proof
            if case not in catalog_ids:
                problems.append(f"{d.key}: catalog case {case!r} is not in onnxfix/exporter/catalog_cases.py")
            elif set(measured.get(case, {}).get("exporters", {})) != {"dynamo", "legacy"}:
                problems.append(f"{d.key}: catalog case {case!r} not measured: run python -m onnxfix.exporter.catalog_probe --only {case!r}")
    for code, rule in rules.items():
        if not rule.keys:
            problems.append(f"{code}: a decomposition rule no record names")
    if len(catalog_ids) != len(CATALOG_CASES):
        problems.append("two catalog cases share an id (a derived `<key> (proof)` one?)")
    assert not problems, "\n".join(problems)


def test_a_record_without_catalog_cases_is_measured_on_its_proof():
    """A new record may leave `cases` empty: the catalog probe measures its proof's original
    expression under the id the rule reads. Measured here with the legacy exporter for cov:
    the same verdict as its hand-written case."""
    from onnxfix.exporter.catalog_cases import proof_cases
    from onnxfix.exporter.catalog_probe import case_inputs, make_module, probe_one

    record = dataclasses.replace(BY_KEY["cov"], cases=())
    assert record.catalog_cases == ("cov (proof)",)
    (case,) = proof_cases((record,))
    assert (case.id, case.op, case.params, case.proof) == ("cov (proof)", "torch.cov", "a, w, f", True)
    args = case_inputs(case, 1)
    want = torch.cov(args[0]) + torch.cov(args[0], correction=0, aweights=args[1]) + args[0].cov(fweights=args[2], aweights=args[1])
    assert torch.equal(verify.eager(make_module(case), args)[0], want)
    measured = {m.exporter: m.verdict for m in operator_catalog.measurements("cov")}
    assert probe_one(case, "legacy", 20)["verdict"] == measured["legacy"] == "EXPORT-FAILS"


# Legacy-registry ops that dynamo needs decomposed as well (measured on the ONX517 fixture): under
# torch.export, torch.kron's and torch.linalg.multi_dot's own decompositions turn a dynamic batch
# into a constant; dynamo's translations of log_ndtr (inf), erfcx (off by 0.14) and signbit (-0.0)
# are silently wrong; bitwise_right_shift types a uint8 shift int8 (its helper shifts uint8 in int64
# under dynamo and leaves every other dtype to the op: tests/test_export_time_helpers.py); a float
# floor_divide is Floor(Div) under both (1 too high where the quotient rounds onto a whole number).
DYNAMO_SPECIALIZES = {"kron", "multi_dot", "log_ndtr", "erfcx", "signbit", "bitwise_right_shift", "floor_divide"}
# registry_legacy's ops whose helper also acts under torch.export: a real signal's stft keeps the op
# there and writes its DC and Nyquist bins' +0 imaginary parts (onnxruntime's STFT rounds them)
DYNAMO_ALSO = {"pair_stft"}
# ONX519's legacy-only ops (unfold, fold, max_unpool, embedding_bag(padding_idx), sdpa(enable_gqa)): dynamo translates them
# (conv_weight_shape is not: under torch.export a group count kept symbolic takes conv_groups' sum)
STRUCTURAL_LEGACY_ONLY = {"unfold", "fold", "max_unpool1d", "max_unpool2d", "max_unpool3d", "embedding", "embedding_bag", "scaled_dot_product_attention",
                          "bilinear", "instance_norm", "layer_norm",
                          "multi_head_attention_forward", "repeat_interleave", "unbatched_pool",
                          "exponential",  # registry_random's: dynamo translates exponential_
                          "batch_norm_stats"}
# registry_legacy, registry_legacy_elementwise and registry_legacy_composite: ops only the legacy exporter lacks.
LEGACY_KEYS = {d.key for r in (registry_legacy, registry_legacy_elementwise, registry_legacy_composite)
               for d in r.DECOMPOSITIONS}
LEGACY_ONLY = [key for key in KEYS if key in (LEGACY_KEYS - DYNAMO_SPECIALIZES - DYNAMO_ALSO) | STRUCTURAL_LEGACY_ONLY]


def test_legacy_only_helpers_decompose_under_the_legacy_exporter_only():
    """The ops of registry_legacy fail in the legacy exporter only: their helpers keep the op in
    eager and under dynamo's torch.export (a decomposition there can only lose: GPTQ's unpacking
    through bitwise_right_shift went from OK to SILENTLY-WRONG under dynamo, the helper's integer
    division turned into a float one)."""
    assert sorted(key for key in LEGACY_KEYS if not legacy_guarded(key)) == sorted(DYNAMO_SPECIALIZES | DYNAMO_ALSO)
    assert all(eager_guarded(key) for key in DYNAMO_SPECIALIZES | DYNAMO_ALSO)
    assert [key for key in BY_KEY if legacy_guarded(key) and key not in LEGACY_KEYS] == \
        [key for key in BY_KEY if key in STRUCTURAL_LEGACY_ONLY]


@pytest.mark.parametrize("key", LEGACY_ONLY)
def test_legacy_only_helper_is_the_op_under_torch_export(key, monkeypatch):
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)
    monkeypatch.setattr(torch.compiler, "is_exporting", lambda: True)
    _compare(key, 0.0)
