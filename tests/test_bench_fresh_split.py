"""The fresh split of the matching and retrieval evaluations: measured, never tuned on.

``bench/data/skills/fresh_requests.json`` and ``bench/data/knowledge/fresh_queries.json`` were
written after the thresholds and fusion weights had been tuned on the tuning halves. They stay
useful only while nothing tunes on them: the scripts refuse them with their tuning options, and
the files stay apart from the tuned halves (no shared request, every label a real skill or
document).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKILLS = ROOT / "bench" / "data" / "skills"
KNOWLEDGE = ROOT / "bench" / "data" / "knowledge"


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def run_bench(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *arguments], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.parametrize(
    "command",
    [
        ("bench.skill_match_eval", "--split", "fresh", "--calibrate"),
        ("bench.skill_match_eval", "--split", "fresh", "--misses"),
        ("bench.skill_match_eval", "--split", "fresh", "--show-tuning"),
        ("bench.skill_match_eval", "--split", "fresh", "--tuning-only"),
        ("bench.knowledge_eval", "--split", "fresh", "--tune"),
    ],
)
def test_tuning_options_refuse_the_fresh_split(command: tuple[str, ...]) -> None:
    result = run_bench(*command)
    assert result.returncode == 2
    assert "--split fresh is never tuned on" in result.stderr


def test_skill_requests_of_the_fresh_split_stand_apart() -> None:
    skills = {skill["name"] for skill in read(SKILLS / "skills.json")}
    tuned = read(SKILLS / "requests.json")
    fresh = read(SKILLS / "fresh_requests.json")
    assert {item["split"] for item in tuned} == {"tuning", "held-out"}
    assert {item["split"] for item in fresh} == {"fresh"}
    assert not {item["text"] for item in fresh} & {item["text"] for item in tuned}
    assert not {item["id"] for item in fresh} & {item["id"] for item in tuned}
    assert len({item["id"] for item in fresh}) == len(fresh) >= 240
    for item in fresh:
        assert set(item["expected"]) <= skills, item["id"]
        assert (item["kind"] == "no-skill") == (not item["expected"]), item["id"]
        assert item["lang"] in {"en", "zh", "mixed"}
    kinds = Counter(item["kind"] for item in fresh)
    assert kinds["no-skill"] >= 60
    assert set(kinds) == {"direct", "paraphrase", "near-miss", "no-skill"}


def test_knowledge_queries_of_the_fresh_split_stand_apart() -> None:
    with (KNOWLEDGE / "docs.jsonl").open(encoding="utf-8") as lines:
        documents = {json.loads(line)["id"] for line in lines}
    tuned = read(KNOWLEDGE / "queries.json")
    fresh = read(KNOWLEDGE / "fresh_queries.json")
    assert {item["split"] for item in tuned} == {"tuning", "held-out"}
    assert {item["split"] for item in fresh} == {"fresh"}
    assert not {item["query"] for item in fresh} & {item["query"] for item in tuned}
    assert len(fresh) >= 80
    for item in fresh:
        assert item["relevant"] and set(item["relevant"]) <= documents, item["query"]
        assert item["lang"] in {"en", "zh", "mixed"}
