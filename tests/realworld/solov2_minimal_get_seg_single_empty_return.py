"""SOLOv2_minimal instance segmentation: the ONNX export runs the post-processing `get_seg_single`, which
leaves early with `if cate_scores.shape[0] == 0: return` and `if keep.sum() == 0: return None` (no category
above score_thr / no mask larger than its stride). The maintainer: when exporting, "you should guarantee that
the model do detect some masks from the input image. Or it will encounter an error in post-process", and the
exported model errors on images without detections (README: "please use try-except to skip it").
(Backbone/FPN reduced to two strided convs; `get_seg` result for the single image is returned.)

Source: https://github.com/feiyuhuahuo/SOLOv2_minimal/issues/2
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {}  # the report exports a fixed 512x512 input (dynamic_axes commented out)
BLIND = "domains-18"


def points_nms(heat, kernel=2):
    # kernel must be 2
    hmax = nn.functional.max_pool2d(heat, (kernel, kernel), stride=1, padding=1)
    keep = (hmax[:, :, :-1, :-1] == heat).float()
    return heat * keep


def matrix_nms(seg_masks, cate_labels, cate_scores, sigma: float = 2.0, sum_masks=None):
    n_samples = cate_labels.shape[0]
    if sum_masks is None:
        sum_masks = seg_masks.sum((1, 2)).float()
    seg_masks = seg_masks.reshape(n_samples, -1).float()
    inter_matrix = torch.mm(seg_masks, seg_masks.transpose(1, 0))
    sum_masks_x = sum_masks.expand(n_samples, n_samples)
    iou_matrix = (inter_matrix / (sum_masks_x + sum_masks_x.transpose(1, 0) - inter_matrix)).triu(diagonal=1)
    cate_labels_x = cate_labels.expand(n_samples, n_samples)
    label_matrix = (cate_labels_x == cate_labels_x.transpose(1, 0)).float().triu(diagonal=1)
    compensate_iou, _ = (iou_matrix * label_matrix).max(0)
    compensate_iou = compensate_iou.expand(n_samples, n_samples).transpose(1, 0)
    decay_iou = iou_matrix * label_matrix
    decay_matrix = torch.exp(-1 * sigma * (decay_iou ** 2))
    compensate_matrix = torch.exp(-1 * sigma * (compensate_iou ** 2))
    decay_coefficient, _ = (decay_matrix / compensate_matrix).min(0)
    return cate_scores * decay_coefficient


class SOLOv2Head(nn.Module):
    def __init__(self, num_classes=3, in_channels=16, strides=(8, 16), num_grids=(8, 6), ins_out_channels=8):
        super().__init__()
        self.num_grids = num_grids
        self.cate_out_ch = num_classes
        self.strides = strides
        self.kernel_out_ch = ins_out_channels * 1 * 1
        self.solo_cate = nn.Conv2d(in_channels, self.cate_out_ch, 3, padding=1)
        self.solo_kernel = nn.Conv2d(in_channels + 2, self.kernel_out_ch, 3, padding=1)
        nn.init.constant_(self.solo_cate.bias, 1.0)  # a trained model: some grid cells are confident

    def forward(self, feats):
        cate_pred_all, kernel_pred_all = [], []
        for i in range(len(feats)):
            kernel_feat = feats[i]
            x_range = torch.linspace(-1, 1, kernel_feat.shape[-1], device=kernel_feat.device)
            y_range = torch.linspace(-1, 1, kernel_feat.shape[-2], device=kernel_feat.device)
            y, x = torch.meshgrid(y_range, x_range, indexing="ij")
            y = y.expand([kernel_feat.shape[0], 1, -1, -1])
            x = x.expand([kernel_feat.shape[0], 1, -1, -1])
            kernel_feat = torch.cat([kernel_feat, torch.cat([x, y], 1)], 1)
            kernel_feat = F.interpolate(kernel_feat, size=self.num_grids[i], mode='bilinear').contiguous()
            cate_feat = kernel_feat[:, :-2, :, :].contiguous()
            kernel_pred = self.solo_kernel(kernel_feat)
            cate_pred = self.solo_cate(cate_feat)
            cate_pred = points_nms(cate_pred.sigmoid(), kernel=2).permute(0, 2, 3, 1)
            cate_pred_all.append(cate_pred)
            kernel_pred_all.append(kernel_pred)
        return cate_pred_all, kernel_pred_all

    def get_seg(self, cate_preds, kernel_preds, seg_pred, ori_shape=None, resize_shape=None, cfg=None,
                post_mode='detect'):
        batch_size = seg_pred.shape[0]
        num_levels = len(cate_preds)
        featmap_size = seg_pred.size()[-2:]
        result_batch_list = []
        for j in range(batch_size):
            cate_pred_list = [cate_preds[i][j].view(-1, self.cate_out_ch).detach() for i in range(num_levels)]
            seg_pred_list = seg_pred[j, ...].unsqueeze(0)
            kernel_pred_list = [kernel_preds[i][j].permute(1, 2, 0).view(-1, self.kernel_out_ch).detach()
                                for i in range(num_levels)]
            cate_pred_list = torch.cat(cate_pred_list, dim=0)
            kernel_pred_list = torch.cat(kernel_pred_list, dim=0)
            result = self.get_seg_single(cate_pred_list, seg_pred_list, kernel_pred_list,
                                         featmap_size, resize_shape, ori_shape, cfg, post_mode)
            result_batch_list.append(result)
        return result_batch_list

    def get_seg_single(self, cate_preds, seg_preds, kernel_preds, featmap_size, resize_shape, ori_shape, cfg,
                       post_mode):
        inds = (cate_preds > cfg['score_thr'])
        cate_scores = cate_preds[inds]
        if cate_scores.shape[0] == 0:
            return

        inds = inds.nonzero()
        cate_labels = inds[:, 1]
        kernel_preds = kernel_preds[inds[:, 0]]

        size_trans = cate_labels.new_tensor(self.num_grids).pow(2).cumsum(0)
        strides = kernel_preds.new_ones(size_trans[-1])
        n_stage = len(self.num_grids)
        strides[:size_trans[0]] *= self.strides[0]
        for ind_ in range(1, n_stage):
            strides[size_trans[ind_ - 1]:size_trans[ind_]] *= self.strides[ind_]
        strides = strides[inds[:, 0]]

        I, N = kernel_preds.shape
        kernel_preds = kernel_preds.view(I, N, 1, 1)
        seg_preds = F.conv2d(seg_preds, kernel_preds, stride=1).squeeze(0).sigmoid()
        seg_masks = seg_preds > cfg['mask_thr']
        sum_masks = seg_masks.sum((1, 2)).float()

        keep = sum_masks > strides
        if keep.sum() == 0:
            return None
        seg_masks = seg_masks[keep, ...]
        seg_preds = seg_preds[keep, ...]
        sum_masks = sum_masks[keep]
        cate_scores = cate_scores[keep]
        cate_labels = cate_labels[keep]

        seg_scores = (seg_preds * seg_masks.float()).sum((1, 2)) / sum_masks
        cate_scores *= seg_scores
        sort_inds = torch.argsort(cate_scores, descending=True)
        if sort_inds.shape[0] > cfg['nms_pre']:
            sort_inds = sort_inds[:cfg['nms_pre']]
        seg_masks = seg_masks[sort_inds, :, :]
        seg_preds = seg_preds[sort_inds, :, :]
        sum_masks = sum_masks[sort_inds]
        cate_scores = cate_scores[sort_inds]
        cate_labels = cate_labels[sort_inds]

        cate_scores = matrix_nms(seg_masks, cate_labels, cate_scores, sum_masks=sum_masks)
        keep = cate_scores >= cfg['update_thr']
        if keep.sum() == 0:
            return None
        seg_preds = seg_preds[keep, :, :]
        cate_scores = cate_scores[keep]
        cate_labels = cate_labels[keep]
        sort_inds = torch.argsort(cate_scores, descending=True)

        h, w = resize_shape
        upsampled_size_out = (featmap_size[0] * 4, featmap_size[1] * 4)
        seg_masks = F.interpolate(seg_preds.unsqueeze(0), size=upsampled_size_out, mode='bilinear')[:, :, :h, :w]
        seg_masks = seg_masks.squeeze(0)
        seg_masks = (seg_masks > cfg['mask_thr']).to(torch.uint8)
        if post_mode in ('detect', 'onnx'):
            mask_density = seg_masks.sum(dim=(1, 2))
            orders = torch.argsort(mask_density, descending=True)
            seg_masks = seg_masks[orders]
            cate_labels = cate_labels[orders]
            cate_scores = cate_scores[orders]
        return seg_masks, cate_labels, cate_scores


class SOLOv2(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, stride=4, padding=1)
        self.down1 = nn.Conv2d(16, 16, 3, stride=2, padding=1)
        self.down2 = nn.Conv2d(16, 16, 3, stride=2, padding=1)
        self.mask_feat_head = nn.Conv2d(16, 8, 1)
        self.bbox_head = SOLOv2Head()
        self.postprocess_cfg = {'nms_pre': 500, 'score_thr': 0.1, 'mask_thr': 0.5, 'update_thr': 0.3}
        self.onnx_shape = (64, 64)

    def forward(self, img):
        p2 = torch.relu(self.stem(img))
        p3 = torch.relu(self.down1(p2))
        x = [p3, torch.relu(self.down2(p3))]
        mask_feat_pred = self.mask_feat_head(p2)
        cate_preds, kernel_preds = self.bbox_head(x)
        resize_shape = self.onnx_shape
        seg_result = self.bbox_head.get_seg(cate_preds, kernel_preds, mask_feat_pred, None,
                                            resize_shape, self.postprocess_cfg, 'onnx')
        return seg_result[0]


def make_model():
    return SOLOv2().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 64, 64) * 2.0,), (torch.rand(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
