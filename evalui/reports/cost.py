"""The report's section on cost: what the run cost at its price, per sample and per correct answer,
and where the price came from (evalui.run.pricing)."""

from __future__ import annotations

from evalui.reports.markdown import inert


def usd(value: float | None) -> str:
    return "–" if value is None else f"${value:.4f}"


def cost_lines(summary: dict) -> list[str]:
    cost = summary.get("cost") or {}
    if cost.get("usd") is None:
        return ["## Cost", "", "No price is known for this model: give --price-input/--price-output or --prices FILE "
                "to cost a run.", ""] if "cost" in summary else []
    price = cost.get("price") or {}
    # A prices file is the user's: its name and sources are shown inert (no link, no markup).
    source = {"run": "prices given with the run", "file": f"the prices file {inert(str(price.get('file', '')))}",
              "table": "evalui's pinned price table"}.get(cost.get("priced_by"), "–")
    dated = f", {price['source']} as of {price['as_of']}" if price.get("source", "").startswith("https://") \
        and price.get("as_of") else ""
    lines = ["## Cost", "",
             f"- Cost of the run: **{usd(cost['usd'])}** ({cost.get('input_tokens', 0)} input and "
             f"{cost.get('output_tokens', 0)} output tokens; failed attempts count, they were billed too)",
             f"- Per sample: {usd(cost.get('per_sample_usd'))} · per correct answer: "
             f"**{usd(cost.get('per_correct_usd'))}**",
             f"- Price: ${price.get('input_per_m')} / ${price.get('output_per_m')} per million input / output "
             f"tokens, from {source}{inert(dated)}; list prices, no caching or batch discounts"]
    if cost.get("max_cost_usd") is not None:
        lines.append(f"- Budget (--max-cost): {usd(cost['max_cost_usd'])}"
                     + (" — spent: the run stopped before its end and can be resumed with a higher one"
                        if summary.get("status") == "budget_spent" else ""))
    return [*lines, ""]
