"""The one error type users catch for bad input: `ScenarioError`."""

from __future__ import annotations

import re

# A dotted field path as the core reports it: `bottleneck.queue.limit`, `flow.video.cc`,
# `flow[0].start`.
_FIELD_PATH = re.compile(r"^[A-Za-z0-9_\-\[\]]+(\.[A-Za-z0-9_\-\[\]]+)*$")


class ScenarioError(ValueError):
    """Bad scenario input: unknown field, bad unit, missing file, malformed TOML, bad override.

    `str(e)` is `"<field path>: <message>"`, the message naming the value and what is allowed.
    `e.path` is the dotted field path (`""` when the error is about the whole file).
    Errors raised by the Rust core (`bloatlab._core.ScenarioError`) are re-raised as this
    type, with the original chained as `__cause__`.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message

    @classmethod
    def from_core(cls, error: BaseException) -> ScenarioError:
        """Wrap a core error whose text is `"<dotted.field.path>: <message>"`."""
        text = str(error)
        path, sep, message = text.partition(": ")
        if sep and _FIELD_PATH.match(path):
            return cls(path, message)
        return cls("", text)
