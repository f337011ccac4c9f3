"""Next-location prediction transformer (mie-lab location-prediction MHSA `TransEncoder`, the ContextQ model in
the report): forward builds `src_mask = self._generate_square_subsequent_mask(src.shape[0])` and calls
`nn.TransformerEncoder(emb, mask=src_mask, src_key_padding_mask=...)`; after the earlier errors in the thread
were worked around, `torch.export.export(model, args=(x, x_dict), strict=False)` stops in
nn.TransformerEncoder's `_detect_is_causal_mask` at `make_causal = bool((mask == causal_comparison).all())`.

Source: https://github.com/pytorch/pytorch/issues/120219
"""
import math
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"src": {0: "seq_len", 1: "batch"}, "seq_len": {0: "batch"}, "user": {0: "batch"}}
BLIND = "domains-31"


class PositionalEncoding(nn.Module):
    def __init__(self, emb_size: int, dropout: float, maxlen: int = 5000):
        super(PositionalEncoding, self).__init__()
        den = torch.exp(-torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(-2)

        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pos_embedding", pos_embedding)

    def forward(self, token_embedding: Tensor):
        return self.dropout(token_embedding + self.pos_embedding[: token_embedding.size(0), :])


class AllEmbedding(nn.Module):
    def __init__(self, d_input, config, total_loc_num) -> None:
        super(AllEmbedding, self).__init__()
        self.d_input = d_input
        self.emb_loc = nn.Embedding(total_loc_num, d_input)
        self.pos_encoder = PositionalEncoding(d_input, dropout=0.1)

    def forward(self, src, context_dict) -> Tensor:
        emb = self.emb_loc(src)
        return self.pos_encoder(emb * math.sqrt(self.d_input))


class FullyConnected(nn.Module):
    def __init__(self, d_input, config, total_loc_num, if_residual_layer=True):
        super(FullyConnected, self).__init__()
        fc_dim = d_input
        self.emb_user = nn.Embedding(config.total_user_num, fc_dim)
        self.fc_loc = nn.Linear(fc_dim, total_loc_num)
        self.emb_dropout = nn.Dropout(p=0.1)
        self.linear1 = nn.Linear(fc_dim, fc_dim * 2)
        self.linear2 = nn.Linear(fc_dim * 2, fc_dim)
        self.norm1 = nn.BatchNorm1d(fc_dim)
        self.fc_dropout1 = nn.Dropout(p=config.fc_dropout)
        self.fc_dropout2 = nn.Dropout(p=config.fc_dropout)

    def forward(self, out, user) -> Tensor:
        out = out + self.emb_user(user)
        out = self.emb_dropout(out)
        out = self.norm1(out + self._res_block(out))
        return self.fc_loc(out)

    def _res_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.fc_dropout1(F.relu(self.linear1(x))))
        return self.fc_dropout2(x)


class TransEncoder(nn.Module):
    def __init__(self, config, total_loc_num) -> None:
        super(TransEncoder, self).__init__()

        self.d_input = config.base_emb_size
        self.Embedding = AllEmbedding(self.d_input, config, total_loc_num)

        # encoder
        encoder_layer = torch.nn.TransformerEncoderLayer(
            self.d_input, nhead=config.nhead, activation="gelu", dim_feedforward=config.dim_feedforward
        )
        encoder_norm = torch.nn.LayerNorm(self.d_input)
        self.encoder = torch.nn.TransformerEncoder(
            encoder_layer=encoder_layer,
            num_layers=config.num_encoder_layers,
            norm=encoder_norm,
        )

        self.FC = FullyConnected(self.d_input, config, if_residual_layer=True, total_loc_num=total_loc_num)

    def forward(self, src, context_dict, device) -> Tensor:
        emb = self.Embedding(src, context_dict)
        seq_len = context_dict["len"]

        # positional encoding, dropout performed inside
        src_mask = self._generate_square_subsequent_mask(src.shape[0]).to(device)
        src_padding_mask = (src == 0).transpose(0, 1).to(device)
        out = self.encoder(emb, mask=src_mask, src_key_padding_mask=src_padding_mask)

        # only take the last timestep
        out = out.gather(
            0,
            seq_len.view([1, -1, 1]).expand([1, out.shape[1], out.shape[-1]]) - 1,
        ).squeeze(0)

        return self.FC(out, context_dict["user"])

    def _generate_square_subsequent_mask(self, sz):
        return torch.triu(torch.full((sz, sz), float("-inf")), diagonal=1)


class ExportModel(nn.Module):
    """What the training script hands to export: the batch tensors plus the context dict."""

    def __init__(self):
        super().__init__()
        config = SimpleNamespace(base_emb_size=32, nhead=4, dim_feedforward=64, num_encoder_layers=2,
                                 total_user_num=20, fc_dropout=0.1)
        self.model = TransEncoder(config, total_loc_num=50)

    def forward(self, src, seq_len, user):
        x_dict = {"len": seq_len, "user": user}
        return self.model(src, x_dict, "cpu")


def make_model():
    return ExportModel().eval()


def _batch(seq, batch):
    src = torch.randint(1, 50, (seq, batch))
    seq_len = torch.randint(1, seq + 1, (batch,))
    user = torch.randint(0, 20, (batch,))
    return (src, seq_len, user)


def example_inputs():
    return _batch(12, 4)


def other_inputs():
    return [_batch(20, 3), _batch(7, 6)]


def probe_inputs():
    return other_inputs()
