"""e3nn simple atomistic network: a per-node histogram is filled in a Python loop over the nodes,
`idx = b[i].item(); torch._check_is_size(idx); wrk[idx] += 1`; `torch.compile(fullgraph=True)` fails on it ("Guard
failing with `.item()` indexing": could not guard on the data-dependent `u0 >= 9` when indexing `wrk` with the item).

Source: https://github.com/pytorch/pytorch/issues/131911
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"a": {0: "num_nodes"}, "b": {0: "num_nodes"}}
BLIND = "domains-13"


def my_arithmetic(a, b):
    wrk = torch.zeros(a.size(0))
    for i in range(a.size(0)):
        idx = b[i].item()
        torch._check_is_size(idx)
        wrk[idx] += 1

    return wrk


class NodeCounter(nn.Module):
    def forward(self, a, b):
        return my_arithmetic(a, b)


def make_model():
    return NodeCounter()


def example_inputs():
    return (torch.randn([9]), torch.ones(9, dtype=torch.int32))


def other_inputs():
    return [(torch.randn([12]), torch.randint(0, 12, (12,), dtype=torch.int32)),
            (torch.randn([5]), torch.randint(0, 5, (5,), dtype=torch.int32))]


def probe_inputs():
    return other_inputs()
