"""Judge a stored run again from its stored replies, with no model call.

The verdicts are written back to the store (each with the scorer's name and version), and the
run's summary and exports are written again from them. On an unchanged run and scorer nothing
flips; after an upgrade of bfcl-eval, or with another scorer, what flipped is listed.
"""

from __future__ import annotations

from evalui.core.run_config import RunConfig
from evalui.ops.stored_checks import about_sample, check_verdicts
from evalui.run import epochs, lifecycle
from evalui.store.run_store import RunStore

JUDGEABLE = ("rollout", "judged")


class UnknownRun(ValueError):
    pass


def rescore(store: RunStore, exp_id: str, scorer_name: str | None = None) -> dict:
    from evalui.core.registry import get

    experiment = store.experiment(exp_id)
    if experiment is None:
        raise UnknownRun(f"no stored run {exp_id!r}")
    benchmark = get(experiment["benchmark"])
    scorer = benchmark.scorer(scorer_name)
    config = RunConfig.of(experiment)
    options = benchmark.make_options(config.options)
    if scorer.score is not None:
        def judge(sample):  # the scorer alone: no task, so no call worker, backend or client starts
            return scorer.score(epochs.as_asked(sample), sample.response, options)
    else:  # a plugin benchmark that declares no scorer: its task is its only judge
        task = epochs.with_epochs(benchmark.task(options, store, exp_id), config)

        def judge(sample):
            return task.judge(sample, sample.response)
    version = scorer.version()
    rescored, flipped = 0, []
    samples = store.samples(exp_id)
    check_verdicts(exp_id, samples)  # a damaged verdict is said, not replaced unseen
    for sample in samples:
        if sample.stage not in JUDGEABLE or sample.response is None:
            continue  # never answered (or an endpoint error): nothing to judge without asking again
        with about_sample(exp_id, sample.sample_id):
            prediction, correct, verdict = judge(sample)
        correct = bool(correct)
        verdict = {**(verdict or {}), "scorer": scorer.name, "scorer_version": version}
        if sample.stage == "judged" and bool(sample.correct) != correct:
            flipped.append({"id": sample.sample_id, "group": sample.group, "before": bool(sample.correct),
                            "after": correct, "error_type": verdict.get("error_type")})
        store.record_judgement(exp_id, sample.sample_id, prediction=prediction, correct=correct, verdict=verdict)
        rescored += 1
    summary = lifecycle.export(store, exp_id)
    return {"exp_id": exp_id, "benchmark": benchmark.name, "scorer": scorer.name, "scorer_version": version,
            "rescored": rescored, "changed": len(flipped), "flipped": flipped, "accuracy": summary.get("accuracy"),
            "out_dir": summary.get("out_dir")}
