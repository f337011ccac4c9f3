"""Export-time repair: a model converted by torch.ao quantization (eager mode's `convert`, FX's
`convert_fx`) exported as the float arithmetic its quantized kernels compute.

A converted model runs quantized tensors through `quantized::` kernels with packed weights
(`LinearPackedParamsBase`, a TorchScript object): torch.export cannot trace them and the legacy
exporter translates only some. Each quantized module computes, on the integer grid of its
input, its float op on the dequantized weights followed by a requantization to its output scale
and zero point. Here, while exporting only, tensors stay float on that grid: `Quantize` (a
converted QuantStub) and `torch.quantize_per_tensor` round onto the grid, `DeQuantize` and
`.dequantize()` pass the value through, and a quantized Linear/Conv (with its fused ReLU or
add) runs `F.linear`/`F.conv*` on the dequantized weights then rounds onto its output grid:
`clamp(round(y * (1 / scale)) + zero_point, qmin, qmax)`, back to `(q - zero_point) * scale`,
ATen's arithmetic (decompositions/fake_quantize_per_tensor_affine.py). In an FX graph the
quantized functions (`quantized.add`, `add_relu`, `mul`, `cat`) are replaced alike, and an
average taken of a quantized tensor (a pool, a mean) is rounded back onto its input's grid.
The exported model is compared with eager's quantized kernels like any other: a requantization
that rounds otherwise shows as a numerics failure and the repair is not kept.
"""

from __future__ import annotations

import operator
from contextlib import contextmanager
from typing import Callable, Iterator

import torch
import torch.nn.functional as F

_RANGES = {torch.quint8: (0, 255), torch.qint8: (-128, 127), torch.qint32: (-(2**31), 2**31 - 1)}


def on_grid(x: torch.Tensor, scale: float, zero_point: int, dtype=torch.quint8) -> torch.Tensor:
    """x rounded onto the quantization grid and read back, as ATen's quantize_per_tensor."""
    low, high = _RANGES.get(dtype, (0, 255))
    quantized = torch.clamp(torch.round(x * (1.0 / scale)) + zero_point, low, high)
    return (quantized - zero_point) * scale


def grid_levels(x: torch.Tensor, scale: float, zero_point: int) -> torch.Tensor:
    """The integer levels (as floats) of a tensor on a quantization grid."""
    return torch.round(x * (1.0 / scale)) + zero_point


def from_levels(levels: torch.Tensor, scale: float, zero_point: int, dtype=torch.quint8) -> torch.Tensor:
    """Averaged levels rounded (half to even) back onto the grid, as the quantized pools do."""
    low, high = _RANGES.get(dtype, (0, 255))
    return (torch.clamp(torch.round(levels), low, high) - zero_point) * scale


def _module_forward(module: torch.nn.Module) -> Callable | None:
    """The float forward of one quantized module, or None for a module not known here."""
    import torch.ao.nn.intrinsic.quantized as nniq
    import torch.ao.nn.quantized as nnq

    if ".dynamic." in type(module).__module__:
        return None  # quantizes its input by the input's own range at run time: not simulated here
    if isinstance(module, nnq.Quantize):
        scale, zero_point, dtype = float(module.scale), int(module.zero_point), module.dtype
        return lambda x: on_grid(x, scale, zero_point, dtype)
    if isinstance(module, nnq.DeQuantize):
        return lambda x: x
    out = (float(getattr(module, "scale", 1.0)), int(getattr(module, "zero_point", 0)))
    if isinstance(module, (nnq.Linear, nniq.LinearReLU)):
        weight, bias, relu = module.weight().dequantize(), _constant(module.bias()), isinstance(module, nniq.LinearReLU)
        return lambda x: on_grid(_relu(F.linear(x, weight, bias), relu), *out)
    convolutions = {nnq.Conv1d: F.conv1d, nnq.Conv2d: F.conv2d, nnq.Conv3d: F.conv3d}
    kind = next((k for k in convolutions if isinstance(module, k)), None)
    if kind is not None and module.padding_mode == "zeros":
        conv, weight, bias = convolutions[kind], module.weight().dequantize(), _constant(module.bias())
        relu = "ReLU" in type(module).__name__
        settings = (module.stride, module.padding, module.dilation, module.groups)
        if "Add" in type(module).__name__:  # ConvAdd2d / ConvAddReLU2d: conv(x) + other
            return lambda x, other: on_grid(_relu(conv(x, weight, bias, *settings) + other, relu), *out)
        return lambda x: on_grid(_relu(conv(x, weight, bias, *settings), relu), *out)
    if isinstance(module, (nnq.BatchNorm2d, nnq.BatchNorm3d)):
        mean, var, weight, bias = (_constant(t) for t in (module.running_mean, module.running_var, module.weight,
                                                           module.bias))
        return lambda x: on_grid(F.batch_norm(x, mean, var, weight, bias, False, 0.0, module.eps), *out)
    if isinstance(module, nnq.PReLU):
        weight = module.weight.dequantize()
        return lambda x: on_grid(F.prelu(x, weight), *out)
    if isinstance(module, nnq.ReLU6):
        return lambda x: F.relu6(x)
    if isinstance(module, nnq.Hardswish):
        return lambda x: on_grid(F.hardswish(x), *out)
    return None


