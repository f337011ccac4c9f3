"""Idefics3 / SmolVLM `get_image_features`: padding images are dropped with
`real_images_inds = (pixel_values == 0.0).sum(dim=(-1, -2, -3)) != nb_values_per_image`, a Python
`if not any(real_images_inds): real_images_inds[0] = True`, and `pixel_values[real_images_inds]` (a size taken
from the data); the patch mask is built with `unfold` and the connector's pixel shuffle takes
`int(seq**0.5)`. optimum-intel's Idefics3/SmolVLM export patcher cuts this whole preamble out of the exported
vision graph (the patched `get_image_features` takes the patch mask and position ids as inputs).
(Vision transformer reduced to a patch conv, masking and one linear layer.)

Source: https://github.com/huggingface/optimum-intel/pull/1210
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pixel_values": {1: "num_images"}, "pixel_attention_mask": {1: "num_images"}}
BLIND = "domains-78"


class Idefics3Connector(nn.Module):
    def __init__(self, hidden, scale_factor, text_hidden):
        super().__init__()
        self.scale_factor = scale_factor
        self.modality_projection = nn.Linear(hidden * scale_factor ** 2, text_hidden, bias=False)

    def pixel_shuffle(self, x, scale_factor=2):
        bsz, seq, embed_dim = x.size()
        height = width = int(seq**0.5)
        x = x.view(bsz, height, width, embed_dim)
        x = x.view(bsz, height, int(width / scale_factor), embed_dim * scale_factor)
        x = x.permute(0, 2, 1, 3)
        x = x.reshape(bsz, int(width / scale_factor), int(height / scale_factor), embed_dim * (scale_factor**2))
        x = x.permute(0, 2, 1, 3)
        x = x.reshape(bsz, int(seq / (scale_factor**2)), embed_dim * (scale_factor**2))
        return x

    def forward(self, image_hidden_states):
        image_hidden_states = self.pixel_shuffle(image_hidden_states, self.scale_factor)
        return self.modality_projection(image_hidden_states)


class Idefics3ImageFeatures(nn.Module):
    def __init__(self, patch_size=4, hidden=16, text_hidden=24, scale_factor=2):
        super().__init__()
        self.patch_size = patch_size
        self.patch_embedding = nn.Conv2d(3, hidden, kernel_size=patch_size, stride=patch_size)
        self.encoder = nn.Linear(hidden, hidden)
        self.connector = Idefics3Connector(hidden, scale_factor, text_hidden)

    def vision_model(self, pixel_values, patch_attention_mask):
        embeddings = self.patch_embedding(pixel_values).flatten(2).transpose(1, 2)
        embeddings = embeddings * patch_attention_mask.view(embeddings.shape[0], -1, 1)
        return self.encoder(embeddings)

    def forward(self, pixel_values, pixel_attention_mask):
        batch_size, num_images, num_channels, height, width = pixel_values.shape
        pixel_values = pixel_values.view(batch_size * num_images, *pixel_values.shape[2:])

        # Remove padding images - padding images are full 0.
        nb_values_per_image = pixel_values.shape[1:].numel()
        real_images_inds = (pixel_values == 0.0).sum(dim=(-1, -2, -3)) != nb_values_per_image

        if not any(real_images_inds):
            # no images, leave one empty image.
            real_images_inds[0] = True

        pixel_values = pixel_values[real_images_inds].contiguous()

        # Handle the vision attention mask
        if pixel_attention_mask is None:
            pixel_attention_mask = torch.ones(
                size=[pixel_values.shape[i] for i in (0, 2, 3)],
                dtype=torch.bool,
                device=pixel_values.device,
            )
        else:
            # Remove padding images from the mask
            pixel_attention_mask = pixel_attention_mask.view(batch_size * num_images, *pixel_attention_mask.shape[2:])
            pixel_attention_mask = pixel_attention_mask[real_images_inds].contiguous()

        patch_size = self.patch_size
        patches_subgrid = pixel_attention_mask.unfold(dimension=1, size=patch_size, step=patch_size)
        patches_subgrid = patches_subgrid.unfold(dimension=2, size=patch_size, step=patch_size)
        patch_attention_mask = (patches_subgrid.sum(dim=(-1, -2)) > 0).bool()

        # Get sequence from the vision encoder
        image_hidden_states = self.vision_model(pixel_values=pixel_values, patch_attention_mask=patch_attention_mask)

        # Modality projection & resampling
        image_hidden_states = self.connector(image_hidden_states)
        return image_hidden_states


def make_model():
    return Idefics3ImageFeatures().eval()


def _inputs(num_images, num_padding):
    pixel_values = torch.randn(1, num_images, 3, 16, 16)
    mask = torch.ones(1, num_images, 16, 16, dtype=torch.bool)
    if num_padding:
        pixel_values[:, num_images - num_padding:] = 0.0
        mask[:, num_images - num_padding:] = False
    return (pixel_values, mask)


def example_inputs():
    return _inputs(4, 1)


def other_inputs():
    return [_inputs(5, 0), _inputs(3, 2)]


def probe_inputs():
    return other_inputs()
