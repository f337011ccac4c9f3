"""NNCF quantization-aware model (OpenVINO NNCF, SymmetricQuantizer before each conv): when `torch.onnx.export`
traces it, the quantizer sees `torch._C._get_tracing_state()` and switches to its export path, computing
`input_low`/`input_high` from the trainable `scale` parameter inside `no_jit_trace()` (tracing paused) and passing
them to `ExportQuantizeToFakeQuantize.apply`; export fails with "RuntimeError: Cannot insert a Tensor that requires
grad as a constant ... Tensor: 0 [ torch.FloatTensor{1} ]" (the PR wrapped the export path in torch.no_grad()).

Source: https://github.com/openvinotoolkit/nncf/pull/1337
"""
import torch
import torch.nn as nn

CLASS = "autograd-function"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-21"

DOMAIN_CUSTOM_OPS_NAME = "org.openvinotoolkit"


def add_domain(name_operator: str) -> str:
    return DOMAIN_CUSTOM_OPS_NAME + "::" + name_operator


def is_tracing_state():
    # pylint: disable=protected-access
    return torch._C._get_tracing_state() is not None


class no_jit_trace:
    def __enter__(self):
        # pylint: disable=protected-access
        self.state = torch._C._get_tracing_state()
        torch._C._set_tracing_state(None)

    def __exit__(self, *args):
        torch._C._set_tracing_state(self.state)
        self.state = None


def calculate_symmetric_level_ranges(num_bits, signed):
    levels = 2 ** num_bits
    if signed:
        level_high = (levels // 2) - 1
        level_low = -(levels // 2)
    else:
        level_high = levels - 1
        level_low = 0
    return level_low, level_high, levels


class QuantizeSymmetric(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input_, scale, level_low, level_high, levels):
        input_low = scale * (level_low / level_high)
        input_range = scale - input_low
        # QuantizedFunctionsCPU.Quantize_forward (C++ extension), written out in torch
        s = (levels - 1) / input_range
        output = torch.max(torch.min(input_, input_low + input_range), input_low)
        return torch.round((output - input_low) * s) / s + input_low

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None, None, None


class ExportQuantizeToFakeQuantize(torch.autograd.Function):
    @staticmethod
    def symbolic(g, input_, levels, input_low, input_high, output_low, output_high):
        return g.op(add_domain("FakeQuantize"), input_, input_low, input_high, output_low, output_high, levels_i=levels)

    @staticmethod
    def forward(ctx, input_, levels, input_low, input_high, output_low, output_high):
        return torch.clone(input_)

    @staticmethod
    def backward(ctx, grad_output):
        # backward is not used during export
        return grad_output


def symmetric_quantize(input_, levels, level_low, level_high, scale, eps, skip: bool = False):
    if skip:
        return input_
    scale = scale.to(dtype=input_.dtype)
    scale_safe = abs(scale) + eps
    return QuantizeSymmetric.apply(input_, scale_safe, level_low, level_high, levels)


class SymmetricQuantizer(nn.Module):
    def __init__(self, num_bits=8, signed=False, scale_shape=(1,)):
        super().__init__()
        self.num_bits = num_bits
        self.signed_tensor = nn.Parameter(torch.IntTensor([int(signed)]), requires_grad=False)
        self._scale_param_storage = nn.Parameter(torch.ones(scale_shape), requires_grad=True)
        self.eps = 1e-16
        self.set_level_ranges()

    @property
    def scale(self):
        return self._scale_param_storage

    @property
    def signed(self):
        with no_jit_trace():
            return self.signed_tensor.item() == 1

    def set_level_ranges(self):
        self.level_low, self.level_high, self.levels = calculate_symmetric_level_ranges(self.num_bits, self.signed)

    def forward(self, x):
        self.set_level_ranges()
        is_exporting = is_tracing_state()
        if is_exporting:
            x = self.run_export_quantization(x)
            return self.quantize(x, execute_traced_op_as_identity=True)
        return self.quantize(x, execute_traced_op_as_identity=False)

    def quantize(self, x, execute_traced_op_as_identity: bool = False):
        return symmetric_quantize(x, self.levels, self.level_low, self.level_high, self.scale, self.eps,
                                  skip=execute_traced_op_as_identity)

    def _get_input_low_input_high(self, scale, level_low, level_high, eps):
        input_range = abs(scale) + eps
        input_low = input_range * level_low / level_high
        input_high = input_range
        return input_low, input_high

    def _prepare_export_quantization(self, x: torch.Tensor):
        with no_jit_trace():
            input_low, input_high = self._get_input_low_input_high(self.scale,
                                                                   self.level_low,
                                                                   self.level_high,
                                                                   self.eps)
            level_low = self.level_low
            level_high = self.level_high
        return x, level_high, level_low, input_low, input_high

    def _prepare_fq_export_quantization(self, x: torch.Tensor):
        x, level_high, level_low, input_low, input_high = self._prepare_export_quantization(x)
        with no_jit_trace():
            levels = level_high - level_low + 1
        return x, levels, input_low, input_high

    def run_export_quantization(self, x: torch.Tensor):
        x, levels, input_low, input_high = self._prepare_fq_export_quantization(x)
        return ExportQuantizeToFakeQuantize.apply(x, levels,
                                                  input_low,
                                                  input_high,
                                                  input_low,
                                                  input_high)


class QuantizedTwoConvModel(nn.Module):
    """TwoConvTestModel from the PR's test, with the activation quantizers NNCF inserts before each conv."""

    def __init__(self):
        super().__init__()
        self.quantize_input = SymmetricQuantizer(signed=True)
        self.conv1 = nn.Conv2d(1, 2, 2)
        self.quantize_conv1 = SymmetricQuantizer(signed=False)
        self.conv2 = nn.Conv2d(2, 1, 3)

    def forward(self, x):
        x = self.conv1(self.quantize_input(x))
        x = torch.relu(x)
        return self.conv2(self.quantize_conv1(x))


def make_model():
    model = QuantizedTwoConvModel().eval()
    with torch.no_grad():
        model.quantize_input._scale_param_storage.fill_(3.0)
        model.quantize_conv1._scale_param_storage.fill_(2.0)
    return model


def example_inputs():
    return (torch.randn(2, 1, 8, 8),)


def other_inputs():
    return [(torch.randn(3, 1, 12, 10),), (torch.randn(1, 1, 6, 9),)]


def probe_inputs():
    return other_inputs()
