"""A job's input file written to disk as its bytes arrive, never held whole in memory.

The request body (raw, or the file part of a form, which Starlette spools to a temporary file past 1 MB) is read
a chunk at a time and appended to a hidden file in the data folder's ``inputs/``; the size limit is enforced on
the bytes read so far (the ``BodyLimit`` middleware counts them as they are received, and ``save_upload`` counts
them again as they are written), so a body over the limit is refused before it is read to its end. A body that
is refused, empty or cut off leaves no file behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

from factscope.serve.requests import RequestProblem
from factscope.serve.security import BodyTooLarge


async def save_upload(chunks: AsyncIterator[bytes], folder: Path, limit: int) -> Path:
    """Write ``chunks`` to a new hidden file in ``folder`` and return its path; BodyTooLarge once they pass
    ``limit`` bytes, and a 422 RequestProblem when they hold nothing but white space (the file is removed in
    both cases)."""
    handle, name = tempfile.mkstemp(dir=folder, prefix=".upload-", suffix=".part")
    path = Path(name)
    written = 0
    blank = True
    try:
        with os.fdopen(handle, "wb") as out:
            async for chunk in chunks:
                written += len(chunk)
                if written > limit:
                    raise BodyTooLarge(limit)
                blank = blank and not chunk.strip()
                out.write(chunk)
        if blank:
            raise RequestProblem(422, "body: empty; send the JSONL file as the request body", field="body")
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path
