"""UniMatch (GMFlow/GMStereo) transformer with shifted 1D window attention
(attn_type 'self_swin2d_cross_swin1d', attn_num_splits=2): the window and shift sizes come from the
feature width, `window_size_w = w // num_splits`, `shift_size_w = window_size_w // 2`, and feed
`torch.roll(..., shifts=...)` and a Python-built attention mask; ONNX export fails at
`out = torch.roll(out, shifts=shift_size_w, dims=2)` with "RuntimeError: `shifts` required".

Source: https://github.com/autonomousvision/unimatch/issues/29
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"img0": {2: "height", 3: "width"}, "img1": {2: "height", 3: "width"}}
BLIND = "domains-6"


def split_feature_1d(feature, num_splits=2):
    # feature: [B, W, C]
    b, w, c = feature.size()
    assert w % num_splits == 0
    b_new = b * num_splits
    w_new = w // num_splits
    feature = feature.view(b, num_splits, w // num_splits, c
                           ).view(b_new, w_new, c)  # [B*K, W/K, C]
    return feature


def merge_splits_1d(splits, h, num_splits=2):
    b, w, c = splits.size()
    new_b = b // num_splits // h
    splits = splits.view(new_b, h, num_splits, w, c)
    merge = splits.view(new_b, h, num_splits * w, c)  # [B, H, W, C]
    return merge


def generate_shift_window_attn_mask_1d(input_w, window_size_w,
                                       shift_size_w, device=torch.device('cuda')):
    # calculate attention mask for SW-MSA
    img_mask = torch.zeros((1, input_w, 1)).to(device)  # 1 W 1
    s = 0
    w_slices = (slice(0, -window_size_w),
                slice(-window_size_w, -shift_size_w),
                slice(-shift_size_w, None))
    for w in w_slices:
        img_mask[:, w, :] = s
        s += 1
    mask_windows = split_feature_1d(img_mask, num_splits=input_w // window_size_w)
    mask_windows = mask_windows.view(-1, window_size_w)
    attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)  # nW, window_size, window_size
    attn_mask = attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))
    return attn_mask


def single_head_split_window_attention_1d(q, k, v, relative_position_bias=None, num_splits=1,
                                          with_shift=False, h=None, w=None, attn_mask=None):
    # q, k, v: [B, L, C]
    assert h is not None and w is not None
    assert q.size(1) == h * w
    b, _, c = q.size()
    b_new = b * num_splits * h
    window_size_w = w // num_splits
    q = q.view(b * h, w, c)  # [B*H, W, C]
    k = k.view(b * h, w, c)
    v = v.view(b * h, w, c)
    scale_factor = c ** 0.5
    if with_shift:
        assert attn_mask is not None  # compute once
        shift_size_w = window_size_w // 2
        q = torch.roll(q, shifts=-shift_size_w, dims=1)
        k = torch.roll(k, shifts=-shift_size_w, dims=1)
        v = torch.roll(v, shifts=-shift_size_w, dims=1)
    q = split_feature_1d(q, num_splits=num_splits)  # [B*H*K, W/K, C]
    k = split_feature_1d(k, num_splits=num_splits)
    v = split_feature_1d(v, num_splits=num_splits)
    scores = torch.matmul(q.view(b_new, -1, c), k.view(b_new, -1, c).permute(0, 2, 1)
                          ) / scale_factor  # [B*H*K, W/K, W/K]
    if with_shift:
        scores += attn_mask.repeat(b * h, 1, 1)  # [B*H*K, W/K, W/K]
    attn = torch.softmax(scores, dim=-1)
    out = torch.matmul(attn, v.view(b_new, -1, c))  # [B*H*K, W/K, C]
    out = merge_splits_1d(out, h, num_splits=num_splits)  # [B*H, W, C]
    # shift back
    if with_shift:
        out = torch.roll(out, shifts=shift_size_w, dims=2)
    out = out.view(b, -1, c)
    return out


class CrossAttnLayer1D(nn.Module):
    def __init__(self, d_model=32):
        super().__init__()
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.merge = nn.Linear(d_model, d_model, bias=False)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, source, target, height, width, with_shift, attn_num_splits, shifted_window_attn_mask_1d):
        query, key, value = self.q_proj(source), self.k_proj(target), self.v_proj(target)
        message = single_head_split_window_attention_1d(
            query, key, value, num_splits=attn_num_splits, with_shift=with_shift,
            h=height, w=width, attn_mask=shifted_window_attn_mask_1d)
        return source + self.norm(self.merge(message))


class GMStereoTransformer(nn.Module):
    def __init__(self, d_model=32, num_layers=2, attn_num_splits=2):
        super().__init__()
        self.d_model = d_model
        self.attn_num_splits = attn_num_splits
        self.backbone = nn.Sequential(nn.Conv2d(3, d_model, 7, 4, 3), nn.ReLU(), nn.Conv2d(d_model, d_model, 3, 1, 1))
        self.layers = nn.ModuleList([CrossAttnLayer1D(d_model) for _ in range(num_layers)])

    def forward(self, img0, img1):
        feature0, feature1 = self.backbone(img0), self.backbone(img1)
        b, c, h, w = feature0.shape
        assert self.d_model == c
        attn_num_splits = self.attn_num_splits
        feature0 = feature0.flatten(-2).permute(0, 2, 1)  # [B, H*W, C]
        feature1 = feature1.flatten(-2).permute(0, 2, 1)  # [B, H*W, C]
        if attn_num_splits > 1:
            window_size_w = w // attn_num_splits
            # compute attn mask once
            shifted_window_attn_mask_1d = generate_shift_window_attn_mask_1d(
                input_w=w,
                window_size_w=window_size_w,
                shift_size_w=window_size_w // 2,
                device=feature0.device,
            )  # [K*H, W/K, W/K]
        else:
            shifted_window_attn_mask_1d = None
        for i, layer in enumerate(self.layers):
            feature0 = layer(feature0, feature1, height=h, width=w,
                             with_shift=attn_num_splits > 1 and i % 2 == 1,
                             attn_num_splits=attn_num_splits,
                             shifted_window_attn_mask_1d=shifted_window_attn_mask_1d)
        return feature0.view(b, h, w, c).permute(0, 3, 1, 2).contiguous()


def make_model():
    return GMStereoTransformer().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 128), torch.randn(1, 3, 64, 128))


def other_inputs():
    return [(torch.randn(1, 3, 96, 192), torch.randn(1, 3, 96, 192)),
            (torch.randn(1, 3, 48, 96), torch.randn(1, 3, 48, 96))]


def probe_inputs():
    return other_inputs()
