"""Generates the synchronous client (`src/vigil/_sync`) from the asynchronous one (`src/vigil/_async`),
so that each resource is written once. `--check` fails when the committed files differ from what
this would write (the test suite runs it).

Hand-written rather than the `unasync` package, which neither Debian nor the reachable registries
ship; the rules are the same: drop `async`/`await`, and rename the async names to their sync twins.
`_paginator.py` is the one file written for each binding, because only there do the two differ in
behaviour (`list()` returns a lazy awaitable in one and the page itself in the other).
"""

import re
import sys
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parent.parent / "src" / "vigil"
SOURCE, TARGET = ROOT / "_async", ROOT / "_sync"
WRITTEN_FOR_EACH = {"_paginator.py"}

RENAMES = {
    "AsyncVigil": "Vigil",
    "AsyncClient": "Client",
    "AsyncIterator": "Iterator",
    "AsyncPaginator": "Paginator",
    "__aenter__": "__enter__",
    "__aexit__": "__exit__",
    "__aiter__": "__iter__",
    "aclose": "close",
    "aread": "read",
    "aiter_bytes": "iter_bytes",
    "asyncio": "time",
    "async_to_raw_response_wrapper": "to_raw_response_wrapper",
}
KEYWORDS = [(re.compile(r"\basync (def|for|with)\b"), r"\1"), (re.compile(r"\bawait "), "")]


def _drop_awaitable(text: str) -> str:
    """`Awaitable[X]` becomes `X` (brackets balanced)."""
    while True:
        start = text.find("Awaitable[")
        if start < 0:
            return text
        depth, index = 0, start + len("Awaitable")
        for index in range(start + len("Awaitable"), len(text)):
            depth += {"[": 1, "]": -1}.get(text[index], 0)
            if depth == 0:
                break
        text = text[:start] + text[start + len("Awaitable[") : index] + text[index + 1 :]


def unasync(text: str) -> str:
    for pattern, replacement in KEYWORDS:
        text = pattern.sub(replacement, text)
    text = _drop_awaitable(text)
    text = re.sub(r"\bAwaitable, ", "", text)
    text = re.sub(r"\b(" + "|".join(map(re.escape, RENAMES)) + r")\b", lambda match: RENAMES[match.group(1)], text)
    return re.sub(r"\bAsync([A-Z]\w*)", r"\1", text)


def generated() -> Dict[Path, str]:
    files: Dict[Path, str] = {}
    for source in sorted(SOURCE.rglob("*.py")):
        relative = source.relative_to(SOURCE)
        if relative.name in WRITTEN_FOR_EACH:
            continue
        header = f"# Generated from src/vigil/_async/{relative.as_posix()} by scripts/generate_sync.py: do not edit.\n"
        files[TARGET / relative] = header + unasync(source.read_text(encoding="utf-8"))
    return files


def main(argv: List[str]) -> int:
    files = generated()
    expected = set(files) | {TARGET / name for name in WRITTEN_FOR_EACH}
    stale = sorted(path for path in TARGET.rglob("*.py") if path not in expected)
    if "--check" in argv:
        drift = [path for path, text in files.items() if not path.exists() or path.read_text(encoding="utf-8") != text]
        for path in drift + stale:
            print(f"{path.relative_to(ROOT.parent.parent)} is not what scripts/generate_sync.py writes: run it.", file=sys.stderr)
        return 1 if drift or stale else 0
    for path in stale:
        path.unlink()
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
