"""The instruction texts GAIA sends the model.

They live apart from ``prompt`` so that ``scoring``, which must stay pure, can recognise a reply
that only repeats them.
"""

from __future__ import annotations

# The system prompt of the GAIA paper and leaderboard, unchanged.
GAIA_SYSTEM_PROMPT = (
    "You are a general AI assistant. I will ask you a question. Report your thoughts, and finish your answer "
    "with the following template: FINAL ANSWER: [YOUR FINAL ANSWER]. YOUR FINAL ANSWER should be a number OR "
    "as few words as possible OR a comma separated list of numbers and/or strings. If you are asked for a number, "
    "don't use comma to write your number neither use units such as $ or percent sign unless specified otherwise. "
    "If you are asked for a string, don't use articles, neither abbreviations (e.g. for cities), and write the "
    "digits in plain text unless specified otherwise. If you are asked for a comma separated list, apply the above "
    "rules depending of whether the element to be put in the list is a number or a string."
)

AGENT_NOTE = ("You can use tools to work out the answer. When you have it, reply without calling a tool and "
              "finish with the template above: FINAL ANSWER: [YOUR FINAL ANSWER].")

INSTRUCTIONS = (GAIA_SYSTEM_PROMPT, AGENT_NOTE)
