"""Child process for tests/test_decompositions_records.py::test_unguarded_helpers_on_every_kernel_path:
the eager bit-identity check of every unguarded helper (its proof's helper expression against
the original, NaN-aware, at the seeds and batch sizes the export uses), under the ATen CPU
kernels this process started with. ATen reads ATEN_CPU_CAPABILITY once, at start-up, hence a
process per capability, and one process for all the records.

    ATEN_CPU_CAPABILITY=default python tests/eager_capability_worker.py

Prints one JSON line: {"capability": torch's own report of the kernels in use, "checked": the
keys, "failures": ["key, seed s, batch b, output i: why", ...]}.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))

from decomposition_exports import build, inputs_of  # noqa: E402 - after the sys.path entry
from onnxfix.decompositions import DECOMPOSITIONS, eager_guarded  # noqa: E402
from onnxfix.exporter import verify  # noqa: E402

SEEDS_AND_BATCHES = ((0, 2), (1, 2), (2, 2), (3, 3))  # as tests/test_decompositions_records.py


def difference(got, want) -> str | None:
    """Why ``got`` is not ``want`` bit for bit (NaN where NaN), None when it is."""
    if not (isinstance(got, torch.Tensor) and isinstance(want, torch.Tensor)):
        return None if got == want else f"{got!r} != {want!r}"
    if (got.shape, got.dtype) != (want.shape, want.dtype):
        return f"{got.dtype}{tuple(got.shape)} != {want.dtype}{tuple(want.shape)}"
    if want.is_floating_point() or want.is_complex():
        nan = want.isnan()
        if not torch.equal(got.isnan(), nan):
            return "NaN at other positions"
        got, want = got.masked_fill(nan, 0), want.masked_fill(nan, 0)
    if torch.equal(got, want):
        return None
    return f"not bit-identical (max difference {(got.double() - want.double()).abs().max().item():.3g})"


def per_case(model: torch.nn.Module, args: tuple) -> list[list]:
    """The module's outputs, one flat list per case (inputs cloned: some ops write in place)."""
    cloned = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
    with torch.no_grad():
        return [verify.flatten(case) for case in model(*cloned)]


def main() -> None:
    keys = [d.key for d in DECOMPOSITIONS if not eager_guarded(d.key)]
    original, helper = build(keys, "original"), build(keys, "helper")
    failures = []
    for seed, batch in SEEDS_AND_BATCHES:
        args = tuple(value for key in keys for value in inputs_of(key, seed, batch))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated forms (scatter reduce=) are the point
            want, got = per_case(original, args), per_case(helper, args)
        for key, w_case, g_case in zip(keys, want, got, strict=True):
            if len(g_case) != len(w_case):
                failures.append(f"{key}, seed {seed}, batch {batch}: {len(g_case)} outputs, not {len(w_case)}")
            for index, (g, w) in enumerate(zip(g_case, w_case)):
                why = difference(g, w)
                if why:
                    failures.append(f"{key}, seed {seed}, batch {batch}, output {index}: {why}")
    print(json.dumps({"capability": torch.backends.cpu.get_cpu_capability(), "checked": keys, "failures": failures}))


if __name__ == "__main__":
    main()
