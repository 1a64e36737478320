"""A fine-tuning run's state on disk, so that an interrupted run continues where it stopped."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


@dataclass
class TrainingState:
    """Where a run stands: the epoch (1-based), the batches of it done, their losses, the batch-order generator's
    state at the epoch's start, the epochs' history and the best candidate so far.

    With the model's, optimizer's and scheduler's states it is all that the next step needs: the epoch's batch
    order is drawn again from ``rng_at_epoch_start`` and its first ``step`` batches are passed over. Dropout masks
    after a resume are new draws, so a resumed run matches an uninterrupted one in its data order and schedule,
    not bit for bit.
    """

    epoch: int
    step: int
    losses: list[float]
    rng_at_epoch_start: Mapping[str, Any]
    history: list[dict]
    best_state: dict | None
    best_score: float
    best_epoch: int
    saved: dict = field(default_factory=dict, repr=False)
    """The model's, optimizer's and scheduler's states as loaded (empty for a state about to be saved)."""

    def save(self, path: Path, model: Any, optimizer: Any, scheduler: Any) -> None:
        """Write the state with the model's, optimizer's and scheduler's (atomically: a file that is there is whole)."""
        import torch

        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".tmp")
        torch.save(
            {
                "epoch": self.epoch,
                "step": self.step,
                "losses": self.losses,
                "rng_at_epoch_start": self.rng_at_epoch_start,
                "history": self.history,
                "best_state": self.best_state,
                "best_score": self.best_score,
                "best_epoch": self.best_epoch,
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
            },
            partial,
        )
        os.replace(partial, path)

    @classmethod
    def load(cls, path: Path) -> TrainingState | None:
        """The state saved at ``path``, or None when there is none."""
        import torch

        if not path.exists():
            return None
        saved = torch.load(path, map_location="cpu", weights_only=False)
        return cls(
            epoch=saved["epoch"],
            step=saved["step"],
            losses=list(saved["losses"]),
            rng_at_epoch_start=saved["rng_at_epoch_start"],
            history=list(saved["history"]),
            best_state=saved["best_state"],
            best_score=saved["best_score"],
            best_epoch=saved["best_epoch"],
            saved={key: saved[key] for key in ("model", "optimizer", "scheduler")},
        )

    def restore(self, model: Any, optimizer: Any, scheduler: Any, rng: np.random.Generator) -> None:
        """Put the saved weights, optimizer and scheduler states back, and the generator at the epoch's start."""
        model.load_state_dict(self.saved["model"])
        optimizer.load_state_dict(self.saved["optimizer"])
        scheduler.load_state_dict(self.saved["scheduler"])
        rng.bit_generator.state = self.rng_at_epoch_start
