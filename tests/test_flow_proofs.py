"""The three proofs for the control-flow, view and indexing fix rules, on small models.

For each model in tests/flow_models: `--write` (with `--unsafe-fixes` where the rule's fix is
unsafe) changes the file and leaves no finding of the rule; eager outputs stay bit-identical on
the example and probe inputs; the ORIGINAL fails the way the rule's documentation says, as measured
on the installed torch (recorded per model source and exporter versions, a few re-measured on
every run: tests/recorded_originals.py); and the REWRITTEN model exports under both exporters and
matches eager in onnxruntime on other values and other sizes: exported on this run wherever its
rewritten text or the installed versions differ from the record of the last export, and always for
a few canaries (tests/recorded_exports.py). Exports run in two child processes (one per exporter)
per part of the models.

UNFIXED holds the models that are exported as written: a report-only finding (`--write` must leave
the file as it is, and the original must fail the way the finding says), and the patterns
docs/rules-flow.md says no rule reports because they export correctly (no finding at all, and OK
in both exporters on other values and other sizes).
"""

from __future__ import annotations

import json
import tempfile
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

from example_proofs import eager_outputs, identical, rewrite_copy
from onnxfix.config import Settings
from onnxfix.patterns import all_rules
from onnxfix.rewriter.engine import RuleSet, check_text
from onnxfix.rewriter.source import SourceFile
from recorded_exports import FLOW_FIXED_RECORD, UPDATE, fresh, holds, merge, text_digest
from recorded_originals import FLOW_RECORD, digest, recorded
from warm_workers import run_script

MODELS = Path(__file__).parent / "flow_models"
FAILS, WRONG, ORT, OK = "EXPORT-FAILS", "SILENTLY-WRONG", "ORT-FAILS", "OK"

