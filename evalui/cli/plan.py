"""``evalui plan``: how many samples (and epochs) a comparison needs to find a given difference in
accuracy, before anything runs. Closed forms in evalui.stats.power; ``--simulate`` checks them."""

from __future__ import annotations

from evalui.errors import InputError


def register(commands) -> None:
    parser = commands.add_parser(
        "plan", help="samples (and epochs) needed to detect a difference in accuracy (80%% power, α = 0.05)",
        description="Samples per run needed to detect a difference in accuracy with a two-sided test. "
                    "Unpaired: two runs on different samples (Fleiss' two-proportion formula). --paired: both runs "
                    "on the same samples, compared by McNemar's test as `evalui compare` and the gate do (Connor's "
                    "formula); it needs the correlation between the two runs' outcomes (--correlation) or the share "
                    "of discordant samples (--discordant). Clusters and epochs multiply the independent answers "
                    "needed by the design effect 1 + (m − 1)·ICC, m being the answers per cluster "
                    "(cluster size × epochs); epochs divide the samples by their number.")
    parser.add_argument("--baseline", type=float, required=True, metavar="P", help="accuracy of the baseline run (0–1)")
    parser.add_argument("--effect", type=float, required=True, metavar="D",
                        help="the difference to detect, in accuracy (0.05 is 5 points; negative for a drop)")
    parser.add_argument("--paired", action="store_true", help="both runs answer the same samples (McNemar)")
    parser.add_argument("--correlation", type=float, default=0.5, metavar="PHI",
                        help="paired: correlation between the two runs' outcomes on a sample (default 0.5; two "
                             "versions of one model are often 0.4–0.7; `evalui compare` shows the flips to estimate it)")
    parser.add_argument("--discordant", type=float, metavar="PSI",
                        help="paired: share of samples on which the runs disagree (replaces --correlation)")
    parser.add_argument("--epochs", type=int, default=1, metavar="K", help="answers per sample (default 1)")
    parser.add_argument("--icc", type=float, default=0.0, metavar="R",
                        help="correlation between two answers of one cluster: a sample's epochs, or samples "
                             "sharing a conversation (default 0; a run with epochs reports its own as epochs.icc)")
    parser.add_argument("--cluster-size", type=int, default=1, metavar="M",
                        help="samples per cluster, e.g. 4 for four multi-turn variants of one base entry (default 1)")
    parser.add_argument("--alpha", type=float, default=0.05, help="two-sided significance level (default 0.05)")
    parser.add_argument("--power", type=float, default=0.80, help="power (default 0.80)")
    parser.add_argument("--simulate", type=int, nargs="?", const=2000, metavar="REPLICATES",
                        help="also find the samples needed by simulation (default 2000 replicates per size)")
    parser.set_defaults(handler=run_plan)


def run_plan(args) -> int:
    from evalui.cli.summary import print_summary
    from evalui.stats.power import Design, plan

    try:
        design = Design(baseline=args.baseline, effect=args.effect, paired=args.paired, epochs=args.epochs,
                        cluster_size=args.cluster_size, icc=args.icc, correlation=args.correlation,
                        discordant=args.discordant, alpha=args.alpha, power=args.power)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    record = plan(design)
    if args.simulate is not None:
        if args.simulate < 100:
            raise InputError("--simulate needs at least 100 replicates")
        from evalui.stats.power_simulation import simulated_samples

        try:
            simulated = simulated_samples(design, replicates=args.simulate, seed=0)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        record["simulated_samples"] = simulated
        record["simulation_gap"] = (record["samples"] - simulated) / simulated
    print(plan_text(record))
    print_summary(record)
    return 0


def plan_text(record: dict) -> str:
    """What a person reads above the JSON line."""
    lines = [f"To detect {record['baseline']:.1%} → {record['target']:.1%} ({record['effect'] * 100:+.1f} pts) with "
             f"{record['power']:.0%} power at α = {record['alpha']:g} (two-sided):"]
    epochs = f", each asked {record['epochs']} times ({record['answers']} answers per run)" if record["epochs"] > 1 else ""
    if record["paired"]:
        assumption = (f"a correlation of {record['correlation']:g} between the runs' outcomes"
                      if record["correlation"] is not None else "the discordant share given")
        lines.append(f"  {record['samples']} samples, both runs on the same samples{epochs}; McNemar's test.")
        lines.append(f"  Assumes {assumption}: {record['discordant']:.1%} of samples answered right by one run only.")
        if record["design_effect"] == 1:
            lines.append("  The exact McNemar test that evalui runs needs about 3–8 % more than this asymptotic figure "
                         "(--simulate finds it).")
    else:
        lines.append(f"  {record['samples']} samples per run, two runs on different samples{epochs}.")
    if record["design_effect"] != 1:
        lines.append(f"  Design effect {record['design_effect']:.2f} (ICC {record['icc']:g}, {record['cluster_size']} "
                     f"samples × {record['epochs']} epochs per cluster) on {record['independent_answers']:.0f} "
                     "independent answers.")
    if "samples_with_unlimited_epochs" in record:
        lines.append(f"  No number of epochs gets below {record['samples_with_unlimited_epochs']} samples at this ICC.")
    if record["epochs"] > 1 and record["icc"] == 0:
        lines.append("  Note: ICC 0 treats a sample's epochs as independent; they rarely are. A run with epochs "
                     "reports its own ICC (epochs.icc in its summary): pass it with --icc.")
    if "simulated_samples" in record:
        lines.append(f"  Simulation: {record['simulated_samples']:.0f} samples reach {record['power']:.0%} power "
                     f"({record['simulation_gap']:+.1%} from the closed form).")
    lines.append(f"  Formula: {record['formula']}.")
    return "\n".join(lines)
