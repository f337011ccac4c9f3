"""ONX603 on statement loops over the batch in parts: Wan-Animate's motion encoder (`for
face_batch in torch.split(frames, self.motion_encoder_batch_size): out.append(encoder(face_batch))`,
then `torch.cat(out)`) and TabPFN's attention in a given number of sub-batches (`for i in
range(num_iterations)` over rows `[i * sub_batch:(i + 1) * sub_batch]`, `sub_batch` the ceiling
share). The number of parts follows the batch: the legacy exporter records the example's Split
(onnxruntime fails on another batch) and torch.export fixes it. Fixed (unsafe: the body must treat
every row on its own) by one part, the whole batch, while an exporter traces."""
import torch
import torch.nn.functional as F
from torch import nn


class MotionEncoder(nn.Module):
    def __init__(self, motion_encoder_batch_size=4):
        super().__init__()
        self.motion_encoder_batch_size = motion_encoder_batch_size
        self.convs = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.LeakyReLU(0.2))
        self.fc = nn.Linear(8, 6)
        self.qkv = nn.Linear(6, 18)

    def forward(self, frames: torch.Tensor):
        face_batches = torch.split(frames, self.motion_encoder_batch_size)
        motion = []
        for face_batch in face_batches:
            features = self.convs(face_batch).mean(dim=(2, 3))
            motion.append(self.fc(features))
        motion = torch.cat(motion)
        q, k, v = self.qkv(motion)[:, None, None].chunk(3, dim=-1)
        num_iterations = (motion.shape[0] + 2) // 3
        sub_batch = (q.shape[0] + num_iterations - 1) // num_iterations
        outputs = []
        for i in range(num_iterations):
            outputs.append(F.scaled_dot_product_attention(q[i * sub_batch:(i + 1) * sub_batch],
                                                          k[i * sub_batch:(i + 1) * sub_batch],
                                                          v[i * sub_batch:(i + 1) * sub_batch]))
        return outputs[0] if len(outputs) == 1 else torch.cat(outputs)


def make_model():
    torch.manual_seed(0)
    return MotionEncoder()


def example_inputs():
    return (torch.randn(6, 3, 16, 16),)


def probe_inputs():
    return [(torch.randn(9, 3, 16, 16),), (torch.randn(3, 3, 12, 20),)]


DYNAMIC = {0: {0: "frames", 2: "height", 3: "width"}}
