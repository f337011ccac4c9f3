"""onnxruntime's outputs against eager PyTorch's: one session, and the per-output error within
the tolerance. Shared by verify.py (the verdict) and divergence.py (the first diverging line),
below both.
"""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import numpy as np
import torch

from onnxfix.exporter.errors import describe
from onnxfix.exporter.model_io import flatten
from onnxfix.exporter.result import OutputError

RTOL = 1e-4  # allowed error relative to the output's largest magnitude (at least 1.0)
ATOL = 1e-5
# A bfloat16 / float16 output is itself rounded to 8 / 11 significant bits, and eager rounds every
# op on the way (onnxruntime's CPU provider computes most of them in float32): such an output
# matches within a few of its own units in the last place of its largest magnitude.
_LOW_PRECISION = (torch.bfloat16, torch.float16)
_LOW_PRECISION_ULPS = 4


class Runtime:
    """One onnxruntime session, fed by input name (or by position when names do not line up)."""

    def __init__(self, path: Path):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.declared = [i.name for i in self.session.get_inputs()]
        # forward's int defaults beyond the given arguments, which the legacy exporter appends
        # to them (its _decide_input_format) and may keep as graph inputs ("onnx::Add_1")
        self.defaults: tuple[torch.Tensor, ...] = ()

        # numpy has no bfloat16: such a model is fed and read through OrtValues (raw bits)
        self.bfloat16 = any(v.type == "tensor(bfloat16)" for v in (*self.session.get_inputs(), *self.session.get_outputs()))

    def run(self, args: tuple, names: list[str]) -> list[np.ndarray]:
        tensors = {n: v for n, v in zip(names, args) if n in self.declared and isinstance(v, torch.Tensor)}
        if len(tensors) < len(self.declared):
            tensors = self._by_position(args, tensors, names)
        if not self.bfloat16:
            return self.session.run(None, {n: t.detach().cpu().numpy() for n, t in tensors.items()})
        feeds = {n: _ort_value(t.detach().cpu()) for n, t in tensors.items()}
        return [_from_ort_value(value) for value in self.session.run_with_ort_values(None, feeds)]


    def _by_position(self, args: tuple, named: dict[str, torch.Tensor], names: list[str] = ()) -> dict[str, torch.Tensor]:
        """The inputs not fed by name: the legacy exporter names an input it got no name for after
        its first consumer and the argument's index (`onnx::Add_2`, forward's third argument,
        maybe an appended default); without such names the declared inputs take the tensors in order."""
        values = (*args, *self.defaults)
        if any(isinstance(a, (dict, list, tuple)) for a in args):
            # a container's tensors are inputs of their own, named after the argument and the key
            # or index (torch.onnx: `obs_cam_0`, `hidden_1`), not after an argument's index
            leaves = _container_inputs(args, names)
            if all(name in named or name in leaves for name in self.declared):
                return {name: named.get(name, leaves.get(name)) for name in self.declared}
            return dict(zip(self.declared, flatten(values)))
        chosen = dict(named)
        for name in self.declared:
            if name in chosen:
                continue
            index = re.search(r"_(\d+)$", name)
            value = values[int(index.group(1))] if index and int(index.group(1)) < len(values) else None
            if not isinstance(value, torch.Tensor):
                return dict(zip(self.declared, [a for a in args if isinstance(a, torch.Tensor)]))
            chosen[name] = value
        return chosen


def _container_inputs(args: tuple, names: list[str]) -> dict[str, torch.Tensor]:
    """`{argument}_{key}` / `{argument}_{index}` for the tensors of dict, list and tuple arguments
    (nested: `obs_cam_0_0`), as torch.onnx names the inputs it flattens them into."""
    found: dict[str, torch.Tensor] = {}

    def walk(prefix: str, value) -> None:
        if isinstance(value, torch.Tensor):
            found[prefix] = value
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, (list, tuple)) else ()
        for key, item in items:
            walk(f"{prefix}_{key}", item)

    for name, value in zip(names, args):
        if isinstance(value, (dict, list, tuple)):
            walk(name, value)
    return found


_ONNX_BFLOAT16 = 16  # TensorProto.BFLOAT16


def _ort_value(tensor: torch.Tensor):
    from onnxruntime import OrtValue

    if tensor.dtype == torch.bfloat16:
        return OrtValue.ortvalue_from_numpy_with_onnx_type(tensor.contiguous().view(torch.int16).numpy(), _ONNX_BFLOAT16)
    return OrtValue.ortvalue_from_numpy(tensor.numpy())


def _from_ort_value(value) -> np.ndarray:
    """A bfloat16 output as float32 (exact: bfloat16 is float32's upper half)."""
    if value.data_type() != "tensor(bfloat16)":
        return value.numpy()
    raw = ctypes.string_at(value.data_ptr(), value.tensor_size_in_bytes())
    bits = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
    return bits.view(np.float32).reshape(value.shape())


