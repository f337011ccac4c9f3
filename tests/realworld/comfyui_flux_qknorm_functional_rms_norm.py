"""ComfyUI Flux (comfy/ldm/common_dit.py + flux/layers.py): the QK-norm RMSNorm calls `rms_norm(x, self.scale)`,
which dispatches to `torch.nn.functional.rms_norm` whenever it exists. The commit "Fix onnx export not working on
flux." adds `and not (torch.jit.is_tracing() or torch.jit.is_scripting())` so that tracing takes the manual
rsqrt/mean path instead: the TorchScript-based ONNX exporter has no symbolic for aten::rms_norm.

Source: https://github.com/Comfy-Org/ComfyUI/commit/c27ebeb1c2b7f163973f1dc9c57ee035214d6737
"""
import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "tokens"}}
BLIND = "operators-48"


def cast_to(weight, dtype=None, device=None, non_blocking=False, copy=True):
    # trimmed comfy.ops.cast_to
    if not copy and (dtype is None or weight.dtype == dtype) and (device is None or weight.device == device):
        return weight
    return weight.to(device=device, dtype=dtype, non_blocking=non_blocking, copy=copy)


try:
    rms_norm_torch = torch.nn.functional.rms_norm
except:
    rms_norm_torch = None


def rms_norm(x, weight, eps=1e-6):
    if rms_norm_torch is not None:
        return rms_norm_torch(x, weight.shape, weight=cast_to(weight, dtype=x.dtype, device=x.device), eps=eps)
    else:
        rrms = torch.rsqrt(torch.mean(x**2, dim=-1, keepdim=True) + eps)
        return (x * rrms) * cast_to(weight, dtype=x.dtype, device=x.device)


class RMSNorm(torch.nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))

    def forward(self, x: Tensor):
        return rms_norm(x, self.scale, 1e-6)


class QKNorm(torch.nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.query_norm = RMSNorm(dim)
        self.key_norm = RMSNorm(dim)

    def forward(self, q: Tensor, k: Tensor, v: Tensor) -> tuple:
        q = self.query_norm(q)
        k = self.key_norm(k)
        return q.to(v), k.to(v)


class SelfAttention(nn.Module):
    """Trimmed flux SelfAttention (no RoPE); einops rearranges written as reshape/permute."""

    def __init__(self, dim: int = 64, num_heads: int = 4, qkv_bias: bool = False):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.norm = QKNorm(head_dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: Tensor) -> Tensor:
        B, L, _ = x.shape
        qkv = self.qkv(x)
        # rearrange(qkv, "B L (K H D) -> K B H L D", K=3, H=self.num_heads)
        q, k, v = qkv.reshape(B, L, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        q, k = self.norm(q, k, v)
        x = F.scaled_dot_product_attention(q, k, v)
        x = x.transpose(1, 2).reshape(B, L, -1)  # "B H L D -> B L (H D)"
        return self.proj(x)


def make_model():
    return SelfAttention().eval()


def example_inputs():
    return (torch.randn(2, 16, 64),)


def other_inputs():
    return [(torch.randn(3, 24, 64),), (torch.randn(1, 9, 64),)]


def probe_inputs():
    return other_inputs()
