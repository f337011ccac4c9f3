"""ONX609: SwinIR's shifted-window block. `__init__` caches the attention mask for the training
resolution (`register_buffer("attn_mask", self.calculate_mask(input_resolution))`); forward takes
it when the image has that size and recomputes it otherwise. Exported at the cached size, both
exporters keep the cached mask: other sizes fail in onnxruntime. Fixed (safely: eager is
unchanged) by taking the recomputing branch under export."""
import torch
from torch import nn

DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)


def window_reverse(windows, window_size, H, W):
    B = windows.shape[0] // (H // window_size * (W // window_size))
    x = windows.view(B, H // window_size, W // window_size, window_size, window_size, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)


class SwinBlock(nn.Module):
    def __init__(self, dim=8, input_resolution=(8, 8), window_size=4, shift_size=2):
        super().__init__()
        self.dim, self.input_resolution = dim, input_resolution
        self.window_size, self.shift_size = window_size, shift_size
        self.embed = nn.Conv2d(3, dim, 3, 1, 1)
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("attn_mask", self.calculate_mask(input_resolution))

    def calculate_mask(self, x_size):
        H, W = x_size
        img_mask = torch.zeros((1, H, W, 1))
        h_slices = (slice(0, -self.window_size), slice(-self.window_size, -self.shift_size), slice(-self.shift_size, None))
        w_slices = (slice(0, -self.window_size), slice(-self.window_size, -self.shift_size), slice(-self.shift_size, None))
        cnt = 0
        for h in h_slices:
            for w in w_slices:
                img_mask[:, h, w, :] = cnt
                cnt += 1
        mask_windows = window_partition(img_mask, self.window_size).view(-1, self.window_size * self.window_size)
        attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
        return attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))

    def attn(self, x, mask):
        B_, N, C = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        attn = (q * C ** -0.5) @ k.transpose(-2, -1)
        nW = mask.shape[0]
        attn = attn.view(B_ // nW, nW, N, N) + mask.unsqueeze(0)
        attn = attn.view(-1, N, N).softmax(dim=-1)
        return self.proj(attn @ v)

    def forward(self, x):
        h, w = x.shape[2:]
        # SwinIR's check_image_size: pad to a multiple of the window size, crop back at the end
        x = nn.functional.pad(x, (0, (-w) % self.window_size, 0, (-h) % self.window_size), "reflect")
        x_size = (x.shape[2], x.shape[3])
        x = self.embed(x).permute(0, 2, 3, 1)
        B, H, W, C = x.shape
        shifted_x = torch.roll(self.norm1(x), shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
        x_windows = window_partition(shifted_x, self.window_size).view(-1, self.window_size * self.window_size, C)
        if self.input_resolution == x_size:
            attn_windows = self.attn(x_windows, mask=self.attn_mask)
        else:
            attn_windows = self.attn(x_windows, mask=self.calculate_mask(x_size).to(x.device))
        attn_windows = attn_windows.view(-1, self.window_size, self.window_size, C)
        shifted_x = window_reverse(attn_windows, self.window_size, H, W)
        x = x + torch.roll(shifted_x, shifts=(self.shift_size, self.shift_size), dims=(1, 2))
        return x.permute(0, 3, 1, 2)[:, :, :h, :w]


def make_model():
    torch.manual_seed(0)
    return SwinBlock()


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)


def other_inputs():
    return [(torch.randn(2, 3, 12, 12),), (torch.randn(1, 3, 13, 6),)]


def probe_inputs():
    return other_inputs()
