"""Phi-3-vision's input embedding (`Phi3ImageEmbedding.forward`): image placeholder tokens are negative ids, found
with `positions = torch.nonzero((input_ids < 0) & (input_ids > -MAX_INPUT_ID))`, and the image branch runs only
`if len(positions.tolist()) > 0:`; the projected image features are then written into the token embeddings slice by
slice. The issue reports that torch.export of Phi-3-vision fails and that "it comes from
`if len(positions.tolist()) > 0`". Here the precomputed-features path (`img_embeds.ndim == 3`) is kept, so no CLIP tower.

Source: https://github.com/pytorch/pytorch/issues/128906
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "pixel_values": {0: "num_images"}}
BLIND = "domains-10"


class Phi3ImageEmbedding(nn.Module):
    """Phi3 Image embedding."""

    def __init__(self, vocab_size=100, hidden_size=32, image_dim_out=24, num_img_tokens=4):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, hidden_size)
        self.vocab_size = vocab_size
        self.image_dim_out = image_dim_out
        self.num_img_tokens = num_img_tokens
        self.use_hd_transform = False
        self.img_features = None
        self.img_sizes = None
        self.drop = None
        layers = [nn.Linear(image_dim_out, hidden_size), nn.GELU(), nn.Linear(hidden_size, hidden_size)]
        self.img_projection = nn.Sequential(*layers)

    def forward(self, input_ids: torch.LongTensor, pixel_values: torch.FloatTensor, image_sizes=None) -> torch.FloatTensor:
        MAX_INPUT_ID = int(1e9)
        img_embeds = pixel_values
        img_sizes = image_sizes

        if self.img_features is not None:
            img_embeds = self.img_features.clone()
            self.img_features = None

        if self.img_sizes is not None:
            img_sizes = self.img_sizes

        input_shape = input_ids.size()
        input_ids = input_ids.view(-1, input_shape[-1])

        with torch.no_grad():
            positions = torch.nonzero((input_ids < 0) & (input_ids > -MAX_INPUT_ID), as_tuple=False)

        select = False
        hd_transform = False

        if isinstance(self.img_projection, nn.Sequential):
            target_device = self.img_projection[0].bias.device
            target_dtype = self.img_projection[0].bias.dtype
        else:  # It's a single nn.Linear layer
            target_device = self.img_projection.bias.device
            target_dtype = self.img_projection.bias.dtype

        if len(positions.tolist()) > 0:
            with torch.no_grad():
                g_values = abs(input_ids[positions[:, 0], positions[:, 1]])

            if self.use_hd_transform and img_sizes is not None and len(img_sizes):
                raise NotImplementedError  # HD transform path (CLIP crops) not kept in this case
            elif img_embeds.ndim == 3:
                selected_g_values = g_values[::self.num_img_tokens]
                assert len(img_embeds) == len(selected_g_values), f'img_embeds size: {img_embeds.size()}, selected_g_values size: {len(selected_g_values)}, selected_g_value {selected_g_values}'
                tt = (
                    img_embeds
                    .to(target_device)
                    .to(target_dtype)
                    .view(-1, self.image_dim_out)
                )
                img_set_tensor = self.img_projection(tt)
            else:
                raise NotImplementedError
            select = True

        with torch.no_grad():
            input_ids.clamp_min_(0).clamp_max_(self.vocab_size)

        hidden_states = self.wte(input_ids)

        if select:
            if hd_transform:
                pass
            else:
                idx = 0
                assert len(selected_g_values) * self.num_img_tokens == len(img_set_tensor), f'len(selected_g_values) * self.num_img_tokens = {len(selected_g_values) * self.num_img_tokens}, len(img_set_tensor) = {len(img_set_tensor)}'
                for i, g in enumerate(selected_g_values):
                    cnt = self.num_img_tokens
                    hidden_states[positions[idx, 0], positions[idx, 1] : positions[idx, 1] + cnt] = (
                        img_set_tensor[i * cnt : (i + 1) * cnt]
                        .to(hidden_states.dtype)
                        .to(hidden_states.device)
                    )
                    idx += cnt

        if self.drop is not None:
            hidden_states = self.drop(hidden_states)

        return hidden_states


def make_model():
    return Phi3ImageEmbedding().eval()


def _batch(rows, seq, image_at):
    """`image_at`: per row, the offsets where a 4-token image placeholder (ids -1, -2, ...) starts."""
    ids = torch.randint(1, 100, (rows, seq))
    n = 0
    for row, starts in enumerate(image_at):
        for start in starts:
            n += 1
            ids[row, start:start + 4] = -n
    return ids, torch.randn(n, 4, 24)


def example_inputs():
    return _batch(2, 12, [[1], [5]])


def other_inputs():
    return [_batch(3, 16, [[2, 9], [0], [6]]), _batch(1, 9, [[3]]), _batch(2, 20, [[4], [10]])]


def probe_inputs():
    return other_inputs()
