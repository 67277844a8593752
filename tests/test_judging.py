"""A run's judge requests asked concurrently (grade/judging.py ``ask_all``): at most the port's
``concurrency`` at once, answers in the order asked, each kept as it comes, so a failure keeps
the answers already given for the next run."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from skill_eval.errors import JudgeError
from skill_eval.grade.judge import Ask
from skill_eval.grade.judging import ask_all
from skill_eval.store.store import Store


class SlowJudge:
    name = "slow"
    prompt_version = "1"
    identity: dict[str, Any] = {}

    def __init__(self, concurrency: int, fail_on: str = "") -> None:
        self.concurrency = concurrency
        self.fail_on = fail_on
        self.lock = threading.Lock()
        self.now = self.most = 0

    def call(self, request: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(0.1)
        with self.lock:
            self.now -= 1
        if request["n"] == self.fail_on:
            raise JudgeError("judge slow exited with status 1")
        return {"g": {"passed": True, "evidence": request["n"]}}, {"input_tokens": 1}


def _asks(n: int) -> list[Ask]:
    return [Ask(f"{i:064x}", {"n": str(i)}) for i in range(n)]


@pytest.mark.parametrize("width", [1, 3])
def test_requests_run_concurrently_up_to_the_ports_concurrency(tmp_path: Path, width: int):
    judge = SlowJudge(width)
    answers = ask_all(judge, Store(tmp_path), _asks(6))
    assert [a["verdicts"]["g"]["evidence"] for a in answers] == [str(i) for i in range(6)]
    assert judge.most == width


def test_a_failure_is_raised_after_the_others_and_their_answers_are_kept(tmp_path: Path):
    store = Store(tmp_path)
    judge = SlowJudge(3, fail_on="1")
    asks = _asks(3)
    with pytest.raises(JudgeError, match="status 1"):
        ask_all(judge, store, asks)
    kept = [store.get_json("judge", a.key) for a in asks]
    assert kept[0] is not None and kept[1] is None and kept[2] is not None
