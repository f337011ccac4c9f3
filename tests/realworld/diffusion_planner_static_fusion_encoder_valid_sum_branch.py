"""Diffusion Planner's StaticFusionEncoder (scene encoder of a planner that also predicts the neighbor
agents' futures) embeds only the non-padded static objects: `if valid_indices.sum() > 0:` guards a
boolean-mask gather x[valid_indices] and scatter x_result[valid_indices] = x. TIER IV's ONNX
converter replaces it with StaticFusionEncoderONNX ("Always do projection (ONNX can't branch)").

Source: https://github.com/tier4/Diffusion-Planner/commit/1f58e7c503e649b0326d85fbabe7f3d26d738fca
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "objects"}}
BLIND = "domains-76"


class Mlp(nn.Module):
    """timm.layers.Mlp, as used by Diffusion Planner."""
    def __init__(self, in_features, hidden_features=None, out_features=None, act_layer=nn.GELU, drop=0.):
        super().__init__()
        out_features = out_features or in_features
        hidden_features = hidden_features or in_features
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = act_layer()
        self.drop1 = nn.Dropout(drop)
        self.norm = nn.Identity()
        self.fc2 = nn.Linear(hidden_features, out_features)
        self.drop2 = nn.Dropout(drop)

    def forward(self, x):
        x = self.fc1(x)
        x = self.act(x)
        x = self.drop1(x)
        x = self.norm(x)
        x = self.fc2(x)
        x = self.drop2(x)
        return x


class StaticFusionEncoder(nn.Module):
    def __init__(self, dim, drop_path_rate=0.3, hidden_dim=192, device='cuda'):
        super().__init__()

        self._hidden_dim = hidden_dim

        self.projection = Mlp(in_features=dim, hidden_features=hidden_dim, out_features=hidden_dim, act_layer=nn.GELU, drop=drop_path_rate)

    def forward(self, x):
        '''
        x: B, P, D (x, y, cos, sin, w, l, type(4))
        '''
        B, P, _ = x.shape

        pos = x[:, :, :7].clone() # x, y, cos, sin
        # static: [0,1,0]
        pos[..., -3:] = 0.0
        pos[..., -2] = 1.0

        x_result = torch.zeros((B * P, self._hidden_dim), device=x.device)

        mask_p = torch.sum(torch.ne(x[..., :10], 0), dim=-1).to(x.device) == 0

        valid_indices = ~mask_p.view(-1)

        if valid_indices.sum() > 0:
            x = x.view(B * P, -1)
            x = x[valid_indices]
            x = self.projection(x)
            x_result[valid_indices] = x

        return x_result.view(B, P, -1), mask_p.view(B, P), pos.view(B, P, -1)


def make_model():
    return StaticFusionEncoder(dim=10, hidden_dim=64, device='cpu').eval()


def _static_objects(batch, num_objects, num_valid):
    # static objects padded with all-zero rows up to the max number of objects in the scene
    x = torch.randn(batch, num_objects, 10)
    x[:, num_valid:] = 0.0
    return x


def example_inputs():
    return (_static_objects(2, 5, 3),)


def other_inputs():
    return [(_static_objects(3, 8, 6),), (_static_objects(1, 4, 1),)]


def probe_inputs():
    return other_inputs()
