"""insightface's buffalo_s SCRFD face detector (det_500m.onnx) converted back to PyTorch with onnx2torch, then
re-exported with a dynamic batch: the head computes its batch size at runtime as ONNX Shape -> Gather -> Unsqueeze
-> Concat -> Reshape, which onnx2torch turns into `torch.tensor(input_tensor.shape)`, `input_tensor[indices]` with a
0-d index tensor, and `torch.reshape(input_tensor, torch.Size(shape))`. The report: torch.onnx.export fails with
"GuardOnDataDependentSymNode: Could not extract specialized integer from data-dependent expression u0", caused by
onnx2torch/node_converters/gather.py `return input_tensor[slice_for_take]`. One stride of the head, two convs.

Source: https://github.com/deepinsight/insightface/issues/2878
"""
from typing import Any, Callable, Dict, List, Optional

import torch
from torch import nn
from torch import _C as torch_C
from torch.onnx import symbolic_helper

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"input_1": {0: "batch"}}
BLIND = "domains-52"


def get_onnx_version() -> int:
    """Returns opset version at the time of the export."""
    if hasattr(symbolic_helper, 'GLOBALS'):
        return symbolic_helper.GLOBALS.export_onnx_opset_version

    return symbolic_helper._export_onnx_opset_version  # pylint: disable=no-member, protected-access


def upcast_indices(indices: torch.Tensor) -> torch.Tensor:
    return indices.type(dtype=torch.int64)


class CustomExportToOnnx(torch.autograd.Function):
    _NEXT_FORWARD_FUNCTION: Optional[Callable] = None

    @classmethod
    def export(cls, forward_function: Callable, *args) -> Any:
        CustomExportToOnnx._NEXT_FORWARD_FUNCTION = forward_function
        return cls.apply(*args)

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        if CustomExportToOnnx._NEXT_FORWARD_FUNCTION is None:
            raise RuntimeError('Forward function is not set')

        try:
            return CustomExportToOnnx._NEXT_FORWARD_FUNCTION()  # pylint: disable=not-callable
        finally:
            CustomExportToOnnx._NEXT_FORWARD_FUNCTION = None

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise RuntimeError('Backward called while converting to ONNX')


class DefaultExportToOnnx(CustomExportToOnnx):
    @staticmethod
    def symbolic(graph: torch_C.Graph, *args) -> torch_C.Value:
        op_type, *inputs, onnx_attrs = args
        return graph.op(op_type, *inputs, **onnx_attrs, outputs=1)


class OnnxShape(nn.Module):
    def __init__(self, start: int = 0, end: Optional[int] = None):
        super().__init__()
        self._start = start
        self._end = end

    def _onnx_attrs(self, opset_version: int) -> Dict[str, Any]:
        if opset_version < 15:
            return {}
        onnx_attrs: Dict[str, Any] = {'start_i': self._start}
        if self._end:
            onnx_attrs['end_i'] = self._end
        return onnx_attrs

    def forward(self, input_tensor: torch.Tensor) -> torch.Tensor:
        def _forward():
            return torch.tensor(
                input_tensor.shape[self._start : self._end],
                device=input_tensor.device,
            )

        if torch.onnx.is_in_onnx_export():
            onnx_attrs = self._onnx_attrs(opset_version=get_onnx_version())
            return DefaultExportToOnnx.export(_forward, 'Shape', input_tensor, onnx_attrs)

        return _forward()


