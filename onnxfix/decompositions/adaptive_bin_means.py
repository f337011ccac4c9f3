import torch


def _onnx_adaptive_bin_means(input, axis, out, length):
    # torch's adaptive average bins along one axis: output i averages the positions
    # floor(i*L/out) .. ceil((i+1)*L/out) (bins may overlap or differ in size). The bins are the
    # columns of a (length, out) 0/1 matrix built from their edges (``length``, the axis's size:
    # a tensor or a SymInt while exporting, so a dynamic size stays dynamic), and the sums one
    # matmul: memory O(length * out) beside the input. A matmul would spread a NaN or an inf to
    # every bin (0 * inf is NaN), so those count as 0 in the sums and are put back in their own
    # bins: NaN where a bin holds a NaN or both infinities, else the infinity it holds.
    bins = torch.arange(out, device=input.device).unsqueeze(1)
    start = bins * length // out
    end = ((bins + 1) * length + out - 1) // out
    positions = torch.arange(input.shape[axis], device=input.device).unsqueeze(0)
    inside = ((positions >= start) & (positions < end)).t().to(input.dtype)  # (length, out)
    values = input.transpose(axis, -1)  # its own inverse (legacy writes movedim as an invalid Transpose)
    total = torch.where(torch.isfinite(values), values, torch.zeros_like(values)) @ inside
    holds = lambda mask: (mask.to(input.dtype) @ inside) > 0  # noqa: E731 - the bins holding a mask's positions
    positive, negative = holds(values == float("inf")), holds(values == float("-inf"))
    total = torch.where(positive, torch.full_like(total, float("inf")), total)
    total = torch.where(negative, torch.full_like(total, float("-inf")), total)
    total = torch.where(holds(torch.isnan(values)) | (positive & negative), torch.full_like(total, float("nan")), total)
    return (total / (end - start).squeeze(1).to(input.dtype)).transpose(axis, -1)
