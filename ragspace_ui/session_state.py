"""Gradio's per-session copy of the app's configuration, built block by block when read.

Every call over Gradio's HTTP API (curl, `gradio_client`, each MCP tool call) is a session
of its own, and Gradio 6 builds a `SessionState` for each: a configuration dict for every
block of the app (`config_for_block`: ~60 µs a block, 213 blocks, ~13 ms on a quiet core),
on the event loop, although a call reads only the entries of its own inputs and outputs
(the whole set serves deep links). Under 20 users during an ingestion that was a fifth of
the app's CPU and tripled search p95 (docs/benchmarks.md, "Load, round 4").

`build_session_configs_on_read()` makes each session build an entry when it is first read;
`SessionState.components` (deep links) builds the rest first, so every reader sees the
same entries Gradio would have built. It replaces `SessionState.__init__` only when that
is the code it was written against (its source is compared); any other Gradio version
keeps its own, slower, behaviour, and the log says so.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import os
from _collections_abc import dict_items, dict_keys, dict_values
from collections.abc import Iterator
from copy import copy
from typing import Any

from gradio.blocks import Blocks, BlocksConfig
from gradio.state_holder import SessionState

log = logging.getLogger(__name__)

# sha256 of the source of `SessionState.__init__` in Gradio 6.31.0 (requirements.txt)
GRADIO_INIT_SHA256 = "1b2ea21dc42c45dafb54280eccd932efe6851230b7f896ddbfd4cf593bc0d06b"
_gradio_init = SessionState.__init__


class BlockConfigs(dict[int, dict[str, Any]]):
    """`SessionState.config_values`: block id -> its configuration, built when first read."""

    def __init__(self, blocks_config: BlocksConfig, ids: list[int]) -> None:
        super().__init__()
        self._blocks_config = blocks_config
        self._ids = ids  # Gradio's order: the blocks' order in the app
        self._unbuilt = set(ids)

    def __missing__(self, key: int) -> dict[str, Any]:
        if key not in self._unbuilt:
            raise KeyError(key)
        self._unbuilt.discard(key)
        block = self._blocks_config.blocks[key]
        built: dict[str, Any] = self._blocks_config.config_for_block(key, [], block)
        super().__setitem__(key, built)
        return built

    def __contains__(self, key: object) -> bool:
        return key in self._unbuilt or super().__contains__(key)

    def __setitem__(self, key: int, value: dict[str, Any]) -> None:
        self._unbuilt.discard(key)
        super().__setitem__(key, value)

    def __len__(self) -> int:
        return super().__len__() + len(self._unbuilt)

    def __iter__(self) -> Iterator[int]:
        self.build_all()
        return super().__iter__()

    def get(self, key: int, default: Any = None) -> Any:
        if key in self._unbuilt:
            return self.__missing__(key)
        return super().get(key, default)

    def keys(self) -> dict_keys[int, dict[str, Any]]:
        self.build_all()
        return super().keys()

    def values(self) -> dict_values[int, dict[str, Any]]:
        self.build_all()
        return super().values()

    def items(self) -> dict_items[int, dict[str, Any]]:
        self.build_all()
        return super().items()

    def built(self) -> int:
        """How many entries have been built so far."""
        return super().__len__()

    def build_all(self) -> None:
        """Build every entry not built yet, then keep them in Gradio's order."""
        if not self._unbuilt:
            return
        for key in list(self._unbuilt):
            self.__missing__(key)
        entries = dict(super().items())
        in_app = set(self._ids)
        super().clear()
        for key in [*self._ids, *(k for k in entries if k not in in_app)]:
            super().__setitem__(key, entries[key])


def _session_init(self: SessionState, blocks: Blocks) -> None:
    """`SessionState.__init__` of Gradio 6.31.0 with `config_values` built when read."""
    self.blocks_config = copy(blocks.default_config)
    ids = [k for k in self.blocks_config.blocks if k in blocks.blocks]
    self.config_values = BlockConfigs(self.blocks_config, ids)
    self.state_data = {}
    self._state_ttl = {}
    self.is_closed = False
    self.STATE_TTL_WHEN_CLOSED = 1 if os.getenv("GRADIO_IS_E2E_TEST", None) else 3600


def build_session_configs_on_read(expected_sha256: str = GRADIO_INIT_SHA256) -> bool:
    """Install `_session_init` over Gradio's (once); False when Gradio's is not the one
    it was written against, which is then left as it is."""
    if SessionState.__init__ is _session_init:
        return True
    source = inspect.getsource(_gradio_init)
    if hashlib.sha256(source.encode()).hexdigest() != expected_sha256:
        log.warning(
            "Gradio's SessionState is not the one RAGSpace was tested with: each HTTP API "
            "and MCP call builds the whole app's configuration (slower under load)."
        )
        return False
    SessionState.__init__ = _session_init  # type: ignore[method-assign]
    return True
