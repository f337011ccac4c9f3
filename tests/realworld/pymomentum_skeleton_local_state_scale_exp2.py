"""pymomentum (Meta Momentum) torch Skeleton: joint parameters are (tx, ty, tz, rx, ry, rz, log2-scale)
per joint, and the local skeleton state takes the scale as 2**p. The current code carries the comment
"exp2 is not supported by all of our export formats, so we have to implement it using exp and natural log
instead" and computes torch.exp(ln2 * p); this case is the code before that workaround, with
`torch.exp2(joint_parameters[..., 6:])` (the TorchScript-based ONNX exporter has no aten::exp2 symbolic).
The quaternion helpers are short copies; the global FK (prefix products) after the local state is omitted.

Source: https://github.com/facebookresearch/momentum/blob/52c7ff0c0db3269d518b2aa88d3e998c3d3a9236/pymomentum/torch/character.py
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"joint_parameters": {0: "batch"}}
BLIND = "operators-38"

NUM_JOINTS = 6


def _unsqueeze_joint_params(joint_parameters: torch.Tensor) -> torch.Tensor:
    # (..., n_joints * 7) -> (..., n_joints, 7)
    return joint_parameters.reshape(joint_parameters.shape[:-1] + (-1, 7))


def multiply_assume_normalized(q1: torch.Tensor, q2: torch.Tensor) -> torch.Tensor:
    # quaternions stored (x, y, z, w)
    x1, y1, z1, w1 = q1.unbind(-1)
    x2, y2, z2, w2 = q2.unbind(-1)
    return torch.stack(
        [
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        ],
        dim=-1,
    )


def euler_xyz_to_quaternion(euler_xyz: torch.Tensor) -> torch.Tensor:
    half = 0.5 * euler_xyz
    c, s = torch.cos(half), torch.sin(half)
    zeros = torch.zeros_like(half[..., 0])
    qx = torch.stack([s[..., 0], zeros, zeros, c[..., 0]], dim=-1)
    qy = torch.stack([zeros, s[..., 1], zeros, c[..., 1]], dim=-1)
    qz = torch.stack([zeros, zeros, s[..., 2], c[..., 2]], dim=-1)
    return multiply_assume_normalized(qz, multiply_assume_normalized(qy, qx))


class Skeleton(torch.nn.Module):
    def __init__(self, num_joints: int = NUM_JOINTS, *, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        self.register_buffer("joint_translation_offsets", torch.randn(num_joints, 3, dtype=dtype))
        prerot = torch.randn(num_joints, 4, dtype=dtype)
        self.register_buffer("joint_prerotations", prerot / prerot.norm(dim=-1, keepdim=True))

    def joint_parameters_to_local_skeleton_state(self, joint_parameters: torch.Tensor) -> torch.Tensor:
        if not hasattr(self, "joint_prerotations"):
            raise RuntimeError("Character has no skeleton")

        joint_parameters = _unsqueeze_joint_params(joint_parameters)

        local_state_t = joint_parameters[..., :3] + self.joint_translation_offsets[None, :]
        local_state_q = euler_xyz_to_quaternion(joint_parameters[..., 3:6])
        local_state_q = multiply_assume_normalized(
            self.joint_prerotations[None],
            local_state_q,
        )
        local_state_s = torch.exp2(joint_parameters[..., 6:])
        return torch.cat([local_state_t, local_state_q, local_state_s], dim=-1)

    def forward(self, joint_parameters: torch.Tensor) -> torch.Tensor:
        if joint_parameters.ndim == 1:
            joint_parameters = joint_parameters[None, :]
        return self.joint_parameters_to_local_skeleton_state(joint_parameters)


def make_model():
    return Skeleton().eval()


def example_inputs():
    return (torch.randn(2, NUM_JOINTS * 7) * 0.5,)


def other_inputs():
    return [(torch.randn(5, NUM_JOINTS * 7) * 0.5,), (torch.randn(1, NUM_JOINTS * 7) * 0.5,)]


def probe_inputs():
    return other_inputs()
