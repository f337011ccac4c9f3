"""gcn-parking-slot (marking-point detector + attentional GNN over the detected points + edge predictor): the
eval-mode forward runs `post_processing`, which pulls the point heat-map to NumPy (`.detach().cpu().numpy()`),
thresholds it cell by cell into (score, np.array([x, y])) tuples, suppresses neighbours in Python, pads the points
with `np.zeros((max_points, 2))` and returns dicts of lists of (score, np.array) slots; `torch.onnx.export` fails
with "Only tuples, lists and Variables are supported as JIT inputs/outputs ... received an input of unsupported
type: numpy.float32". CPU tensors instead of `.cuda()`; the forward takes the image instead of `data_dict`.

Source: https://github.com/Jiaolong/gcn-parking-slot/issues/11
"""
from copy import deepcopy

import numpy as np
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"image": {0: "batch"}}
BLIND = "domains-7"


def MLP(channels: list, do_bn=True):
    layers = []
    for i in range(1, len(channels)):
        layers.append(nn.Conv1d(channels[i - 1], channels[i], kernel_size=1, bias=True))
        if i < (len(channels) - 1):
            if do_bn:
                layers.append(nn.BatchNorm1d(channels[i]))
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class EdgePredictor(nn.Module):
    def __init__(self, input_dim, layers):
        super(EdgePredictor, self).__init__()
        self.encoder = MLP([input_dim] + layers + [1])

    def forward(self, data_dict):
        x = data_dict['descriptors']
        b, c, n = x.shape
        inputs = torch.zeros(b, c * 2, n * n)
        for i in range(n):
            for j in range(n):
                idx = i * n + j
                inputs[:, :, idx] = torch.cat([x[:, :, i], x[:, :, j]], dim=1)
        preds = torch.sigmoid(self.encoder(inputs))
        data_dict['edges_pred'] = preds
        return data_dict


def attention(query, key, value):
    dim = query.shape[1]
    scores = torch.einsum('bdhn,bdhm->bhnm', query, key) / dim**.5
    prob = torch.nn.functional.softmax(scores, dim=-1)
    return torch.einsum('bhnm,bdhm->bdhn', prob, value), prob


class MultiHeadedAttention(nn.Module):
    def __init__(self, num_heads: int, d_model: int):
        super(MultiHeadedAttention, self).__init__()
        self.dim = d_model // num_heads
        self.num_heads = num_heads
        self.merge = nn.Conv1d(d_model, d_model, kernel_size=1)
        self.proj = nn.ModuleList([deepcopy(self.merge) for _ in range(3)])

    def forward(self, query, key, value):
        batch_dim = query.size(0)
        query, key, value = [l(x).view(batch_dim, self.dim, self.num_heads, -1)
                             for l, x in zip(self.proj, (query, key, value))]
        x, _ = attention(query, key, value)
        return self.merge(x.contiguous().view(batch_dim, self.dim*self.num_heads, -1))


class GCNEncoder(nn.Module):
    def __init__(self, feat_dim=32):
        super(GCNEncoder, self).__init__()
        self.point_encoder = MLP([2, 16, feat_dim])
        self.attn = MultiHeadedAttention(4, feat_dim)
        self.mlp = MLP([feat_dim * 2, feat_dim * 2, feat_dim])
        self.proj = nn.Conv1d(feat_dim, feat_dim, kernel_size=1, bias=True)

    def forward(self, data_dict):
        points = data_dict['points'][:, :, :2].permute(0, 2, 1)  # [B, 2, num_points]
        x = self.point_encoder(points)
        x += data_dict['descriptors']
        x = x + self.mlp(torch.cat([x, self.attn(x, x, x)], dim=1))
        data_dict['descriptors'] = self.proj(x)
        return data_dict


def non_maximum_suppression(pred_points):
    suppressed = [False] * len(pred_points)
    for i in range(len(pred_points) - 1):
        for j in range(i + 1, len(pred_points)):
            i_x, i_y = pred_points[i][1][0], pred_points[i][1][1]
            j_x, j_y = pred_points[j][1][0], pred_points[j][1][1]
            if abs(j_x - i_x) < 0.0625 and abs(j_y - i_y) < 0.0625:
                idx = i if pred_points[i][0] < pred_points[j][0] else j
                suppressed[idx] = True
    if any(suppressed):
        return [p for p, s in zip(pred_points, suppressed) if not s]
    return pred_points


