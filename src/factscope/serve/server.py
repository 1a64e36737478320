"""The state one ``factscope serve`` app holds: its configuration, systems, model worker, batchers and
jobs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from factscope.serve.batching import MicroBatcher, ModelWorker
from factscope.serve.config import ServeConfig
from factscope.serve.jobs import Job, JobRunner, JobStore
from factscope.serve.requests import RequestProblem, read_records
from factscope.serve.systems import ServedSystem, make_systems


class Server:
    """The state one app holds: its configuration, systems, model worker, batchers and jobs."""

    def __init__(self, config: ServeConfig, systems: dict[str, ServedSystem[Any, Any]] | None = None) -> None:
        self.config = config
        self.systems: dict[str, ServedSystem[Any, Any]] = systems if systems is not None else make_systems(
            config.components)
        self.worker = ModelWorker()
        self.batchers = {
            name: MicroBatcher(system, self.worker, max_records=config.batch_records,
                               wait=config.batch_wait_ms / 1000)
            for name, system in self.systems.items()
        }
        self.store = JobStore(config.data_dir)
        self.runner = JobRunner(self.store, self.systems, self.worker.lock, batch_size=config.job_batch_size,
                                lease_seconds=config.job_lease_seconds)

    async def run(self, system: str, records: list[Any], options: Mapping[str, Any] | None = None) -> BaseModel:
        """The run result of a synchronous request's records (validated, then micro-batched) with the request's
        ``options`` (see ``factscope.serve.request_options``)."""
        items = read_records(self.systems[system], records, self.config.limits, options)
        return await self.batchers[system].submit(items, options)

    def warm(self) -> None:
        """Build every system's components now, so that the first request does not wait for them."""
        for system in self.systems.values():
            system.warm()

    def require_system(self, system: str) -> None:
        """A 422 RequestProblem unless ``system`` is one the server runs."""
        if system not in self.systems:
            raise RequestProblem(422, f"system: {system!r} is not one of {', '.join(self.systems)}", field="system")

    def create_job(self, system: str, name: str, upload: Path, options: Mapping[str, Any] | None = None) -> Job:
        """Queue a job of ``system`` on the saved input file ``upload`` (see ``factscope.serve.uploads``) with the
        spec ``options`` of its request (``job_options``)."""
        try:
            self.require_system(system)
        except RequestProblem:
            upload.unlink(missing_ok=True)
            raise
        job = self.store.create(system, name, upload, options)
        self.runner.submit(job)
        return job

    def job(self, job_id: str) -> Job:
        """A job by id; 404 when there is none."""
        try:
            return self.store.get(job_id)
        except KeyError:
            raise RequestProblem(404, f"no job {job_id!r}", field="job") from None
