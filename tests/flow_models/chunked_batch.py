"""ONX603 on loops over the batch in chunks, to bound memory: diffusers' sliced attention
(`for i in range((n - 1) // self.slice_size + 1)`, rows `i * s:(i + 1) * s`) and a VAE decoded a
few latents at a time (`for x in range(0, n, batch_number)`, rows `x:x + batch_number`), each
chunk written into a preallocated output. Unrolled at export: torch.export fixes the batch (a
`range` over it) and the legacy exporter keeps the example's chunks. Fixed (unsafe: the body must
treat every row on its own, which the source does not show) by `_onnx_batch_chunks`: the same
chunks in eager, one chunk of the whole batch while an exporter traces."""
import torch
from torch import nn


class ChunkedAttention(nn.Module):
    def __init__(self, slice_size=2, batch_number=3):
        super().__init__()
        self.slice_size = slice_size
        self.batch_number = batch_number
        self.decode = nn.Sequential(nn.Linear(8, 8), nn.GELU(), nn.Linear(8, 4))

    def forward(self, query, key):
        batch_size, tokens, dim = query.shape
        attended = torch.zeros((batch_size, tokens, dim), dtype=query.dtype)
        for i in range((batch_size - 1) // self.slice_size + 1):
            start_idx = i * self.slice_size
            end_idx = (i + 1) * self.slice_size
            scores = torch.bmm(query[start_idx:end_idx], key[start_idx:end_idx].transpose(1, 2)).softmax(-1)
            attended[start_idx:end_idx] = torch.bmm(scores, key[start_idx:end_idx])
        decoded = torch.empty((batch_size, tokens, 4))
        batch_number = max(1, self.batch_number)
        for x in range(0, attended.shape[0], batch_number):
            decoded[x:x + batch_number] = self.decode(attended[x:x + batch_number])
        return decoded


def make_model():
    torch.manual_seed(0)
    return ChunkedAttention()


def example_inputs():
    return (torch.randn(4, 5, 8), torch.randn(4, 7, 8))


def probe_inputs():
    return [(torch.randn(7, 6, 8), torch.randn(7, 3, 8)), (torch.randn(2, 5, 8), torch.randn(2, 9, 8))]


DYNAMIC = {0: {0: "batch", 1: "tokens"}, 1: {0: "batch", 1: "keys"}}
