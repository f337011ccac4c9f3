"""Chronos-2 forecaster: the encoder input gets a [REG] special-token embedding appended with
`reg_input_ids = torch.full((batch_size, 1), self.config.reg_token_id, device=...)` followed by
`self.shared(reg_input_ids)`; the ailia-models export script reports that the (TorchScript) ONNX
exporter traces this `torch.full` as a ConstantOfShape with FLOAT dtype, so the downstream
Embedding Gather gets float indices and the ONNX graph is invalid (they patch nn.Embedding.forward
to cast the ids to long and rewrite the ConstantOfShape to INT64 after export).

Source: https://github.com/ailia-ai/ailia-models/blob/d3c874df88562cf20f8af4052be5e287fceb1d7b/time_series_forecasting/chronos2/export/export_chronos2.py
"""
from types import SimpleNamespace

import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"context": {0: "batch", 1: "ctx_len"}}
BLIND = "domains-50"


class Chronos2MiniModel(nn.Module):
    def __init__(self, patch_size=16, d_model=32, vocab_size=2, num_quantiles=3, output_patch_size=16):
        super().__init__()
        self.config = SimpleNamespace(reg_token_id=1, pad_token_id=0)
        self.patch_size = patch_size
        self.num_quantiles = num_quantiles
        self.output_patch_size = output_patch_size
        self.input_patch_embedding = nn.Linear(2 * patch_size, d_model)
        self.shared = nn.Embedding(vocab_size, d_model)
        self.attn = nn.MultiheadAttention(d_model, 4, batch_first=True)
        self.output_patch_embedding = nn.Linear(d_model, num_quantiles * output_patch_size)

    @property
    def dtype(self):
        return self.input_patch_embedding.weight.dtype

    def _prepare_patched_context(self, context):
        mask = torch.isnan(context).logical_not().to(context.dtype)
        context = torch.where(mask > 0, context, torch.zeros_like(context))
        batch_size = context.shape[0]
        patched_context = context.reshape(batch_size, -1, self.patch_size)
        patched_mask = mask.reshape(batch_size, -1, self.patch_size)
        attention_mask = patched_mask.sum(dim=-1) > 0
        return torch.cat([patched_context, patched_mask], dim=-1), attention_mask

    def forward(self, context):
        batch_size = context.shape[0]
        patched_context, attention_mask = self._prepare_patched_context(context)
        input_embeds: torch.Tensor = self.input_patch_embedding(patched_context)
        # append [REG] special token embedding
        reg_input_ids = torch.full((batch_size, 1), self.config.reg_token_id, device=input_embeds.device)
        reg_embeds = self.shared(reg_input_ids)
        input_embeds = torch.cat([input_embeds, reg_embeds], dim=-2)
        attention_mask = torch.cat(
            [attention_mask.to(self.dtype), torch.ones_like(reg_input_ids).to(self.dtype)], dim=-1
        )
        hidden, _ = self.attn(input_embeds, input_embeds, input_embeds,
                              key_padding_mask=attention_mask == 0, need_weights=False)
        reg_hidden = hidden[:, -1, :]
        quantile_preds = self.output_patch_embedding(reg_hidden)
        return quantile_preds.view(batch_size, self.num_quantiles, self.output_patch_size)


def make_model():
    return Chronos2MiniModel()


def example_inputs():
    return (torch.randn(2, 64),)


def other_inputs():
    return [(torch.randn(3, 96),), (torch.randn(1, 32),)]


def probe_inputs():
    return other_inputs()