def run_onnx(path: Path, args: tuple, names: list[str]) -> list[np.ndarray]:
    return Runtime(path).run(args, names)


def compare(expected: list[torch.Tensor], actual: list[np.ndarray], rtol: float = RTOL) -> list[OutputError]:
    """Per output: max abs and rel error; ok when abs <= rtol * max(1, |largest expected|) + ATOL."""
    if len(expected) != len(actual):
        return [OutputError(-1, None, None, False, f"{len(actual)} outputs, expected {len(expected)}")]
    return [_compare_one(i, ref, got, rtol) for i, (ref, got) in enumerate(zip(expected, actual))]


def _compare_one(index: int, ref: torch.Tensor, got: np.ndarray, rtol: float) -> OutputError:
    ref = ref.detach().cpu()
    if ref.is_complex() and got.shape == (*ref.shape, 2) and not np.iscomplexobj(got):
        # torch.onnx's dynamo exporter gives a complex output as its (real, imaginary) pairs in a
        # trailing dim of 2 (ONNX has no complex tensors): compare those (a complex STFT front end)
        ref = torch.view_as_real(ref)
    rtol = max(rtol, _LOW_PRECISION_ULPS * torch.finfo(ref.dtype).eps) if ref.dtype in _LOW_PRECISION else rtol
    ref = (ref.float() if ref.dtype == torch.bfloat16 else ref).numpy()
    if ref.shape != got.shape:
        return OutputError(index, None, None, False, f"shape {tuple(got.shape)}, expected {tuple(ref.shape)}")
    if ref.size == 0:
        return OutputError(index, 0.0, 0.0, True)
    ref64, got64 = ref.astype(np.float64), got.astype(np.float64)
    both_nan = np.isnan(ref64) & np.isnan(got64)
    same_inf = np.isinf(ref64) & (ref64 == got64)
    diff = np.nan_to_num(np.where(both_nan | same_inf, 0.0, np.abs(ref64 - got64)), nan=np.inf)
    scale = float(np.max(np.abs(np.nan_to_num(ref64, nan=0.0, posinf=0.0, neginf=0.0))))
    max_abs = float(diff.max())
    max_rel = max_abs / (scale or 1.0)
    return OutputError(index, max_abs, max_rel, max_abs <= rtol * max(1.0, scale) + ATOL)


# onnxruntime's messages name the C++ source line and the function's full signature before what
# went wrong ("...reshape_helper.h:47 onnxruntime::ReshapeHelper::ReshapeHelper(const
# onnxruntime::TensorShape&, ...) input_shape_size == size was false. ... Input shape:{2,3,8},
# requested shape:{2,12,-1}"): the shapes at the end are what the user needs.
_ORT_SOURCE = re.compile(r"\S*onnxruntime_src/\S+:\d+ (?:[\w:~<>]+\((?:[^()]|\([^()]*\))*\)(?: const)? )?")


def runtime_error(exc: BaseException, limit: int = 600) -> str:
    """onnxruntime's error without its C++ location and signature; a longer one keeps its start
    and its end (where the shapes are)."""
    text = _ORT_SOURCE.sub("", describe(exc))
    if len(text) <= limit:
        return text
    return f"{text[: limit // 3]} ... {text[-(2 * limit) // 3:]}"


def within_eager_spread(first: torch.Tensor, second: torch.Tensor, onnx: torch.Tensor) -> bool:
    """onnxruntime's output has eager's shape and dtype, and differs from eager's first call by
    no more than a few times eager's two calls differ from each other (an integer output, a sampled
    token id, equals eager's where eager's calls agree, and is free elsewhere): a batch frozen at the
    export size, or a wrong deterministic part beside the noise, still fails (a wrong part
    within four times the noise's spread does not: sampled values prove no more)."""
    if onnx.shape != first.shape or onnx.dtype != first.dtype or first.is_complex() or first.dtype == torch.bool:
        return False
    if not first.is_floating_point():
        # sampled integers (a token drawn by `argmax(probs / q)`, appended to the prompt's): where
        # eager's two calls agree the output is not sampled, and must be eager's exactly; two draws
        # of a category say nothing of how far apart a third may fall
        return torch.equal(onnx[first == second], first[first == second])
    spread = float((first.double() - second.double()).abs().nan_to_num(posinf=0.0, neginf=0.0).max())
    gap = float((first.double() - onnx.double()).abs().nan_to_num(nan=float("inf")).max())
    return gap <= 4.0 * spread


def identical_values(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(torch.allclose(a, b, rtol=0.0, atol=0.0, equal_nan=True))
    return bool(torch.equal(a, b))
