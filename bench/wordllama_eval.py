"""A second local model beside USE v3: ``wordllama`` (static token embeddings), tuning halves only.

#17's fourth round found that no fusion or weighting lever helps the long English requests the
shipped vector list (multilingual USE v3) ranks wrong ("a new source of signal is needed"). This
script measures one candidate source: ``wordllama`` 0.4.0.post1 (MIT, a 19 MB wheel holding its
weights, ``l2_supercat_256``: LLaMA-2 token embeddings, 256 dimensions, average-pooled; numpy,
safetensors and tokenizers, no PyTorch), loaded from the wheel's own files with no download.

Knowledge (``bench/data/knowledge/queries.json``, tuning half): each tuning query's shipped lists
as ``searchKnowledge(topK: 5)`` reads them (``knowledge_levers_leads.collect``), ranked by
``search.py``'s own fusion, against variants that add wordllama's nearest passages as a fourth
list (ranked into documents like the others) or put them in place of USE's list for queries
not mostly CJK. Skills (``bench/skill_match_eval.py``'s sets, tuning half): wordllama's best
cosine over a skill's description and hints as an extra semantic score beside the shipped ones.

Won / lost are counted against what ships over the whole tuning half and over its two folds
(even and odd positions), so a gain has to show in both. Nothing here reads a held-out half or
the fresh split. ``--throughput`` times ingest-style embedding (USE and wordllama) of the
knowledge set's passages.

    .venv/bin/pip install wordllama==0.4.0.post1      # not a dependency of Quiver
    .venv/bin/python -m bench.wordllama_eval [--skills | --skills-only] [--throughput]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from app.knowledge.embeddings import passage_texts
from app.knowledge.search import VECTOR_WEIGHT
from app.knowledge.tokens import is_mostly_unspaced
from bench.common import load_average
from bench.knowledge_eval import KINDS, LANGUAGES
from bench.knowledge_levers_leads import DEPTH, Lab, Passages, collect, ranking, recall

Matrix = npt.NDArray[np.float32]


class WordLlama:
    """``wordllama``'s ``l2_supercat_256`` from the files inside its wheel (its own ``load`` looks
    for the tokenizer under a directory name the wheel does not use, then downloads it)."""

    def __init__(self) -> None:
        try:
            import wordllama
        except ImportError as error:
            raise SystemExit("needs wordllama: .venv/bin/pip install wordllama==0.4.0.post1") from error
        from safetensors import safe_open
        from tokenizers import Tokenizer
        from wordllama.inference import WordLlamaInference

        root = Path(wordllama.__file__).parent
        tokenizer = Tokenizer.from_file(str(root / "tokenizers" / "l2_supercat_tokenizer_config.json"))
        with safe_open(str(root / "weights" / "l2_supercat_256.safetensors"), framework="np") as weights:
            embedding = weights.get_tensor("embedding.weight")
        self.model = WordLlamaInference(embedding, tokenizer, binary=False)

    def embed(self, texts: Sequence[str]) -> Matrix:
        matrix: Matrix = np.asarray(self.model.embed(list(texts), norm=True, batch_size=64), dtype=np.float32)
        return matrix


def folds(numbers: Sequence[int]) -> list[list[int]]:
    return [list(numbers[0::2]), list(numbers[1::2])]


def won_lost(got: dict[int, float], base: dict[int, float], numbers: Sequence[int]) -> str:
    return f"{sum(got[n] > base[n] for n in numbers)} / {sum(got[n] < base[n] for n in numbers)}"


# -- knowledge ----------------------------------------------------------------------------------


def knowledge(lab: Lab, model: WordLlama) -> None:
    ids = lab.ids
    passages_wl = model.embed([lab.texts[int(chunk_id)] for chunk_id in ids])
    passages_wl_cut = model.embed(passage_texts(lab.embedder, [lab.texts[int(chunk_id)] for chunk_id in ids]))
    queries_wl = {n: v for n, v in zip(lab.tuning, model.embed([lab.queries[n].text for n in lab.tuning]), strict=True)}
    document_of = lab.document_of

    def spaced(number: int) -> bool:
        return not is_mostly_unspaced(lab.queries[number].text)

    def nearest(similarities: Matrix) -> Passages:
        best = np.argsort(-similarities, kind="stable")[:DEPTH]
        return [(int(ids[i]), float(similarities[i])) for i in best]

    def wl_list(number: int, matrix: Matrix = passages_wl) -> Passages:
        return nearest(matrix @ queries_wl[number])

    def as_documents(found: Passages, decay: float = 0.2) -> list[tuple[str, float]]:
        scores: dict[str, list[float]] = {}
        for chunk_id, score in found:
            scores.setdefault(document_of[chunk_id], []).append(score)
        return [(d, sum(s * decay**j for j, s in enumerate(sorted(v, reverse=True)))) for d, v in scores.items()]

    def fourth(weight: float, only_spaced: bool, matrix: Matrix = passages_wl) -> Callable[[int], list[str]]:
        def variant(number: int) -> list[str]:
            if only_spaced and not spaced(number):
                return ranking(lab, number)
            return ranking(lab, number, documents=[(as_documents(wl_list(number, matrix)), weight)])

        return variant

    def long_only(weight: float) -> Callable[[int], list[str]]:
        """The 4th list only for long requests (10 words or more, not mostly CJK): the misses."""

        def variant(number: int) -> list[str]:
            if not spaced(number) or len(lab.queries[number].text.split()) < 10:
                return ranking(lab, number)
            return ranking(lab, number, documents=[(as_documents(wl_list(number)), weight)])

        return variant

    def instead(weight: float, matrix: Matrix = passages_wl) -> Callable[[int], list[str]]:
        def variant(number: int) -> list[str]:
            if not spaced(number):
                return ranking(lab, number)
            return ranking(lab, number, vector=wl_list(number, matrix), vector_weight=weight)

        return variant

    def blended(share: float) -> Callable[[int], list[str]]:
        """The vector list by USE cosine + ``share`` x wordllama cosine (queries not mostly CJK)."""

        def variant(number: int) -> list[str]:
            if not spaced(number):
                return ranking(lab, number)
            use = lab.matrix @ lab.query_vectors[number]
            score = (use + share * (passages_wl @ queries_wl[number])).astype(np.float32)
            return ranking(lab, number, vector=lab.nearest(score, threshold=use))

        return variant

    variants: dict[str, Callable[[int], list[str]]] = {
        "shipped (passages, USE vectors and leads fused by document)": lambda n: ranking(lab, n),
        "wordllama passages only (instead of all three lists)": lambda n: [
            d for d, _ in sorted(as_documents(wl_list(n)), key=lambda item: -item[1])
        ],
        "wordllama as a 4th list, weight 0.5, all queries": fourth(0.5, False),
        "wordllama as a 4th list, weight 0.5, not mostly CJK": fourth(0.5, True),
        "wordllama as a 4th list, weight 1, not mostly CJK": fourth(1.0, True),
        "wordllama as a 4th list, weight 1, all queries": fourth(1.0, False),
        "wordllama as a 4th list, weight 2, not mostly CJK": fourth(2.0, True),
        "wordllama as a 4th list, weight 0.5, long (>= 10 words) not mostly CJK": long_only(0.5),
        "wordllama as a 4th list, weight 1, long (>= 10 words) not mostly CJK": long_only(1.0),
        "wordllama (350-char passages) as a 4th list, weight 1, not mostly CJK": fourth(1.0, True, passages_wl_cut),
        f"wordllama instead of USE, weight {VECTOR_WEIGHT:g}, not mostly CJK": instead(VECTOR_WEIGHT),
        "wordllama instead of USE, weight 1, not mostly CJK": instead(1.0),
        "vector list by USE + 0.5 x wordllama cosine, not mostly CJK": blended(0.5),
        "vector list by USE + 1 x wordllama cosine, not mostly CJK": blended(1.0),
    }
    groups = [("all", lab.tuning)] + [(g, [n for n in lab.tuning if lab.queries[n].language == g]) for g in LANGUAGES]
    groups += [(g, [n for n in lab.tuning if lab.queries[n].kind == g]) for g in KINDS]
    names = [
        f"{name} ({'language' if place <= len(LANGUAGES) else 'kind'})" if name == "mixed" else name
        for place, (name, _) in enumerate(groups)
    ]
    first, second = folds(lab.tuning)
    print(f"\n### knowledge, tuning half, recall@5 of the documents (load average {load_average():.2f})\n")
    print("| variant | " + " | ".join(names) + " | won / lost | fold 1 | fold 2 |")
    print("|---|" + "---:|" * (len(groups) + 3))
    base = {n: recall(ranking(lab, n), lab.queries[n]) for n in lab.tuning}
    for name, variant in variants.items():
        got = {n: recall(variant(n), lab.queries[n]) for n in lab.tuning}
        cells = [f"{sum(got[n] for n in numbers) / max(1, len(numbers)):.3f}" for _, numbers in groups]
        print(
            f"| {name} | "
            + " | ".join(cells)
            + f" | {won_lost(got, base, lab.tuning)} | {won_lost(got, base, first)} | {won_lost(got, base, second)} |",
            flush=True,
        )
    print(
        "| queries | " + " | ".join(str(len(numbers)) for _, numbers in groups) + f" | | {len(first)} | {len(second)} |"
    )

    # Where the answers of the queries the shipped fusion misses stand in wordllama's document list.
    print("\nTuning misses (shipped), the answers' ranks in wordllama's document list (of 40 passages; -: absent):\n")
    for n in lab.tuning:
        if base[n] == 1.0:
            continue
        ordered = [d for d, _ in sorted(as_documents(wl_list(n)), key=lambda item: -item[1])]
        ranks = ", ".join(
            f"{d} {ordered.index(d) + 1 if d in ordered else '-'}" for d in sorted(lab.queries[n].relevant)
        )
        print(f"- [{lab.queries[n].language}/{lab.queries[n].kind}] {lab.queries[n].text[:90]!r}: {ranks}")


# -- throughput ---------------------------------------------------------------------------------


def throughput(lab: Lab, model: WordLlama) -> None:
    texts = [lab.texts[int(chunk_id)] for chunk_id in lab.ids]
    cut = passage_texts(lab.embedder, texts)
    # Distinct texts each round, so nothing is a repeat within a call.
    rounds = [[f"{i} {t}" for t in cut] for i in range(2)]
    print(f"\n### ingest-style embedding of {len(texts)} passages (load average {load_average():.2f})\n")
    started = time.perf_counter()
    asyncio.run(lab.embedder.embed(rounds[0]))
    use_s = time.perf_counter() - started
    started = time.perf_counter()
    model.embed([f"1 {t}" for t in texts])
    wl_s = time.perf_counter() - started
    print(f"- USE v3 (350 characters, shipped batching): {len(texts) / use_s:.0f} passages/s")
    print(f"- wordllama (whole passage, one thread): {len(texts) / wl_s:.0f} passages/s")
    print(f"- both, one after the other: {len(texts) / (use_s + wl_s):.0f} passages/s")
    print(f"(load average {load_average():.2f})")


# -- skills -------------------------------------------------------------------------------------


def skills(model: WordLlama) -> None:
    asyncio.run(_skills(model))


async def _skills(model: WordLlama) -> None:
    from app.knowledge.embeddings import LocalEmbeddings
    from app.skills import matching
    from app.skills.matching import EmbeddingCache, SkillMatcher, gate, is_mostly_unspaced_request, latin_share
    from bench.skill_match_eval import KINDS as SKILL_KINDS
    from bench.skill_match_eval import LANGS, Request, document_of, fit_logistic, load

    catalogue, requests = load()
    documents = [document_of(skill) for skill in catalogue]
    tuning = [request for request in requests if request.split == "tuning"]
    matcher = SkillMatcher(embeddings=EmbeddingCache(LocalEmbeddings()))
    calibration = matcher.calibration
    index = matching._SemanticIndex.build(
        documents, list(model.embed([text for document in documents for text in document.semantic_texts()]))
    )
    request_vectors = model.embed([matching.semantic_form(request.text) for request in tuning])
    ids = [document.skill_id for document in documents]

    pools: list[list[matching.Candidate]] = []
    passes: list[bool] = []
    lifts: list[Matrix] = []
    bests: list[Matrix] = []
    for request, vector in zip(tuning, request_vectors, strict=True):
        pool = await matcher.candidates(documents, request.text)
        pools.append(pool)
        kept = gate(
            pool,
            calibration,
            is_mostly_unspaced_request(request.text),
            matcher.is_cut(request.text),
            latin_share(request.text),
        )
        passes.append(bool(kept))
        best, _, _ = index.per_skill(index.matrix @ vector)
        bests.append(best)
        lifts.append(best - best.mean())

    def returned(number: int, probability: Callable[[matching.Candidate], float]) -> list[str]:
        """What matchSkills returns with the shipped gate's decision (unchanged: it reads the
        pool's own features) and the candidates ordered by ``probability``, the runner-up rule
        on it."""
        if not passes[number]:
            return []
        scored = sorted(
            ((probability(c), c.document.skill_id) for c in pools[number]), key=lambda item: (-item[0], item[1])
        )
        top = scored[0][0]
        return [skill for score, skill in scored if score >= matching.RUNNER_UP_SHARE * top][:5]

    def logit(p: float) -> float:
        p = min(max(p, 1e-9), 1 - 1e-9)
        return float(np.log(p / (1 - p)))

    def nudged(weight: float, only_spaced: bool) -> Callable[[int], list[str]]:
        def variant(number: int) -> list[str]:
            if only_spaced and is_mostly_unspaced_request(tuning[number].text):
                return returned(number, lambda c: c.probability)
            lift = lifts[number]
            return returned(number, lambda c: 1 / (1 + np.exp(-(logit(c.probability) + weight * float(lift[c.index])))))

        return variant

    # Two-fold refits of the candidate model on the tuning half: the shipped features, and the same
    # plus wordllama's (best cosine, and its lift over the catalogue's mean), each fold scored by the
    # weights fitted on the other.
    first, second = folds(list(range(len(tuning))))

    def rows(numbers: Sequence[int], extra: bool) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        features, labels = [], []
        for n in numbers:
            for c in pools[n]:
                wl = [float(bests[n][c.index]), float(lifts[n][c.index])] if extra else []
                features.append([*c.features, *wl])
                labels.append(float(c.document.skill_id in tuning[n].expected))
        return np.asarray(features), np.asarray(labels)

    refitted: dict[bool, dict[int, list[str]]] = {False: {}, True: {}}
    for extra in (False, True):
        for train, test in ((first, second), (second, first)):
            weights = fit_logistic(*rows(train, extra))
            for n in test:
                wl = {c.index: [float(bests[n][c.index]), float(lifts[n][c.index])] if extra else [] for c in pools[n]}
                refitted[extra][n] = returned(
                    n, lambda c, weights=weights, wl=wl: matching.logistic(weights, [*c.features, *wl[c.index]])
                )

    def wl_only(number: int) -> list[str]:
        if not passes[number]:
            return []
        return [ids[i] for i in np.argsort(-bests[number], kind="stable")[:5]]

    variants: dict[str, Callable[[int], list[str]]] = {
        "shipped (USE v3, calibrated gate)": lambda n: returned(n, lambda c: c.probability),
        "wordllama alone ranks (shipped gate decides whether)": wl_only,
        "shipped + 2 x wordllama lift (logit), all": nudged(2.0, False),
        "shipped + 5 x wordllama lift (logit), all": nudged(5.0, False),
        "shipped + 5 x wordllama lift (logit), not mostly CJK": nudged(5.0, True),
        "shipped + 10 x wordllama lift (logit), not mostly CJK": nudged(10.0, True),
        "shipped + 15 x wordllama lift (logit), not mostly CJK": nudged(15.0, True),
        "shipped + 20 x wordllama lift (logit), not mostly CJK": nudged(20.0, True),
        "shipped + 30 x wordllama lift (logit), not mostly CJK": nudged(30.0, True),
        "shipped + 60 x wordllama lift (logit), not mostly CJK": nudged(60.0, True),
        "shipped + 100 x wordllama lift (logit), not mostly CJK": nudged(100.0, True),
        "refit, shipped features (2-fold, control)": lambda n: refitted[False][n],
        "refit, + wordllama best and lift (2-fold)": lambda n: refitted[True][n],
    }
    positives = [n for n in range(len(tuning)) if tuning[n].expected]
    groups = [("all", positives)] + [(g, [n for n in positives if tuning[n].lang == g]) for g in LANGS]
    groups += [(g, [n for n in positives if tuning[n].kind == g]) for g in SKILL_KINDS if g != "no-skill"]

    def hit(found: list[str], request: Request) -> float:
        return float(any(skill in request.expected for skill in found[:5]))

    pooled = sum(any(c.document.skill_id in tuning[n].expected for c in pools[n]) for n in positives)
    wl_top = sum(any(ids[i] in tuning[n].expected for i in np.argsort(-bests[n])[:10]) for n in positives)
    missing = sum(
        not any(c.document.skill_id in tuning[n].expected for c in pools[n])
        and any(ids[i] in tuning[n].expected for i in np.argsort(-bests[n])[:10])
        for n in positives
    )
    gated_out = sum(not passes[n] for n in positives)
    rankable = sum(
        passes[n]
        and not hit(variants["shipped (USE v3, calibrated gate)"](n), tuning[n])
        and any(c.document.skill_id in tuning[n].expected for c in pools[n])
        for n in positives
    )
    print(f"\n### skills, tuning half, recall@5 of matchSkills (load average {load_average():.2f})\n")
    print(
        f"{len(positives)} tuning requests with a right skill ({len(tuning) - len(positives)} no-skill: the gate is "
        f"the shipped one in every row, so their false matches do not move). Candidate pool (stage one, "
        f"{matching.CANDIDATES} skills) holds a right skill for {pooled}; wordllama's first 10 for {wl_top}; "
        f"wordllama's first 10 would add one the pool lacks for {missing}. Of the shipped misses, {gated_out} are "
        f"the gate's (nothing returned) and {rankable} have a right skill in the pool below the first five (all an "
        f"extra ranking feature can win).\n"
    )
    names = [f"{g} (kind)" if g == "mixed" and place > len(LANGS) else g for place, (g, _) in enumerate(groups)]
    print("| variant | " + " | ".join(names) + " | won / lost | fold 1 | fold 2 |")
    print("|---|" + "---:|" * (len(groups) + 3))
    base = {n: hit(variants["shipped (USE v3, calibrated gate)"](n), tuning[n]) for n in positives}
    p1 = [n for n in first if tuning[n].expected]
    p2 = [n for n in second if tuning[n].expected]
    for name, variant in variants.items():
        got = {n: hit(variant(n), tuning[n]) for n in positives}
        cells = [f"{sum(got[n] for n in numbers) / max(1, len(numbers)):.3f}" for _, numbers in groups]
        print(
            f"| {name} | "
            + " | ".join(cells)
            + f" | {won_lost(got, base, positives)} | {won_lost(got, base, p1)} | {won_lost(got, base, p2)} |",
            flush=True,
        )
    print("| requests | " + " | ".join(str(len(numbers)) for _, numbers in groups) + f" | | {len(p1)} | {len(p2)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", action="store_true", help="also the skills' tuning half")
    parser.add_argument("--skills-only", action="store_true", help="only the skills' tuning half")
    parser.add_argument("--throughput", action="store_true", help="also time ingest-style embedding")
    arguments = parser.parse_args()
    print(f"(load average at the start {load_average():.2f})")
    model = WordLlama()
    if not arguments.skills_only:
        lab = asyncio.run(collect())
        print(f"# wordllama_eval — tuning halves only ({len(lab.tuning)} knowledge queries)")
        knowledge(lab, model)
        if arguments.throughput:
            throughput(lab, model)
    if arguments.skills or arguments.skills_only:
        skills(model)
    print(f"\n(load average at the end {load_average():.2f})")


if __name__ == "__main__":
    main()
