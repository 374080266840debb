"""app.ids.new_id: prefixed, time-ordered ids, strictly increasing within a process (a monotonic
ULID's rule: in the same millisecond the random part goes up by one), in the same format as ever."""

from __future__ import annotations

import itertools
import os
import re
import secrets
import threading
import time
from typing import Any

import pytest

from app.ids import new_id

FORMAT = re.compile(r"^tc_[0-9a-f]{12}[0-9a-f]{8}$")


def body(identifier: str) -> str:
    return identifier.split("_", 1)[1]


class TestMonotonic:
    def test_ids_made_in_a_tight_loop_strictly_increase(self) -> None:
        made = [new_id("tc_") for _ in range(50_000)]
        assert all(FORMAT.match(identifier) for identifier in made)
        assert all(earlier < later for earlier, later in itertools.pairwise(made))
        # So many in a loop share milliseconds: the rule for the same instant was exercised.
        assert len({identifier[3:15] for identifier in made}) < len(made)

    def test_the_order_holds_across_prefixes(self) -> None:
        made = [new_id(prefix) for _ in range(2_000) for prefix in ("tc_", "run_", "msg_")]
        bodies = [body(identifier) for identifier in made]
        assert all(earlier < later for earlier, later in itertools.pairwise(bodies))

    def test_same_millisecond_adds_one_to_the_random_part(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(time, "time", lambda: 1_800_000_000.0005)
        first, second, third = (new_id("tc_") for _ in range(3))
        assert first[3:15] == second[3:15] == third[3:15] == f"{1_800_000_000_000:012x}"
        assert int(second[15:], 16) == int(first[15:], 16) + 1
        assert int(third[15:], 16) == int(first[15:], 16) + 2

    def test_a_clock_set_back_does_not_make_a_smaller_id(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(time, "time", lambda: 1_900_000_000.0)
        before = new_id("tc_")
        monkeypatch.setattr(time, "time", lambda: 1_899_999_000.0)
        after = new_id("tc_")
        assert after > before
        assert after[3:15] == before[3:15]

    def test_a_used_up_random_part_moves_to_the_next_millisecond(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(time, "time", lambda: 2_000_000_000.0)
        monkeypatch.setattr(secrets, "randbelow", lambda limit: limit - 2)
        made = [new_id("tc_") for _ in range(3)]
        assert [identifier[15:] for identifier in made] == ["fffffffe", "ffffffff", "fffffffe"]
        assert int(made[2][3:15], 16) == int(made[1][3:15], 16) + 1
        assert made == sorted(made) and len(set(made)) == 3

    def test_threads_get_distinct_ids_each_in_order(self) -> None:
        per_thread: list[list[str]] = [[] for _ in range(4)]

        def make(out: list[str]) -> None:
            out.extend(new_id("tc_") for _ in range(5_000))

        threads = [threading.Thread(target=make, args=(out,)) for out in per_thread]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        everything = [identifier for out in per_thread for identifier in out]
        assert len(set(everything)) == len(everything)
        for out in per_thread:
            assert out == sorted(out)

    def test_a_forked_child_does_not_continue_the_parents_sequence(self, monkeypatch: Any) -> None:
        # Parent and child in the same millisecond: adding one to the same last id would collide.
        monkeypatch.setattr(time, "time", lambda: 2_100_000_000.0)
        new_id("tc_")
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            os.close(read)
            os.write(write, new_id("tc_").encode())
            os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            child = pipe.read().decode()
        os.waitpid(pid, 0)
        parent = new_id("tc_")
        assert FORMAT.match(child)
        assert child != parent
