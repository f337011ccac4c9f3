"""ONX7xx: indexing and index writes the legacy exporter translates wrongly or not at all.

The dynamo exporter handles every pattern here (measured on torch 2.13, static and dynamic
shapes), so these rules target the legacy exporter only: they report when the project's
`exporters` include "legacy".
"""

from onnxfix.patterns.indexing import mask_slices, masks, narrow_bounds, negative, rules, slice_broadcast

RULES = [*negative.RULES, *rules.RULES, *masks.RULES, *slice_broadcast.RULES, *narrow_bounds.RULES,
         *mask_slices.RULES]
