"""mmaction2 (0.x) Recognizer2D test path: `forward(imgs, return_loss=False)` -> `forward_test`, which returns
`self._do_test(imgs).cpu().numpy()` after `_do_test` folds the segments into the batch, runs TSNHead with
`num_segs = imgs.shape[1]` and `average_clip(cls_score, cls_score.size()[0] // batches)`; mmdeploy's
"Support mmaction" PR rewrites `forward`/`forward_test` to return `self._do_test(imgs)` (a tensor) so the
recognizer can be exported.

Source: https://github.com/open-mmlab/mmdeploy/pull/1183
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"imgs": {0: "batch", 1: "num_segs"}}
BLIND = "domains-44"


class AvgConsensus(nn.Module):

    def __init__(self, dim=1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        """Defines the computation performed at every call."""
        return x.mean(dim=self.dim, keepdim=True)


class TSNHead(nn.Module):

    def __init__(self, num_classes, in_channels, dropout_ratio=0.4):
        super().__init__()
        self.consensus = AvgConsensus(dim=1)
        self.avg_pool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout_ratio)
        self.fc_cls = nn.Linear(in_channels, num_classes)

    def forward(self, x, num_segs):
        # [N * num_segs, in_channels, 7, 7]
        x = self.avg_pool(x)
        # [N * num_segs, in_channels, 1, 1]
        x = x.reshape((-1, num_segs) + x.shape[1:])
        # [N, num_segs, in_channels, 1, 1]
        x = self.consensus(x)
        # [N, 1, in_channels, 1, 1]
        x = x.squeeze(1)
        # [N, in_channels, 1, 1]
        x = self.dropout(x)
        x = x.view(x.size(0), -1)
        # [N, in_channels]
        cls_score = self.fc_cls(x)
        # [N, num_classes]
        return cls_score


class Recognizer2D(nn.Module):

    def __init__(self, num_classes=10):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
                                      nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU())
        self.cls_head = TSNHead(num_classes, 32)
        self.test_cfg = dict(average_clips='prob')

    def extract_feat(self, imgs):
        return self.backbone(imgs)

    def average_clip(self, cls_score, num_segs=1):
        if 'average_clips' not in self.test_cfg.keys():
            raise KeyError('"average_clips" must defined in test_cfg\'s keys')

        average_clips = self.test_cfg['average_clips']
        if average_clips not in ['score', 'prob', None]:
            raise ValueError(f'{average_clips} is not supported. '
                             f'Currently supported ones are '
                             f'["score", "prob", None]')

        if average_clips is None:
            return cls_score

        batch_size = cls_score.shape[0]
        cls_score = cls_score.view(batch_size // num_segs, num_segs, -1)

        if average_clips == 'prob':
            cls_score = F.softmax(cls_score, dim=2).mean(dim=1)
        elif average_clips == 'score':
            cls_score = cls_score.mean(dim=1)

        return cls_score

    def _do_test(self, imgs):
        """Defines the computation performed at every call when evaluation,
        testing and gradcam."""
        batches = imgs.shape[0]
        num_segs = imgs.shape[1]
        imgs = imgs.reshape((-1, ) + imgs.shape[2:])

        x = self.extract_feat(imgs)
        cls_score = self.cls_head(x, num_segs)

        assert cls_score.size()[0] % batches == 0
        # calculate num_crops automatically
        cls_score = self.average_clip(cls_score,
                                      cls_score.size()[0] // batches)
        return cls_score

    def forward_test(self, imgs):
        """Defines the computation performed at every call when evaluation and
        testing."""
        if self.test_cfg.get('fcn_test', False):
            raise NotImplementedError
        return self._do_test(imgs).cpu().numpy()

    def forward(self, imgs, label=None, return_loss=True, **kwargs):
        """Define the computation performed at every call."""
        if return_loss:
            if label is None:
                raise ValueError('Label should not be None.')
            raise NotImplementedError
        return self.forward_test(imgs, **kwargs)


class ExportRecognizer(nn.Module):
    """What the deploy tool traces: the recognizer in test mode."""

    def __init__(self):
        super().__init__()
        self.model = Recognizer2D()

    def forward(self, imgs):
        return self.model(imgs, return_loss=False)


def make_model():
    return ExportRecognizer().eval()


def example_inputs():
    return (torch.randn(2, 4, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(1, 8, 3, 32, 32),), (torch.randn(3, 3, 3, 32, 32),)]


def probe_inputs():
    return other_inputs()