def _constant(tensor: torch.Tensor | None) -> torch.Tensor | None:
    """A module's tensor as a constant of the export (the legacy tracer refuses one that
    requires grad: a quantized BatchNorm keeps float Parameters)."""
    return None if tensor is None else tensor.detach()


def _relu(x: torch.Tensor, fused: bool) -> torch.Tensor:
    return F.relu(x) if fused else x


def _functional(module: torch.nn.Module) -> dict[str, Callable] | None:
    """QFunctional's methods (`self.skip_add.add(a, b)` in a converted eager-mode model)."""
    import torch.ao.nn.quantized as nnq

    if not isinstance(module, nnq.QFunctional):
        return None
    out = (float(module.scale), int(module.zero_point))
    return {
        "add": lambda a, b: on_grid(a + b, *out),
        "add_relu": lambda a, b: on_grid(F.relu(a + b), *out),
        "mul": lambda a, b: on_grid(a * b, *out),
        "add_scalar": lambda a, b: on_grid(a + b, *out),
        "mul_scalar": lambda a, b: on_grid(a * b, *out),
        "cat": lambda xs, dim=0: on_grid(torch.cat(xs, dim=dim), *out),
    }


def is_quantized_model(model) -> bool:
    return isinstance(model, torch.nn.Module) and any(
        _module_forward(m) is not None or _functional(m) is not None for m in model.modules()
        if type(m).__module__.startswith("torch.ao.nn"))


class _Float(torch.nn.Module):
    """Stands in for a quantized module while exporting: its float forward, and its output grid
    (read by the FX graph's rewrite). Holds no packed weights (TorchScript objects torch.export
    cannot trace)."""

    def __init__(self, forward: Callable, quantized: torch.nn.Module):
        super().__init__()
        self._forward = forward
        scale, zero_point = getattr(quantized, "scale", None), getattr(quantized, "zero_point", None)
        known = scale is not None and zero_point is not None  # a tensor in a quantized BatchNorm
        self.scale, self.zero_point = (float(scale), int(zero_point)) if known else (None, None)

    def forward(self, *args):
        return self._forward(*args)


@contextmanager
def quantized_as_float(model) -> Iterator[None]:
    """Within the block, every quantized module of ``model`` is replaced by its float forward
    (QFunctional's methods patched, the quantized functions of its FX graphs in float);
    restored afterwards."""
    swapped: list[tuple[torch.nn.Module, str, torch.nn.Module]] = []
    patched: list[tuple[torch.nn.Module, str]] = []
    graphs: list[tuple[torch.fx.GraphModule, torch.fx.Graph]] = []
    if not isinstance(model, torch.nn.Module):
        yield
        return
    try:
        for parent in list(model.modules()):
            for name, child in list(parent.named_children()):
                forward = _module_forward(child) if type(child).__module__.startswith("torch.ao.nn") else None
                if forward is not None:
                    setattr(parent, name, _Float(forward, child))
                    swapped.append((parent, name, child))
        for module in model.modules():
            if isinstance(module, torch.fx.GraphModule) and _quantized_graph(module):
                graphs.append((module, module.graph))
                module.graph = _float_graph(module)  # torch.export traces a GraphModule's graph
                module.recompile()
            for name, method in (_functional(module) or {}).items():
                if name not in vars(module):
                    setattr(module, name, method)
                    patched.append((module, name))
        yield
    finally:
        for module, graph in graphs:
            module.graph = graph
            module.recompile()
        for module, name in patched:
            delattr(module, name)
        for parent, name, child in reversed(swapped):
            setattr(parent, name, child)