class OnnxGather(nn.Module):
    """ONNX Gather implementation (or numpy.take implementation)."""

    def __init__(self, axis: int = 0):
        super().__init__()
        self._axis = axis

    def _onnx_attrs(self, opset_version: int) -> Dict[str, Any]:
        return {'axis_i': self._axis}

    @staticmethod
    def slice_from_axis(input_tensor, axis, indices):
        axis = input_tensor.dim() + axis if axis < 0 else axis
        skip_axis: List = [slice(None)] * axis
        skip_axis.append(upcast_indices(indices))
        return tuple(skip_axis)

    def forward(self, input_tensor: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
        def _forward():
            slice_for_take = self.slice_from_axis(input_tensor, self._axis, indices)
            return input_tensor[slice_for_take]

        if torch.onnx.is_in_onnx_export():
            onnx_attrs = self._onnx_attrs(opset_version=get_onnx_version())
            return DefaultExportToOnnx.export(_forward, 'Gather', input_tensor, indices, onnx_attrs)

        return _forward()


class OnnxUnsqueezeStaticAxes(nn.Module):
    def __init__(self, axes: List[int]):
        super().__init__()
        self._axes = sorted(axes)

    def forward(self, input_tensor: torch.Tensor) -> torch.Tensor:
        result = input_tensor
        for axes_id in self._axes:
            result = torch.unsqueeze(result, dim=axes_id)
        return result


class OnnxConcat(nn.Module):
    def __init__(self, axis: int):
        super().__init__()
        self.axis = axis

    def forward(self, *input_tensors) -> torch.Tensor:
        return torch.cat(input_tensors, self.axis)


class OnnxTranspose(nn.Module):
    def __init__(self, perm: Optional[List[int]] = None):
        super().__init__()
        self.perm = perm

    def forward(self, input_tensor: torch.Tensor) -> torch.Tensor:
        return input_tensor.permute(self.perm)


class OnnxReshape(nn.Module):
    @staticmethod
    def _do_reshape(input_tensor: torch.Tensor, shape: torch.Tensor) -> torch.Tensor:
        if torch.any(shape == 0):
            shape = [input_tensor.shape[i] if dim_size == 0 else dim_size for i, dim_size in enumerate(shape)]

        return torch.reshape(input_tensor, torch.Size(shape))

    def forward(self, input_tensor: torch.Tensor, shape: torch.Tensor) -> torch.Tensor:
        def _forward() -> torch.Tensor:
            return self._do_reshape(input_tensor, shape)

        if torch.onnx.is_in_onnx_export():
            return DefaultExportToOnnx.export(_forward, 'Reshape', input_tensor, shape, {})

        return _forward()


class ScrfdStride8Head(nn.Module):
    """What the onnx2torch GraphModule of det_500m does for the stride-8 score and box outputs."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=8, padding=1), nn.ReLU())
        self.cls_conv = nn.Conv2d(16, 2, 3, padding=1)    # 2 anchors, 1 class
        self.reg_conv = nn.Conv2d(16, 8, 3, padding=1)    # 2 anchors x 4
        self.register_buffer('gather_idx', torch.tensor(0, dtype=torch.int64))
        self.register_buffer('minus_one', torch.tensor([-1], dtype=torch.int64))
        self.register_buffer('one', torch.tensor([1], dtype=torch.int64))
        self.register_buffer('four', torch.tensor([4], dtype=torch.int64))
        self.shape = OnnxShape()
        self.gather = OnnxGather(axis=0)
        self.unsqueeze = OnnxUnsqueezeStaticAxes(axes=[0])
        self.concat_cls = OnnxConcat(axis=0)
        self.concat_reg = OnnxConcat(axis=0)
        self.transpose_cls = OnnxTranspose(perm=[0, 2, 3, 1])
        self.transpose_reg = OnnxTranspose(perm=[0, 2, 3, 1])
        self.reshape_cls = OnnxReshape()
        self.reshape_reg = OnnxReshape()

    def forward(self, input_1):
        feat = self.stem(input_1)
        cls_score = self.cls_conv(feat)
        bbox_pred = self.reg_conv(feat)
        batch = self.unsqueeze(self.gather(self.shape(cls_score), self.gather_idx))
        cls_shape = self.concat_cls(batch, self.minus_one, self.one)
        reg_shape = self.concat_reg(batch, self.minus_one, self.four)
        score_8 = torch.sigmoid(self.reshape_cls(self.transpose_cls(cls_score), cls_shape))
        bbox_8 = self.reshape_reg(self.transpose_reg(bbox_pred), reg_shape)
        return score_8, bbox_8


def make_model():
    return ScrfdStride8Head().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(4, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
