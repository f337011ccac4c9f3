"""ACT policy (getiaction / physical-ai-studio, ported from LeRobot) builds the transformer encoder
tokens by `list(...)`-iterating the 1D position-embedding weight and the flattened camera feature map
((h w), b, c) before torch.stack; exporting ACT gave TracerWarnings ("Iterating over a tensor might cause
the trace to be incorrect"), so the number of image tokens is frozen at the traced image size.

Source: https://github.com/open-edge-platform/physical-ai-studio/pull/250
"""
import math

import torch
from torch import Tensor, nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"state": {0: "batch"}, "image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-79"


class _ACTSinusoidalPositionEmbedding2d(nn.Module):
    def __init__(self, dimension: int) -> None:
        super().__init__()
        self.dimension = dimension
        self._two_pi = 2 * math.pi
        self._eps = 1e-6
        self._temperature = 10000

    def forward(self, x: Tensor) -> Tensor:
        not_mask = torch.ones_like(x[0, :1])  # (1, H, W)
        y_range = not_mask.cumsum(1, dtype=torch.float32)
        x_range = not_mask.cumsum(2, dtype=torch.float32)
        y_range = y_range / (y_range[:, -1:, :] + self._eps) * self._two_pi
        x_range = x_range / (x_range[:, :, -1:] + self._eps) * self._two_pi
        inverse_frequency = self._temperature ** (
            2 * (torch.arange(self.dimension, dtype=torch.float32, device=x.device) // 2) / self.dimension
        )
        x_range = x_range.unsqueeze(-1) / inverse_frequency
        y_range = y_range.unsqueeze(-1) / inverse_frequency
        pos_embed_x = torch.stack((x_range[..., 0::2].sin(), x_range[..., 1::2].cos()), dim=-1).flatten(3)
        pos_embed_y = torch.stack((y_range[..., 0::2].sin(), y_range[..., 1::2].cos()), dim=-1).flatten(3)
        return torch.cat((pos_embed_y, pos_embed_x), dim=3).permute(0, 3, 1, 2)  # (1, C, H, W)


class _ACT(nn.Module):
    def __init__(self, state_dim=14, action_dim=14, dim_model=64, latent_dim=32, chunk_size=10):
        super().__init__()
        self.latent_dim, self.chunk_size, self.dim_model = latent_dim, chunk_size, dim_model
        # stand-in for the torchvision ResNet18 "layer4" feature map (IntermediateLayerGetter)
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 7, stride=4, padding=3), nn.ReLU(),
                                      nn.Conv2d(32, 64, 3, stride=4, padding=1), nn.ReLU())
        self.encoder_latent_input_proj = nn.Linear(latent_dim, dim_model)
        self.encoder_robot_state_input_proj = nn.Linear(state_dim, dim_model)
        self.encoder_img_feat_input_proj = nn.Conv2d(64, dim_model, kernel_size=1)
        self.encoder_1d_feature_pos_embed = nn.Embedding(2, dim_model)
        self.encoder_cam_feat_pos_embed = _ACTSinusoidalPositionEmbedding2d(dim_model // 2)
        self.encoder = nn.MultiheadAttention(dim_model, 4)
        self.decoder = nn.MultiheadAttention(dim_model, 4)
        self.decoder_pos_embed = nn.Embedding(chunk_size, dim_model)
        self.action_head = nn.Linear(dim_model, action_dim)

    def forward(self, state: Tensor, image: Tensor) -> Tensor:
        batch_size = state.shape[0]
        latent_sample = torch.zeros([batch_size, self.latent_dim], dtype=state.dtype).to(state.device)
        # Prepare transformer encoder inputs.
        encoder_in_tokens = [self.encoder_latent_input_proj(latent_sample)]
        encoder_in_pos_embed = list(self.encoder_1d_feature_pos_embed.weight.unsqueeze(1))
        encoder_in_tokens.append(self.encoder_robot_state_input_proj(state))

        cam_features = self.backbone(image)
        cam_pos_embed = self.encoder_cam_feat_pos_embed(cam_features).to(dtype=cam_features.dtype)
        cam_features = self.encoder_img_feat_input_proj(cam_features)
        # Rearrange features to (sequence, batch, dim)  (einops "b c h w -> (h w) b c").
        cam_features = cam_features.flatten(2).permute(2, 0, 1)
        cam_pos_embed = cam_pos_embed.flatten(2).permute(2, 0, 1)
        # Extend immediately instead of accumulating and concatenating
        # Convert to list to extend properly
        encoder_in_tokens.extend(list(cam_features))
        encoder_in_pos_embed.extend(list(cam_pos_embed))

        # Stack all tokens along the sequence dimension.
        encoder_in_tokens = torch.stack(encoder_in_tokens, axis=0)
        encoder_in_pos_embed = torch.stack(encoder_in_pos_embed, axis=0)

        q = k = encoder_in_tokens + encoder_in_pos_embed
        encoder_out = encoder_in_tokens + self.encoder(q, k, encoder_in_tokens)[0]
        decoder_in = torch.zeros((self.chunk_size, batch_size, self.dim_model),
                                 dtype=encoder_in_pos_embed.dtype, device=encoder_in_pos_embed.device)
        decoder_out = self.decoder(decoder_in + self.decoder_pos_embed.weight.unsqueeze(1),
                                   encoder_out + encoder_in_pos_embed, encoder_out)[0]
        decoder_out = decoder_out.transpose(0, 1)
        return self.action_head(decoder_out)


def make_model():
    return _ACT().eval()


def example_inputs():
    return (torch.randn(2, 14), torch.randn(2, 3, 64, 96))


def other_inputs():
    return [(torch.randn(3, 14), torch.randn(3, 3, 96, 128)), (torch.randn(1, 14), torch.randn(1, 3, 48, 64))]


def probe_inputs():
    return other_inputs()
