"""Seeded reservoir sampling, step for step the same as MindInsight 2.3.1 (LIMITS.md §1).

* Samples are kept sorted by step.
* Until the reservoir is full every sample is kept. When it is full, `r = Random(0).randint(0, counter)`:
  if `r < capacity` the sample at index `r` is dropped, else the previous newest one is. The new sample is
  always kept, so the newest step is always present and the result is deterministic.
* A sample whose step is not above the newest kept step (a restart, or a rewrite of the same step) first
  purges: only samples with a lower step, or a higher step *from the same file*, survive; the counter is
  scaled down in proportion (MindInsight's `purge_reservoir_data`).

`extend_increasing` is the fast path for a run of strictly increasing steps past the newest kept one (the
common case when a file is read from start to end): the same RNG draws, without per-sample searching.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np


class Sample(NamedTuple):
    step: int
    wall_time: float
    value: Any
    source: str = ""  # summary file name the sample came from


def randbelow(getrandbits: Callable[[int], int], n: int) -> int:
    """`random.Random._randbelow_with_getrandbits(n)` as in CPython 3.10-3.13 (what `randint` uses)."""
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


class Reservoir:
    """A per-tag reservoir. Not locked: its RunCache serialises writers and hands readers copies."""

    __slots__ = ("_rng", "capacity", "counter", "mutations", "samples")

    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            raise ValueError(f"capacity must be >= 0, got {capacity}")
        self.capacity = capacity  # 0 = unlimited
        self.samples: list[Sample] = []
        self.counter = 0
        # made at the first draw (a full reservoir): the same sequence, and a reservoir that never fills
        # (most tags of many short runs) does not carry the generator's 2.5 KB state
        self._rng: random.Random | None = None
        self.mutations = 0  # grows on every change (keys derived caches)

    def __len__(self) -> int:
        return len(self.samples)

    def _random(self) -> random.Random:
        if self._rng is None:
            self._rng = random.Random(0)
        return self._rng

    @property
    def last_step(self) -> int | None:
        return self.samples[-1].step if self.samples else None

    def add(self, sample: Sample) -> None:
        """Add one sample: purge if out of order, then MindInsight's reservoir step."""
        samples = self.samples
        if samples and sample.step <= samples[-1].step:
            self.purge(sample.step, sample.source)
        self._add_sorted(sample)
        self.mutations += 1

    def _add_sorted(self, sample: Sample) -> None:
        samples = self.samples
        cap = self.capacity
        if cap and len(samples) >= cap:
            r = randbelow(self._random().getrandbits, self.counter + 1)
            if r < cap:
                del samples[r]
            else:
                samples.pop()
        if not samples or sample.step > samples[-1].step:
            samples.append(sample)
        else:
            samples.insert(bisect_left(samples, sample.step, key=_step), sample)
        self.counter += 1

    def extend_increasing(self, batch: Sequence[Sample]) -> None:
        """Add samples whose steps strictly increase and are all above the newest kept step."""
        if not batch:
            return
        samples = self.samples
        cap = self.capacity
        if not cap:
            samples.extend(batch)
            self.counter += len(batch)
            self.mutations += 1
            return
        free = max(cap - len(samples), 0)
        if free:
            head = batch[:free]
            samples.extend(head)
            self.counter += len(head)
        getrandbits = self._random().getrandbits
        counter = self.counter
        for i in range(free, len(batch)):
            # inline randbelow(counter + 1)
            n = counter + 1
            k = n.bit_length()
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            if r < cap:
                del samples[r]
            else:
                samples.pop()
            samples.append(batch[i])
            counter += 1
        self.counter = counter
        self.mutations += 1

    def extend_increasing_lazy(self, n: int, make: Callable[[int], Sample]) -> None:
        """`extend_increasing` for `n` new samples built by `make(i)` only if they survive.

        The same RNG draws run on placeholders (batch positions); only the kept ones become Samples.
        """
        slots: list[Any] = self.samples
        for j in self._draw(n):
            slots[j] = make(slots[j])

    def extend_increasing_rows(self, n: int, first: int) -> None:
        """`extend_increasing` for the `n` rows `first`, `first + 1`, ... of a stored series (strictly
        increasing steps, above every kept one): the survivors are kept as row slots (`~row`: negative ints), not as
        Samples; the owner makes Samples from its rows when they are read (`is_row_slot`, `slot_row`)."""
        slots: list[Any] = self.samples
        for j in self._draw(n):
            slots[j] = ~(first + slots[j])

    def _draw(self, n: int) -> list[int]:
        """Run the draws of `n` strictly increasing new samples on placeholders (their batch positions, ints
        >= 0) and return the indexes in `samples` of the placeholders that survived.

        Draws are taken in bulk: `getrandbits(k)` for k <= 32 consumes exactly one 32-bit Mersenne Twister
        word (`word >> (32 - k)`), and `getrandbits(32 * m)` returns the next m words, least significant
        first. Afterwards the generator is rewound and advanced by exactly the words used, so its state is
        the same as after one-by-one `randint` calls.
        """
        if n <= 0:
            return []
        cap = self.capacity
        slots: list[Any] = self.samples
        before = len(slots)
        if not cap:
            slots.extend(range(n))
            self.counter += n
            self.mutations += 1
            return list(range(before, before + n))
        free = min(max(cap - len(slots), 0), n)
        slots.extend(range(free))
        counter = self.counter + free
        todo = n - free
        if todo:
            rng = self._random()
            saved = rng.getstate()
            words = _word_array(rng, 2 * todo + 64)
            used = 0
            m = counter + 1  # randint(0, counter) draws below m
            drawn: list[np.ndarray] = []
            remaining = todo
            while remaining:
                bits = m.bit_length()  # the draws below m use words >> (32 - bits) until m reaches 2**bits
                limit = min((1 << bits) - m, remaining)
                got, consumed = _accepted(words, used, 32 - bits, m, limit)
                used += consumed
                drawn.append(got)
                m += len(got)
                remaining -= len(got)
                if len(got) < limit:  # the words ran out: the generator's next ones
                    words = np.concatenate((words, _word_array(rng, 2 * remaining + 64)))
            r_all = np.concatenate(drawn)
            # r < cap drops slot r and appends the new sample (rare once the counter is far above the capacity);
            # any other draw replaces the newest slot, so between two such drops only the last draw matters
            prev = -1
            for t in np.flatnonzero(r_all < cap).tolist():
                if t - 1 > prev:
                    slots[-1] = free + t - 1
                del slots[int(r_all[t])]
                slots.append(free + t)
                prev = t
            if todo - 1 > prev:
                slots[-1] = free + todo - 1
            counter = m - 1
            rng.setstate(saved)
            rng.getrandbits(32 * used)
        self.counter = counter
        self.mutations += 1
        # kept samples are Samples or row slots (negative ints); the placeholders are the ints >= 0
        return [j for j, x in enumerate(slots) if type(x) is int and x >= 0]

    def purge(self, step: int, source: str) -> int:
        """Keep samples with a lower step, or a higher step from the same file; return how many went."""
        before = len(self.samples)
        if not before:
            return 0
        kept = [s for s in self.samples if s.step < step or (s.step > step and s.source == source)]
        removed = before - len(kept)
        if removed:
            self.samples = kept
            self.counter = round(self.counter * (len(kept) / before))
            self.mutations += 1
        return removed


