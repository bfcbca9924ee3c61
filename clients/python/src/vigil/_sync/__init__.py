# Generated from src/vigil/_async/__init__.py by scripts/generate_sync.py: do not edit.
"""One binding of the client. `vigil/_async` is the source; `vigil/_sync` is generated from it by
`scripts/generate_sync.py` (edit `_async`, then run it)."""

from ._client import Vigil
from ._pagination import Page
from ._paginator import Paginator

__all__ = ["Vigil", "Page", "Paginator"]
