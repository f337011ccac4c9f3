"""ONX201: `.item()` in an `assert`, XLM/FlauBERT's get_masks (`assert lengths.max().item() <=
slen`), with a message: dynamo fails on it (without one it keeps a runtime assertion, measured);
legacy drops it. Fixed by skipping the check while exporting
(`assert torch.onnx.is_in_onnx_export() or ...`): eager runs the same check."""
import torch
from torch import nn


class LengthMask(nn.Module):
    def forward(self, x: torch.Tensor, lengths: torch.Tensor):
        slen = x.shape[1]
        assert lengths.max().item() <= slen, f"a length exceeds the sequence ({slen})"
        alen = torch.arange(slen, dtype=torch.long, device=lengths.device)
        mask = alen < lengths[:, None]
        return x * mask[:, :, None].to(x.dtype)


def make_model():
    return LengthMask()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 5, 4), torch.tensor([5, 2, 3]))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(2, 7, 4), torch.tensor([1, 7])), (torch.randn(4, 6, 4), torch.tensor([6, 0, 3, 2]))]


DYNAMIC = {0: {0: "batch", 1: "seq"}, 1: {0: "batch"}}
