"""multimodallearning/pytorch-mask-rcnn: `pyramid_roi_align` assigns every RoI to an FPN level
(`roi_level = 4 + log2(...)`), then loops over levels 2..5 with `if not ix.any(): continue`,
`torch.nonzero(ix)[:,0]` and per-level crop-and-resize, and finally re-sorts the pooled features; the report says the
model exports "with countless warnings" and the ONNX file is "essentially useless and only errors while using
onnxruntime".

Source: https://github.com/multimodallearning/pytorch-mask-rcnn/issues/32
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import Variable

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"boxes": {1: "num_boxes"}}
BLIND = "domains-44"


class CropAndResizeFunction:
    """Stand-in for roialign.roi_align.crop_and_resize.CropAndResizeFunction (a compiled C/CUDA extension with
    tf.image.crop_and_resize semantics), written with grid_sample so the case runs on CPU."""

    def __init__(self, crop_height, crop_width, extrapolation_value=0):
        self.crop_height = crop_height
        self.crop_width = crop_width
        self.extrapolation_value = extrapolation_value

    def __call__(self, image, boxes, box_ind):
        t_h = torch.linspace(0, 1, self.crop_height)
        t_w = torch.linspace(0, 1, self.crop_width)
        y1, x1, y2, x2 = boxes.unbind(1)
        ys = y1[:, None] + (y2 - y1)[:, None] * t_h[None]
        xs = x1[:, None] + (x2 - x1)[:, None] * t_w[None]
        grid = torch.stack([xs[:, None, :].expand(-1, self.crop_height, -1),
                            ys[:, :, None].expand(-1, -1, self.crop_width)], dim=-1) * 2 - 1
        return F.grid_sample(image[box_ind.long()], grid, mode="bilinear", align_corners=True)


def log2(x):
    """Implementatin of Log2. Pytorch doesn't have a native implemenation."""
    ln2 = Variable(torch.log(torch.FloatTensor([2.0])), requires_grad=False)
    if x.is_cuda:
        ln2 = ln2.cuda()
    return torch.log(x) / ln2


def pyramid_roi_align(inputs, pool_size, image_shape):
    # Currently only supports batchsize 1
    for i in range(len(inputs)):
        inputs[i] = inputs[i].squeeze(0)

    # Crop boxes [batch, num_boxes, (y1, x1, y2, x2)] in normalized coords
    boxes = inputs[0]

    # Feature Maps. List of feature maps from different level of the
    # feature pyramid. Each is [batch, height, width, channels]
    feature_maps = inputs[1:]

    # Assign each ROI to a level in the pyramid based on the ROI area.
    y1, x1, y2, x2 = boxes.chunk(4, dim=1)
    h = y2 - y1
    w = x2 - x1

    # Equation 1 in the Feature Pyramid Networks paper. Account for
    # the fact that our coordinates are normalized here.
    # e.g. a 224x224 ROI (in pixels) maps to P4
    image_area = Variable(torch.FloatTensor([float(image_shape[0]*image_shape[1])]), requires_grad=False)
    if boxes.is_cuda:
        image_area = image_area.cuda()
    roi_level = 4 + log2(torch.sqrt(h*w)/(224.0/torch.sqrt(image_area)))
    roi_level = roi_level.round().int()
    roi_level = roi_level.clamp(2,5)

    # Loop through levels and apply ROI pooling to each. P2 to P5.
    pooled = []
    box_to_level = []
    for i, level in enumerate(range(2, 6)):
        ix  = roi_level==level
        if not ix.any():
            continue
        ix = torch.nonzero(ix)[:,0]
        level_boxes = boxes[ix.data, :]

        # Keep track of which box is mapped to which level
        box_to_level.append(ix.data)

        # Stop gradient propogation to ROI proposals
        level_boxes = level_boxes.detach()

        # Crop and Resize
        ind = Variable(torch.zeros(level_boxes.size()[0]),requires_grad=False).int()
        if level_boxes.is_cuda:
            ind = ind.cuda()
        feature_maps[i] = feature_maps[i].unsqueeze(0)  #CropAndResizeFunction needs batch dimension
        pooled_features = CropAndResizeFunction(pool_size, pool_size, 0)(feature_maps[i], level_boxes, ind)
        pooled.append(pooled_features)

    # Pack pooled features into one tensor
    pooled = torch.cat(pooled, dim=0)

    # Pack box_to_level mapping into one array and add another
    # column representing the order of pooled boxes
    box_to_level = torch.cat(box_to_level, dim=0)

    # Rearrange pooled features to match the order of the original boxes
    _, box_to_level = torch.sort(box_to_level)
    pooled = pooled[box_to_level, :, :]

    return pooled


class Classifier(nn.Module):
    def __init__(self, depth=8, pool_size=7, image_shape=(1024, 1024, 3), num_classes=4):
        super().__init__()
        self.pool_size = pool_size
        self.image_shape = image_shape
        self.conv1 = nn.Conv2d(depth, 16, kernel_size=self.pool_size, stride=1)
        self.linear_class = nn.Linear(16, num_classes)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, boxes, p2, p3, p4, p5):
        x = pyramid_roi_align([boxes, p2, p3, p4, p5], self.pool_size, self.image_shape)
        x = F.relu(self.conv1(x))
        x = x.view(-1, 16)
        mrcnn_class_logits = self.linear_class(x)
        mrcnn_probs = self.softmax(mrcnn_class_logits)
        return mrcnn_class_logits, mrcnn_probs


def make_model():
    return Classifier().eval()


def _boxes(n, lo, hi):
    size = torch.rand(n, 1) * (hi - lo) + lo
    y1 = torch.rand(n, 1) * (1 - size)
    x1 = torch.rand(n, 1) * (1 - size)
    return torch.cat([y1, x1, y1 + size, x1 + size], dim=1).unsqueeze(0)


def _feats():
    return tuple(torch.randn(1, 8, s, s) for s in (64, 32, 16, 8))


def example_inputs():
    # sample proposals are all large boxes: only P4/P5 get any RoI
    return (_boxes(6, 0.2, 0.6),) + _feats()


def other_inputs():
    return [(_boxes(10, 0.02, 0.6),) + _feats(), (_boxes(7, 0.02, 0.1),) + _feats()]


def probe_inputs():
    return other_inputs()
