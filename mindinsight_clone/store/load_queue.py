"""The order in which one reload cycle loads its runs: most recently used or updated first, except that a run
somebody asks for while it waits goes next (after a restart over a thousand runs, the run a user opens, or
that a client polls, is loaded in milliseconds instead of after the others; `DataManager.run_cache` can wait
that long for it)."""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Iterable

from mindinsight_clone.store.loader import RunLoader


class LoadQueue:
    """Hands out each run's loader once, to any number of loading threads; thread-safe."""

    def __init__(self, loaders: Iterable[RunLoader]) -> None:
        self._lock = threading.Lock()
        self._order: deque[RunLoader] = deque(loaders)
        self._waiting: dict[str, RunLoader] = {ld.train_id: ld for ld in self._order}
        self._asked: OrderedDict[str, None] = OrderedDict()  # runs asked for, first asked first
        self._busy: set[str] = set()  # handed out, not done yet

    def ask(self, train_id: str) -> bool:
        """Load `train_id` next if it is still waiting; True while this cycle has it to load or is loading it."""
        with self._lock:
            if train_id in self._waiting:
                self._asked[train_id] = None
                return True
            return train_id in self._busy

    def done(self, train_id: str) -> None:
        with self._lock:
            self._busy.discard(train_id)

    def take(self) -> RunLoader | None:
        """The next loader to run, or None when every one was handed out."""
        with self._lock:
            while self._asked:
                loader = self._waiting.pop(self._asked.popitem(last=False)[0], None)
                if loader is not None:
                    self._busy.add(loader.train_id)
                    return loader
            while self._order:
                loader = self._order.popleft()
                if self._waiting.pop(loader.train_id, None) is not None:
                    self._busy.add(loader.train_id)
                    return loader
            return None
