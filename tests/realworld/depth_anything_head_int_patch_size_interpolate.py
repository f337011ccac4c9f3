"""Depth Anything V2 (transformers DepthAnythingForDepthEstimation): the head upsamples the fused features to
`(int(patch_height * self.patch_size), int(patch_width * self.patch_size))`, with patch_height/width taken from
`pixel_values.shape[2:] // patch_size`; traced at 518x518, the model still returns a 518x518 depth map for a
1036x1036 input (the `int()` freezes the traced size; export warns "Converting a tensor to a Python integer").

Source: https://github.com/huggingface/transformers/issues/34679
"""
from typing import List

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-23"


class Backbone(nn.Module):
    """Stand-in for the DINOv2 backbone: patch embedding + [CLS] token + one MLP block."""

    def __init__(self, patch_size=14, hidden_size=64):
        super().__init__()
        self.patch_embeddings = nn.Conv2d(3, hidden_size, kernel_size=patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, hidden_size))
        self.norm = nn.LayerNorm(hidden_size)
        self.mlp = nn.Sequential(nn.Linear(hidden_size, hidden_size), nn.GELU(), nn.Linear(hidden_size, hidden_size))

    def forward(self, pixel_values):
        embeddings = self.patch_embeddings(pixel_values).flatten(2).transpose(1, 2)
        cls_tokens = self.cls_token.expand(embeddings.shape[0], -1, -1)
        hidden = torch.cat((cls_tokens, embeddings), dim=1)
        hidden = hidden + self.mlp(self.norm(hidden))
        return [hidden]


class DepthAnythingReassembleStage(nn.Module):
    def __init__(self, hidden_size=64, neck_hidden_size=48):
        super().__init__()
        self.layers = nn.ModuleList([nn.Conv2d(hidden_size, neck_hidden_size, kernel_size=1)])

    def forward(self, hidden_states: List[torch.Tensor], patch_height=None, patch_width=None) -> List[torch.Tensor]:
        out = []
        for i, hidden_state in enumerate(hidden_states):
            # reshape to (batch_size, num_channels, height, width)
            hidden_state = hidden_state[:, 1:]
            batch_size, _, num_channels = hidden_state.shape
            hidden_state = hidden_state.reshape(batch_size, patch_height, patch_width, num_channels)
            hidden_state = hidden_state.permute(0, 3, 1, 2).contiguous()
            hidden_state = self.layers[i](hidden_state)
            out.append(hidden_state)
        return out


class DepthAnythingDepthEstimationHead(nn.Module):
    def __init__(self, fusion_hidden_size=48, head_hidden_size=32, patch_size=14, max_depth=1.0):
        super().__init__()
        self.head_in_index = -1
        self.patch_size = patch_size
        self.conv1 = nn.Conv2d(fusion_hidden_size, fusion_hidden_size // 2, kernel_size=3, stride=1, padding=1)
        self.conv2 = nn.Conv2d(fusion_hidden_size // 2, head_hidden_size, kernel_size=3, stride=1, padding=1)
        self.activation1 = nn.ReLU()
        self.conv3 = nn.Conv2d(head_hidden_size, 1, kernel_size=1, stride=1, padding=0)
        self.activation2 = nn.ReLU()
        self.max_depth = max_depth

    def forward(self, hidden_states: List[torch.Tensor], patch_height, patch_width) -> torch.Tensor:
        hidden_states = hidden_states[self.head_in_index]

        predicted_depth = self.conv1(hidden_states)
        predicted_depth = nn.functional.interpolate(
            predicted_depth,
            (int(patch_height * self.patch_size), int(patch_width * self.patch_size)),
            mode="bilinear",
            align_corners=True,
        )
        predicted_depth = self.conv2(predicted_depth)
        predicted_depth = self.activation1(predicted_depth)
        predicted_depth = self.conv3(predicted_depth)
        predicted_depth = self.activation2(predicted_depth) * self.max_depth
        predicted_depth = predicted_depth.squeeze(dim=1)  # shape (batch_size, height, width)

        return predicted_depth


class DepthAnythingForDepthEstimation(nn.Module):
    def __init__(self, patch_size=14):
        super().__init__()
        self.patch_size = patch_size
        self.backbone = Backbone(patch_size)
        self.neck = DepthAnythingReassembleStage()
        self.fusion = nn.Conv2d(48, 48, kernel_size=3, padding=1)
        self.head = DepthAnythingDepthEstimationHead(patch_size=patch_size)

    def forward(self, pixel_values):
        hidden_states = self.backbone(pixel_values)

        _, _, height, width = pixel_values.shape
        patch_size = self.patch_size
        patch_height = height // patch_size
        patch_width = width // patch_size

        hidden_states = self.neck(hidden_states, patch_height, patch_width)
        hidden_states = [nn.functional.interpolate(self.fusion(h), scale_factor=2, mode="bilinear",
                                                   align_corners=True) for h in hidden_states]

        predicted_depth = self.head(hidden_states, patch_height, patch_width)
        return predicted_depth


def make_model():
    return DepthAnythingForDepthEstimation().eval()


def example_inputs():
    return (torch.rand(2, 3, 98, 98),)


def other_inputs():
    return [(torch.rand(3, 3, 196, 196),), (torch.rand(1, 3, 70, 126),)]


def probe_inputs():
    return other_inputs()
