"""anomalib's DSR (dual subspace re-projection) anomaly model, inference path: the image score is
`torch.amax(out_mask_averaged, dim=(2, 3)).squeeze()` followed by a Python check
`if image_score.size() == torch.Size([])` that re-adds the batch dim "when batch size is 1". PR #3315
("Resolve OpenVINO export ... for a few models") names DSR's squeeze operations as an export problem and
replaces them with `squeeze(dim=1)`; the exported graph keeps the export-time branch and the
size-dependent squeeze, so a batch of 1 comes back as a 0-d score.

Source: https://github.com/open-edge-platform/anomalib/pull/3315
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"batch": {0: "batch"}}
BLIND = "domains-40"


class AnomalyDetectionModule(nn.Module):
    """Compares the object-specific reconstruction with the general one and predicts a 2-class mask."""

    def __init__(self, in_channels=6, out_channels=2, base_width=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(in_channels, base_width, 3, padding=1),
            nn.BatchNorm2d(base_width),
            nn.ReLU(inplace=True),
            nn.Conv2d(base_width, out_channels, 3, padding=1),
        )

    def forward(self, batch_real, batch_anomaly):
        img_x = torch.cat((batch_real, batch_anomaly), dim=1)
        return self.net(img_x)


class DsrModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.general_decoder = nn.Conv2d(3, 3, 3, padding=1)        # stands in for the discrete latent model
        self.image_reconstruction_network = nn.Conv2d(3, 3, 3, padding=1)
        self.anomaly_detection_module = AnomalyDetectionModule()
        self.upsampling_module = nn.Conv2d(8, 2, 3, padding=1)

    def forward(self, batch):
        with torch.no_grad():
            gen_image = self.general_decoder(batch)
            obj_spec_image = self.image_reconstruction_network(gen_image)

            # Anomaly detection module
            out_mask = self.anomaly_detection_module(obj_spec_image, gen_image)
            out_mask_sm = torch.softmax(out_mask, dim=1)

        # Mask upsampling and score calculation
        upsampled_mask = self.upsampling_module(torch.cat((obj_spec_image, gen_image, out_mask_sm), dim=1))
        out_mask_sm_up = torch.softmax(upsampled_mask, dim=1)

        # if testing, extract image score
        out_mask_averaged = torch.nn.functional.avg_pool2d(
            out_mask_sm[:, 1:, :, :],
            21,
            stride=1,
            padding=21 // 2,
        ).detach()
        image_score = torch.amax(out_mask_averaged, dim=(2, 3)).squeeze()

        # prevent crash when image_score is a single value (batch size of 1)
        if image_score.size() == torch.Size([]):
            image_score = image_score.unsqueeze(0)

        anomaly_map = out_mask_sm_up[:, 1, :, :]

        return image_score, anomaly_map


def make_model():
    return DsrModel().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(4, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