# model -> (rule, needs --unsafe-fixes, verdicts of the ORIGINAL: dynamo, legacy)
CASES = {
    "if_return": ("ONX601", True, (FAILS, WRONG)),
    "if_item_assign": ("ONX601", True, (FAILS, WRONG)),
    "bool_exit": ("ONX601", True, (FAILS, FAILS)),  # kornia's validate_bbox: `return False` / `return True` on tensor tests
    "value_fast_path": ("ONX601", False, (FAILS, WRONG)),  # SB3: a fast path returned early, both kept under export
    "flag_after_test": ("ONX601", False, (FAILS, WRONG)),  # XMem: `if h_out[0]==1 and self.flag:`, a dead branch name
    "accumulate": ("ONX603", True, (FAILS, WRONG)),
    "size_select": ("ONX614", False, (WRONG, WRONG)),
    "trailing_mask_fill": ("ONX705", False, (FAILS, FAILS)),  # sleap-nn: `x[..., ~mask] = float("-inf")`
    "best_rows_cut": ("ONX615", False, (ORT, ORT)),  # mmdetection's RPN: `if scores.shape[0] > nms_pre:` around topk / sort  # Metric3D / CAIN: pads to a multiple picked by `if`s on sizes
    "best_class_cut": ("ONX615", False, (WRONG, WRONG)),  # FCOS: `max_scores, _ = (scores * centerness[:, None]).max(dim=1)` ranked
    "repeat_rows": ("ONX603", True, (FAILS, WRONG)),
    "peak_remainder": ("ONX515", False, (FAILS, OK)),  # SLEAP's `indices % width`: dynamo's remainder by a symbolic size
    "best_mask_pick": ("ONX603", True, (FAILS, ORT)),  # SAM (pytorch#122180): each image's best mask, stacked
    "configured_repeat": ("ONX603", False, (FAILS, ORT)),  # ML-Agents: `cat([x] * n)`, n configured or a size
    "inverse_permutation": ("ONX603", False, (FAILS, WRONG)),  # `a[idx[i]] = i`, idx sorts a 1-D tensor
    "moe_experts": ("ONX603", True, (FAILS, ORT)),  # Mixtral's `for expert_idx in expert_hit:` -> every expert
    "moe_expert_rows": ("ONX603", True, (FAILS, ORT)),  # Qwen3-MoE: the row indexes, `self.experts[expert_idx]`
    "moe_expert_params": ("ONX603", True, (FAILS, WRONG)),  # LFM2-MoE: `expert_idx = int(expert_idx.item())`, 3-D weights
    "views": ("ONX303", False, (OK, WRONG)),
    "constant_written": ("ONX305", False, (OK, WRONG)),  # kornia's normal_transform_pixel: a literal matrix scaled in place
    "views_flat": ("ONX303", False, (OK, WRONG)),
    "named_slice_write": ("ONX303", False, (OK, WRONG)),  # YOLOv7-pose: `x_kpt = x[i][..., 6:]` written by index
    "diagonal_fill": ("ONX303", False, (FAILS, WRONG)),  # torchtune: `mask.narrow(...).mul_(...)`, `mask.diagonal(...).copy_(True)`
    "deepcopy_model": ("ONX304", True, (FAILS, ORT)),
    "negative_index": ("ONX701", False, (OK, WRONG)),
    "last_token_pool": ("ONX701", False, (OK, WRONG)),  # transformers' seq-cls heads: argmax(-1) - 1 as an index
    "non_consecutive": ("ONX702", False, (OK, FAILS)),
    "padding_mask_fill": ("ONX705", False, (OK, ORT)),  # WavLM: `hidden_states[~padding_mask] = 0.0`, a (batch, frames) mask
    "label_mask_update": ("ONX705", True, (OK, ORT)),  # SAM: `point_embedding[labels == -1] = 0.0`, then `+=` per label
    "broadcast_write": ("ONX703", True, (OK, ORT)),
    "selected_index_write": ("ONX703", True, (OK, ORT)),  # detectron2 ROIPooler: `output[inds] = ...`, one row traced
    "slice_broadcast": ("ONX706", False, (OK, ORT)),
    "deepstack_mask_write": ("ONX708", False, (OK, ORT)),  # Qwen3-Omni: `hidden[mask, :] = hidden[mask, :] + visual`  # Uni-Mol: `bias[:, 1:, 0, :] = w.view(1, 1, d)`
    "self_sized_chunk": ("ONX529", False, (OK, FAILS)),
    "narrow_int_size": ("ONX207", False, (OK, ORT)),
    "percentile_ranks": ("ONX203", True, (FAILS, FAILS)),  # OpenVINO depth: kthvalue at `max(1, int(0.05 * n))`
    "scatter_size_list": ("ONX203", False, (OK, ORT)),  # PyG's scatter: `size[dim] = int(index.max()) + 1`, then new_zeros(size)
    "scatter_sum_size_list": ("ONX203", True, (OK, ORT)),  # torch_scatter: `size[dim] = int(index.max()) + 1` in place
    "global_pool_size": ("ONX201", False, (OK, ORT)),  # PyG: `int(batch.max().item() + 1)` passed on as scatter's dim_size
    "token_grid_shuffle": ("ONX203", False, (WRONG, WRONG)),  # InternVL: `h = w = int(n ** 0.5)`, a chained assignment
    "square_grid": ("ONX203", False, (FAILS, WRONG)),  # Swin/ViT: tokens folded into the grid of side int(math.sqrt(L))  # chemprop: `torch.zeros(batch.max().int() + 1, d)`, an int32 size
    "conv_transpose_sized": ("ONX533", False, (FAILS, ORT)),  # ENet: `self.up(y, output_size=x.size())`
    "matrix_transposes": ("ONX532", False, (OK, FAILS)),  # GPyTorch: `chol.mT`, `.mH`, `.adjoint()`
    "mixed_arange": ("ONX530", False, (ORT, OK)),  # mmcv: `torch.arange(0, feat_dim / 4)`, a half-pixel `arange(0.5, w)`  # `input.chunk(input.size(1), dim=1)`: unsafe_chunk, unknown size
    "raise_check": ("ONX601", False, (FAILS, OK)),  # `if <tensor>: raise` skipped while exporting
    "warn_check": ("ONX601", False, (FAILS, OK)),  # torchaudio's filter bank check: `if <tensor>: warnings.warn(...)`
    "assert_check": ("ONX601", False, (FAILS, OK)),  # Piper: `assert (discriminant >= 0).all()` skipped while exporting
    "masked_guard": ("ONX601", True, (FAILS, WRONG)),  # tensor_quant's `if min_amax <= eps:` around a masked write
    "masked_guard_log": ("ONX601", False, (FAILS, ORT)),  # CosyVoice: a log, then forcing fully masked rows
    "paste_mask_isinf": ("ONX601", True, (FAILS, WRONG)),  # detectron2's _do_paste_mask: inf coordinates zeroed through torch.where(mask)
    "masked_projection": ("ONX601", True, (FAILS, OK)),  # Diffusion Planner: valid rows projected, written back
    "negated_mask_fill": ("ONX601", True, (FAILS, OK)),  # ChatGLM: `if not (mask == 0).all():` before masked_fill_
    "size_parity_pad": ("ONX601", False, (ORT, ORT)),  # branch on a size's parity around a zero pad
    "nan_patch_pad": ("ONX608", False, (WRONG, FAILS)),  # Chronos-2: a NaN block concatenated to a multiple of the patch
    "empty_exit": ("ONX601", True, (FAILS, OK)),
    "loop_exit": ("ONX612", False, (FAILS, WRONG)),  # greedy decoding's `if (...).all(): break`, steps joined after
    "nms_empty_exit": ("ONX610", True, (FAILS, OK)),  # torchvision's batched NMS: `if boxes.numel() == 0: return` after a threshold  # empty-selection exit whose value the sum gives anyway
    "export_shape_numpy": ("ONX102", False, (OK, ORT)),  # TopFormer's get_shape: sizes through .numpy() while exporting
    "numpy_frexp": ("ONX101", False, (FAILS, ORT)),  # I-BERT's batch_frexp: np.frexp -> _onnx_frexp (legacy bakes the sizes in)
    "numpy_decimal_loop": ("ONX101", True, (FAILS, WRONG)),  # the same with transformers' `decimal` half-up loop and float64 exponent
    "item_assert": ("ONX201", False, (FAILS, OK)),  # XLM's `assert lengths.max().item() <= slen`, with a message (without one dynamo keeps a runtime assert)
    "fp16_clamp": ("ONX601", True, (OK, OK)),  # BART's fp16 clamp: float32 skips it on the dtype test
    "fp16_clamp_twice": ("ONX601", True, (OK, OK)),  # LongT5: two clamps sharing the helper name, h = outputs[0]
    "distribution_policy": ("ONX604", True, (FAILS, OK)),  # SB3's Normal(...) policy head: validate_args=False
    "eager_only_mask": ("ONX605", True, (FAILS, OK)),  # UDOP: the mask built only when not compiling
    "gathered_rows": ("ONX603", True, (FAILS, WRONG)),  # Reformer: per-row index_select -> one gather
    "tf_same_padding": ("ONX606", True, (WRONG, WRONG)),  # MobileNetV2's TF "SAME" pad: (h - 1) % s + 1
    "vit_position_table": ("ONX607", False, (ORT, OK)),
    "mismatch_resize": ("ONX607", False, (ORT, ORT)),  # fastai: `if ssh != up_out.shape[-2:]: up_out = F.interpolate(...)`
    "float_scale_quotient": ("ONX203", False, (ORT, ORT)),  # HF DINOv2: `float(height / math.sqrt(n))` as the scale
    "unpacked_pool_window": ("ONX408", False, (WRONG, FAILS)),
    "skipped_expert": ("ONX610", True, (FAILS, OK)),  # PhiMoE: `if top_x.shape[0] == 0: continue`
    "counted_experts": ("ONX610", True, (FAILS, OK)),  # DeepSeek-V3: `if counts[i] == 0: continue`, counts a bincount's list
    "split_sizes_tolist": ("ONX202", False, (OK, ORT)),
    "register_token_ids": ("ONX535", False, (OK, ORT)),
    "keypoint_scale_numbers": ("ONX205", False, (OK, WRONG)),  # LightGlue: torch.tensor([w * s - s / 2 - 0.5, ...])
    "guidance_interval_flag": ("ONX531", False, (OK, FAILS)),  # joliGEN: `(low == 0) | (t > low)`, low from the config  # Chronos-2: `torch.full((b, 1), config.reg_token_id)` embedded  # GraniteMoE: the tokens per expert split by `counts.tolist()`  # smp's SE block: `b, c, h, w = inputs.size()`, window `[h, w]`
    "pos_embed_resize": ("ONX607", True, (ORT, ORT)),  # mmcls: the table returned unguarded when the grid matches, else interpolated  # ViT: the table shortcut skipped under export too
    "window_pad_crop": ("ONX608", True, (ORT, ORT)),  # Swin: pad to the patch and window multiples, crop back
    "resize_multiple": ("ONX608", True, (ORT, ORT)),  # MobileViT: resized to the patch multiple when a size is not one
    "pad_amount_test": ("ONX608", False, (WRONG, WRONG)),  # `if pad_H > 0 or pad_W > 0:` around the pad (torch#136216)
    "adaptive_padding": ("ONX608", True, (WRONG, WRONG)),  # mmcv's AdaptivePadding: amounts from a method's max(..., 0), pad by config
    "same_pad_function": ("ONX608", True, (WRONG, WRONG)),  # timm's get_same_padding / mmcv's Conv2dAdaptivePadding: max(..., 0) from a function or bound once
    "bool_masks": ("ONX528", False, (ORT, ORT)),  # PARSeq's bool cumsum, masks added and selected: .long(), |, & |
    "grown_cache": ("ONX609", False, (ORT, ORT)),  # fairseq's sinusoidal table, rebuilt in forward when outgrown
    "memo_cache": ("ONX609", False, (ORT, OK)),  # DA3's position grids memoised per patch grid in a dict
    "memo_getter": ("ONX609", True, (FAILS, OK)),  # TransformerEngine: a causal mask memoised per length in a module dict
    "backwarp_grid": ("ONX609", False, (OK, ORT)),  # PWC-Net / RIFE: the sampling grid memoised per size in a module dict
    "stored_length_cache": ("ONX609", False, (FAILS, ORT)),  # ESM's rotary tables rebuilt when `seq_len != self._seq_len_cached`
    "grid_cache": ("ONX609", False, (ORT, ORT)),  # YOLOv7's per-level grids in a list, rebuilt when the size differs; a dry run fills them
    "square_pad": ("ONX403", False, (OK, WRONG)),
    "cache_start": ("ONX403", False, (OK, WRONG)),  # WeNet: max(attention_key_size - required_cache_size, 0)  # max(h, w) of sizes: legacy keeps the export-time winner
    "cache_hit_return": ("ONX609", False, (WRONG, WRONG)),  # ESPnet's extend_pe: kept when large enough, else rebuilt
    "linspace_positions": ("ONX407", True, (FAILS, OK)),
    "linspace_grid": ("ONX407", False, (FAILS, OK)),  # dsntnn's (MobilePose) normalised grid over the heatmap sizes  # Flux's position ids: linspace(0, n - 1, n) -> arange(n)
    "cached_window_mask": ("ONX609", False, (ORT, ORT)),  # SwinIR: the mask cached for one resolution
    "frame_padding": ("ONX402", True, (OK, WRONG)),  # EnCodec: math.ceil of a frame count bound to a name
    "ceil_length": ("ONX402", True, (WRONG, WRONG)),  # HTDemucs: int(math.ceil(length / hl)), int() pins the size under torch.export
    "level_anchors": ("ONX205", False, (OK, WRONG)),
    "scripted_level_shapes": ("ONX205", False, (OK, ORT)),  # Deformable-DETR: torch.tensor([[h, w], ...]) in a scripted helper  # RT-DETR: torch.tensor([w, h]) of a per-level size list
    "relative_positions": ("ONX101", False, (OK, ORT)),  # DeBERTa: np.arange/np.tile, then the same name converted
    "numpy_grids": ("ONX101", True, (FAILS, ORT)),  # np.linspace / np.meshgrid grids over the heatmap sizes
    "numpy_moves": ("ONX101", False, (OK, WRONG)),  # OpenPifPaf's np.indices field; np.roll / rot90 / flip / repeat of the input
    "tied_sort_keys": ("ONX537", True, (WRONG, WRONG)),  # MinerU: kept boxes first by an unstable argsort of an int8 mask
    "numpy_anchors": ("ONX101", True, (OK, WRONG)),  # EfficientDet/RetinaNet anchors: lists of arrays, np.append, astype
    "numpy_pad_multiple": ("ONX402", False, (WRONG, WRONG)),  # fbcnn: `int(np.ceil(h / 8) * 8 - h)`, a replication pad
    "default_max_len": ("ONX201", True, (OK, WRONG)),  # NeMo: `if not max_len: max_len = lengths.max().item()`
    "nonempty_experts": ("ONX610", True, (FAILS, OK)),  # GLM-4 MoE: `if token_indices.numel() > 0:` around an expert
    "dropped_mask": ("ONX601", True, (FAILS, WRONG)),  # Mamba-family `_update_mamba_mask`: `mask = None` when all ones
    "built_mask": ("ONX601", True, (FAILS, WRONG)),  # ChatGLM: the mask built only `if mask is not None and not mask.all()`
    "pad_to_named": ("ONX601", True, (WRONG, WRONG)),  # NeMo: `pad_amt = x.size(-1) % pad_to; if pad_amt != 0:`
    "unique_assert": ("ONX601", False, (FAILS, OK)),  # RT-IGEV: `assert torch.unique(ygrid).numel() == 1 and H == 1`
    "conjoined_write": ("ONX601", True, (FAILS, WRONG)),  # FastSpeech2Conformer: `if d.sum() == 0: d[rows] = 1`
    "packed_lengths": ("ONX202", False, (FAILS, ORT)),  # T2Vec: `lengths.view(-1).tolist()` into pack_padded_sequence
    "size_rows_tensor": ("ONX205", True, (FAILS, WRONG)),  # DETR: `torch.Tensor([i[0] for i in target_sizes])`
    "cached_table_return": ("ONX609", False, (FAILS, ORT)),  # Wav2Vec2-BERT: `if n == self.cached_len ...: return self.cached`
    "zero_pad_shortcut": ("ONX601", True, (WRONG, WRONG)),  # detectron2: `if all(x == 0 for x in padding_size):`
    "singleton_shortcut": ("ONX616", True, (WRONG, WRONG)),  # transformers: `if input_shape[-1] > 1:` causal mask
    "tolist_index": ("ONX202", True, (FAILS, ORT)),  # DBRX: `token_list = token_idx.tolist()`, then `x[None, token_list]`
    "rebuilt_db_threshold": ("ONX203", True, (OK, WRONG)),  # SpeechBrain: torch.tensor(float(x.max()) - top_db, dtype=...)
    "multiple_pad": ("ONX402", True, (WRONG, FAILS)),  # fairseq's pad_to_multiple: (tsz / multiple).is_integer(), then x[:, :-pad_length] (ONX608)
    "negative_bound": ("ONX410", False, (WRONG, WRONG)),  # fairseq: `mask[:, -pad_length:] = True`, `x[:, :-pad_length]` under `if pad_length > 0`
    "sqrt_length_scale": ("ONX402", False, (FAILS, WRONG)),  # sqrt-n pooling: `x.sum(1) / math.sqrt(x.shape[1])`
    "center_crop": ("ONX402", False, (WRONG, FAILS)),  # torchvision's center_crop: int(round((h - ch) / 2.0))
    "round_int_size": ("ONX402", False, (OK, FAILS)),  # ComfyUI: `round(latent size * self.downscale_ratio)`, an int
    "length_fill": ("ONX603", True, (FAILS, ORT)),  # a padding mask filled row by row up to each length
    "bool_length_mask": ("ONX603", True, (FAILS, ORT)),
    "valid_width_mask": ("ONX603", True, (FAILS, WRONG)),  # MMOCR: `min(w, math.ceil(w * valid_ratio))` per image
    "length_statistics": ("ONX603", False, (FAILS, ORT)),  # Jasper: x[i, :, :seq_len[i]].mean(dim=1) per utterance  # HunyuanVideo: a bool mask, `range(batch_size)` from the shape
    "swin_patch_embed": ("ONX601", False, (ORT, ORT)),  # Swin: `W % self.patch_size[1] != 0` pad; H, W through `H, W = Wh, Ww`
    "empty_blocks": ("ONX608", False, (ORT, ORT)),  # Z-Image: `cat([x, x[-1:].repeat(pad, 1)]) if pad > 0 else x`
    "concat_pad": ("ONX608", False, (ORT, ORT)),  # icefall: `if seq_len != d * ds:` pad by repeating the last frame
    "index_range": ("ONX603", True, (FAILS, ORT)),  # entity linking: `[[x] for x in range(batch_size)]` as an index
    "per_sample_blend": ("ONX603", True, (FAILS, ORT)),  # kornia: a per-row function stacked over the batch -> vmap
    "chunked_batch": ("ONX603", True, (FAILS, WRONG)),  # diffusers' sliced attention, a VAE decoded in chunks -> one chunk
    "odd_edge_pad": ("ONX614", False, (ORT, ORT)),  # MONAI's UpCat: `if x_e.shape[-i - 1] != x_0.shape[-i - 1]: sp[i * 2 + 1] = 1`
    "traced_size_check": ("ONX617", False, (OK, FAILS)),  # TabPFN: `torch._check(num_parallel_calls >= 1)` on sizes
    "split_loops": ("ONX603", True, (WRONG, ORT)),  # Wan-Animate: `for b in torch.split(x, n): out.append(f(b))`; TabPFN's sub-batches
    "sliced_decode": ("ONX603", True, (FAILS, ORT)),  # diffusers' sliced VAE: cat([decode(z) for z in z.split(1)]) -> one part
    "while_halve": ("ONX602", False, (FAILS, WRONG)),  # a `while` on a value -> torch's while_loop under torch.export
    "whole_pool": ("ONX408", False, (FAILS, FAILS)),
    "causal_flag": ("ONX409", False, (OK, FAILS)),  # GPT-2: is_causal = ... query.shape[2] > 1 (a Tensor under legacy)
    "legacy_constructor": ("ONX206", False, (OK, ORT)),
    "mask_column_write": ("ONX704", True, (OK, ORT)),  # `r[mask, 0] = R[mask]`: legacy reshapes the mask's indices  # pix2pixHD: torch.FloatTensor(torch.Size(shape)).zero_()  # BiSeNet / text CNN: F.avg_pool2d(x, x.size()[2:])
}
# What the dynamo exporter's error says for the originals that fail (re-measured here).
DYNAMO_ERRORS = {
    "if_return": "GuardOnDataDependentSymNode",
    "stored_length_cache": "conflicts between user-specified ranges and inferred ranges",
    "size_rows_tensor": "conflicts between user-specified ranges and inferred ranges",
    "if_item_assign": "GuardOnDataDependentSymNode",
    "accumulate": "inferred a static shape",
    "repeat_rows": "GuardOnDataDependentSymNode",
    "inverse_permutation": "GuardOnDataDependentSymNode",
    "moe_experts": "GuardOnDataDependentSymNode",  # iterating over the nonzero rows (unbind)
    "moe_expert_rows": "GuardOnDataDependentSymNode",
    "moe_expert_params": "GuardOnDataDependentSymNode",
    "deepcopy_model": "Cannot access data pointer of Tensor",
    "raise_check": "GuardOnDataDependentSymNode",
    "warn_check": "GuardOnDataDependentSymNode",
    "assert_check": "GuardOnDataDependentSymNode",
    "empty_exit": "GuardOnDataDependentSymNode",
    "loop_exit": "GuardOnDataDependentSymNode",
    "nms_empty_exit": "GuardOnDataDependentSymNode",
    "item_assert": "GuardOnDataDependentSymNode",
    "distribution_policy": "GuardOnDataDependentSymNode",
    "eager_only_mask": "'NoneType' object has no attribute 'size'",
    "gathered_rows": "conflicts between user-specified ranges and inferred ranges",
    "linspace_positions": "conflicts between user-specified ranges and inferred ranges",
    "linspace_grid": "conflicts between user-specified ranges and inferred ranges",
    "index_range": "conflicts between user-specified ranges and inferred ranges",
    "per_sample_blend": "conflicts between user-specified ranges and inferred ranges",
    "chunked_batch": "conflicts between user-specified ranges and inferred ranges",
    "sliced_decode": "conflicts between user-specified ranges and inferred ranges",
    "while_halve": "GuardOnDataDependentSymNode",
    "whole_pool": "conflicts between user-specified ranges and inferred ranges",
    "numpy_grids": "can't convert np.ndarray of type numpy.object_",
    "memo_getter": "unhashable type: non-nested SymInt",
    "masked_guard": "GuardOnDataDependentSymNode",
    "paste_mask_isinf": "GuardOnDataDependentSymNode",
    "nonempty_experts": "GuardOnDataDependentSymNode",
    "dropped_mask": "GuardOnDataDependentSymNode",
    "built_mask": "GuardOnDataDependentSymNode",
    "unique_assert": "GuardOnDataDependentSymNode",
    "conjoined_write": "GuardOnDataDependentSymNode",
    "masked_guard_log": "GuardOnDataDependentSymNode",
    "masked_projection": "GuardOnDataDependentSymNode",
    "negated_mask_fill": "GuardOnDataDependentSymNode",
}
# models whose rule fixes one exporter only: the other's verdict stays what the original's is
FIXED_FOR = {
    "odd_edge_pad": ("dynamo",),  # the legacy trace records the branch its test took, before and after
    "masked_guard_log": ("dynamo",),  # legacy: onnxruntime has no bool Where for the write, before and after
    "negative_bound": ("legacy",),  # ONX410 bounds the slice while tracing; torch.export keeps `-n` (docs/rules-values.md)
    "per_sample_blend": ("dynamo",),  # torch.vmap while torch.export traces; the legacy trace keeps the loop
    "while_halve": ("dynamo",),  # the legacy trace keeps unrolling the export-time iterations
    "packed_lengths": ("legacy",),  # torch.export fails on the packed data's size before and after
    "sqrt_length_scale": ("dynamo",),  # `_onnx_size_sqrt`: a float from a traced size is a legacy constant
}

