"""BEVFusion (mit-han-lab) 3D detector in test mode: the object head's `get_bboxes` wraps the decoded boxes with
`metas[0]["box_type_3d"](bboxes, box_dim=...)` (an mmdet3d `LiDARInstance3DBoxes`), and `BEVFusion.forward_single`
returns `outputs = [{"boxes_3d": boxes.to("cpu"), "scores_3d": ..., "labels_3d": ...}]`; `torch.onnx.export` of the
model stops with "RuntimeError: Tracer cannot infer type of [{'boxes_3d': LiDARInstance3DBoxes ...". Trimmed to the
BEV feature -> heatmap/regression head -> top-k decode -> output packing path (no fusion backbone, no NMS).

Source: https://github.com/mit-han-lab/bevfusion/issues/508
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "outputs"
FAMILY = "control_flow"
DYNAMIC = {}
BLIND = "domains-52"


class LiDARInstance3DBoxes:
    """Trimmed mmdet3d BaseInstance3DBoxes: a Python object holding the (N, box_dim) box tensor."""

    def __init__(self, tensor, box_dim=7, with_yaw=True, origin=(0.5, 0.5, 0)):
        if isinstance(tensor, torch.Tensor):
            device = tensor.device
        else:
            device = torch.device("cpu")
        tensor = torch.as_tensor(tensor, dtype=torch.float32, device=device)
        if tensor.numel() == 0:
            tensor = tensor.reshape((0, box_dim)).to(dtype=torch.float32, device=device)
        assert tensor.dim() == 2 and tensor.size(-1) == box_dim, tensor.size()
        self.box_dim = box_dim
        self.with_yaw = with_yaw
        self.tensor = tensor.clone()
        if origin != (0.5, 0.5, 0):
            dst = self.tensor.new_tensor((0.5, 0.5, 0))
            src = self.tensor.new_tensor(origin)
            self.tensor[:, :3] += self.tensor[:, 3:6] * (dst - src)

    def to(self, device):
        original_type = type(self)
        return original_type(self.tensor.to(device), box_dim=self.box_dim, with_yaw=self.with_yaw)


class ObjectHead(nn.Module):
    def __init__(self, in_channels=32, num_classes=3, num_proposals=20, pc_range=(-54.0, -54.0), voxel=0.6, stride=8):
        super().__init__()
        self.num_classes = num_classes
        self.num_proposals = num_proposals
        self.heatmap = nn.Conv2d(in_channels, num_classes, 3, padding=1)
        self.reg = nn.Conv2d(in_channels, 2 + 1 + 3 + 2 + 2, 1)  # center offset, height, dim, rot (sin, cos), vel
        self.pc_range, self.voxel, self.stride = pc_range, voxel, stride

    def forward(self, x, metas):
        heatmap = self.heatmap(x).sigmoid()
        B, C, H, W = heatmap.shape
        scores, inds = heatmap.view(B, -1).topk(self.num_proposals)
        labels = inds // (H * W)
        pix = inds % (H * W)
        reg = self.reg(x).view(B, -1, H * W).gather(2, pix[:, None].expand(-1, 10, -1))
        ys = (pix // W).float() + reg[:, 1]
        xs = (pix % W).float() + reg[:, 0]
        xs = xs * self.stride * self.voxel + self.pc_range[0]
        ys = ys * self.stride * self.voxel + self.pc_range[1]
        rot = torch.atan2(reg[:, 6], reg[:, 7])
        bboxes = torch.stack([xs, ys, reg[:, 2], reg[:, 3].exp(), reg[:, 4].exp(), reg[:, 5].exp(), rot,
                              reg[:, 8], reg[:, 9]], dim=-1)
        return [dict(bboxes=bboxes[i], scores=scores[i], labels=labels[i]) for i in range(B)]

    def get_bboxes(self, rets, metas):
        res = [[
            metas[0]["box_type_3d"](rets[0]["bboxes"], box_dim=rets[0]["bboxes"].shape[-1]),
            rets[0]["scores"],
            rets[0]["labels"].int(),
        ]]
        return res


class BEVFusion(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = nn.Sequential(nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
        self.heads = nn.ModuleDict({"object": ObjectHead()})

    def forward(self, x, metas=None):
        if metas is None:
            metas = [{"box_type_3d": LiDARInstance3DBoxes}]
        batch_size = x.shape[0]
        x = self.decoder(x)
        outputs = [{} for _ in range(batch_size)]
        for type, head in self.heads.items():
            if type == "object":
                pred_dict = head(x, metas)
                bboxes = head.get_bboxes(pred_dict, metas)
                for k, (boxes, scores, labels) in enumerate(bboxes):
                    outputs[k].update(
                        {
                            "boxes_3d": boxes.to("cpu"),
                            "scores_3d": scores.cpu(),
                            "labels_3d": labels.cpu(),
                        }
                    )
        return outputs


def make_model():
    return BEVFusion().eval()


def example_inputs():
    return (torch.randn(1, 32, 24, 24),)  # fused BEV feature map


def other_inputs():
    return [(torch.randn(1, 32, 24, 24),), (torch.randn(1, 32, 24, 24),)]


def probe_inputs():
    return other_inputs()
