"""GLM-4V (THUDM/glm-4v-9b remote code): `ChatGLMModel.forward` splices the vision features into the
text embeddings by looking up `input_ids[i].tolist().index(boi_token_id)` / `eoi_token_id` per sample and
`torch.cat`-ing slices around them (position ids likewise). OpenVINO's GLM-4V conversion helper replaces
this forward with one that takes `inputs_embeds` only and redoes the boi/eoi splice in Python outside the
converted graph. (Vision tower reduced to EVA2CLIP's patch conv + 2x2 conv + projection + boi/eoi.)

Source: https://github.com/openvinotoolkit/openvino_notebooks/blob/3ae693f6a62435182974d3eda4f6f5ed6b4bbd07/notebooks/glm4-v/ov_glm4v_helper.py
"""
from types import SimpleNamespace
from typing import List, Optional

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}, "images": {0: "batch"}}
BLIND = "domains-54"

BOI, EOI, PAD = 5, 6, 7


def is_empty(images_list: Optional[List[List[torch.Tensor]]]):
    if images_list is None or len(images_list) == 0:
        return True
    for image_list in images_list:
        if image_list is not None:
            return False
    return True


class EVA2CLIPModel(nn.Module):
    def __init__(self, hidden=16, out_hidden=32, patch_size=4):
        super().__init__()
        self.patch_embedding = nn.Conv2d(3, hidden, kernel_size=patch_size, stride=patch_size)
        self.conv = nn.Conv2d(hidden, out_hidden, kernel_size=2, stride=2)
        self.linear_proj = nn.Linear(out_hidden, out_hidden)
        self.boi = nn.Parameter(torch.zeros(1, 1, out_hidden))
        self.eoi = nn.Parameter(torch.zeros(1, 1, out_hidden))
        self.scaling_factor = 8.0

    def forward(self, images):
        x = self.patch_embedding(images).flatten(2).transpose(1, 2)
        b, s, h = x.shape
        grid_size = int(s ** 0.5)
        x = x.view(b, grid_size, grid_size, h).permute(0, 3, 1, 2)
        x = self.conv(x)
        x = x.flatten(2).transpose(1, 2)
        x = self.linear_proj(x)
        boi = self.boi.expand(x.shape[0], -1, -1)
        eoi = self.eoi.expand(x.shape[0], -1, -1)
        x = torch.cat((boi, x, eoi), dim=1)
        x = x / self.scaling_factor
        return x


class ChatGLMModel(nn.Module):
    def __init__(self, vocab_size=64, hidden_size=32):
        super().__init__()
        self.config = SimpleNamespace(
            vision_config={"image_size": 16, "patch_size": 4}, boi_token_id=BOI, eoi_token_id=EOI)
        self.embedding = nn.Embedding(vocab_size, hidden_size)
        self.vision = EVA2CLIPModel(out_hidden=hidden_size)
        self.encoder = nn.Linear(hidden_size, hidden_size)

    def get_position_ids(self, input_ids, device):
        batch_size, seq_length = input_ids.shape
        position_ids = torch.arange(seq_length, dtype=torch.long, device=device).unsqueeze(0).repeat(batch_size, 1)
        return position_ids

    def forward(self, input_ids, images=None, position_ids=None, past_key_values=None, inputs_embeds=None):
        """take care of image_encode, position_ids and (attention_mask = None is fine)"""

        # generate mode with past_key_values. the image features are already mapped
        if past_key_values is None:
            # not allow for inputs_embeds, because we want to process image feature
            assert input_ids is not None and inputs_embeds is None, f"{input_ids} {inputs_embeds}"
            if not is_empty(images):  # multi-modality
                image_size: int = self.config.vision_config['image_size']
                patch_size: int = self.config.vision_config['patch_size']
                num_patches = (image_size // patch_size // 2) ** 2
                assert len(input_ids) == len(images), f"{len(input_ids)} {len(images)}"
                inputs_embeds = self.embedding(input_ids)

                images = images.to(dtype=inputs_embeds.dtype)
                images_features = self.vision(images)

                if position_ids is None:
                    position_ids = self.get_position_ids(input_ids, device=inputs_embeds.device)
                new_input_embeds, new_position_ids = [], []

                for i in range(len(input_ids)):
                    input_id = input_ids[i].tolist()
                    boi_token_pos, eoi_token_pos = input_id.index(self.config.boi_token_id), input_id.index(
                        self.config.eoi_token_id)
                    assert eoi_token_pos - boi_token_pos == 2
                    new_input_embeds.append(torch.cat(
                        (inputs_embeds[i, :boi_token_pos], images_features[i].to(inputs_embeds.device),
                         inputs_embeds[i, eoi_token_pos + 1:])))
                    new_position_ids.append(torch.cat(
                        (position_ids[i, :boi_token_pos + 1], position_ids[i, boi_token_pos + 1].repeat(num_patches),
                         position_ids[i, eoi_token_pos:])
                    ))
                inputs_embeds = torch.stack(new_input_embeds, dim=0)
                position_ids = torch.stack(new_position_ids, dim=0)

        hidden_states = self.encoder(inputs_embeds)
        return hidden_states, position_ids


def _ids(batch, seq, boi_at):
    ids = torch.randint(10, 64, (batch, seq))
    ids[:, boi_at] = BOI
    ids[:, boi_at + 1] = PAD
    ids[:, boi_at + 2] = EOI
    return ids


def make_model():
    return ChatGLMModel().eval()


def example_inputs():
    return (_ids(2, 10, 2), torch.randn(2, 3, 16, 16))


def other_inputs():
    return [(_ids(3, 14, 5), torch.randn(3, 3, 16, 16)), (_ids(1, 7, 1), torch.randn(1, 3, 16, 16))]


def probe_inputs():
    return other_inputs()
