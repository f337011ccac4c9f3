"""img2pose (6DoF face pose, Faster R-CNN style): the ROI head's postprocess turns the per-box local
pose into the global image pose with `transform_pose_global_project_bbox`, which moves boxes and dofs
to NumPy (`.cpu().numpy()`), builds the camera intrinsics from `image_shape`, loops over the boxes and
returns `torch.from_numpy(...)`; the ONNX model's boxes are fine but its DOF output is "very distorted"
(different values from the PyTorch model).

Source: https://github.com/vitoralbiero/img2pose/issues/77
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"images": {2: "height", 3: "width"}}
BLIND = "domains-49"


def rotvec_as_matrix(rvec):
    # stand-in for scipy Rotation.from_rotvec(rvec).as_matrix()
    theta = np.linalg.norm(rvec)
    if theta < 1e-8:
        return np.eye(3)
    k = rvec / theta
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K.dot(K)


def matrix_as_rotvec(rmat):
    # stand-in for scipy Rotation.from_matrix(rmat).as_rotvec()
    u, _, vt = np.linalg.svd(rmat)
    r = u.dot(vt)
    theta = np.arccos(np.clip((np.trace(r) - 1) / 2, -1.0, 1.0))
    if theta < 1e-8:
        return np.zeros(3)
    axis = np.array([r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]]) / (2 * np.sin(theta))
    return axis * theta


def pose_bbox_to_full_image(pose, image_intrinsics, bbox):
    rvec = pose[:3].copy()
    tvec = pose[3:].copy()

    bbox_intrinsics = image_intrinsics.copy()
    bbox_intrinsics[0, 2] = bbox[0] + ((bbox[2] - bbox[0]) // 2)
    bbox_intrinsics[1, 2] = bbox[1] + ((bbox[3] - bbox[1]) // 2)

    focal_length = image_intrinsics[0, 0]
    bbox_size = (bbox[2] - bbox[0]) + (bbox[3] - bbox[1])

    tvec[2] *= focal_length / bbox_size
    projected_point = bbox_intrinsics.dot(tvec.T)
    tvec = projected_point.dot(np.linalg.inv(image_intrinsics.T))

    rmat = rotvec_as_matrix(rvec)
    projected_point = bbox_intrinsics.dot(rmat)
    rmat = np.linalg.inv(image_intrinsics).dot(projected_point)
    rvec = matrix_as_rotvec(rmat)

    return np.concatenate([rvec, tvec])


def transform_pose_global_project_bbox(boxes, dofs, pose_mean, pose_stddev, image_shape):
    if len(dofs) == 0:
        return boxes, dofs

    device = dofs.device

    boxes = boxes.cpu().numpy()
    dofs = dofs.cpu().numpy()

    (h, w) = image_shape
    global_intrinsics = np.array([[w + h, 0, w // 2], [0, w + h, h // 2], [0, 0, 1]])

    pose_mean = pose_mean.numpy()
    pose_stddev = pose_stddev.numpy()
    dofs = dofs * pose_stddev + pose_mean

    global_dofs = []
    for i in range(dofs.shape[0]):
        global_dof = pose_bbox_to_full_image(dofs[i], global_intrinsics, boxes[i])
        global_dofs.append(global_dof)

    global_dofs = torch.from_numpy(np.asarray(global_dofs)).float()
    return torch.from_numpy(boxes).float().to(device), global_dofs.to(device)


class Img2PoseHead(nn.Module):
    """Stand-in for backbone + RPN + DOF ROI head: one proposal per stride-16 cell."""

    def __init__(self, ch=16):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, ch, 3, 4, 1), nn.ReLU(), nn.Conv2d(ch, ch, 3, 4, 1), nn.ReLU()
        )
        self.box_pred = nn.Conv2d(ch, 4, 1)
        self.dof_pred = nn.Conv2d(ch, 6, 1)
        self.pose_mean = torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 8.0])
        self.pose_stddev = torch.tensor([0.2, 0.3, 0.1, 0.1, 0.1, 1.0])

    def forward(self, images):
        image_shape = images.shape[-2:]
        feat = self.backbone(images)
        n, _, fh, fw = feat.shape
        ys, xs = torch.meshgrid(torch.arange(fh), torch.arange(fw), indexing="ij")
        centers = torch.stack([xs, ys], -1).reshape(-1, 2).float() * 16 + 8
        wh = 8 + 24 * torch.sigmoid(self.box_pred(feat)[0].permute(1, 2, 0).reshape(-1, 4)[:, :2])
        boxes = torch.cat([centers - wh / 2, centers + wh / 2], 1)
        dofs = self.dof_pred(feat)[0].permute(1, 2, 0).reshape(-1, 6)
        boxes, dofs = transform_pose_global_project_bbox(
            boxes, dofs, self.pose_mean, self.pose_stddev, image_shape
        )
        return boxes, dofs


def make_model():
    model = Img2PoseHead().eval()
    for p in model.parameters():  # inference-only weights, as in the report's exported model
        p.requires_grad_(False)
    return model


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 64),), (torch.randn(1, 3, 80, 128),)]


def probe_inputs():
    return other_inputs()
