import torch


def _onnx_histc(input, bins=100, min=0, max=0):
    # torch's kernel: bin = int((x - low) * bins / (high - low)) in the input's dtype, x == high
    # goes to the last bin, values outside [low, high] (and NaN) are not counted. min == max
    # means the data's own range (widened by 1 on each side when that is a single value).
    # Counts are comparisons against every bin: O(numel * bins) memory. Half types: each step
    # rounded as ATen's half arithmetic rounds it.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.histc(input, bins, min, max)
    values = input.reshape(-1)
    if min == max and values.numel() > 0:
        low, high = values.min(), values.max()
        same = low == high
        low, high = torch.where(same, low - 1, low), torch.where(same, high + 1, high)
    else:
        low = torch.tensor(min - 1 if min == max else min, dtype=input.dtype, device=input.device)
        high = torch.tensor(max + 1 if min == max else max, dtype=input.dtype, device=input.device)
    inside = (values >= low) & (values <= high)
    if input.dtype in (torch.float16, torch.bfloat16):
        # ATen's half kernel rounds each step to the half type (c10::Half computes in float and
        # rounds back); onnxruntime's float16 Sub / Mul / Div round otherwise (measured: 451 of
        # 1,000 positions one unit off), so each step runs in float32 and is cast to the half type
        def half(t):
            return t.to(input.dtype).float()

        span = half(high.float() - low.float())
        count = float(torch.tensor(float(bins)).to(input.dtype))  # ATen's Half * int64_t takes bins as a half
        position = half(half(half(values.float() - low.float()) * count) / span)
    else:
        position = (values - low) * bins / (high - low)
    position = position.clamp(0, bins).to(torch.int64)
    position = torch.where(position == bins, bins - 1, position)
    hits = inside.unsqueeze(-1) & (position.unsqueeze(-1) == torch.arange(bins, device=input.device))
    return hits.sum(0).to(input.dtype)