# ---- FX graphs (convert_fx) ----------------------------------------------------------------

_QUANTIZED_OPS = {"add": operator.add, "add_relu": None, "mul": operator.mul}
_AVERAGES = (torch.nn.AdaptiveAvgPool1d, torch.nn.AdaptiveAvgPool2d, torch.nn.AdaptiveAvgPool3d,
             torch.nn.AvgPool1d, torch.nn.AvgPool2d, torch.nn.AvgPool3d)
_AVERAGE_FUNCTIONS = {F.adaptive_avg_pool1d, F.adaptive_avg_pool2d, F.adaptive_avg_pool3d, F.avg_pool1d,
                      F.avg_pool2d, F.avg_pool3d, torch.mean, F.interpolate}


def _quantized_graph(module: torch.fx.GraphModule) -> bool:
    return any(n.op == "call_function" and n.target is torch.quantize_per_tensor for n in module.graph.nodes)


def _float_graph(module: torch.fx.GraphModule) -> torch.fx.Graph:
    """The GraphModule's graph with its quantized functions in float (its submodules are
    replaced by quantized_as_float as any other module)."""
    graph = torch.fx.Graph()
    grids: dict[torch.fx.Node, tuple[float, int, torch.dtype]] = {}  # value -> the grid it lies on
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    for node in module.graph.nodes:
        env[node] = _float_node(node, graph, env, grids, module)
    graph.lint()
    return graph


def _value(module: torch.fx.GraphModule, arg):
    """A get_attr argument read as the Python number it holds (a qparam)."""
    if isinstance(arg, torch.fx.Node) and arg.op == "get_attr":
        value = module
        for part in arg.target.split("."):
            value = getattr(value, part)
        return value.item() if isinstance(value, torch.Tensor) else value
    return arg


def _float_node(node, graph, env, grids, module):
    args = torch.fx.map_arg(node.args, lambda n: env[n])
    kwargs = torch.fx.map_arg(node.kwargs, lambda n: env[n])
    if node.op == "call_function" and node.target is torch.quantize_per_tensor:
        scale, zero_point, dtype = (_value(module, a) for a in node.args[1:4])
        grids[node] = (float(scale), int(zero_point), dtype)
        return graph.call_function(on_grid, (args[0], float(scale), int(zero_point), dtype))
    if node.op == "call_method" and node.target == "dequantize":
        return args[0]
    if node.op == "call_function" and getattr(node.target, "_qualified_op_name", "").startswith("quantized::"):
        name = node.target._qualified_op_name.split("::")[1]
        if name in _QUANTIZED_OPS:
            a, b, scale, zero_point = args[:4]
            scale, zero_point = float(_value(module, node.args[2])), int(_value(module, node.args[3]))
            summed = graph.call_function(operator.mul if name == "mul" else operator.add, (a, b))
            if name == "add_relu":
                summed = graph.call_function(F.relu, (summed,))
            grids[node] = (scale, zero_point, torch.quint8)
            return graph.call_function(on_grid, (summed, scale, zero_point))
    source = next((grids[a] for a in node.args if isinstance(a, torch.fx.Node) and a in grids), None)
    if node.op == "call_module":
        target = module.get_submodule(node.target)  # a _Float keeps its quantized module's grid
        grid = (getattr(target, "scale", None), getattr(target, "zero_point", None))
        if isinstance(grid[0], float) and isinstance(grid[1], int):
            grids[node] = (grid[0], grid[1], torch.quint8)
        elif source is not None:
            grids[node] = source
            if isinstance(target, _AVERAGES):
                return _averaged(node, graph, args, kwargs, source)
    elif source is not None and node.op in ("call_function", "call_method"):
        grids[node] = source
        if node.target in _AVERAGE_FUNCTIONS or node.target == "mean":
            return _averaged(node, graph, args, kwargs, source)
    return graph.node_copy(node, lambda n: env[n])


def _averaged(node, graph, args, kwargs, grid):
    """An average of a quantized tensor, taken of its integer levels and rounded half to even
    onto its grid, as the quantized kernels do (the float average rounds otherwise at ties)."""
    scale, zero_point, dtype = grid
    levels = graph.call_function(grid_levels, (args[0], scale, zero_point))
    averaged = graph.create_node(node.op, node.target, (levels, *args[1:]), kwargs)
    return graph.call_function(from_levels, (averaged, scale, zero_point, dtype))
