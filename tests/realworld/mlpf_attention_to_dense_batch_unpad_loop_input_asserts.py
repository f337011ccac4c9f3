"""MLPF (particle-flow reconstruction, CMS): per-event self-attention over PF elements packed by `batch_idx`;
the forward pads with PyG's `to_dense_batch`, unpads with a Python loop over events and boolean masks, and
sanity-checks the inputs with `assert torch.all(...)` on tensor values. The PR that enabled torch ONNX export
commented out these asserts (and the unpad shape assert) and passed the tensors instead of the Batch object.

Source: https://github.com/jpata/particleflow/pull/215
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"element_features": {0: "num_elements"}, "batch_idx": {0: "num_elements"}}
BLIND = "domains-40"


def to_dense_batch(x, batch, fill_value=0.0):
    # torch_geometric.utils.to_dense_batch (PyG 2.3), inlined
    batch_size = int(batch.max()) + 1
    num_nodes = batch.new_zeros(batch_size).scatter_add_(0, batch, batch.new_ones(x.size(0)))
    cum_nodes = torch.cat([batch.new_zeros(1), num_nodes.cumsum(0)])
    max_num_nodes = int(num_nodes.max())
    tmp = torch.arange(batch.size(0), device=x.device) - cum_nodes[batch]
    idx = tmp + (batch * max_num_nodes)
    size = [batch_size * max_num_nodes] + list(x.size())[1:]
    out = torch.as_tensor(fill_value, device=x.device).to(x.dtype).repeat(size)
    out[idx] = x
    out = out.view([batch_size, max_num_nodes] + list(x.size())[1:])
    mask = torch.zeros(batch_size * max_num_nodes, dtype=torch.bool, device=x.device)
    mask[idx] = 1
    return out, mask.view(batch_size, max_num_nodes)


class SelfAttentionLayer(nn.Module):
    def __init__(self, embedding_dim=32, width=32):
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(embedding_dim, 8, batch_first=True)
        self.norm0 = torch.nn.LayerNorm(embedding_dim)
        self.norm1 = torch.nn.LayerNorm(embedding_dim)
        self.seq = nn.Sequential(nn.Linear(embedding_dim, width), nn.ELU(), nn.Linear(width, embedding_dim), nn.ELU())

    def forward(self, x, mask):
        x = self.norm0(x + self.mha(x, x, x, key_padding_mask=mask, need_weights=False)[0])
        x = self.norm1(x + self.seq(x))
        x = x * (~mask.unsqueeze(-1))
        return x


def ffn(input_dim, output_dim, width):
    return nn.Sequential(nn.Linear(input_dim, width), nn.ELU(), nn.LayerNorm(width), nn.Linear(width, output_dim))


class MLPF(nn.Module):
    def __init__(self, input_dim=12, NUM_CLASSES=8, embedding_dim=32, width=32):
        super().__init__()
        self.nn0 = ffn(input_dim, embedding_dim, width)
        self.conv_id = nn.ModuleList([SelfAttentionLayer(embedding_dim)])
        self.nn_id = ffn(input_dim + embedding_dim, NUM_CLASSES, width)
        self.nn_pt = ffn(input_dim + NUM_CLASSES, 1, width)
        self.nn_energy = ffn(input_dim + NUM_CLASSES, 1, width)

    def forward(self, element_features, batch_idx):
        input_ = element_features.float()
        embeddings_id = []
        embedding = self.nn0(input_)
        for num, conv in enumerate(self.conv_id):
            conv_input = embedding if num == 0 else embeddings_id[-1]
            input_padded, mask = to_dense_batch(conv_input, batch_idx)
            out_padded = conv(input_padded, ~mask)
            out_stacked = torch.cat([out_padded[i][mask[i]] for i in range(out_padded.shape[0])])
            assert out_stacked.shape[0] == conv_input.shape[0]
            embeddings_id.append(out_stacked)

        embedding_id = torch.cat([input_] + embeddings_id, axis=-1)
        preds_id = self.nn_id(embedding_id)
        embedding_reg = torch.cat([input_] + [preds_id], axis=-1)

        # do some sanity checks on the PFElement input data
        assert torch.all(torch.abs(input_[:, 3]) <= 1.0)  # sin_phi
        assert torch.all(torch.abs(input_[:, 4]) <= 1.0)  # cos_phi
        assert torch.all(input_[:, 1] >= 0.0)  # pt
        assert torch.all(input_[:, 5] >= 0.0)  # energy

        preds_pt = self.nn_pt(embedding_reg) + input_[:, 1:2]
        preds_energy = self.nn_energy(embedding_reg) + input_[:, 5:6]
        return preds_id, torch.cat([preds_pt, preds_energy], axis=-1)


def make_model():
    return MLPF()


def _events(sizes, input_dim=12):
    n = sum(sizes)
    x = torch.randn(n, input_dim)
    x[:, 1] = x[:, 1].abs()            # pt
    phi = torch.rand(n) * 6.28
    x[:, 3], x[:, 4] = phi.sin(), phi.cos()
    x[:, 5] = x[:, 5].abs() + x[:, 1]  # energy
    batch_idx = torch.cat([torch.full((s,), i, dtype=torch.long) for i, s in enumerate(sizes)])
    return (x, batch_idx)


def example_inputs():
    return _events([5, 8, 6])


def other_inputs():
    return [_events([9, 3, 7, 4, 2]), _events([11])]


def probe_inputs():
    return other_inputs()
