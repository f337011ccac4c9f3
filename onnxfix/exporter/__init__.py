"""Everything that imports torch: export, verification, mapping failures back to source.

The static checker never imports this package.
"""
