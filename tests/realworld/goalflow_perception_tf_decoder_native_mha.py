"""GoalFlow (flow-matching trajectory planner) perception head: learned queries attend to the BEV tokens
plus the ego-status token through nn.TransformerDecoder(batch_first=True), whose layers are frozen
(`freeze_perception`); exporting with Lightning's `to_onnx` (run under no_grad) fails with
"Exporting the operator 'aten::_native_multi_head_attention' to ONNX opset version 15 is not supported"
because the decoder's self-attention takes the fused MHA fast path. Backbone and heads trimmed.

Source: https://github.com/YvanYin/GoalFlow/issues/23
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"bev_feature": {0: "batch"}, "status_feature": {0: "batch"}}
BLIND = "operators-5"


class GoalFlowConfig:
    tf_d_model = 256
    tf_num_head = 8
    tf_d_ffn = 1024
    tf_dropout = 0.0
    tf_num_layers = 3
    num_bounding_boxes = 30
    freeze_perception = True


class GoalFlowPerception(nn.Module):
    def __init__(self, config: GoalFlowConfig):
        super().__init__()
        self._query_splits = [1, config.num_bounding_boxes]
        self._config = config
        self._bev_downscale = nn.Conv2d(512, config.tf_d_model, kernel_size=1)
        self._keyval_embedding = nn.Embedding(8**2 + 1, config.tf_d_model)  # 8x8 feature grid + trajectory
        self._query_embedding = nn.Embedding(sum(self._query_splits), config.tf_d_model)
        self._status_encoding = nn.Linear(4 + 2 + 2, config.tf_d_model)

        tf_decoder_layer = nn.TransformerDecoderLayer(
            d_model=config.tf_d_model,
            nhead=config.tf_num_head,
            dim_feedforward=config.tf_d_ffn,
            dropout=config.tf_dropout,
            batch_first=True,
        )
        self._tf_decoder = nn.TransformerDecoder(tf_decoder_layer, config.tf_num_layers)

        if self._config.freeze_perception:
            self.freeze_layers(self._bev_downscale)
            self.freeze_layers(self._keyval_embedding)
            self.freeze_layers(self._query_embedding)
            self.freeze_layers(self._status_encoding)
            self.freeze_layers(self._tf_decoder)

    def freeze_layers(self, layer):
        for param in layer.parameters():
            param.requires_grad = False

    def forward(self, bev_feature, status_feature):
        batch_size = status_feature.shape[0]
        bev_feature = self._bev_downscale(bev_feature).flatten(-2, -1)
        bev_feature = bev_feature.permute(0, 2, 1)
        status_encoding = self._status_encoding(status_feature)

        keyval = torch.concatenate([bev_feature, status_encoding[:, None]], dim=1)
        keyval += self._keyval_embedding.weight[None, ...]

        query = self._query_embedding.weight[None, ...].repeat(batch_size, 1, 1)
        query_out = self._tf_decoder(query, keyval)

        trajectory_query, agents_query = query_out.split(self._query_splits, dim=1)
        return trajectory_query, agents_query


def make_model():
    return GoalFlowPerception(GoalFlowConfig()).eval()


def example_inputs():
    return (torch.randn(2, 512, 8, 8), torch.randn(2, 8))


def other_inputs():
    return [(torch.randn(3, 512, 8, 8), torch.randn(3, 8)), (torch.randn(1, 512, 8, 8), torch.randn(1, 8))]


def probe_inputs():
    return other_inputs()
