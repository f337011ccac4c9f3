from .backbone import Backbone

__all__ = ["Backbone"]
