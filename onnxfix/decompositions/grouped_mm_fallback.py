import torch


def _onnx_grouped_mm_fallback(input, weight, offs):
    # transformers' custom op (integrations/moe.py): rows [offs[i-1], offs[i]) of `input` times
    # expert i's weight, rows past offs[-1] zero. Its kernel loops over offs.tolist() (data the
    # export cannot read) and no exporter translates the op. The same product for every row and
    # expert at once, each row keeping its own expert's: an expert's rows are those at or past
    # the previous experts' ends. Another matmul shape than the kernel's, so eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.ops.transformers.grouped_mm_fallback(input, weight, offs)
    ends = offs.to(torch.int64)
    rows = torch.arange(input.shape[0], device=input.device)
    expert = (rows.unsqueeze(1) >= ends.unsqueeze(0)).sum(1)
    covered = expert < weight.shape[0]
    expert = expert.clamp(max=weight.shape[0] - 1)
    products = torch.matmul(input.unsqueeze(0), weight)  # (experts, rows, out)
    index = expert.view(1, -1, 1).expand(1, -1, weight.shape[2])
    chosen = products.gather(0, index).squeeze(0)
    return torch.where(covered.unsqueeze(1), chosen, torch.zeros_like(chosen))
