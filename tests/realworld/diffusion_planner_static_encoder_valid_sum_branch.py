"""Diffusion-Planner (autonomous-driving trajectory planner) StaticEncoder: padded static-object slots are found
with `mask_p = ... == 0`, and only `if valid_indices.sum() > 0:` are the valid rows gathered with a boolean mask,
projected and written back into a zero tensor; the ONNX export needed this rewritten into shape-stable ops
(the PR removes the data-dependent branch and the variable-shape boolean indexing "for reliable ONNX tracing/export").

Source: https://github.com/tier4/Diffusion-Planner/pull/111
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"static_objects": {0: "batch"}}
BLIND = "domains-28"

CLASS_TYPE_STATIC = 2
CLASS_TYPE_NUM = 10


def add_class_type(x, class_type):
    B, T, D = x.shape
    assert D == 4, "Input tensor must have 4 features (x, y, cos, sin)"
    class_type_tensor = torch.zeros((B, T, CLASS_TYPE_NUM), device=x.device)
    class_type_tensor[..., class_type] = 1.0
    return torch.cat([x, class_type_tensor], dim=-1)


class Mlp(nn.Module):
    # timm.models.layers.Mlp
    def __init__(self, in_features, hidden_features, out_features, act_layer=nn.GELU, drop=0.0):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = act_layer()
        self.drop1 = nn.Dropout(drop)
        self.fc2 = nn.Linear(hidden_features, out_features)
        self.drop2 = nn.Dropout(drop)

    def forward(self, x):
        return self.drop2(self.fc2(self.drop1(self.act(self.fc1(x)))))


class StaticEncoder(nn.Module):
    def __init__(self, dim, drop_path_rate, hidden_dim):
        super().__init__()

        self._hidden_dim = hidden_dim

        self.projection = Mlp(
            in_features=dim,
            hidden_features=hidden_dim,
            out_features=hidden_dim,
            act_layer=nn.GELU,
            drop=drop_path_rate,
        )

    def forward(self, x):
        """
        x: B, P, D (x, y, cos, sin, w, l, type(4))
        """
        B, P, _ = x.shape

        pos = x[:, :, :4].clone()  # x, y, cos, sin
        pos = add_class_type(pos, CLASS_TYPE_STATIC)

        x_result = torch.zeros((B * P, self._hidden_dim), device=x.device)

        mask_p = torch.sum(torch.ne(x[..., :10], 0), dim=-1).to(x.device) == 0

        valid_indices = ~mask_p.view(-1)

        if valid_indices.sum() > 0:
            x = x.view(B * P, -1)
            x = x[valid_indices]
            x = self.projection(x)
            x_result[valid_indices] = x

        return x_result.view(B, P, -1), mask_p.view(B, P), pos.view(B, P, -1)


class StaticObjectsBranch(nn.Module):
    """The encoder's static-object branch, as exported inside the full planner."""

    def __init__(self):
        super().__init__()
        self.static_encoder = StaticEncoder(10, 0.0, 64)

    def forward(self, static_objects):
        x, mask, pos = self.static_encoder(static_objects)
        return x, mask, pos


def _objects(batch, n_valid):
    x = torch.randn(batch, 5, 10)
    x[:, n_valid:] = 0.0  # padded slots
    return x


def make_model():
    return StaticObjectsBranch().eval()


def example_inputs():
    return (_objects(2, 3),)


def other_inputs():
    return [(_objects(3, 5),), (_objects(1, 0),), (_objects(4, 1),)]


def probe_inputs():
    return other_inputs()
