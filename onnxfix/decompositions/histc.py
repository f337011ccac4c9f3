import torch


def _onnx_histc(input, bins=100, min=0, max=0):
    # torch's kernel: bin = int((x - low) * bins / (high - low)) in the input's dtype, x == high
    # goes to the last bin, values outside [low, high] (and NaN) are not counted. min == max
    # means the data's own range (widened by 1 on each side when that is a single value).
    # Counts are comparisons against every bin: O(numel * bins) memory.
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
    position = ((values - low) * bins / (high - low)).clamp(0, bins).to(torch.int64)
    position = torch.where(position == bins, bins - 1, position)
    hits = inside.unsqueeze(-1) & (position.unsqueeze(-1) == torch.arange(bins, device=input.device))
    return hits.sum(0).to(input.dtype)
