"""The record every decomposition declares (no torch here: the static path reads it)."""

from __future__ import annotations

from dataclasses import dataclass

PYTORCH = "https://github.com/pytorch/pytorch/issues/"


@dataclass(frozen=True)
class Decomposition:
    key: str  # module name in this package, and the helper is _onnx_<key>
    targets: tuple[str, ...]  # "torch.linalg.inv", "Tensor.inverse" (a method)
    exact: bool  # same value as eager up to float rounding, for every input it documents
    cases: tuple[str, ...]  # catalog case ids measuring the original op
    evidence: tuple[str, ...]  # public reports of users hitting the op
    notes: str  # what differs from eager / limits (static sizes, memory)
    requires: tuple[str, ...] = ()  # other decompositions whose helpers this one calls
    # Only calls with this keyword set to this literal are decomposed (sort: stable=True).
    when_keyword: tuple[str, object] | None = None
    # Only calls passing this keyword (or enough positionals) are decomposed (scatter: reduce).
    when_present: tuple[str, int] | None = None
    error_bound: str = ""  # for approximate decompositions: the measured bound

    @property
    def helper(self) -> str:
        return f"_onnx_{self.key}"