LEGACY_ERRORS = {
    "traced_size_check": "cond must be a bool, but got a Tensor",
    "non_consecutive": "Only consecutive 1-d tensor indices are supported",
    "multiple_pad": "has no attribute 'is_integer'",
    "whole_pool": "Failed to export a node",
    "center_crop": "doesn't define __round__",
    "round_int_size": "doesn't define __round__",
}

# model -> (rule that reports it, or None, verdicts as written: dynamo, legacy); no rewrite
UNFIXED = {
    "zip_rows": ("ONX603", (FAILS, ORT)),  # `zip(*ind)`: no exact fix; legacy keeps the export-time rows
    "carried_state": ("ONX306", (WRONG, WRONG)),  # a FIFO buffer rewritten from itself: no run carries it
    "inplace_slice_mul": (None, (OK, OK)),  # `boxes[:, 2].mul_(2)` on an input
    "inplace_slice_add": (None, (OK, OK)),  # `x[:, 1:] += 1` on an input
    "requires_grad": (None, (OK, OK)),  # `x.requires_grad_()` in forward
    "assert_positive": (None, (OK, OK)),  # `assert (x > 0).all(), "..."` in forward
}
UNFIXED_DYNAMO_ERRORS = {
    "zip_rows": "inferred a static shape",
}


