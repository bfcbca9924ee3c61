"""One binding of the client. `vigil/_async` is the source; `vigil/_sync` is generated from it by
`scripts/generate_sync.py` (edit `_async`, then run it)."""

from ._client import AsyncVigil
from ._pagination import AsyncPage
from ._paginator import AsyncPaginator

__all__ = ["AsyncVigil", "AsyncPage", "AsyncPaginator"]
