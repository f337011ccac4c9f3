"""ABINet (scene text recognition) alignment head: `_get_length` greedily decodes the predicted length with
`out = (logit.argmax(dim=-1) == null_label)`, `out.cumsum(dim)` and `(... & out).max(dim)[1]` on bool tensors;
the ONNX export that returns softmax logits and pt_lengths does not work until `_get_length` is rewritten to
cast the mask to int first (the exported graph has CumSum / ArgMax on tensor(bool), which onnxruntime rejects).

Source: https://github.com/FangShancheng/ABINet/pull/80
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"l_feature": {0: "batch"}, "v_feature": {0: "batch"}}
BLIND = "domains-22"


class Model(nn.Module):

    def __init__(self, max_length=26, null_label=0):
        super().__init__()
        self.max_length = max_length
        self.null_label = null_label

    def _get_length(self, logit, dim=-1):
        """ Greed decoder to obtain length from logit"""
        out = (logit.argmax(dim=-1) == self.null_label)
        abn = out.any(dim)
        out = ((out.cumsum(dim) == 1) & out).max(dim)[1]
        out = out + 1  # additional end token
        out = torch.where(abn, out, out.new_tensor(logit.shape[1]))
        return out


class BaseAlignment(Model):
    def __init__(self, d_model=64, num_classes=37):
        super().__init__()
        self.w_att = nn.Linear(2 * d_model, d_model)
        self.cls = nn.Linear(d_model, num_classes)

    def forward(self, l_feature, v_feature):
        f = torch.cat((l_feature, v_feature), dim=2)
        f_att = torch.sigmoid(self.w_att(f))
        output = f_att * v_feature + (1 - f_att) * l_feature

        logits = self.cls(output)  # (N, T, C)
        pt_lengths = self._get_length(logits)

        return {'logits': logits, 'pt_lengths': pt_lengths, 'loss_weight': 1.0,
                'name': 'alignment'}


class ExportAlignment(nn.Module):
    """The export path: softmax logits and predicted lengths as plain tensors."""

    def __init__(self):
        super().__init__()
        self.alignment = BaseAlignment()

    def forward(self, l_feature, v_feature):
        a_res = self.alignment(l_feature, v_feature)
        return F.softmax(a_res['logits'], dim=2), a_res['pt_lengths']


def make_model():
    return ExportAlignment().eval()


def example_inputs():
    return (torch.randn(2, 26, 64), torch.randn(2, 26, 64))


def other_inputs():
    return [(torch.randn(3, 26, 64), torch.randn(3, 26, 64)),
            (torch.randn(1, 26, 64), torch.randn(1, 26, 64))]


def probe_inputs():
    return other_inputs()