def codes(path: Path, exporters: tuple[str, ...] = ("dynamo", "legacy")) -> list[str]:
    source = SourceFile.read(path)
    settings = Settings(exporters=frozenset(exporters))
    return [f.code for f in check_text(source.text, source, path.name, settings, RuleSet(list(all_rules())))]


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("flow")
    return {name: rewrite_copy(MODELS / f"{name}.py", folder / name, unsafe) for name, (_, unsafe, _) in CASES.items()}


# The rewritten models' exports in parts, each batch run when a test first needs it, of the models
# whose record does not hold for their text (tests/recorded_exports.py) and the canaries (the
# originals' verdicts are recorded too: tests/recorded_originals.py). One batch of every export
# (originals too) took 63 s under a loaded suite; eleven parts of originals and rewrites each took up
# to 64 s on a loaded run. Without the originals, a part of 130 / 8 rewrites exports in about half that.
PARTS = 8  # each part exports its models in one batch: its first test pays for them (keep it under 60 s)
PART = {name: index % PARTS for index, name in enumerate(sorted(CASES))}
# exported on every run, whatever the record holds, and compared with it: one fix of each kind of
# rule (a branch, a cut of ranked rows, a size made symbolic, a view, packed sequences through an
# LSTM) under both exporters
FIXED_CANARIES = ("best_rows_cut", "if_return", "linspace_grid", "packed_lengths", "views")


