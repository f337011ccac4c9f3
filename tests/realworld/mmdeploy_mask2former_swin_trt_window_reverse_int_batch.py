"""mmdeploy's TensorRT rewrite of mmdet's Swin ShiftWindowMSA (Mask2Former backbone): window_reverse
computes `B = int(windows.shape[0] / (H * W / window_size / window_size))`, which the export warns
"Converting a tensor to a Python integer" and freezes, so the ONNX/TensorRT model made with a
dynamic batch fails ("reshaping failed ... Reshape_7") for a batch other than the export one.

Source: https://github.com/open-mmlab/mmdeploy/issues/2920
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-20"


class WindowMSA(nn.Module):
    def __init__(self, embed_dims, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (embed_dims // num_heads) ** -0.5
        self.qkv = nn.Linear(embed_dims, embed_dims * 3)
        self.proj = nn.Linear(embed_dims, embed_dims)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x, mask=None):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads,
                                  -1).permute(2, 0, 3, 1, 4).contiguous()
        q, k, v = [i.squeeze(0) for i in torch.split(qkv, 1, 0)]
        q = q * self.scale
        attn = (q @ k.transpose(-2, -1))
        attn = self.softmax(attn)
        x = (attn @ v).transpose(1, 2).contiguous().reshape(B, N, C)
        return self.proj(x)


class ShiftWindowMSA(nn.Module):
    def __init__(self, embed_dims=32, num_heads=2, window_size=4):
        super().__init__()
        self.window_size = window_size
        self.w_msa = WindowMSA(embed_dims, num_heads)

    def window_reverse(self, windows, H, W):
        window_size = self.window_size
        B = int(windows.shape[0] / (H * W / window_size / window_size))
        x = windows.view(B, -1, W, window_size, windows.shape[-1])
        x = x.view(B, x.shape[1], -1, window_size, window_size, x.shape[-1])
        x = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, x.shape[-1])
        return x

    def window_partition(self, x):
        B, H, W, C = x.shape
        window_size = self.window_size
        x = x.view(B, H, -1, window_size, C)
        x = x.view(B, -1, window_size, x.shape[-3], window_size, C)
        windows = x.permute(0, 1, 3, 2, 4, 5).contiguous()
        windows = windows.view(-1, window_size, window_size, C)
        return windows

    def forward(self, query, hw_shape):
        B, L, C = query.shape
        H, W = hw_shape
        query = query.view(B, H, W, C)
        query = query.permute(0, 3, 1, 2).contiguous()
        query = torch.nn.ZeroPad2d([0, self.window_size, 0, self.window_size])(query)
        slice_h = (H + self.window_size - 1) // self.window_size * self.window_size
        slice_w = (W + self.window_size - 1) // self.window_size * self.window_size
        query = query[:, :, :slice_h, :slice_w]
        query = query.permute(0, 2, 3, 1).contiguous()
        H_pad, W_pad = query.shape[1], query.shape[2]
        query_windows = self.window_partition(query)
        query_windows = query_windows.view(-1, self.window_size**2, C)
        attn_windows = self.w_msa(query_windows, mask=None)
        attn_windows = attn_windows.view(-1, self.window_size, self.window_size, C)
        shifted_x = self.window_reverse(attn_windows, H_pad, W_pad)
        x = shifted_x[:, :H, :W, :].contiguous()
        x = x.view(B, H * W, C)
        return x


class SwinStage(nn.Module):
    def __init__(self, embed_dims=32):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, embed_dims, kernel_size=4, stride=4)
        self.attn = ShiftWindowMSA(embed_dims)

    def forward(self, x):
        x = self.patch_embed(x)
        hw_shape = (x.shape[2], x.shape[3])
        x = x.flatten(2).transpose(1, 2)
        return self.attn(x, hw_shape)


def make_model():
    return SwinStage().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(3, 3, 72, 64),), (torch.randn(1, 3, 48, 112),)]


def probe_inputs():
    return other_inputs()
