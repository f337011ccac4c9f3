"""ONX2xx: tensors turned into Python values (`.item()`, `.tolist()`, `int()`, `len()`, `torch.tensor([...])`)."""

from onnxfix.patterns.scalars import (builders, casts, constant_argument, items, legacy_constructors, len_calls,
                                      narrow_sizes, strides, tolist)

RULES = [items.ItemCall, tolist.TolistCall, casts.ScalarCast, len_calls.LenOfTensor, builders.TensorFromValues,
         legacy_constructors.LegacySizeConstructor, narrow_sizes.NarrowIntegerSize, *strides.RULES,
         *constant_argument.RULES]