def fixed_summary(verdict: dict) -> dict:
    """What the record keeps of a rewritten model's verdict (a live one adds its error's start)."""
    probes = [{"probe": p["probe"], "ok": p["ok"], "skipped": p["note"].startswith("skipped")} for p in verdict["probes"]]
    return {"verdict": verdict["verdict"], "probes": probes}


def fixed_digest(path: Path) -> str:
    return text_digest(path.read_text(encoding="utf-8"))


class PartVerdicts:
    """The rewritten models' verdicts, ``(model, 'rewritten', exporter) -> fixed_summary``: from the
    record where it holds for the rewritten text, else a part of them exported on first use."""

    def __init__(self, rewritten: dict[str, Path]):
        self.rewritten, self.batches = rewritten, {}

    def recorded(self, name: str) -> dict | None:
        return None if name in FIXED_CANARIES else fresh(FLOW_FIXED_RECORD, name, fixed_digest(self.rewritten[name]))

    def __getitem__(self, key: tuple[str, str, str]) -> dict:
        name, version, exporter = key
        assert version == "rewritten", key
        entry = self.recorded(name)
        if entry is not None:
            return entry["exporters"][exporter]
        part = PART[name]
        if part not in self.batches:
            names = [n for n in sorted(CASES) if PART[n] == part and self.recorded(n) is None]
            stale = [n for n in names if n not in FIXED_CANARIES]
            if stale:
                warnings.warn(f"{FLOW_FIXED_RECORD.name} does not hold for {', '.join(stale)}: exported on this run; "
                              f"`{UPDATE} fixed` records them")
            self.batches[part] = export_all({str(self.rewritten[n]): (n, "rewritten") for n in names})
        verdict = self.batches[part][key]
        return {**fixed_summary(verdict), "error": verdict["error"][:500]}


