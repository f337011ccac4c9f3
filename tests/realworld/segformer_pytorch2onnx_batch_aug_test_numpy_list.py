"""SegFormer (mmseg-based repo) tools/pytorch2onnx.py with a batch size > 1: the script splits the dummy batch
into `img_list = [img[None, :] for img in imgs]`, so `forward_test` sees more than one "augmentation" and calls
`aug_test`, which (unlike `simple_test`) has no `torch.onnx.is_in_onnx_export()` branch and returns
`list(seg_logit.argmax(dim=1).cpu().numpy())`; the export stops with "RuntimeError: Only tuples, lists and
Variables supported as JIT inputs/outputs ... But got unsupported type numpy.ndarray" (batch size 1 converts).
MiT backbone reduced to four strided convs; SegFormerHead kept (SyncBN fuse conv as Conv+BN+ReLU).

Source: https://github.com/NVlabs/SegFormer/issues/140
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "outputs"
FAMILY = "numpy_interop"
DYNAMIC = {}  # pytorch2onnx.py exports a fixed --shape (no dynamic_axes)
BLIND = "domains-18"


def resize(input, size=None, scale_factor=None, mode='nearest', align_corners=None, warning=True):
    if isinstance(size, torch.Size):
        size = tuple(int(x) for x in size)
    return F.interpolate(input, size, scale_factor, mode, align_corners)


class MLP(nn.Module):
    def __init__(self, input_dim=2048, embed_dim=768):
        super().__init__()
        self.proj = nn.Linear(input_dim, embed_dim)

    def forward(self, x):
        x = x.flatten(2).transpose(1, 2)
        x = self.proj(x)
        return x


class SegFormerHead(nn.Module):
    def __init__(self, in_channels=(8, 16, 24, 32), embedding_dim=16, num_classes=5):
        super().__init__()
        c1_in_channels, c2_in_channels, c3_in_channels, c4_in_channels = in_channels
        self.linear_c4 = MLP(input_dim=c4_in_channels, embed_dim=embedding_dim)
        self.linear_c3 = MLP(input_dim=c3_in_channels, embed_dim=embedding_dim)
        self.linear_c2 = MLP(input_dim=c2_in_channels, embed_dim=embedding_dim)
        self.linear_c1 = MLP(input_dim=c1_in_channels, embed_dim=embedding_dim)
        self.linear_fuse = nn.Sequential(nn.Conv2d(embedding_dim * 4, embedding_dim, 1, bias=False),
                                         nn.BatchNorm2d(embedding_dim), nn.ReLU())
        self.dropout = nn.Dropout2d(0.1)
        self.linear_pred = nn.Conv2d(embedding_dim, num_classes, kernel_size=1)

    def forward(self, x):
        c1, c2, c3, c4 = x
        n, _, h, w = c4.shape
        _c4 = self.linear_c4(c4).permute(0, 2, 1).reshape(n, -1, c4.shape[2], c4.shape[3])
        _c4 = resize(_c4, size=c1.size()[2:], mode='bilinear', align_corners=False)
        _c3 = self.linear_c3(c3).permute(0, 2, 1).reshape(n, -1, c3.shape[2], c3.shape[3])
        _c3 = resize(_c3, size=c1.size()[2:], mode='bilinear', align_corners=False)
        _c2 = self.linear_c2(c2).permute(0, 2, 1).reshape(n, -1, c2.shape[2], c2.shape[3])
        _c2 = resize(_c2, size=c1.size()[2:], mode='bilinear', align_corners=False)
        _c1 = self.linear_c1(c1).permute(0, 2, 1).reshape(n, -1, c1.shape[2], c1.shape[3])
        _c = self.linear_fuse(torch.cat([_c4, _c3, _c2, _c1], dim=1))
        x = self.dropout(_c)
        x = self.linear_pred(x)
        return x


class EncoderDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        chans = (3, 8, 16, 24, 32)
        self.backbone = nn.ModuleList(
            nn.Conv2d(chans[i], chans[i + 1], 7 if i == 0 else 3, stride=4 if i == 0 else 2,
                      padding=3 if i == 0 else 1) for i in range(4))
        self.decode_head = SegFormerHead()
        self.align_corners = False

    def encode_decode(self, img, img_metas):
        x, outs = img, []
        for stage in self.backbone:
            x = F.gelu(stage(x))
            outs.append(x)
        out = self.decode_head(outs)
        out = resize(input=out, size=img.shape[2:], mode='bilinear', align_corners=self.align_corners)
        return out

    def inference(self, img, img_meta, rescale):
        seg_logit = self.encode_decode(img, img_meta)
        if rescale:
            seg_logit = resize(seg_logit, size=img_meta[0]['ori_shape'][:2], mode='bilinear',
                               align_corners=self.align_corners, warning=False)
        output = F.softmax(seg_logit, dim=1)
        flip = img_meta[0]['flip']
        if flip:
            output = output.flip(dims=(3, ))
        return output

    def simple_test(self, img, img_meta, rescale=True):
        seg_logit = self.inference(img, img_meta, rescale)
        seg_pred = seg_logit.argmax(dim=1)
        if torch.onnx.is_in_onnx_export():
            # our inference backend only support 4D output
            seg_pred = seg_pred.unsqueeze(0)
            return seg_pred
        seg_pred = seg_pred.cpu().numpy()
        # unravel batch dim
        seg_pred = list(seg_pred)
        return seg_pred

    def aug_test(self, imgs, img_metas, rescale=True):
        assert rescale
        # to save memory, we get augmented seg logit inplace
        seg_logit = self.inference(imgs[0], img_metas[0], rescale)
        for i in range(1, len(imgs)):
            cur_seg_logit = self.inference(imgs[i], img_metas[i], rescale)
            seg_logit += cur_seg_logit
        seg_logit /= len(imgs)
        seg_pred = seg_logit.argmax(dim=1)
        seg_pred = seg_pred.cpu().numpy()
        # unravel batch dim
        seg_pred = list(seg_pred)
        return seg_pred

    def forward_test(self, imgs, img_metas, **kwargs):
        num_augs = len(imgs)
        if num_augs == 1:
            return self.simple_test(imgs[0], img_metas[0], **kwargs)
        else:
            return self.aug_test(imgs, img_metas, **kwargs)

    def forward(self, img, img_metas, return_loss=True, **kwargs):
        return self.forward_test(img, img_metas, **kwargs)


class PyTorch2ONNX(nn.Module):
    """What tools/pytorch2onnx.py exports: forward = partial(model.forward, img_metas=..., return_loss=False)
    called on `img_list = [img[None, :] for img in imgs]` for a --shape of N x 3 x H x W."""

    def __init__(self, model, input_shape=(2, 3, 64, 64)):
        super().__init__()
        self.model = model
        (N, C, H, W) = input_shape
        img_metas = [{'img_shape': (H, W, C), 'ori_shape': (H, W, C), 'pad_shape': (H, W, C),
                      'filename': '<demo>.png', 'scale_factor': 1.0, 'flip': False} for _ in range(N)]
        self.img_meta_list = [[img_meta] for img_meta in img_metas]

    def forward(self, imgs):
        img_list = [img[None, :] for img in imgs]
        return self.model(img_list, img_metas=self.img_meta_list, return_loss=False)


def make_model():
    return PyTorch2ONNX(EncoderDecoder()).eval()


def example_inputs():
    return (torch.rand(2, 3, 64, 64),)


def other_inputs():
    return [(torch.rand(2, 3, 64, 64),), (torch.randn(2, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
