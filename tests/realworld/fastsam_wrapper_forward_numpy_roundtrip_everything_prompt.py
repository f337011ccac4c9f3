"""FastSAM wrapped in an nn.Module for ONNX export: forward turns the image tensor into a NumPy HWC array
(`img_tt.squeeze(0).permute(1, 2, 0).numpy()`), runs the FastSAM predictor (NumPy letterbox
preprocessing, YOLOv8-seg net, confidence filtering, prototype masks) and `FastSAMPrompt.everything_prompt()`,
then wraps the result back with `torch.tensor(ann)`; the user cannot export this wrapper to ONNX.

Source: https://github.com/CASIA-LMC-Lab/FastSAM/issues/254
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"img_tt": {2: "height", 3: "width"}}
BLIND = "domains-82"


class Results:
    class Masks:
        def __init__(self, data):
            self.data = data

    def __init__(self, masks):
        self.masks = Results.Masks(masks)


class TinyFastSAM(nn.Module):
    """Stands in for FastSAM("FastSAM-s.pt"): YOLOv8-seg style head with 8 mask prototypes."""

    def __init__(self, nm=8, stride=32):
        super().__init__()
        self.stride = stride
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.SiLU(), nn.Conv2d(16, 16, 3, 2, 1), nn.SiLU())
        self.proto = nn.Conv2d(16, nm, 1)                      # 1/4 resolution prototypes
        self.head = nn.Conv2d(16, 1 + nm, 8, 8)                # 1/32 anchors: score + mask coefficients

    def __call__(self, source, device="cpu", retina_masks=True, imgsz=1024, conf=0.4, iou=0.9):
        # predictor preprocessing (ultralytics LetterBox with auto=True: pad to a stride multiple, value 114)
        h0, w0 = source.shape[:2]
        ph, pw = (-h0) % self.stride, (-w0) % self.stride
        im = np.pad(source, ((ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)), constant_values=114)
        im = np.ascontiguousarray(im[..., ::-1].transpose(2, 0, 1)[None])  # BGR->RGB, HWC->BCHW
        im = torch.from_numpy(im).to(device).float() / 255.0

        feat = self.backbone(im)
        protos = self.proto(feat)[0]                                   # (nm, H/4, W/4)
        pred = self.head(feat)[0].flatten(1).T                         # (num_anchors, 1 + nm)
        pred = pred[pred[:, 0].sigmoid() > conf]                       # confidence filter
        masks = (pred[:, 1:] @ protos.flatten(1)).sigmoid().view(-1, *protos.shape[1:])
        if retina_masks:                                               # process_mask_native
            masks = F.interpolate(masks[None], size=im.shape[2:], mode="bilinear", align_corners=False)[0]
            masks = masks[:, ph // 2: ph // 2 + h0, pw // 2: pw // 2 + w0]
        return [Results(masks.gt_(0.5))]


class FastSAMPrompt:
    def __init__(self, image, results, device="cuda"):
        self.device = device
        self.results = results
        self.img = image

    def everything_prompt(self):
        if self.results == None:
            return []
        return self.results[0].masks.data


class FastSAMWrapper(nn.Module):
    def __init__(self):
        super(FastSAMWrapper, self).__init__()
        self.model = TinyFastSAM()
        device = torch.device('cpu')
        self.model.to(device)

    def forward(self, img_tt):
        # Assuming x is the input image tensor
        # FastSAM may expect an image, so you may need to preprocess `x` as required by FastSAM.
        # Run the model's forward pass
        with torch.no_grad():
            image_np = img_tt.squeeze(0).permute(1, 2, 0).numpy()
            everything_results = self.model(image_np, device='cpu', retina_masks=True, imgsz=1024, conf=0.4, iou=0.9,)
            prompt_process = FastSAMPrompt(image_np, everything_results, device='cpu')
            ann = prompt_process.everything_prompt()
            # HERE i'm going to do some post-processing to ann
            if not isinstance(ann, torch.Tensor):
                ann = torch.tensor(ann)
            return ann


def make_model():
    return FastSAMWrapper().eval()


def example_inputs():
    return (torch.rand(1, 3, 96, 128) * 255,)


def other_inputs():
    return [(torch.rand(1, 3, 80, 112) * 255,), (torch.rand(1, 3, 128, 64) * 255,)]


def probe_inputs():
    return other_inputs()
