"""NVIDIA recsys-examples HSTU (generative recommender) preprocessing: after concatenating the contextual (user)
features it checks `if torch.sum(contextual_seqlen, dim=0).cpu().item() == 0:` to drop the contextual part, else runs
the contextual MLP and prepends it to every sample's item sequence; the torch.export PR had to remove this host-side
check (and other `.item()` calls). The fbgemm/Triton jagged concat is replaced by a per-sample torch.cat stand-in.

Source: https://github.com/NVIDIA/recsys-examples/pull/327
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"contextual_values": {0: "contextual_tokens"}, "item_values": {0: "item_tokens"}}
BLIND = "domains-4"


def length_to_complete_offsets(lengths):
    return torch.cat([lengths.new_zeros(1), torch.cumsum(lengths, dim=0)])


def jagged_2D_tensor_concat(values_list, offsets_list):
    # stand-in for the fbgemm/triton kernel: per-sample concatenation of several jagged tensors
    batch_size = offsets_list[0].size(0) - 1
    out = []
    for idx in range(batch_size):
        for values, offsets in zip(values_list, offsets_list):
            out.append(values[offsets[idx] : offsets[idx + 1]])
    lengths = sum(offsets[1:] - offsets[:-1] for offsets in offsets_list)
    return torch.cat(out, dim=0), lengths


class HSTUPreprocessor(nn.Module):
    def __init__(self, embedding_dim=16):
        super().__init__()
        self.contextual_mlp = nn.Sequential(nn.Linear(embedding_dim, embedding_dim), nn.SiLU(),
                                            nn.Linear(embedding_dim, embedding_dim))
        self.item_mlp = nn.Linear(embedding_dim, embedding_dim)

    def forward(self, contextual_values, contextual_seqlen, item_values, item_lengths):
        sequence_embeddings = self.item_mlp(item_values)
        sequence_embeddings_lengths = item_lengths
        sequence_embeddings_lengths_offsets = length_to_complete_offsets(item_lengths)
        contextual_sequence_embeddings = contextual_values
        if torch.sum(contextual_seqlen, dim=0).cpu().item() == 0:
            contextual_seqlen = None
        else:
            contextual_sequence_embeddings = self.contextual_mlp(contextual_sequence_embeddings)
            contextual_seqlen_offsets = length_to_complete_offsets(contextual_seqlen)
            (sequence_embeddings, sequence_embeddings_lengths) = jagged_2D_tensor_concat(
                [contextual_sequence_embeddings, sequence_embeddings],
                [contextual_seqlen_offsets, sequence_embeddings_lengths_offsets],
            )
        return sequence_embeddings, sequence_embeddings_lengths


def make_model():
    return HSTUPreprocessor().eval()


def _batch(contextual, items):
    contextual_seqlen = torch.tensor(contextual)
    item_lengths = torch.tensor(items)
    return (torch.randn(int(contextual_seqlen.sum()), 16), contextual_seqlen,
            torch.randn(int(item_lengths.sum()), 16), item_lengths)


def example_inputs():
    return _batch([2, 1], [6, 4])


def other_inputs():
    return [_batch([0, 0], [5, 7]), _batch([3, 2], [2, 9])]


def probe_inputs():
    return other_inputs()