@pytest.fixture(scope="module")
def part_verdicts(rewritten) -> PartVerdicts:
    return PartVerdicts(rewritten)


def measure_fixed(names: list[str]) -> dict[str, dict]:
    """model -> its entry in the fixed models' record: rewritten now, exported now in the suite's own
    parts (a model's export may depend on what its process exported before)."""
    folder = Path(tempfile.mkdtemp(prefix="onnxfix-fixed-"))
    paths = {n: rewrite_copy(MODELS / f"{n}.py", folder / n, CASES[n][1]) for n in names}
    found = {}
    for part in sorted({PART[n] for n in names}):
        found.update(export_all({str(paths[n]): (n, "rewritten") for n in names if PART[n] == part}))
    return {n: {"sha256": fixed_digest(paths[n]),
                "exporters": {e: fixed_summary(found[(n, "rewritten", e)]) for e in ("dynamo", "legacy")}}
            for n in names}


def update_fixed_record(names: list[str]) -> None:
    """Measure ``names`` into the record; every model where the record does not hold for this install
    and instrument."""
    merge(FLOW_FIXED_RECORD, measure_fixed(names if holds(FLOW_FIXED_RECORD) else sorted(CASES)), sorted(CASES))


def documented_errors(name: str) -> dict[str, str]:
    """exporter -> the text its error must contain for this original, where the tables name one."""
    tables = (("dynamo", DYNAMO_ERRORS), ("legacy", LEGACY_ERRORS), ("dynamo", UNFIXED_DYNAMO_ERRORS))
    return {exporter: table[name] for exporter, table in tables if name in table}


