"""The AIME steps' named scorers. Each judges a stored reply again with no model call, so
``evalui rescore EXP --scorer NAME`` can, say, hold a judged file to the excellence bar."""

from __future__ import annotations

from evalui.benchmarks.aime.tasks import judge_generated, judge_pair, judge_scores
from evalui.core.benchmark import Scorer
from evalui.stats.metrics import EXCELLENT_THRESHOLD, JUDGE_DIMENSIONS, PASS_THRESHOLD


def _judge_with_pass_mark(pass_mark: float):
    def score(sample, reply, options):
        return judge_scores(sample, reply, pass_mark=pass_mark)

    return score


LLM_JUDGE = Scorer("aime_llm_judge", f"the judge model's four 1–5 scores ({', '.join(JUDGE_DIMENSIONS)}); pass "
                   f"when their mean is at least {PASS_THRESHOLD}",
                   score=_judge_with_pass_mark(PASS_THRESHOLD))
LLM_JUDGE_EXCELLENT = Scorer("aime_llm_judge_excellent", f"the same stored scores held to the excellence bar: pass "
                             f"when their mean is at least {EXCELLENT_THRESHOLD}",
                             score=_judge_with_pass_mark(EXCELLENT_THRESHOLD))
GENERATED_PROBLEM = Scorer("aime_problem_validity", "a generated problem is valid when it parses, its answer is an "
                           "integer from 0 to 999, and it is not a near-duplicate of one already accepted",
                           score=judge_generated)
PAIRWISE_PREFERENCE = Scorer("aime_pairwise_preference", "the judge prefers the generated problem in both orders; "
                             "order-dependent pairs are ties", score=judge_pair)
