"""Pieces of ``bench/skill_match_eval.py``: the smoothed threshold rule ``--calibrate`` uses for the
local model's gate (the expected tail of the no-skill requests' gate probabilities, not their count),
and the catalogues of ``--out-of-catalogue``."""

from __future__ import annotations

from bench.skill_match_eval import smoothed_threshold


def share_at_or_above(probabilities: list[float], cut: float) -> float:
    return sum(probability >= cut for probability in probabilities) / len(probabilities)


def test_the_cut_keeps_clear_of_a_cluster_the_count_would_sit_just_above() -> None:
    # 43 everyday requests: most well under passing, three just under 0.78 and one at 0.977 (as
    # the tuning half's English ones were). Counted, a 3 % budget allows one: the cut would be
    # 0.777, a hair above three of them. The smoothed tail keeps well clear of the cluster.
    probabilities = [0.02 * index for index in range(38)] + [0.74, 0.76, 0.774, 0.776, 0.977]
    assert share_at_or_above(probabilities, 0.777) == 1 / 43
    cut = smoothed_threshold(probabilities, 0.05)
    assert 0.85 < cut < 0.977
    assert share_at_or_above(probabilities, cut) == 1 / 43


def test_a_larger_budget_gives_a_lower_cut_and_the_floor_holds() -> None:
    probabilities = [0.1 * (index % 9) + 0.02 for index in range(60)]
    assert smoothed_threshold(probabilities, 0.10) < smoothed_threshold(probabilities, 0.03)
    assert smoothed_threshold(probabilities, 0.10, floor=0.95) >= 0.95
    assert smoothed_threshold([], 0.05, floor=0.4) == 0.4


def test_out_of_catalogue_removes_every_right_skill_and_nothing_else() -> None:
    from bench.skill_match_eval import Request, document_of, load, without_right_skills

    skills, requests = load()
    documents = [document_of(skill) for skill in skills]
    request = next(item for item in requests if len(item.expected) >= 1)
    kept = without_right_skills(documents, request)
    assert {document.skill_id for document in kept} == {document.skill_id for document in documents} - set(
        request.expected
    )
    everyday = Request("x", "Which beach is best in July?", "en", "no-skill", (), "tuning")
    assert without_right_skills(documents, everyday) == documents
