"""LimiX (StableAI) tabular foundation model: `FeaturesTransformer.mixed_y_embedding` supports mixed
classification/regression targets by splitting the flattened labels with boolean-mask indexing
(`idx_cls = idx[y_type_flat == 0]`) and branching on `len(idx_cls) > 0`; the anofox-tabfm export tool reports
that both the split widths and the branches are data-dependent, so the torch.export trace dies with
`GuardOnDataDependentSymNode` (their patch calls the single live encoder directly).

Source: https://github.com/DataZooDE/anofox-tabfm/blob/0c7f83ee8d94c0b4d9c520bd3b49edebb8c859bb/tools/export_limix/src/export_limix/limix_patches.py
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "indexing"
DYNAMIC = {"x": {1: "rows"}, "y": {1: "train_size"}}
BLIND = "domains-50"


class NanLinearEncoder(nn.Module):
    def __init__(self, embed_dim):
        super().__init__()
        self.linear = nn.Linear(2, embed_dim)

    def forward(self, input: dict) -> dict:
        y = input['data']
        nan = torch.isnan(y)
        y = torch.where(nan, torch.zeros_like(y), y)
        return {'data': self.linear(torch.cat([y, nan.to(y.dtype)], dim=-1))}


class FeaturesTransformer(nn.Module):
    def __init__(self, num_features=5, embed_dim=16, n_classes=3):
        super().__init__()
        self.embed_dim = embed_dim
        self.encoder_x = nn.Linear(num_features, embed_dim)
        self.cls_y_encoder = NanLinearEncoder(embed_dim)
        self.reg_y_encoder = NanLinearEncoder(embed_dim)
        self.mix = nn.Linear(2 * embed_dim, embed_dim)
        self.cls_y_decoder = nn.Linear(embed_dim, n_classes)

    @torch.compiler.disable
    def mixed_y_embedding(self, y: dict, y_type: torch.Tensor, eval_pos: int):
        y = y['data']
        batch_size, seq_len, y_num = y.shape
        y_flat = y.reshape(-1)
        y_type_flat = y_type.reshape(-1)

        idx = torch.arange(len(y_flat), device=y.device)
        idx_cls = idx[y_type_flat == 0]
        idx_reg = idx[y_type_flat == 1]
        y_cls = y_flat[idx_cls]
        y_reg = y_flat[idx_reg]

        y_cls = y_cls.reshape(-1, seq_len, y_num)
        y_reg = y_reg.reshape(-1, seq_len, y_num)
        y_cls = {'data': y_cls, 'eval_pos': eval_pos}
        y_reg = {'data': y_reg, 'eval_pos': eval_pos}

        cls_y_emb = self.cls_y_encoder(y_cls) if len(idx_cls) > 0 else None
        reg_y_emb = self.reg_y_encoder(y_reg) if len(idx_reg) > 0 else None
        cls_y_emb = cls_y_emb['data'] if cls_y_emb is not None else None
        reg_y_emb = reg_y_emb['data'] if reg_y_emb is not None else None

        emb_size = self.embed_dim
        if cls_y_emb is not None:
            out_dtype = cls_y_emb.dtype
        elif reg_y_emb is not None:
            out_dtype = reg_y_emb.dtype
        else:
            out_dtype = y_flat.dtype
        out = torch.empty(len(y_flat), emb_size, dtype=out_dtype, device=y_flat.device)
        if cls_y_emb is not None:
            cls_y_emb_flat = cls_y_emb.reshape(-1, emb_size)
            out.index_put_((idx_cls,), cls_y_emb_flat)

        if reg_y_emb is not None:
            reg_y_emb_flat = reg_y_emb.reshape(-1, emb_size)
            out.index_put_((idx_reg,), reg_y_emb_flat)

        output = out.reshape(batch_size, seq_len, emb_size)
        return output

    def forward(self, x, y, task_type="cls"):
        eval_pos = y.shape[1]
        y = {'data': y.unsqueeze(-1)}
        if y['data'].shape[1] < x.shape[1]:
            y['data'] = torch.cat(
                (y['data'], torch.nan * torch.zeros(y['data'].shape[0], x.shape[1] - y['data'].shape[1],
                                                     y['data'].shape[2], dtype=y['data'].dtype)), dim=1)
        if task_type == "cls":
            y_type = torch.zeros_like(y['data'], device=y['data'].device)
        else:
            y_type = torch.ones_like(y['data'], device=y['data'].device)
        embedded_y = self.mixed_y_embedding(y, y_type=y_type, eval_pos=eval_pos)
        embedded_x = self.encoder_x(x)
        h = torch.relu(self.mix(torch.cat([embedded_x, embedded_y], dim=-1)))
        return self.cls_y_decoder(h[:, eval_pos:])


def make_model():
    return FeaturesTransformer()


def example_inputs():
    return (torch.randn(1, 20, 5), torch.randint(0, 3, (1, 12)).float())


def other_inputs():
    return [(torch.randn(1, 33, 5), torch.randint(0, 3, (1, 25)).float()),
            (torch.randn(1, 9, 5), torch.randint(0, 3, (1, 4)).float())]


def probe_inputs():
    return other_inputs()
