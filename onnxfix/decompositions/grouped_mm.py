import torch


def _onnx_grouped_mm(mat_a, mat_b, offs=None, bias=None, out_dtype=None):
    # torch.nn.functional.grouped_mm / torch._grouped_mm (MoE expert projections): neither
    # exporter translates aten._grouped_mm. While exporting: 3-D operands (groups first, no
    # offsets) are a batched matmul; a 2-D `mat_a` whose rows are cut into groups by `offs` (the
    # ends of the groups) takes each row's group's matrix of a 3-D `mat_b` (a gather and a batched
    # matmul). Computed in float32 (the grouped kernel's accumulation; onnxruntime has no bfloat16
    # MatMul) and cast to the result's dtype. Anything else runs the op. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.nn.functional.grouped_mm(mat_a, mat_b, offs=offs, bias=bias, out_dtype=out_dtype)
    dtype = out_dtype or mat_a.dtype
    if bias is None and offs is None and mat_a.dim() == 3 and mat_b.dim() == 3:
        return torch.bmm(mat_a.float(), mat_b.float()).to(dtype)
    if bias is None and offs is not None and mat_a.dim() == 2 and mat_b.dim() == 3:
        rows = torch.arange(mat_a.shape[0], device=mat_a.device)
        groups = (rows.unsqueeze(1) >= offs.unsqueeze(0)).sum(1).clamp(max=mat_b.shape[0] - 1)
        inside = (rows < offs[-1]).unsqueeze(1)  # rows past the last group: zero (the kernel leaves them)
        out = torch.bmm(mat_a.float().unsqueeze(1), mat_b.float()[groups]).squeeze(1)
        return torch.where(inside, out, torch.zeros_like(out)).to(dtype)
    return torch.nn.functional.grouped_mm(mat_a, mat_b, offs=offs, bias=bias, out_dtype=out_dtype)
