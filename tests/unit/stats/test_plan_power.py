"""`evalui plan`'s closed forms: the textbook figures, and agreement within 10 % with a simulation
(fixed seed) that applies the test evalui applies to simulated runs."""
from __future__ import annotations

import math

import pytest
from scipy.stats import norm

from evalui.stats.power import Design, independent_answers, plan, samples_needed
from evalui.stats.power_simulation import simulated_power, simulated_samples

pytestmark = pytest.mark.unit


def test_unpaired_matches_fleiss_two_proportion_formula():
    p1, p2 = 0.70, 0.75
    mean = (p1 + p2) / 2
    expected = (norm.ppf(0.975) * math.sqrt(2 * mean * (1 - mean))
                + norm.ppf(0.8) * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) ** 2 / 0.05 ** 2
    assert independent_answers(Design(0.70, 0.05)) == pytest.approx(expected)
    assert plan(Design(0.70, 0.05))["samples"] == 1251


def test_paired_uses_the_discordant_share_from_the_correlation():
    design = Design(0.70, 0.05, paired=True, correlation=0.5)
    both, a_only, b_only, neither = design.cells()
    assert both + a_only + b_only + neither == pytest.approx(1)
    assert (both + a_only, both + b_only) == pytest.approx((0.70, 0.75))
    # phi of the 2×2 table is the correlation asked for
    phi = (both * neither - a_only * b_only) / math.sqrt(0.70 * 0.30 * 0.75 * 0.25)
    assert phi == pytest.approx(0.5)
    psi = a_only + b_only
    expected = (norm.ppf(0.975) * math.sqrt(psi) + norm.ppf(0.8) * math.sqrt(psi - 0.0025)) ** 2 / 0.0025
    assert independent_answers(design) == pytest.approx(expected)
    assert samples_needed(Design(0.70, 0.05, paired=True, discordant=psi)) == pytest.approx(expected)
    # Pairing pays: fewer samples than two separate runs need.
    assert plan(design)["samples"] < plan(Design(0.70, 0.05))["samples"] / 1.9
    with pytest.raises(ValueError, match="impossible"):
        Design(0.70, 0.05, paired=True, correlation=0.95)
    with pytest.raises(ValueError, match="impossible"):
        Design(0.70, 0.05, paired=True, discordant=0.01)


def test_epochs_and_clusters_follow_the_design_effect():
    base = samples_needed(Design(0.70, 0.05))
    with_epochs = plan(Design(0.70, 0.05, epochs=5, icc=0.5))
    assert with_epochs["design_effect"] == pytest.approx(3.0)
    assert with_epochs["samples"] == math.ceil(base * 3 / 5) and with_epochs["answers"] == 5 * with_epochs["samples"]
    assert with_epochs["samples_with_unlimited_epochs"] == math.ceil(base * 0.5)
    assert plan(Design(0.70, 0.05, epochs=4, icc=1.0))["samples"] == plan(Design(0.70, 0.05))["samples"]
    clustered = plan(Design(0.70, 0.05, cluster_size=4, icc=0.25))
    assert clustered["design_effect"] == pytest.approx(1.75) and clustered["clusters"] == math.ceil(clustered["samples"] / 4)


DESIGNS = [
    (Design(0.70, 0.05), 4000),
    (Design(0.50, 0.10), 4000),
    (Design(0.90, -0.10), 4000),
    (Design(0.70, 0.05, paired=True), 4000),
    (Design(0.70, 0.05, paired=True, correlation=0.2), 4000),
    (Design(0.70, 0.05, paired=True, discordant=0.1), 4000),
    (Design(0.70, 0.10, epochs=4, icc=0.3), 1000),
    (Design(0.70, 0.10, cluster_size=4, icc=0.5), 1000),
    (Design(0.70, 0.10, paired=True, epochs=3, icc=0.5), 1000),
]


@pytest.mark.parametrize("design, replicates", DESIGNS, ids=lambda d: repr(d) if isinstance(d, Design) else str(d))
def test_the_closed_form_agrees_with_the_simulation_within_10_percent(design, replicates):
    simulated = simulated_samples(design, replicates=replicates, seed=11)
    assert samples_needed(design) == pytest.approx(simulated, rel=0.10)


def test_the_simulated_power_at_the_planned_size_is_near_80_percent():
    design = Design(0.70, 0.05)
    assert simulated_power(design, plan(design)["samples"], replicates=4000, seed=3) == pytest.approx(0.80, abs=0.03)
    assert simulated_power(design, 300, replicates=2000, seed=3) < 0.4
