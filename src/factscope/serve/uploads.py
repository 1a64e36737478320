"""A job's input file written to disk as its bytes arrive, never held whole in memory.

A client sends the file as the raw request body (``curl --data-binary @answers.jsonl``) or as a multipart form
upload in the field ``file`` (``curl -F file=@answers.jsonl``, ``requests.post(files=...)``, an HTML form);
``request_file`` reads either, and refuses any other kind of body with 415 naming both.
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

from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request

from factscope.core.files.storage_faults import storage_fault
from factscope.serve.requests import RequestProblem
from factscope.serve.security import BodyTooLarge

UPLOAD_FIELD = "file"
"""The form field that holds a job's input file in a multipart/form-data upload."""

RAW_TYPES = frozenset({
    "application/json", "application/x-ndjson", "application/jsonl", "application/x-jsonlines",
    "application/octet-stream", "application/vnd.apache.parquet", "application/x-parquet",
    "application/x-www-form-urlencoded",
})
"""The content types of a raw body read as the input file, besides text/*: JSON and JSON lines, CSV, Parquet, bytes
of no stated type, and what ``curl --data-binary`` sends unless told otherwise (application/x-www-form-urlencoded,
whose body is then the file as it is)."""

FORMS = (
    "send the input file as the raw request body (curl --data-binary @answers.jsonl; Content-Type "
    "application/x-ndjson, application/json, text/csv or application/octet-stream) or as a multipart/form-data "
    f"upload in the field '{UPLOAD_FIELD}' (curl -F {UPLOAD_FIELD}=@answers.jsonl)"
)
"""The two ways a job's input file is sent, as an error names them."""

CHUNK = 1 << 16

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
            raise RequestProblem(422, f"body: the input file is empty; {FORMS}", field="body")
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path


async def request_file(request: Request) -> tuple[AsyncIterator[bytes], str | None]:
    """The input file a job request carries, as chunks, with the name the client gave it (a form upload's file
    name; None for a raw body): the file part of a multipart/form-data body, or the raw body. A form without
    the file is a 422 naming the field, and a body of another kind a 415 naming both forms."""
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind == "multipart/form-data":
        form = await request.form()
        upload = form.get(UPLOAD_FIELD)
        if not isinstance(upload, UploadFile):
            await form.close()
            raise RequestProblem(422, f"{UPLOAD_FIELD}: missing from the form; {FORMS}", field=UPLOAD_FIELD)
        return file_chunks(upload, form), upload.filename
    if kind and kind not in RAW_TYPES and not kind.startswith("text/"):
        raise RequestProblem(415, f"a body of Content-Type {kind} cannot be read as an input file; {FORMS}",
                             field="body")
    return request.stream(), None


async def file_chunks(upload: UploadFile, form: FormData | None = None) -> AsyncIterator[bytes]:
    """The bytes of an uploaded file a chunk at a time; the ``form`` it came in is closed at the end (its spooled
    files removed)."""
    try:
        while chunk := await upload.read(CHUNK):
            yield chunk
    finally:
        if form is not None:
            await form.close()