def summary(name: str, exporter: str, verdict: dict) -> dict:
    """What the record keeps of an original's verdict: the verdict, and whether the documented
    error text was in the error (the errors themselves hold this machine's paths)."""
    marker = documented_errors(name).get(exporter)
    return {"verdict": verdict["verdict"], "error_contains": {marker: marker in verdict["error"]} if marker else {}}


def measure_originals(names: list[str]) -> dict[str, dict]:
    """model -> its record entry: the source's digest and each exporter's summary, measured now."""
    found = export_all({str(MODELS / f"{n}.py"): (n, "original") for n in names})
    return {n: {"sha256": digest(MODELS / f"{n}.py"),
                "exporters": {e: summary(n, e, found[(n, "original", e)]) for e in ("dynamo", "legacy")}}
            for n in names}


@pytest.fixture(scope="module")
def unfixed_verdicts() -> dict[tuple[str, str, str], dict]:
    """The same for the models exported as written, in a group of their own."""
    return export_all({str(MODELS / f"{n}.py"): (n, "original") for n in UNFIXED})


def export_all(labels: dict[str, tuple[str, str]]) -> dict[tuple[str, str, str], dict]:
    files = list(labels)

    def run(exporter: str) -> list[dict]:
        proc = run_script("flow_batch_worker", input=json.dumps({"exporter": exporter, "files": files}))
        found = [json.loads(line.split(" ", 1)[1]) for line in proc.stdout.splitlines() if line.startswith("FLOW-VERDICT ")]
        assert len(found) == len(files), proc.stderr[-3000:]
        return found

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(("dynamo", "legacy"), pool.map(run, ("dynamo", "legacy"))))
    return {(*labels[v["file"]], exporter): v for exporter, found in results.items() for v in found}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rewrite_fixes_the_rule(name, rewritten):
    rule, _, _ = CASES[name]
    assert rule in codes(MODELS / f"{name}.py")
    assert rewritten[name].read_text() != (MODELS / f"{name}.py").read_text()
    assert rule not in codes(rewritten[name], FIXED_FOR.get(name, ("dynamo", "legacy")))


# Fixes that give equal sort keys their input order (ONX537, unsafe): eager's sorted keys (output
# 0) stay identical and each batch row keeps the same (key, row) pairs (output 1); only the order
# of rows among equal keys, which ATen leaves unspecified, may move.
TIE_ORDER = frozenset({"tied_sort_keys"})


@pytest.mark.parametrize("name", sorted(CASES))
def test_rewrite_keeps_eager_outputs_identical(name, rewritten):
    before, after = eager_outputs(MODELS / f"{name}.py"), eager_outputs(rewritten[name])
    if name in TIE_ORDER:
        assert any(not identical([b], [a]) for b, a in zip(before, after))  # the ties did move
        assert all(same_up_to_tie_order(b, a) for b, a in zip(before, after))
    else:
        assert identical(before, after)


