"""Chronos-2 time-series forecaster: the InstanceNorm scaler standardizes the context with
`torch.nanmean` and squashes it with `torch.arcsinh`, and the forecast is un-scaled with
`torch.sinh`; the Chronos-2 ONNX export scripts have to register custom symbolics for aten::asinh /
aten::sinh and note that only the dynamo exporter "supports more ops like nanmean", because the
legacy exporter they use rejects these operators. (Patching/encoder trimmed to a residual MLP.)

Source: https://github.com/amazon-science/chronos-forecasting/pull/359
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"context": {0: "batch_size"}}
BLIND = "operators-4"


class Patch(nn.Module):
    def __init__(self, patch_size: int, patch_stride: int) -> None:
        super().__init__()
        self.patch_size = patch_size
        self.patch_stride = patch_stride

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[-1]

        if length % self.patch_size != 0:
            padding_size = (
                *x.shape[:-1],
                self.patch_size - (length % self.patch_size),
            )
            padding = torch.full(size=padding_size, fill_value=torch.nan, dtype=x.dtype, device=x.device)
            x = torch.concat((padding, x), dim=-1)

        x = x.unfold(dimension=-1, size=self.patch_size, step=self.patch_stride)
        return x


class InstanceNorm(nn.Module):
    """
    Apply standardization along the last dimension and optionally apply arcsinh after standardization.
    """

    def __init__(self, eps: float = 1e-5, use_arcsinh: bool = False) -> None:
        super().__init__()
        self.eps = eps
        self.use_arcsinh = use_arcsinh

    def forward(self, x, loc_scale=None):
        orig_dtype = x.dtype
        x = x.to(torch.float32)
        if loc_scale is None:
            loc = torch.nan_to_num(torch.nanmean(x, dim=-1, keepdim=True), nan=0.0)
            scale = torch.nan_to_num((x - loc).square().nanmean(dim=-1, keepdim=True).sqrt(), nan=1.0)
            scale = torch.where(scale == 0, self.eps, scale)
        else:
            loc, scale = loc_scale

        scaled_x = (x - loc) / scale

        if self.use_arcsinh:
            scaled_x = torch.arcsinh(scaled_x)

        return scaled_x.to(orig_dtype), (loc, scale)

    def inverse(self, x, loc_scale):
        orig_dtype = x.dtype
        x = x.to(torch.float32)
        loc, scale = loc_scale

        if self.use_arcsinh:
            x = torch.sinh(x)

        x = x * scale + loc

        return x.to(orig_dtype)


class ResidualBlock(nn.Module):
    def __init__(self, in_dim: int, h_dim: int, out_dim: int) -> None:
        super().__init__()
        self.hidden_layer = nn.Linear(in_dim, h_dim)
        self.act = nn.ReLU()
        self.output_layer = nn.Linear(h_dim, out_dim)
        self.residual_layer = nn.Linear(in_dim, out_dim)

    def forward(self, x):
        hid = self.act(self.hidden_layer(x))
        out = self.output_layer(hid)
        res = self.residual_layer(x)
        return out + res


class Chronos2Lite(nn.Module):
    def __init__(self, patch_size=16, d_model=64, num_quantiles=3, output_patch_size=16):
        super().__init__()
        self.num_quantiles = num_quantiles
        self.output_patch_size = output_patch_size
        self.instance_norm = InstanceNorm(use_arcsinh=True)
        self.patch = Patch(patch_size=patch_size, patch_stride=patch_size)
        self.input_patch_embedding = ResidualBlock(2 * patch_size, 128, d_model)
        self.output_patch_embedding = ResidualBlock(d_model, 128, num_quantiles * output_patch_size)

    def forward(self, context):
        batch_size = context.shape[0]
        mask = torch.isnan(context).logical_not().to(context.dtype)
        context, loc_scale = self.instance_norm(context)
        patched_context = self.patch(context)
        patched_mask = torch.nan_to_num(self.patch(mask), nan=0.0)
        patched_context = torch.where(patched_mask > 0.0, patched_context, 0.0)
        patched_context = torch.cat([patched_context, patched_mask], dim=-1)
        hidden = self.input_patch_embedding(patched_context).mean(dim=1)
        quantile_preds = self.output_patch_embedding(hidden)
        quantile_preds = self.instance_norm.inverse(quantile_preds.view(batch_size, -1), loc_scale)
        return quantile_preds.view(batch_size, self.num_quantiles, self.output_patch_size)


def make_model():
    return Chronos2Lite().eval()


def _context(b, t=128):
    x = 10.0 + 3.0 * torch.randn(b, t).cumsum(-1) / 8.0
    x[:, :5] = float("nan")  # missing values at the start of the context
    return x


def example_inputs():
    return (_context(2),)


def other_inputs():
    return [(_context(5),), (_context(1),)]


def probe_inputs():
    return other_inputs()
