"""ViT patch embedding built from an einops `Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)")` layer
and a Linear; the user scripts the model (`torch.jit.script`, needed for control flow elsewhere) and then
calls `torch.onnx.export`, which fails with "symbolic for __getitem__ produced an incorrect number of
outputs (expected 2, but got 1)": the scriptable einops layer looks its recipe up in a
`Dict[int, TransformRecipe]` (`self._multirecipe[input.ndim]`). Exporting the unscripted model works.
The einops 0.8.0 pieces the layer runs (TransformRecipe, `_reconstruct_from_shape_uncached`,
`apply_for_scriptable_torch`, the layer's `forward`) are copied below; the recipe is the one einops'
parser builds for this pattern.

Source: https://github.com/arogozhnikov/einops/issues/355
"""
import sys
import types
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn

CLASS = "exporter-defaults"
FAMILY = "indexing"
DYNAMIC = {"image_batch": {0: "batch"}}
BLIND = "domains-85"


# ---- einops 0.8.0 (einops/einops.py, einops/_torch_specific.py, einops/layers/torch.py) ----
class EinopsError(RuntimeError):
    pass


def _product(sequence: List[int]) -> int:
    result = 1
    for element in sequence:
        result *= element
    return result


class TransformRecipe:
    def __init__(
        self,
        elementary_axes_lengths: List[int],
        axis_name2elementary_axis: Dict[str, int],
        input_composition_known_unknown: List[Tuple[List[int], List[int]]],
        axes_permutation: List[int],
        first_reduced_axis: int,
        added_axes: Dict[int, int],
        output_composite_axes: List[List[int]],
    ):
        self.elementary_axes_lengths: List[int] = elementary_axes_lengths
        self.axis_name2elementary_axis: Dict[str, int] = axis_name2elementary_axis
        self.input_composition_known_unknown: List[Tuple[List[int], List[int]]] = input_composition_known_unknown
        self.axes_permutation: List[int] = axes_permutation
        self.first_reduced_axis: int = first_reduced_axis
        self.added_axes: Dict[int, int] = added_axes
        self.output_composite_axes: List[List[int]] = output_composite_axes


def _reconstruct_from_shape_uncached(self: TransformRecipe, shape: List[int], axes_dims: List[Tuple[str, int]]):
    need_init_reshape = False
    axes_lengths: List[int] = list(self.elementary_axes_lengths)
    for axis, dim in axes_dims:
        axes_lengths[self.axis_name2elementary_axis[axis]] = dim

    for input_axis, (known_axes, unknown_axes) in enumerate(self.input_composition_known_unknown):
        length = shape[input_axis]
        if len(known_axes) == 0 and len(unknown_axes) == 1:
            axes_lengths[unknown_axes[0]] = length
            continue
        known_product = 1
        for axis in known_axes:
            known_product *= axes_lengths[axis]
        if len(unknown_axes) == 0:
            if isinstance(length, int) and isinstance(known_product, int) and length != known_product:
                raise EinopsError(f"Shape mismatch, {length} != {known_product}")
        else:
            if isinstance(length, int) and isinstance(known_product, int) and length % known_product != 0:
                raise EinopsError(f"Shape mismatch, can't divide axis of length {length} in chunks of {known_product}")
            unknown_axis = unknown_axes[0]
            inferred_length: int = length // known_product
            axes_lengths[unknown_axis] = inferred_length
        if len(known_axes) + len(unknown_axes) != 1:
            need_init_reshape = True

    init_shapes: Optional[List[int]] = axes_lengths[: len(self.axes_permutation)] if need_init_reshape else None
    need_final_reshape = False
    final_shapes: List[int] = []
    for grouping in self.output_composite_axes:
        lengths = [axes_lengths[elementary_axis] for elementary_axis in grouping]
        final_shapes.append(_product(lengths))
        if len(lengths) != 1:
            need_final_reshape = True
    added_axes: Dict[int, int] = {
        pos: axes_lengths[pos_in_elementary] for pos, pos_in_elementary in self.added_axes.items()
    }
    reduced_axes = list(range(self.first_reduced_axis, len(self.axes_permutation)))
    n_axes_after_adding_axes = len(added_axes) + len(self.axes_permutation)
    axes_reordering: Optional[List[int]] = self.axes_permutation
    if self.axes_permutation == list(range(len(self.axes_permutation))):
        axes_reordering = None
    _final_shapes = final_shapes if need_final_reshape else None
    return init_shapes, axes_reordering, reduced_axes, added_axes, _final_shapes, n_axes_after_adding_axes


