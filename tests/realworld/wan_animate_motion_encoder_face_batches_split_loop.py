"""diffusers' WanAnimateTransformer3DModel encodes the driving face video in chunks: it flattens
(B, C, T, H, W) to (B*T, C, H, W), runs `torch.split(face_pixel_values, motion_encode_batch_size)`
and loops over the chunks through the motion encoder. optimum-intel's export PR patches
`motion_encoder_batch_size=10000` "to ensure torch.split returns exactly 1 chunk" as a "workaround for
data-dependent for-loop over face frame batches": the number of chunks follows the frame count.

Source: https://github.com/huggingface/optimum-intel/pull/1712
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"face_pixel_values": {0: "batch", 2: "num_face_frames"}}
BLIND = "domains-45"


class MotionEncoder(nn.Module):
    """Stands in for WanAnimateMotionEncoder: a small conv stack to one motion vector per frame."""

    def __init__(self, in_channels=3, dim=32, motion_dim=20):
        super().__init__()
        self.convs = nn.Sequential(
            nn.Conv2d(in_channels, dim, 3, stride=2, padding=1),
            nn.LeakyReLU(0.2),
            nn.Conv2d(dim, dim, 3, stride=2, padding=1),
            nn.LeakyReLU(0.2),
        )
        self.motion_fc = nn.Linear(dim, motion_dim)

    def forward(self, face_image):
        x = self.convs(face_image)
        x = x.mean(dim=(2, 3))
        return self.motion_fc(x)


class WanAnimateFaceMotion(nn.Module):
    def __init__(self, motion_encoder_batch_size=8, motion_dim=20, inner_dim=48):
        super().__init__()
        self.motion_encoder_batch_size = motion_encoder_batch_size
        self.motion_encoder = MotionEncoder(motion_dim=motion_dim)
        self.face_encoder = nn.Sequential(nn.Linear(motion_dim, inner_dim), nn.SiLU(), nn.Linear(inner_dim, inner_dim))

    def forward(self, face_pixel_values, motion_encode_batch_size=None):
        # 4. Get motion features from the face video
        # Motion vector computation from face pixel values
        batch_size, channels, num_face_frames, height, width = face_pixel_values.shape
        # Rearrange from (B, C, T, H, W) to (B*T, C, H, W)
        face_pixel_values = face_pixel_values.permute(0, 2, 1, 3, 4).reshape(-1, channels, height, width)

        # Extract motion features using motion encoder
        # Perform batched motion encoder inference to allow trading off inference speed for memory usage
        motion_encode_batch_size = motion_encode_batch_size or self.motion_encoder_batch_size
        face_batches = torch.split(face_pixel_values, motion_encode_batch_size)
        motion_vec_batches = []
        for face_batch in face_batches:
            motion_vec_batch = self.motion_encoder(face_batch)
            motion_vec_batches.append(motion_vec_batch)
        motion_vec = torch.cat(motion_vec_batches)
        motion_vec = motion_vec.view(batch_size, num_face_frames, -1)

        # Now get face features from the motion vector
        motion_vec = self.face_encoder(motion_vec)

        # Add padding at the beginning (prepend zeros)
        pad_face = torch.zeros_like(motion_vec[:, :1])
        motion_vec = torch.cat([pad_face, motion_vec], dim=1)
        return motion_vec


def make_model():
    return WanAnimateFaceMotion().eval()


def example_inputs():
    return (torch.randn(1, 3, 12, 32, 32),)


def other_inputs():
    return [(torch.randn(2, 3, 10, 32, 32),), (torch.randn(1, 3, 5, 32, 32),)]


def probe_inputs():
    return other_inputs()
