"""torchcrepe pitch tracker wrapped with its pre/post-processing into one module: `forward` frames the audio with
torchcrepe's `preprocess` generator (`total_frames = 1 + int(audio.size(1) // hop_length)`, unfold, batch loop),
hands each batch to the CREPE network through `frames.cpu().numpy()` / `torch.from_numpy(...)` and decodes with
`postprocess`; the reporter says the exported ONNX graph "is all gone" (nothing of the computation is left).

Source: https://github.com/yqzhishen/onnxcrepe/issues/1
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "n_samples"}}
BLIND = "domains-22"

SAMPLE_RATE = 16000
WINDOW_SIZE = 1024
PITCH_BINS = 360
CENTS_PER_BIN = 20


def preprocess(audio, sample_rate, hop_length=None, batch_size=None, device='cpu', pad=True):
    hop_length = sample_rate // 100 if hop_length is None else hop_length
    if pad:
        total_frames = 1 + int(audio.size(1) // hop_length)
        audio = torch.nn.functional.pad(audio, (WINDOW_SIZE // 2, WINDOW_SIZE // 2))
    else:
        total_frames = 1 + int((audio.size(1) - WINDOW_SIZE) // hop_length)
    batch_size = total_frames if batch_size is None else batch_size
    for i in range(0, total_frames, batch_size):
        start = max(0, i * hop_length)
        end = min(audio.size(1), (i + batch_size - 1) * hop_length + WINDOW_SIZE)
        frames = torch.nn.functional.unfold(audio[:, None, None, start:end], kernel_size=(1, WINDOW_SIZE),
                                            stride=(1, hop_length))
        frames = frames.transpose(1, 2).reshape(-1, WINDOW_SIZE)
        frames = frames.to(device)
        frames -= frames.mean(dim=1, keepdim=True)
        frames /= torch.max(torch.tensor(1e-10, device=frames.device), frames.std(dim=1, keepdim=True))
        yield frames


def frequency_to_bins(frequency, quantize_fn=torch.floor):
    cents = 1200 * torch.log2(frequency / 10.)
    bins = quantize_fn((cents - 1997.3794084376191) / CENTS_PER_BIN).int()
    bins[bins < 0] = 0
    bins[bins >= PITCH_BINS] = PITCH_BINS - 1
    return bins


def argmax(logits):
    bins = logits.argmax(dim=1)
    cents = CENTS_PER_BIN * bins + 1997.3794084376191
    return bins, 10 * 2 ** (cents / 1200)


def postprocess(probabilities, fmin=0., fmax=2006., decoder=argmax, return_harmonicity=False,
                return_periodicity=False):
    probabilities = probabilities.detach()
    minidx = frequency_to_bins(torch.tensor(fmin))
    maxidx = frequency_to_bins(torch.tensor(fmax), torch.ceil)
    probabilities[:, :minidx] = -float('inf')
    probabilities[:, maxidx:] = -float('inf')
    bins, pitch = decoder(probabilities)
    return pitch


class CrepeSession:
    """Stands in for the onnxruntime.InferenceSession of onnxcrepe's tiny CREPE model (numpy in, numpy out)."""

    def __init__(self):
        self.net = nn.Sequential(nn.Unflatten(1, (1, WINDOW_SIZE)), nn.Conv1d(1, 8, 64, stride=16),
                                 nn.ReLU(), nn.AdaptiveAvgPool1d(4), nn.Flatten(), nn.Linear(32, PITCH_BINS),
                                 nn.Sigmoid()).eval()

    def run(self, output_names, feeds):
        with torch.no_grad():
            return [self.net(torch.from_numpy(feeds["frames"])).numpy()]


class TorchCREPE(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.hop_length = 512
        self.fmin = 50
        self.fmax = 1100
        self.sample_rate = SAMPLE_RATE
        self.model = model

    def forward(self, x):
        if x.ndim == 1:
            x = x.unsqueeze(0)
        results = []
        generator = preprocess(x, self.sample_rate, self.hop_length, None, x.device, True)
        for frames in generator:
            prob = torch.from_numpy(
                self.model.run(["probabilities"], {"frames": frames.cpu().numpy()})[0]
            ).to(x.device)
            prob = prob.reshape(x.size(0), -1, 360).transpose(1, 2)
            result = postprocess(prob, self.fmin, self.fmax, argmax, False, False)
            result = result.to(x.device)
            results.append(result)
        return torch.cat(results, 1).squeeze()


def make_model():
    return TorchCREPE(CrepeSession()).eval()


def example_inputs():
    return (torch.randn(8000),)


def other_inputs():
    return [(torch.randn(12000),), (torch.randn(5000),)]


def probe_inputs():
    return other_inputs()