def same_up_to_tie_order(before: list, after: list) -> bool:
    (keys, rows), (new_keys, new_rows) = before, after
    if not torch.equal(keys, new_keys):
        return False
    pairs = lambda k, r: [sorted(zip(k[b].tolist(), r[b].tolist())) for b in range(len(k))]  # noqa: E731
    return pairs(keys, rows) == pairs(new_keys, new_rows)


@pytest.mark.parametrize("name", sorted(CASES))
def test_original_fails_as_documented(name):
    assert_fails_as_documented(name, recorded(FLOW_RECORD, name, MODELS / f"{name}.py"))


def assert_fails_as_documented(name: str, entry: dict) -> None:
    _, _, (dynamo, legacy) = CASES[name]
    got = entry["exporters"]
    assert {e: v["verdict"] for e, v in got.items()} == {"dynamo": dynamo, "legacy": legacy}, got
    for exporter, marker in documented_errors(name).items():
        assert got[exporter]["error_contains"] == {marker: True}, got[exporter]


# Re-measured on every run and compared with the record: an original of each verdict under each
# exporter, and documented errors of both (a change to the verification that shifts verdicts shows).
CANARIES = ("best_rows_cut", "center_crop", "if_return", "mixed_arange", "views")


@pytest.fixture(scope="module")
def canary_entries() -> dict[str, dict]:
    return measure_originals(list(CANARIES))


@pytest.mark.parametrize("name", CANARIES)
def test_recorded_original_is_what_a_new_measurement_gives(name, canary_entries):
    assert canary_entries[name] == recorded(FLOW_RECORD, name, MODELS / f"{name}.py")
    assert_fails_as_documented(name, canary_entries[name])


@pytest.mark.parametrize("name", sorted(CASES, key=PART.get))
@pytest.mark.parametrize("exporter", ["dynamo", "legacy"])
def test_rewrite_exports_and_matches_eager(name, exporter, part_verdicts):
    verdict = part_verdicts[(name, "rewritten", exporter)]
    if exporter not in FIXED_FOR.get(name, (exporter,)):  # the rule's fix is for the other exporter only
        original = recorded(FLOW_RECORD, name, MODELS / f"{name}.py")["exporters"][exporter]
        assert verdict["verdict"] == original["verdict"], verdict
        return
    assert verdict["verdict"] == OK, verdict
    probes = verdict["probes"]
    assert any(p["probe"] == "probe 2 (user)" for p in probes)  # other sizes
    assert any(p["probe"].startswith("generated (dynamic dims") for p in probes)
    assert all(p["ok"] and not p["skipped"] for p in probes), probes


@pytest.mark.parametrize("name", FIXED_CANARIES)
def test_recorded_fixed_export_is_what_a_new_export_gives(name, part_verdicts, rewritten):
    entry = fresh(FLOW_FIXED_RECORD, name, fixed_digest(rewritten[name]))
    assert entry is not None, f"{FLOW_FIXED_RECORD.name} holds no export of {name} as rewritten now; `{UPDATE} fixed {name}`"
    for exporter in ("dynamo", "legacy"):
        live = part_verdicts[(name, "rewritten", exporter)]
        assert {k: live[k] for k in ("verdict", "probes")} == entry["exporters"][exporter], live


@pytest.mark.parametrize("name", sorted(UNFIXED))
def test_unfixed_model_findings_and_no_rewrite(name, tmp_path):
    rule, _ = UNFIXED[name]
    found = codes(MODELS / f"{name}.py")
    assert found == ([rule] if rule else []), found
    after = rewrite_copy(MODELS / f"{name}.py", tmp_path, unsafe=True)
    assert after.read_text() == (MODELS / f"{name}.py").read_text()


@pytest.mark.parametrize("name", sorted(UNFIXED))
def test_unfixed_model_exports_as_measured(name, unfixed_verdicts):
    _, (dynamo, legacy) = UNFIXED[name]
    got = {e: unfixed_verdicts[(name, "original", e)] for e in ("dynamo", "legacy")}
    assert {e: v["verdict"] for e, v in got.items()} == {"dynamo": dynamo, "legacy": legacy}, got
    if name in UNFIXED_DYNAMO_ERRORS:
        assert UNFIXED_DYNAMO_ERRORS[name] in got["dynamo"]["error"], got["dynamo"]["error"][:2000]
    for exporter, verdict in got.items():
        probes = verdict["probes"]
        if verdict["verdict"] == OK:  # correct on other values and other sizes, not just the export inputs
            assert any(p["probe"] == "probe 2 (user)" for p in probes)
            assert any(p["probe"].startswith("generated (dynamic dims") for p in probes)
            assert all(p["ok"] and not p["note"].startswith("skipped") for p in probes), probes
        elif verdict["verdict"] == WRONG:  # right on the export inputs, wrong on other values
            assert probes[0]["probe"] == "export inputs" and probes[0]["ok"], probes
            assert not all(p["ok"] for p in probes), probes
