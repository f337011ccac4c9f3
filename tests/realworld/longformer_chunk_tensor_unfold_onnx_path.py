"""Longformer/LED sliding-window attention: `_chunk` splits the (batch*heads, seq_len, head_dim) query/key into
overlapping chunks of size 2w.  The ONNX-export branch carried a Python loop with the TODO "replace this with
`hidden_states.unfold(dimension=1, size=window_overlap * 2, step=window_overlap).transpose(2, 3)` once `unfold`
is supported"; the PR that makes that swap notes that under the TorchScript exporter with a dynamic sequence
axis `Tensor.unfold` still fails with "Unsupported: ONNX export of operator Unfold, input size not accessible".

Source: https://github.com/huggingface/transformers/pull/46169
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"query": {0: "batch_heads", 1: "seq_len"}, "key": {0: "batch_heads", 1: "seq_len"}}
BLIND = "operators-42"


class LongformerSlidingChunks(nn.Module):
    def __init__(self, attention_window=8):
        super().__init__()
        self.one_sided_attn_window_size = attention_window // 2

    @staticmethod
    def _chunk(hidden_states, window_overlap, onnx_export: bool = False):
        """convert into overlapping chunks. Chunk size = 2w, overlap size = w"""
        return hidden_states.unfold(dimension=1, size=window_overlap * 2, step=window_overlap).transpose(2, 3)

    def _sliding_chunks_query_key_matmul(self, query, key, window_overlap):
        batch_size_x_heads, seq_len, head_dim = query.size()
        assert seq_len % (window_overlap * 2) == 0
        query = self._chunk(query, window_overlap, True)
        key = self._chunk(key, window_overlap, True)
        # matrix multiplication
        # bcxd: batch_size * num_heads x chunks x 2window_overlap x head_dim
        # bcyd: batch_size * num_heads x chunks x 2window_overlap x head_dim
        # bcxy: batch_size * num_heads x chunks x 2window_overlap x 2window_overlap
        diagonal_chunked_attention_scores = torch.einsum("bcxd,bcyd->bcxy", (query, key))  # multiply
        return diagonal_chunked_attention_scores

    def forward(self, query, key):
        return self._sliding_chunks_query_key_matmul(query, key, self.one_sided_attn_window_size)


def make_model():
    return LongformerSlidingChunks(attention_window=8).eval()


def example_inputs():
    return (torch.randn(6, 32, 16), torch.randn(6, 32, 16))


def other_inputs():
    return [(torch.randn(4, 24, 16), torch.randn(4, 24, 16)), (torch.randn(8, 48, 16), torch.randn(8, 48, 16))]


def probe_inputs():
    return other_inputs()