def is_row_slot(slot: Any) -> bool:
    """A kept sample held as the row of a stored series (`extend_increasing_rows`), not as a Sample."""
    return type(slot) is int


def slot_row(slot: int) -> int:
    return ~slot


def _word_array(rng: random.Random, count: int) -> np.ndarray:
    """The next `count` 32-bit outputs of `rng`, in generation order."""
    return np.frombuffer(rng.getrandbits(32 * count).to_bytes(4 * count, "little"), dtype="<u4")


def _accepted(words: np.ndarray, start: int, shift: int, m0: int, limit: int) -> tuple[np.ndarray, int]:
    """`randbelow` draws on `words[start:]`, the t-th accepted one below `m0 + t`, all with `word >> shift`, until
    `limit` are accepted or the words run out: (the accepted draws, words consumed). Vectorised by block: a word
    below `m0 + accepted so far` is surely taken, one not below that plus its offset in the block surely rejected;
    only the few in between are decided one by one."""
    out: list[np.ndarray] = []
    taken = 0
    j = start
    block = max(64, (1 << (32 - shift)) >> 6)  # about 1/64 of a block is undecided on average
    offsets = np.arange(block, dtype=np.int64)
    while taken < limit and j < len(words):
        r = (words[j:j + block] >> shift).astype(np.int64)
        base = m0 + taken
        take = r < base
        maybe = ~take & (r < base + offsets[:len(r)])
        if maybe.any():
            before: np.ndarray = np.cumsum(take) - take.astype(np.int64)  # surely taken words before each
            extra = 0  # undecided words before it that were taken
            for q in np.flatnonzero(maybe).tolist():
                if r[q] < base + int(before[q]) + extra:
                    take[q] = True
                    extra += 1
        idx = np.flatnonzero(take)
        if taken + len(idx) >= limit:
            idx = idx[:limit - taken]
            out.append(r[idx])
            return np.concatenate(out), j + int(idx[-1]) + 1 - start
        out.append(r[idx])
        taken += len(idx)
        j += len(r)
    return (np.concatenate(out) if out else np.empty(0, dtype=np.int64)), j - start


def _step(sample: Sample) -> int:
    return sample.step
