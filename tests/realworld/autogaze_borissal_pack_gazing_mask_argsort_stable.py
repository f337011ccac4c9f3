"""AutoGaze Borissal patch selector (video token selection for V-JEPA2 / Qwen-VL encoders): after scoring patches
(tubelet-mean luma gradient energy, pooled to the patch grid) and keeping the top-k per tubelet, `_pack_gazing_mask`
packs the (B, N) keep mask into -1-padded kept indices with `key.argsort(dim=1, stable=True)` ("kept indices come
first in each row, in their original ascending order (stable sort)"). The repository later drops `stable=True`
because it "would lower to aten::sort.out, which the ONNX exporter cannot represent (found by
export_borissal_check.py)"; this is the code before that change (selector scoring trimmed to the spatial signal).

Source: https://github.com/manricheon/AutoGaze/blob/0b6a3e86c898a333bc0478dd5a5f2a689f3768b7/autogaze/models/borissal/modeling_borissal.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"video": {0: "batch", 1: "frames"}}
BLIND = "operators-39"


def _pack_gazing_mask(gazing_mask: torch.Tensor):
    """Pack a (B, N) boolean/0-1 mask into (kept_index, is_padded), both (B, K),
    K = max ones-count over the batch. Kept indices come first in each row, in
    their original ascending order (stable sort), padded with -1.
    """
    gazing_mask = gazing_mask.to(torch.long)
    B, N = gazing_mask.shape

    idx = torch.arange(N, device=gazing_mask.device).expand(B, N)
    key = (1 - gazing_mask) * N + idx
    order = key.argsort(dim=1, stable=True)
    sorted_idx = idx.gather(1, order)

    counts = gazing_mask.sum(dim=1)
    K = int(counts.max().item())
    if K == 0:
        empty = sorted_idx[:, :0]
        return empty, empty.to(torch.bool)

    topk = sorted_idx[:, :K]
    pos = torch.arange(K, device=gazing_mask.device).expand(B, K)
    mask = pos < counts.unsqueeze(1)
    kept_index = topk.masked_fill(~mask, -1)
    is_padded = kept_index == -1
    return kept_index, is_padded


class Borissal(nn.Module):
    def __init__(self, tubelet_size=2, patch_size=16, gazing_ratio=0.25, image_size=64, eps=1e-6):
        super().__init__()
        self.tubelet_size, self.patch_size, self.eps = tubelet_size, patch_size, eps
        n_pf = (image_size // patch_size) ** 2
        self.k_per_tubelet = max(1, int(round(gazing_ratio * n_pf)))

    def forward(self, video):
        B, T, C, H, W = video.shape
        T_grid, p = T // self.tubelet_size, self.patch_size
        gray = video.mean(dim=2)
        tub = gray.view(B, T_grid, self.tubelet_size, H, W).mean(dim=2)
        dy = F.pad(tub[:, :, 1:, :] - tub[:, :, :-1, :], (0, 0, 0, 1))
        dx = F.pad(tub[:, :, :, 1:] - tub[:, :, :, :-1], (0, 1, 0, 0))
        spatial = torch.sqrt(dx * dx + dy * dy + self.eps)
        S = F.avg_pool2d(spatial.reshape(B * T_grid, 1, H, W), kernel_size=p, stride=p)
        N_pf = (H // p) * (W // p)
        S = S.view(B, T_grid, N_pf)
        _, kidx = S.topk(self.k_per_tubelet, dim=-1)
        keep = torch.zeros_like(S, dtype=torch.bool).scatter_(2, kidx, torch.ones_like(kidx, dtype=torch.bool))
        return _pack_gazing_mask(keep.reshape(B, T_grid * N_pf))


def make_model():
    return Borissal().eval()


def example_inputs():
    return (torch.rand(2, 4, 3, 64, 64),)


def other_inputs():
    return [(torch.rand(3, 6, 3, 64, 64),), (torch.rand(1, 2, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
