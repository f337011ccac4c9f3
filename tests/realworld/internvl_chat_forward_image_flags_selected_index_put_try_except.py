"""InternVL (OpenGVLab remote code, modeling_internvl_chat.py): `InternVLChatModel.forward` keeps the tiles with
`vit_embeds[image_flags == 1]` and writes them into the text embeddings with the boolean-mask assignment
`input_embeds[selected] = input_embeds[selected] * 0.0 + vit_embeds.reshape(-1, C)` (a `try`/`except` falls back to
`vit_embeds[:selected.sum()]`). Qualcomm's efficient-transformers InternVL export replaces this forward with a
cumsum/gather + `torch.where` splice (`QEffInternVLModel.forward`) before ONNX export.
(InternViT + pixel shuffle reduced to a patch conv and mlp1; language model reduced to embedding + head.)

Source: https://github.com/quic/efficient-transformers/blob/038fa4c86a0476e613144d97ecc8fa12dccdaa71/QEfficient/transformers/models/internvl/modeling_internvl.py
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "indexing"
DYNAMIC = {"pixel_values": {0: "num_tiles"}, "input_ids": {0: "batch", 1: "seq"}, "image_flags": {0: "num_tiles"}}
BLIND = "domains-54"

IMG_CONTEXT = 3


class TinyLanguageModel(nn.Module):
    def __init__(self, vocab=32, hidden=24):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.lm_head = nn.Linear(hidden, vocab)

    def get_input_embeddings(self):
        return self.embed_tokens

    def forward(self, inputs_embeds):
        return self.lm_head(inputs_embeds)


class InternVLChatModel(nn.Module):
    def __init__(self, vit_hidden=16, llm_hidden=24, patch=8):
        super().__init__()
        self.vision_model = nn.Conv2d(3, vit_hidden, kernel_size=patch, stride=patch)
        self.mlp1 = nn.Sequential(nn.LayerNorm(vit_hidden), nn.Linear(vit_hidden, llm_hidden), nn.GELU(),
                                  nn.Linear(llm_hidden, llm_hidden))
        self.language_model = TinyLanguageModel(hidden=llm_hidden)
        self.img_context_token_id = IMG_CONTEXT

    def extract_feature(self, pixel_values):
        vit_embeds = self.vision_model(pixel_values).flatten(2).transpose(1, 2)  # (tiles, 4, C)
        vit_embeds = self.mlp1(vit_embeds)
        return vit_embeds

    def forward(self, pixel_values, input_ids, image_flags):
        image_flags = image_flags.squeeze(-1)
        input_embeds = self.language_model.get_input_embeddings()(input_ids).clone()

        vit_embeds = self.extract_feature(pixel_values)
        vit_embeds = vit_embeds[image_flags == 1]
        vit_batch_size = pixel_values.shape[0]

        B, N, C = input_embeds.shape
        input_embeds = input_embeds.reshape(B * N, C)

        if torch.distributed.is_initialized() and torch.distributed.get_rank() == 0:
            print(f'dynamic ViT batch size: {vit_batch_size}, images per sample: {vit_batch_size / B}, dynamic token length: {N}')

        input_ids = input_ids.reshape(B * N)
        selected = (input_ids == self.img_context_token_id)
        try:
            input_embeds[selected] = input_embeds[selected] * 0.0 + vit_embeds.reshape(-1, C)
        except Exception as e:
            vit_embeds = vit_embeds.reshape(-1, C)
            print(f'warning: {e}, input_embeds[selected].shape={input_embeds[selected].shape}, '
                  f'vit_embeds.shape={vit_embeds.shape}')
            n_token = selected.sum()
            input_embeds[selected] = input_embeds[selected] * 0.0 + vit_embeds[:n_token]

        input_embeds = input_embeds.reshape(B, N, C)
        logits = self.language_model(input_embeds)
        return logits


def _inputs(batch, seq, tiles_per_sample, flags):
    tokens_per_tile = 4
    tiles = batch * tiles_per_sample
    ids = torch.randint(5, 32, (batch, seq))
    n_valid = int(sum(flags[:tiles_per_sample]))
    for b in range(batch):
        ids[b, 1:1 + n_valid * tokens_per_tile] = IMG_CONTEXT
    image_flags = torch.tensor([flags[:tiles_per_sample] * batch]).reshape(tiles, 1)
    return (torch.randn(tiles, 3, 16, 16), ids, image_flags)


def make_model():
    return InternVLChatModel().eval()


def example_inputs():
    return _inputs(2, 14, 3, [1, 1, 0])


def other_inputs():
    return [_inputs(1, 20, 4, [1, 1, 1, 1]), _inputs(3, 9, 2, [1, 0])]


def probe_inputs():
    return other_inputs()
