"""DeepSolo text spotter exported to ONNX: the detector's inference path filters the control-point queries by
score and packs each image's result into a detectron2 `Instances` object, returning
`[{"instances": r}, ...]`; the export fails with "unsupported value type 'Instance'" (the users then hack the code
to return the raw `ctrl_point_cls`, `ctrl_point_coord`, `ctrl_point_text`, `bd_points` tensors).
(The ViTAE backbone + deformable transformer are reduced to a conv and a linear query head; detectron2's
`Instances` class is copied in its minimal form.)

Source: https://github.com/ViTAE-Transformer/DeepSolo/issues/37
"""
import torch
from torch import nn

CLASS = "outputs"
FAMILY = "scalars"
DYNAMIC = {"image": {2: "height", 3: "width"}}
BLIND = "domains-26"


class Instances:
    """Minimal copy of detectron2.structures.Instances."""

    def __init__(self, image_size, **kwargs):
        self._image_size = image_size
        self._fields = {}
        for k, v in kwargs.items():
            self.set(k, v)

    @property
    def image_size(self):
        return self._image_size

    def __setattr__(self, name, val):
        if name.startswith("_"):
            super().__setattr__(name, val)
        else:
            self.set(name, val)

    def __getattr__(self, name):
        if name == "_fields" or name not in self._fields:
            raise AttributeError("Cannot find field '{}' in the given Instances!".format(name))
        return self._fields[name]

    def set(self, name, value):
        self._fields[name] = value

    def get_fields(self):
        return self._fields


class TransformerPureDetector(nn.Module):
    def __init__(self, num_queries=25, num_points=8, voc_size=37, test_score_threshold=0.4):
        super().__init__()
        self.test_score_threshold = test_score_threshold
        self.num_queries, self.num_points, self.voc_size = num_queries, num_points, voc_size
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 3, stride=4, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.ctrl_point_class = nn.Linear(32, num_queries * num_points)
        self.ctrl_point_coord = nn.Linear(32, num_queries * num_points * 2)
        self.ctrl_point_text = nn.Linear(32, num_queries * num_points * (voc_size + 1))
        self.boundary_head = nn.Linear(32, num_queries * num_points * 4)

    def detection_transformer(self, images):
        b = images.shape[0]
        q, p = self.num_queries, self.num_points
        feat = self.backbone(images).flatten(1)
        return {
            "pred_logits": self.ctrl_point_class(feat).view(b, q, p, 1),
            "pred_ctrl_points": self.ctrl_point_coord(feat).view(b, q, p, 2).sigmoid(),
            "pred_text_logits": self.ctrl_point_text(feat).view(b, q, p, self.voc_size + 1),
            "pred_bd_points": self.boundary_head(feat).view(b, q, p, 4).sigmoid(),
        }

    def forward(self, image):
        image_sizes = [tuple(image.shape[-2:])] * image.shape[0]
        output = self.detection_transformer(image)
        ctrl_point_cls = output["pred_logits"]
        ctrl_point_coord = output["pred_ctrl_points"]
        ctrl_point_text = output["pred_text_logits"]
        bd_points = output["pred_bd_points"]
        results = self.inference(ctrl_point_cls, ctrl_point_coord, ctrl_point_text, bd_points, image_sizes)
        processed_results = []
        for results_per_image in results:
            processed_results.append({"instances": results_per_image})
        return processed_results

    def inference(self, ctrl_point_cls, ctrl_point_coord, ctrl_point_text, bd_points, image_sizes):
        assert len(ctrl_point_cls) == len(image_sizes)
        results = []
        ctrl_point_text = torch.softmax(ctrl_point_text, dim=-1)
        prob = ctrl_point_cls.mean(-2).sigmoid()
        scores, labels = prob.max(-1)

        for scores_per_image, labels_per_image, ctrl_point_per_image, ctrl_point_text_per_image, bd, image_size in zip(
                scores, labels, ctrl_point_coord, ctrl_point_text, bd_points, image_sizes
        ):
            selector = scores_per_image >= self.test_score_threshold
            scores_per_image = scores_per_image[selector]
            labels_per_image = labels_per_image[selector]
            ctrl_point_per_image = ctrl_point_per_image[selector]
            ctrl_point_text_per_image = ctrl_point_text_per_image[selector]
            bd = bd[selector]

            result = Instances(image_size)
            result.scores = scores_per_image
            result.pred_classes = labels_per_image
            result.rec_scores = ctrl_point_text_per_image
            ctrl_point_per_image[..., 0] *= image_size[1]
            ctrl_point_per_image[..., 1] *= image_size[0]
            result.ctrl_points = ctrl_point_per_image.flatten(1)
            _, text_pred = ctrl_point_text_per_image.topk(1)
            result.recs = text_pred.squeeze(-1)
            bd[..., 0::2] *= image_size[1]
            bd[..., 1::2] *= image_size[0]
            result.bd = bd
            results.append(result)
        return results


def make_model():
    return TransformerPureDetector().eval()


def example_inputs():
    return (torch.rand(1, 3, 64, 96),)


def other_inputs():
    return [(torch.rand(1, 3, 80, 64),), (torch.rand(1, 3, 48, 128),)]


def probe_inputs():
    return other_inputs()
