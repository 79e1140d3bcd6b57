"""Validity scanners: deterministic checks of a stored sample (its trajectory, verdict and payload)
that say when a verdict measures the environment rather than the model (an endpoint error, a
truncated reply, a tool that crashed) or deserves a second look (a refusal, a loop, an answer
already in the prompt). See evalui.scanners.registry for the list and evalui.scanners.validity
for the valid-sample score.

Pure functions over stored values: nothing here reads the store or calls a model; the run core
(evalui.run.findings) hands each scanner a sample and a context.
"""