def apply_for_scriptable_torch(
    recipe: TransformRecipe, tensor: torch.Tensor, reduction_type: str, axes_dims: List[Tuple[str, int]]
) -> torch.Tensor:
    (init_shapes, axes_reordering, reduced_axes, added_axes, final_shapes, n_axes_w_added) = (
        _reconstruct_from_shape_uncached(recipe, tensor.shape, axes_dims=axes_dims)
    )
    if init_shapes is not None:
        tensor = tensor.reshape(init_shapes)
    if axes_reordering is not None:
        tensor = tensor.permute(axes_reordering)
    if len(reduced_axes) > 0:
        tensor = tensor.sum(dim=reduced_axes)
    if final_shapes is not None:
        tensor = tensor.reshape(final_shapes)
    return tensor


class Rearrange(nn.Module):
    def __init__(self, pattern: str, **axes_lengths: int) -> None:
        super().__init__()
        assert pattern == "b c (h p1) (w p2) -> b (h w) (p1 p2 c)"  # recipe as built by einops' parser
        self.pattern = pattern
        self.axes_lengths = axes_lengths
        self._multirecipe = {
            4: TransformRecipe(
                [-999999, -999999, -999999, -99999, -999999, -99999], {"p1": 3, "p2": 5},
                [([], [0]), ([], [1]), ([3], [2]), ([5], [4])], [0, 2, 4, 3, 5, 1], 6, {},
                [[0], [2, 4], [3, 5, 1]],
            )
        }
        self._axes_lengths = tuple(self.axes_lengths.items())

    def forward(self, input):
        recipe = self._multirecipe[input.ndim]
        return apply_for_scriptable_torch(recipe, input, reduction_type="rearrange", axes_dims=self._axes_lengths)
# ---- end einops ----


def pair(t: int) -> Tuple[int, int]:
    return t, t


class PatchEmbeddingSimple(nn.Module):
    def __init__(self, *, image_size: int, patch_size: int, embed_depth: int, pool: str, channels: int):
        super().__init__()
        self.name = "PatchEmbedding"

        image_height, image_width = pair(image_size)
        patch_height, patch_width = pair(patch_size)
        patch_dim = channels * patch_height * patch_width

        self.rearrange = Rearrange(
            "b c (h p1) (w p2) -> b (h w) (p1 p2 c)",
            p1=patch_height,
            p2=patch_width,
        )
        self.patch_embedding_linear = nn.Linear(patch_dim, embed_depth)

        self.seq = nn.Sequential(
            self.rearrange,
            self.patch_embedding_linear
        )

    def forward(self, image_batch: torch.Tensor):
        out = self.seq(image_batch)
        return out


def make_model():
    # this file is loaded by path, outside sys.modules; TorchScript needs a module entry to find the
    # source of the TransformRecipe class (an installed einops has one)
    sys.modules.setdefault(__name__, types.ModuleType(__name__)).__dict__.update(globals())
    model = PatchEmbeddingSimple(image_size=32, patch_size=4, embed_depth=64, pool="cls", channels=3).eval()
    return torch.jit.script(model)


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(5, 3, 32, 32),), (torch.randn(1, 3, 32, 32),)]


def probe_inputs():
    return other_inputs()
