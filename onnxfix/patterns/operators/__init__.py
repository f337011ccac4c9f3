"""ONX5xx: operators the exporters cannot translate, and the opset an export call needs.

One module per group of rules, beside the decomposition registry they deliver
(onnxfix/decompositions/registry_*.py); the shared matching and fixing is in ``base``.
"""

from onnxfix.patterns.operators import attention, autograd, bool_gaps, bool_scalar, complex_values, conv_transpose, core, dtype_gaps, fft, int_fill, legacy, linalg, negative_dims, measured, mixed_arange, random_draws, reductions, reflected, self_sized_chunk, silently_wrong, special, structural, tied_sort, transposes, unsupported

RULES = [*core.RULES, *unsupported.RULES, *linalg.RULES, *special.RULES, *structural.RULES, *silently_wrong.RULES, *legacy.RULES, *autograd.RULES, *fft.RULES, *complex_values.RULES, *reductions.RULES, *measured.RULES, *dtype_gaps.RULES, *mixed_arange.RULES, *bool_gaps.RULES, *reflected.RULES, *self_sized_chunk.RULES, *bool_scalar.RULES, *transposes.RULES, *conv_transpose.RULES, *attention.RULES, *int_fill.RULES, *negative_dims.RULES, *tied_sort.RULES, *random_draws.RULES]
