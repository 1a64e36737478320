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

from factscope.core.storage_faults import storage_fault
from factscope.serve.requests import RequestProblem
from factscope.serve.security import BodyTooLarge

KEPT = "No job was queued and the part received was removed; free space in the server's data folder and send it again"


async def save_upload(chunks: AsyncIterator[bytes], folder: Path, limit: int) -> Path:
    """Write ``chunks`` to a new hidden file in ``folder`` and return its path; BodyTooLarge once they pass
    ``limit`` bytes, a 422 RequestProblem when they hold nothing but white space, and a StorageError when the
    disk refuses them (the file is removed in each case)."""
    try:
        handle, name = tempfile.mkstemp(dir=folder, prefix=".upload-", suffix=".part")
    except OSError as error:
        raise storage_fault(error, folder, "saving an uploaded input file", kept=KEPT) from error
    path = Path(name)
    written = 0
    blank = True
    try:
        try:
            with os.fdopen(handle, "wb") as out:
                async for chunk in chunks:
                    written += len(chunk)
                    if written > limit:
                        raise BodyTooLarge(limit)
                    blank = blank and not chunk.strip()
                    out.write(chunk)
        except OSError as error:
            raise storage_fault(error, path, "saving an uploaded input file", kept=KEPT) from error
        if blank:
            raise RequestProblem(422, "body: empty; send the JSONL file as the request body", field="body")
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path
