"""Hugging Face SuperPoint (keypoint detector/descriptor): per image of the batch the interest-point decoder keeps
`torch.nonzero(scores[0] > threshold)` keypoints after NMS and border removal, then the batch is padded to
`max(keypoints.shape[0] for keypoints in list_keypoints)`; the model opts out of the export tests for "data dependent
top k / non max suppression in keypoint detection", as the report lists.

Source: https://github.com/huggingface/transformers/issues/48243
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-31"


class SuperPointConfig:
    encoder_hidden_sizes = [8, 8, 16, 16]
    decoder_hidden_size = 32
    keypoint_decoder_dim = 65
    descriptor_decoder_dim = 32
    keypoint_threshold = 0.005
    max_keypoints = -1
    nms_radius = 4
    border_removal_distance = 4


def remove_keypoints_from_borders(keypoints, scores, border: int, height: int, width: int):
    """Removes keypoints (and their associated scores) that are too close to the border"""
    mask_h = (keypoints[:, 0] >= border) & (keypoints[:, 0] < (height - border))
    mask_w = (keypoints[:, 1] >= border) & (keypoints[:, 1] < (width - border))
    mask = mask_h & mask_w
    return keypoints[mask], scores[mask]


def simple_nms(scores, nms_radius: int):
    def max_pool(x):
        return nn.functional.max_pool2d(x, kernel_size=nms_radius * 2 + 1, stride=1, padding=nms_radius)

    zeros = torch.zeros_like(scores)
    max_mask = scores == max_pool(scores)
    for _ in range(2):
        supp_mask = max_pool(max_mask.float()) > 0
        supp_scores = torch.where(supp_mask, zeros, scores)
        new_max_mask = supp_scores == max_pool(supp_scores)
        max_mask = max_mask | (new_max_mask & (~supp_mask))
    return torch.where(max_mask, scores, zeros)


class SuperPointConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels, add_pooling=False):
        super().__init__()
        self.conv_a = nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1)
        self.conv_b = nn.Conv2d(out_channels, out_channels, kernel_size=3, stride=1, padding=1)
        self.relu = nn.ReLU(inplace=True)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2) if add_pooling else None

    def forward(self, hidden_states):
        hidden_states = self.relu(self.conv_a(hidden_states))
        hidden_states = self.relu(self.conv_b(hidden_states))
        if self.pool is not None:
            hidden_states = self.pool(hidden_states)
        return hidden_states


class SuperPointInterestPointDecoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.keypoint_threshold = config.keypoint_threshold
        self.max_keypoints = config.max_keypoints
        self.nms_radius = config.nms_radius
        self.border_removal_distance = config.border_removal_distance
        self.relu = nn.ReLU(inplace=True)
        self.conv_score_a = nn.Conv2d(config.encoder_hidden_sizes[-1], config.decoder_hidden_size, 3, 1, 1)
        self.conv_score_b = nn.Conv2d(config.decoder_hidden_size, config.keypoint_decoder_dim, 1, 1, 0)

    def forward(self, encoded):
        scores = self._get_pixel_scores(encoded)
        keypoints, scores = self._extract_keypoints(scores)
        return keypoints, scores

    def _get_pixel_scores(self, encoded):
        scores = self.relu(self.conv_score_a(encoded))
        scores = self.conv_score_b(scores)
        scores = nn.functional.softmax(scores, 1)[:, :-1]
        batch_size, _, height, width = scores.shape
        scores = scores.permute(0, 2, 3, 1).reshape(batch_size, height, width, 8, 8)
        scores = scores.permute(0, 1, 3, 2, 4).reshape(batch_size, height * 8, width * 8)
        scores = simple_nms(scores, self.nms_radius)
        return scores

    def _extract_keypoints(self, scores):
        _, height, width = scores.shape
        keypoints = torch.nonzero(scores[0] > self.keypoint_threshold)
        scores = scores[0][tuple(keypoints.t())]
        keypoints, scores = remove_keypoints_from_borders(
            keypoints, scores, self.border_removal_distance, height * 8, width * 8
        )
        keypoints = torch.flip(keypoints, [1]).to(scores.dtype)
        return keypoints, scores


class SuperPointDescriptorDecoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.relu = nn.ReLU(inplace=True)
        self.conv_descriptor_a = nn.Conv2d(config.encoder_hidden_sizes[-1], config.decoder_hidden_size, 3, 1, 1)
        self.conv_descriptor_b = nn.Conv2d(config.decoder_hidden_size, config.descriptor_decoder_dim, 1, 1, 0)

    def forward(self, encoded, keypoints):
        descriptors = self.conv_descriptor_b(self.relu(self.conv_descriptor_a(encoded)))
        descriptors = nn.functional.normalize(descriptors, p=2, dim=1)
        descriptors = self._sample_descriptors(keypoints[None], descriptors[0][None], 8)[0]
        return torch.transpose(descriptors, 0, 1)

    @staticmethod
    def _sample_descriptors(keypoints, descriptors, scale: int = 8):
        batch_size, num_channels, height, width = descriptors.shape
        keypoints = keypoints - scale / 2 + 0.5
        divisor = torch.tensor([[(width * scale - scale / 2 - 0.5), (height * scale - scale / 2 - 0.5)]])
        divisor = divisor.to(keypoints)
        keypoints /= divisor
        keypoints = keypoints * 2 - 1
        keypoints = keypoints.view(batch_size, 1, -1, 2)
        descriptors = nn.functional.grid_sample(descriptors, keypoints, mode="bilinear", align_corners=True)
        descriptors = descriptors.reshape(batch_size, num_channels, -1)
        return nn.functional.normalize(descriptors, p=2, dim=1)


class SuperPointForKeypointDetection(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        sizes = config.encoder_hidden_sizes
        self.encoder = nn.Sequential(SuperPointConvBlock(1, sizes[0], True), SuperPointConvBlock(sizes[0], sizes[1], True),
                                     SuperPointConvBlock(sizes[1], sizes[2], True), SuperPointConvBlock(sizes[2], sizes[3]))
        self.keypoint_decoder = SuperPointInterestPointDecoder(config)
        self.descriptor_decoder = SuperPointDescriptorDecoder(config)

    def forward(self, pixel_values):
        pixel_values = pixel_values[:, 0, :, :][:, None, :, :]
        batch_size, _, height, width = pixel_values.shape
        last_hidden_state = self.encoder(pixel_values)

        list_keypoints_scores = [
            self.keypoint_decoder(last_hidden_state[None, ...]) for last_hidden_state in last_hidden_state
        ]
        list_keypoints = [keypoints_scores[0] for keypoints_scores in list_keypoints_scores]
        list_scores = [keypoints_scores[1] for keypoints_scores in list_keypoints_scores]
        list_descriptors = [
            self.descriptor_decoder(last_hidden_state[None, ...], keypoints[None, ...])
            for last_hidden_state, keypoints in zip(last_hidden_state, list_keypoints)
        ]

        maximum_num_keypoints = max(keypoints.shape[0] for keypoints in list_keypoints)

        keypoints = torch.zeros((batch_size, maximum_num_keypoints, 2), device=pixel_values.device)
        scores = torch.zeros((batch_size, maximum_num_keypoints), device=pixel_values.device)
        descriptors = torch.zeros(
            (batch_size, maximum_num_keypoints, self.config.descriptor_decoder_dim), device=pixel_values.device
        )
        mask = torch.zeros((batch_size, maximum_num_keypoints), device=pixel_values.device, dtype=torch.int)

        for i, (_keypoints, _scores, _descriptors) in enumerate(zip(list_keypoints, list_scores, list_descriptors)):
            keypoints[i, : _keypoints.shape[0]] = _keypoints
            scores[i, : _scores.shape[0]] = _scores
            descriptors[i, : _descriptors.shape[0]] = _descriptors
            mask[i, : _scores.shape[0]] = 1

        keypoints = keypoints / torch.tensor([width, height], device=keypoints.device)
        return keypoints, scores, descriptors, mask


def make_model():
    return SuperPointForKeypointDetection(SuperPointConfig()).eval()


def example_inputs():
    return (torch.rand(2, 3, 64, 80),)


def other_inputs():
    return [(torch.rand(3, 3, 48, 96),), (torch.rand(1, 3, 80, 56),)]


def probe_inputs():
    return other_inputs()
