"""The local model's server process: llama-cpp-python's OpenAI-compatible server, with a chat
format for Gemma 3 that shows the model everything it is sent.

llama-cpp-python's own ``gemma`` format drops system messages, and the GGUF carries no chat
template. This one is Gemma 3's chat template as Google publishes it (bfcl-eval quotes it in its
Gemma handler): the system prompt is folded into the first user turn, as Gemma expects, so the
function docs of BFCL's prompt mode reach the model. Two changes keep any conversation renderable
instead of failing: roles need not alternate, and an empty (null) content is an empty turn.

The model has no function-calling format, so a request with ``tools`` is refused with HTTP 400:
the local model supports BFCL's prompt mode only. It is a base model that seldom ends its turn, so
a request that sets no ``max_tokens`` (bfcl-eval sets none) gets the server's own cap,
``EVALUI_LOCAL_MAX_TOKENS`` (default 128), instead of running to the end of the context; and one
without a ``seed`` is sampled with seed 0, so that the same request gets the same reply.

Run as ``python -m evalui.endpoint.local.server`` with llama_cpp.server's own arguments.
"""

from __future__ import annotations

import functools
import os

from evalui.settings import read

CHAT_FORMAT = "evalui-gemma3"
DEFAULT_SEED = 0

GEMMA3_TEMPLATE = (
    "{{ bos_token }}"
    "{%- if messages[0]['role'] == 'system' -%}"
    "{%- if messages[0]['content'] is string -%}"
    "{%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}"
    "{%- else -%}"
    "{%- set first_user_prefix = messages[0]['content'][0]['text'] + '\n\n' -%}"
    "{%- endif -%}"
    "{%- set loop_messages = messages[1:] -%}"
    "{%- else -%}"
    "{%- set first_user_prefix = '' -%}"
    "{%- set loop_messages = messages -%}"
    "{%- endif -%}"
    "{%- for message in loop_messages -%}"
    "{%- if message['role'] == 'assistant' -%}{%- set role = 'model' -%}"
    "{%- else -%}{%- set role = message['role'] -%}{%- endif -%}"
    "{{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else '') }}"
    "{%- if message['content'] is string -%}"
    "{{ message['content'] | trim }}"
    "{%- elif message['content'] is iterable -%}"
    "{%- for item in message['content'] -%}"
    "{%- if item['type'] == 'text' -%}{{ item['text'] | trim }}{%- endif -%}"
    "{%- endfor -%}"
    "{%- endif -%}"
    "{{ '<end_of_turn>\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<start_of_turn>model\n' }}{%- endif -%}"
)


@functools.cache
def _formatter(eos_id: int, end_of_turn_id: int):
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    # A turn ends at <end_of_turn> (a special token, so it is stopped on by id, not by text).
    return Jinja2ChatFormatter(GEMMA3_TEMPLATE, eos_token="<eos>", bos_token="<bos>",
                               stop_token_ids=[eos_id, end_of_turn_id]).to_chat_handler()


def gemma3_chat_handler(llama, **kwargs):
    if kwargs.get("tools") or kwargs.get("functions"):
        from fastapi import HTTPException

        raise HTTPException(status_code=400, detail="the local model (Gemma 3 270M) has no function-calling "
                            "format: it supports prompt mode only (functions described in the prompt); send no tools")
    if not kwargs.get("max_tokens"):
        kwargs["max_tokens"] = reply_token_cap()
    if kwargs.get("seed") is None:
        # Otherwise each request's seed follows from the requests served before it: the same request
        # could get another reply (at temperature 0.001, near-equal tokens are still drawn by chance).
        kwargs["seed"] = DEFAULT_SEED
    _reuse_only_within_a_conversation(llama, kwargs.get("messages") or [])
    [end_of_turn] = llama.tokenize(b"<end_of_turn>", add_bos=False, special=True)
    return _formatter(llama.token_eos(), end_of_turn)(llama=llama, **kwargs)


_previous_messages: list = []  # the last request's (llama_cpp.server answers one request at a time)


def _reuse_only_within_a_conversation(llama, messages: list) -> None:
    """Keep the evaluated prompt only for a request that continues the last one's conversation.

    llama.cpp reuses the longest common prefix with whatever it evaluated last, and a prompt
    evaluated from another offset comes out with slightly different logits, which temperature
    0.001 turns into different tokens. Starting every new conversation afresh makes a reply depend
    on its own request alone (a conversation's later requests still reuse its earlier ones)."""
    global _previous_messages
    continues = len(messages) > len(_previous_messages) > 0 and messages[:len(_previous_messages)] == _previous_messages
    if not continues:
        llama.reset()
    _previous_messages = list(messages)


def reply_token_cap() -> int:
    return max(1, read("local_max_tokens"))


def register() -> None:
    from llama_cpp.llama_chat_format import LlamaChatCompletionHandlerRegistry

    LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(CHAT_FORMAT, gemma3_chat_handler,
                                                                          overwrite=True)


def _exit_with_parent(parent: int) -> None:
    # An orphaned server would hold a core and gigabytes for nothing (a parent that crashed never stops it).
    import time

    while os.getppid() == parent:
        time.sleep(2)
    os._exit(0)


def main() -> None:
    import threading

    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True, name="exit-with-parent").start()
    register()
    from llama_cpp.server.__main__ import main as serve

    serve()


if __name__ == "__main__":
    main()
