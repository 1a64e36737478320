"""An option declared once: a dataclass field whose metadata holds its help text, range and flag, read by every
front-end that offers the field (the command line builds its option from it; see ``factscope.cli.option_groups``).

A field without a help text is not offered as an option: it keeps its default there.
"""

from __future__ import annotations

from typing import Any


def about(help: str, **limits: Any) -> dict[str, Any]:
    """A field's metadata: its ``help`` text (a parameter written in backticks, `name`, is shown as its flag) and
    its ``limits``: ``min`` and ``max``; ``min_open``, the value must exceed ``min``; ``check``, a function that
    raises ConfigError or ValueError on a bad value; ``flag``, the option's flags where they are not the field's
    name ('--segment-tokens', '--abstention-detection/--no-abstention-detection'); ``option_type`` and
    ``parse``, the type the option reads where it is not the field's and the function that turns it into the
    field's value."""
    return {"help": help, **limits}
