"""PyG contrib GraphTransformer with `use_super_node=True`: `_prepend_cls_token_flat` inserts one learnable CLS
token per graph into the flat node tensor, sizing everything from `B = int(batch.max()) + 1` (bincount with
`minlength=B`, `repeat_interleave`, `x.new_empty((x.size(0) + B, C))`, index writes), and `_readout` picks each
graph's CLS row via bincount/cumsum. The commit "Traceable _prepend_cls_token_flat" rewrote it (no `int()`,
scatter instead of index writes) because the model could not be traced; this is the code before it.

Source: https://github.com/pyg-team/pytorch_geometric/commit/34cf9a7d610ff82cab4068ca11df235f1f1c7635
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "num_nodes"}, "batch": {0: "num_nodes"}}
BLIND = "domains-62"


class GraphTransformer(torch.nn.Module):
    def __init__(self, in_dim=8, hidden_dim=16, num_class=3, use_super_node=True):
        super().__init__()
        self.classifier = nn.Linear(hidden_dim, num_class)
        self.use_super_node = use_super_node
        if self.use_super_node:
            self.cls_token = nn.Parameter(torch.randn(1, hidden_dim) * 1e-2)
        self.node_feature_encoder = nn.Linear(in_dim, hidden_dim)
        # stand-in for the GraphTransformerEncoderLayer feed-forward part
        self.encoder = nn.Sequential(nn.LayerNorm(hidden_dim), nn.Linear(hidden_dim, 4 * hidden_dim),
                                     nn.GELU(), nn.Linear(4 * hidden_dim, hidden_dim))

    @torch.jit.ignore
    def _readout(self, x: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        if self.use_super_node:
            graph_sizes = torch.bincount(batch)
            first_idx = torch.cumsum(graph_sizes, 0) - graph_sizes
            return x[first_idx]
        else:
            return x.mean(0, keepdim=True)

    @torch.jit.ignore
    def _prepend_cls_token_flat(self, x: torch.Tensor, batch: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        device = x.device
        B = int(batch.max()) + 1
        C = x.size(1)

        lengths = torch.bincount(batch, minlength=B)
        new_lengths = lengths + 1
        new_batch = torch.repeat_interleave(
            torch.arange(B, device=device), new_lengths
        )

        new_N = x.size(0) + B
        new_x = x.new_empty((new_N, C))

        offsets = new_lengths.cumsum(0) - new_lengths
        cls_tokens = self.cls_token.expand(B, -1)
        new_x[offsets] = cls_tokens

        orig_positions = torch.arange(x.size(0), device=device)
        new_positions = orig_positions + batch + 1
        new_x[new_positions] = x

        return new_x, new_batch

    def forward(self, x, batch):
        x = self.node_feature_encoder(x)
        if self.use_super_node:
            x, batch = self._prepend_cls_token_flat(x, batch)
        x = x + self.encoder(x)
        x = self._readout(x, batch)
        return self.classifier(x)


def make_model():
    return GraphTransformer().eval()


def _batch(sizes):
    batch = torch.cat([torch.full((n,), i, dtype=torch.long) for i, n in enumerate(sizes)])
    return torch.randn(batch.numel(), 8), batch


def example_inputs():
    return _batch([5, 3, 7])


def other_inputs():
    return [_batch([4, 6, 2, 9, 3]), _batch([11])]


def probe_inputs():
    return other_inputs()
