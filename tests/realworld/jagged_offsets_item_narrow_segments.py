"""Jagged "list of offsets" representation (recsys-style): the model walks an offsets tensor, takes each
`end_offset = offsets_tensor[i].item()` and slices `torch.narrow(values, 0, start_offset, end_offset - start_offset)`;
the report: export chokes on these data-dependent segment sizes unless `torch._check_is_size` / `torch._check`
hints are added (a TorchScript trace instead freezes the example offsets).

Source: https://github.com/pytorch/pytorch/issues/119468
"""
import torch

CLASS = "item-assigned"
FAMILY = "tensor_data"
DYNAMIC = {"values": {0: "num_values"}}
BLIND = "domains-27"


class M(torch.nn.Module):
    def forward(
        self, values: torch.Tensor, offsets_tensor: torch.Tensor
    ) -> torch.Tensor:
        res_list = []
        start_offset = 0
        for i in range(0, len(offsets_tensor)):
            end_offset = offsets_tensor[i].item()

            torch._check_is_size(end_offset)
            torch._check_is_size(start_offset)
            torch._check(
                end_offset >= start_offset
            )  # This is expected behavior, doesn't work

            sz = end_offset - start_offset

            res_list.append(torch.narrow(values, 0, start_offset, sz))
            start_offset = end_offset

        return res_list[-1]


def make_model():
    return M()


def example_inputs():
    return (torch.rand(100), torch.tensor([3, 5, 9]))


def other_inputs():
    return [(torch.rand(60), torch.tensor([10, 30, 52])),
            (torch.rand(130), torch.tensor([2, 2, 7]))]


def probe_inputs():
    return other_inputs()
