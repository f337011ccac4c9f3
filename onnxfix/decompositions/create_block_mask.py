import torch


def _onnx_create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=None, BLOCK_SIZE=128, _compile=False,
                            separate_full_blocks=True, compute_dq_write_order=False, dq_kv_order=True):
    # create_block_mask evaluates the mask, then sorts and counts its blocks (a stable sort and
    # data-dependent counts, which no exporter takes). While exporting, the mask_mod stands for
    # the block mask: _onnx_flex_attention evaluates it at every index. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.nn.attention.flex_attention.create_block_mask(
            mask_mod, B, H, Q_LEN, KV_LEN, device, BLOCK_SIZE, _compile, separate_full_blocks,
            compute_dq_write_order, dq_kv_order)
    return mask_mod
