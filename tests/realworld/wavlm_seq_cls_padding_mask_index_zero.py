"""Speech-foundation-model sequence classifier (WavLM/Wav2Vec2 ...ForSequenceClassification): the frame-level
padding mask is rebuilt from the sample-level attention_mask (`_get_feature_vector_attention_mask`) and padded
frames are zeroed with a boolean index write `hidden_states[~padding_mask] = 0.0` before mean pooling. The PR
reports that the ONNX export of wavlm-base-plus and of the ForSequenceClassification heads fails on this masked
write with a broadcasting error.

Source: https://github.com/huggingface/transformers/pull/34224
"""
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"input_values": {0: "batch", 1: "samples"}, "attention_mask": {0: "batch", 1: "samples"}}
BLIND = "domains-9"


class FeatureEncoder(nn.Module):
    def __init__(self, conv_dim=(32, 32, 32), conv_kernel=(10, 3, 3), conv_stride=(5, 2, 2)):
        super().__init__()
        layers = []
        in_ch = 1
        for d, k, s in zip(conv_dim, conv_kernel, conv_stride):
            layers.append(nn.Sequential(nn.Conv1d(in_ch, d, k, s, bias=False), nn.GELU()))
            in_ch = d
        self.conv_layers = nn.ModuleList(layers)

    def forward(self, input_values):
        hidden_states = input_values[:, None]
        for conv_layer in self.conv_layers:
            hidden_states = conv_layer(hidden_states)
        return hidden_states


class WavLMForSequenceClassification(nn.Module):
    def __init__(self, hidden_size=32, proj_size=16, num_labels=4):
        super().__init__()
        self.conv_kernel = (10, 3, 3)
        self.conv_stride = (5, 2, 2)
        self.feature_extractor = FeatureEncoder(conv_kernel=self.conv_kernel, conv_stride=self.conv_stride)
        self.feature_projection = nn.Linear(32, hidden_size)
        self.projector = nn.Linear(hidden_size, proj_size)
        self.classifier = nn.Linear(proj_size, num_labels)

    def _get_feat_extract_output_lengths(self, input_lengths):
        def _conv_out_length(input_length, kernel_size, stride):
            return torch.div(input_length - kernel_size, stride, rounding_mode="floor") + 1

        for kernel_size, stride in zip(self.conv_kernel, self.conv_stride):
            input_lengths = _conv_out_length(input_lengths, kernel_size, stride)
        return input_lengths

    def _get_feature_vector_attention_mask(self, feature_vector_length: int, attention_mask: torch.LongTensor):
        # Effectively attention_mask.sum(-1), but not inplace to be able to run
        # on inference mode.
        non_padded_lengths = attention_mask.cumsum(dim=-1)[:, -1]

        output_lengths = self._get_feat_extract_output_lengths(non_padded_lengths)
        output_lengths = output_lengths.to(torch.long)

        batch_size = attention_mask.shape[0]

        attention_mask = torch.zeros(
            (batch_size, feature_vector_length), dtype=attention_mask.dtype, device=attention_mask.device
        )
        # these two operations makes sure that all values before the output lengths idxs are attended to
        attention_mask[(torch.arange(attention_mask.shape[0], device=attention_mask.device), output_lengths - 1)] = 1
        attention_mask = attention_mask.flip([-1]).cumsum(-1).flip([-1]).bool()
        return attention_mask

    def forward(self, input_values, attention_mask=None):
        extract_features = self.feature_extractor(input_values)
        extract_features = extract_features.transpose(1, 2)
        hidden_states = self.feature_projection(extract_features)

        hidden_states = self.projector(hidden_states)
        if attention_mask is None:
            pooled_output = hidden_states.mean(dim=1)
        else:
            padding_mask = self._get_feature_vector_attention_mask(hidden_states.shape[1], attention_mask)
            hidden_states[~padding_mask] = 0.0
            pooled_output = hidden_states.sum(dim=1) / padding_mask.sum(dim=1).view(-1, 1)

        logits = self.classifier(pooled_output)
        return logits


def make_model():
    return WavLMForSequenceClassification().eval()


def _inputs(lengths, n):
    x = torch.randn(len(lengths), n)
    mask = (torch.arange(n)[None, :] < torch.tensor(lengths)[:, None]).long()
    return (x * mask, mask)


def example_inputs():
    return _inputs([1600, 1100], 1600)


def other_inputs():
    return [_inputs([2400, 900, 2000], 2400), _inputs([700], 700)]


def probe_inputs():
    return other_inputs()
