"""PaliGemma2 merging image features into the text embeddings: the number of image tokens in `input_ids`
is checked against the number of image features before `masked_scatter`; torch.export fails with
"Could not guard on data-dependent expression Ne(u0, 589824)".

Source: https://github.com/pytorch/pytorch/issues/147096
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {1: "seq"}, "image_features": {1: "patches"}}

IMAGE_TOKEN = 7


class Merge(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(8, 4)

    def forward(self, input_ids, image_features):
        inputs_embeds = self.embed(input_ids)
        special_image_mask = (input_ids == IMAGE_TOKEN).unsqueeze(-1).expand_as(inputs_embeds)
        if inputs_embeds[special_image_mask].numel() != image_features.numel():
            raise ValueError("Number of images does not match number of special image tokens in the input text.")
        return inputs_embeds.masked_scatter(special_image_mask, image_features)


def make_model():
    return Merge()


def example_inputs():
    return (torch.tensor([[7, 7, 7, 1, 2, 3]]), torch.randn(1, 3, 4))


def other_inputs():
    return [(torch.tensor([[7, 7, 7, 7, 5, 1, 2, 6]]), torch.randn(1, 4, 4)), (torch.tensor([[7, 7, 3, 1, 2]]), torch.randn(1, 2, 4))]


def probe_inputs():
    return other_inputs()