def get_predicted_points(prediction, point_thresh, boundary_thresh):
    predicted_points = []
    prediction = prediction.detach().cpu().numpy()
    for i in range(prediction.shape[1]):
        for j in range(prediction.shape[2]):
            if prediction[0, i, j] >= point_thresh:
                xval = (j + prediction[1, i, j]) / prediction.shape[2]
                yval = (i + prediction[2, i, j]) / prediction.shape[1]
                if not (boundary_thresh <= xval <= 1 - boundary_thresh
                        and boundary_thresh <= yval <= 1 - boundary_thresh):
                    continue
                predicted_points.append((prediction[0, i, j], np.array([xval, yval])))
    return non_maximum_suppression(predicted_points)


class PointDetector(nn.Module):
    def __init__(self, descriptor_dim=32, max_points=10, point_thresh=0.53, boundary_thresh=0.05):
        super(PointDetector, self).__init__()
        self.max_points, self.point_thresh, self.boundary_thresh = max_points, point_thresh, boundary_thresh
        self.feature_extractor = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        self.point_predictor = nn.Conv2d(32, 3, kernel_size=1, bias=False)
        self.descriptor_map = nn.Conv2d(32, descriptor_dim, kernel_size=1, bias=False)
        self.graph_encoder = GCNEncoder(descriptor_dim)
        self.edge_predictor = EdgePredictor(2 * descriptor_dim, [32])

    def forward(self, image):
        data_dict = {'image': image}
        features = self.feature_extractor(data_dict['image'])
        data_dict['points_pred'] = torch.sigmoid(self.point_predictor(features))
        data_dict['descriptor_map'] = self.descriptor_map(features)
        return self.post_processing(data_dict)

    def predict_slots(self, descriptor_map, points):
        b, c, h, w = descriptor_map.shape
        keypoints = points * 2 - 1  # normalize to (-1, 1)
        descriptors = torch.nn.functional.grid_sample(descriptor_map, keypoints.view(b, 1, -1, 2), mode='bilinear',
                                                      align_corners=True)
        descriptors = torch.nn.functional.normalize(descriptors.reshape(b, c, -1), p=2, dim=1)
        data_dict = self.graph_encoder({'descriptors': descriptors, 'points': points})
        return self.edge_predictor(data_dict)

    def post_processing(self, data_dict):
        ret_dicts, pred_dicts = {}, {}
        points_pred = data_dict['points_pred']
        descriptor_map = data_dict['descriptor_map']
        points_pred_batch, slots_pred = [], []
        for b, marks in enumerate(points_pred):
            points_pred = get_predicted_points(marks, self.point_thresh, self.boundary_thresh)
            points_pred_batch.append(points_pred)
            if len(points_pred) > 0:
                points_np = np.concatenate([p[1].reshape(1, -1) for p in points_pred], axis=0)
            else:
                points_np = np.zeros((self.max_points, 2))
            if points_np.shape[0] < self.max_points:
                points_full = np.zeros((self.max_points, 2))
                points_full[:len(points_pred)] = points_np
            else:
                points_full = points_np
            pred_dict = self.predict_slots(descriptor_map[b].unsqueeze(0), torch.Tensor(points_full).unsqueeze(0))
            edges = pred_dict['edges_pred'][0]
            n, m = points_np.shape[0], points_full.shape[0]
            slots = []
            for i in range(n):
                for j in range(n):
                    score = edges[0, i * m + j]
                    if score > 0.5:
                        x1, y1 = points_np[i, :2]
                        x2, y2 = points_np[j, :2]
                        slots.append((score, np.array([x1, y1, x2, y2])))
            slots_pred.append(slots)
        pred_dicts['points_pred'] = points_pred_batch
        pred_dicts['slots_pred'] = slots_pred
        return pred_dicts, ret_dicts


def make_model():
    return PointDetector().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
