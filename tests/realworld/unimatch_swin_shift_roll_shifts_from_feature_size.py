"""UniMatch (unified optical flow / stereo / depth) feature transformer: the shifted-window
self-attention rolls q/k/v by half a window, where the window size is the feature height/width divided
by the number of splits. The report (ONNX export of the UniMatch stereo/flow model) fails inside
torch.onnx.export with "TypeError: roll(): argument 'shifts' must be tuple of ints, not Tensor".

Source: https://github.com/fateshelled/unimatch_onnx/issues/4
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feature0": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-17"


def split_feature(feature, num_splits=2, channel_last=False):
    if channel_last:  # [B, H, W, C]
        b, h, w, c = feature.size()
        assert h % num_splits == 0 and w % num_splits == 0

        b_new = b * num_splits * num_splits
        h_new = h // num_splits
        w_new = w // num_splits

        feature = feature.view(b, num_splits, h // num_splits, num_splits, w // num_splits, c
                               ).permute(0, 1, 3, 2, 4, 5).reshape(b_new, h_new, w_new, c)  # [B*K*K, H/K, W/K, C]
    return feature


def merge_splits(splits, num_splits=2, channel_last=False):
    if channel_last:  # [B*K*K, H/K, W/K, C]
        b, h, w, c = splits.size()
        new_b = b // num_splits // num_splits

        splits = splits.view(new_b, num_splits, num_splits, h, w, c)
        merge = splits.permute(0, 1, 3, 2, 4, 5).contiguous().view(
            new_b, num_splits * h, num_splits * w, c)  # [B, H, W, C]
    return merge


def generate_shift_window_attn_mask(input_resolution, window_size_h, window_size_w,
                                    shift_size_h, shift_size_w, device=torch.device('cuda')):
    # calculate attention mask for SW-MSA
    h, w = input_resolution
    img_mask = torch.zeros((1, h, w, 1)).to(device)  # 1 H W 1
    h_slices = (slice(0, -window_size_h),
                slice(-window_size_h, -shift_size_h),
                slice(-shift_size_h, None))
    w_slices = (slice(0, -window_size_w),
                slice(-window_size_w, -shift_size_w),
                slice(-shift_size_w, None))
    cnt = 0
    for h in h_slices:
        for w in w_slices:
            img_mask[:, h, w, :] = cnt
            cnt += 1

    mask_windows = split_feature(img_mask, num_splits=input_resolution[-1] // window_size_w, channel_last=True)

    mask_windows = mask_windows.view(-1, window_size_h * window_size_w)
    attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
    attn_mask = attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))

    return attn_mask


def single_head_split_window_attention(q, k, v, num_splits=1, with_shift=False, h=None, w=None, attn_mask=None):
    # q, k, v: [B, L, C]
    assert q.dim() == k.dim() == v.dim() == 3

    assert h is not None and w is not None
    assert q.size(1) == h * w

    b, _, c = q.size()

    b_new = b * num_splits * num_splits

    window_size_h = h // num_splits
    window_size_w = w // num_splits

    q = q.view(b, h, w, c)  # [B, H, W, C]
    k = k.view(b, h, w, c)
    v = v.view(b, h, w, c)

    scale_factor = c ** 0.5

    if with_shift:
        assert attn_mask is not None  # compute once
        shift_size_h = window_size_h // 2
        shift_size_w = window_size_w // 2

        q = torch.roll(q, shifts=(-shift_size_h, -shift_size_w), dims=(1, 2))
        k = torch.roll(k, shifts=(-shift_size_h, -shift_size_w), dims=(1, 2))
        v = torch.roll(v, shifts=(-shift_size_h, -shift_size_w), dims=(1, 2))

    q = split_feature(q, num_splits=num_splits, channel_last=True)  # [B*K*K, H/K, W/K, C]
    k = split_feature(k, num_splits=num_splits, channel_last=True)
    v = split_feature(v, num_splits=num_splits, channel_last=True)

    scores = torch.matmul(q.view(b_new, -1, c), k.view(b_new, -1, c).permute(0, 2, 1)
                          ) / scale_factor  # [B*K*K, H/K*W/K, H/K*W/K]

    if with_shift:
        scores += attn_mask.repeat(b, 1, 1)

    attn = torch.softmax(scores, dim=-1)

    out = torch.matmul(attn, v.view(b_new, -1, c))  # [B*K*K, H/K*W/K, C]

    out = merge_splits(out.view(b_new, h // num_splits, w // num_splits, c),
                       num_splits=num_splits, channel_last=True)  # [B, H, W, C]

    # shift back
    if with_shift:
        out = torch.roll(out, shifts=(shift_size_h, shift_size_w), dims=(1, 2))

    out = out.view(b, -1, c)

    return out


class ShiftedWindowSelfAttention(nn.Module):
    def __init__(self, d_model=32, attn_num_splits=2):
        super().__init__()
        self.d_model = d_model
        self.attn_num_splits = attn_num_splits
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.merge = nn.Linear(d_model, d_model, bias=False)
        self.norm1 = nn.LayerNorm(d_model)

    def forward(self, feature0):
        b, c, h, w = feature0.shape
        assert self.d_model == c
        attn_num_splits = self.attn_num_splits

        feature0 = feature0.flatten(-2).permute(0, 2, 1)  # [B, H*W, C]

        window_size_h = h // attn_num_splits
        window_size_w = w // attn_num_splits

        # compute attn mask once
        shifted_window_attn_mask = generate_shift_window_attn_mask(
            input_resolution=(h, w),
            window_size_h=window_size_h,
            window_size_w=window_size_w,
            shift_size_h=window_size_h // 2,
            shift_size_w=window_size_w // 2,
            device=feature0.device,
        )  # [K*K, H/K*W/K, H/K*W/K]

        query = self.q_proj(feature0)
        key = self.k_proj(feature0)
        value = self.v_proj(feature0)
        message = single_head_split_window_attention(query, key, value,
                                                     num_splits=attn_num_splits,
                                                     with_shift=True,
                                                     h=h,
                                                     w=w,
                                                     attn_mask=shifted_window_attn_mask,
                                                     )
        message = self.norm1(self.merge(message))
        out = feature0 + message
        return out.view(b, h, w, c).permute(0, 3, 1, 2).contiguous()


def make_model():
    return ShiftedWindowSelfAttention().eval()


def example_inputs():
    return (torch.randn(1, 32, 8, 12),)


def other_inputs():
    return [(torch.randn(2, 32, 12, 16),), (torch.randn(3, 32, 16, 8),)]


def probe_inputs():
    return other_inputs()
