"""The endpoint settings shared by every launcher tab: base URL, model and a masked key. The panel
closes to one line ("model @ host ✓") once the endpoint answered, and the browser remembers what was
typed in it (never the key) across a reload."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import gradio as gr

from evalui.endpoint.default_key import key_for
from evalui.endpoint.preflight import PreflightError, probe_endpoint
from evalui.endpoint.settings import DEFAULT_TEMPERATURE, EndpointSettings, default_endpoint
from evalui.endpoint.url_policy import RefusedURL, allow_server_host, check_base_url
from evalui.reports.markdown import defuse_links
from evalui.ui.i18n.strings import t
from evalui.ui.launcher import SHARED_INPUT, Launch, preflight_reason
from evalui.ui.web.access import require_access, say

# A slow endpoint still answers one token within this; a dead one is known long before.
PREFLIGHT_MAX_S = 10.0


@dataclass
class EndpointInputs:
    base_url: gr.Textbox
    model: gr.Textbox
    api_key: gr.Textbox
    temperature: gr.Slider
    max_tokens: gr.Number
    timeout: gr.Number
    # Optional prices per million tokens, for a run's cost: every launcher takes them (launcher.wire's prices).
    price_input: gr.Number | None = None
    price_output: gr.Number | None = None
    panel: gr.Accordion | None = None
    area: gr.Column | None = None  # the panel and the check's result, hidden where no run starts
    memory: Any = None  # a gr.BrowserState: what was typed, but the key

    def components(self) -> list:
        return [self.base_url, self.model, self.api_key, self.temperature, self.max_tokens, self.timeout]

    def remembered(self) -> list:
        """The inputs the browser keeps across a reload: all but the key."""
        return [self.base_url, self.model, self.temperature, self.max_tokens, self.timeout, self.price_input,
                self.price_output]

    def price_components(self) -> list:
        return [self.price_input, self.price_output]


REMEMBERED = ("base_url", "model", "temperature", "max_tokens", "timeout", "price_input", "price_output")
SHARED = [SHARED_INPUT]  # a launcher restores none of these: the panel's memory does


def build_endpoint_panel(demo) -> EndpointInputs:
    base_url, key, _ = default_endpoint()
    key_note = t("endpoint.key_server") if key else t("endpoint.key_none")
    with gr.Column(elem_id="endpoint-area") as area:
        with gr.Accordion(t("endpoint.title"), open=not base_url, elem_id="endpoint-panel") as panel:
            with gr.Row():
                # The server's own base URL never goes to the page (its config is anyone's to read): an
                # empty box stands for it.
                base = gr.Textbox(value="", label=t("endpoint.base_url"), elem_id="endpoint-base-url",
                                  placeholder=t("endpoint.base_url_server") if base_url else "http://127.0.0.1:8000/v1",
                                  elem_classes=SHARED)
                model = gr.Textbox(label=t("endpoint.model"), placeholder=t("endpoint.model_hint"),
                                   elem_id="endpoint-model", elem_classes=SHARED)
                # The server's own key is never sent to the page; an empty box means "use it".
                api_key = gr.Textbox(label=t("endpoint.key"), type="password", placeholder=key_note,
                                     elem_id="endpoint-api-key", elem_classes=SHARED)
            with gr.Row():
                # bfcl-eval's defaults: temperature 0.001, and no max_tokens sent (an empty box)
                temperature = gr.Slider(0.0, 2.0, value=DEFAULT_TEMPERATURE, step=0.001, label=t("endpoint.temperature"),
                                        elem_id="endpoint-temperature", elem_classes=SHARED)
                max_tokens = gr.Number(value=None, precision=0, label=t("endpoint.max_tokens"),
                                       elem_id="endpoint-max-tokens", elem_classes=SHARED)
                timeout = gr.Number(value=60, label=t("endpoint.timeout"), elem_id="endpoint-timeout",
                                    elem_classes=SHARED)
                # 0 is "no price" (pricing.resolve), as the budget's 0 is "no budget"; a default also lets
                # API callers leave the prices out.
                price_input = gr.Number(value=0, minimum=0, label=t("endpoint.price_input"),
                                        info=t("endpoint.price_info"), elem_id="endpoint-price-input",
                                        elem_classes=SHARED)
                price_output = gr.Number(value=0, minimum=0, label=t("endpoint.price_output"),
                                         info=t("endpoint.price_info"), elem_id="endpoint-price-output",
                                         elem_classes=SHARED)
            test = gr.Button(t("endpoint.test"), size="sm", elem_id="endpoint-test", scale=0, min_width=160)
            build_local_model_row(base, model)
        # Below the panel, not in it: the panel closes after a good check, and its result stays in view.
        result = gr.Markdown(elem_id="endpoint-test-result")
    memory = gr.BrowserState(None, storage_key="evalui-endpoint")
    inputs = EndpointInputs(base, model, api_key, temperature, max_tokens, timeout, price_input, price_output,
                            panel=panel, area=area, memory=memory)
    wire_test(inputs, test, result)
    wire_memory(demo, inputs)
    return inputs


def built(panel: gr.Accordion | None) -> gr.Accordion:
    """The panel, which EndpointInputs holds once build_endpoint_panel made it (None before)."""
    if panel is None:
        raise RuntimeError("the endpoint panel is wired before it is built")
    return panel


def panel_line(base_url: str | None, model: str | None, answered: bool) -> str:
    """The closed panel's one line: "model @ host", with "✓" once the endpoint answered."""
    host = urlsplit((base_url or "").strip()).netloc or say("endpoint.server_host")
    return say("endpoint.line_checked" if answered else "endpoint.line", model=(model or "").strip(), host=host)


def typed(values) -> dict:
    return dict(zip(REMEMBERED, values))


def wire_test(inputs: EndpointInputs, test: gr.Button, result: gr.Markdown) -> None:
    def test_connection(base_url, model, api_key, temperature, max_tokens, timeout, *rest):
        require_access("test endpoints")
        kept = typed([base_url, model, temperature, max_tokens, timeout, *rest])
        try:
            answer = defuse_links(preflight(endpoint_settings(base_url, model, api_key, temperature, max_tokens,
                                                              timeout)))
        except gr.Error as exc:  # the endpoint's own words, in a Markdown: no link, no image
            return f"❌ {defuse_links(exc.message)}", gr.skip(), kept
        # A good endpoint needs no more room: closed to its one line, the run's controls and progress
        # come into view.
        return answer, gr.Accordion(open=False, label=panel_line(base_url, model, True)), kept

    # The prices come after the check's own inputs, so API callers of endpoint_test may leave them out.
    test.click(test_connection, [*inputs.components(), *inputs.price_components()], [result, built(inputs.panel),
                                                                                      inputs.memory],
               api_name="endpoint_test", concurrency_limit=4, concurrency_id="endpoint_test")


def wire_memory(demo, inputs: EndpointInputs) -> None:
    """The browser keeps what was typed (the key never) when a field is left, a check is made or a run
    starts (follow_launches); a reload puts it back, the panel closed to its line when it names a model."""
    fields = inputs.remembered()
    server_has_one = bool(default_endpoint()[0])

    def remember(*values):
        return typed(values)

    def restore(memory):
        if not isinstance(memory, dict) or not memory:
            return gr.skip(), *(gr.skip() for _ in fields)
        values = [gr.update(value=memory[name]) if name in memory else gr.skip() for name in REMEMBERED]
        named = (memory.get("model") or "").strip() and ((memory.get("base_url") or "").strip() or server_has_one)
        panel = gr.Accordion(open=False, label=panel_line(memory.get("base_url"), memory["model"], False)) if named \
            else gr.skip()
        return panel, *values

    def retitled():
        # The line vouched for what was there before; the title again until the next check or start.
        return gr.Accordion(label=say("endpoint.title"))

    for box in (inputs.base_url, inputs.model):
        box.blur(remember, fields, [inputs.memory], api_visibility="private", show_progress="hidden")
        box.input(retitled, None, [built(inputs.panel)], api_visibility="private", show_progress="hidden",
                  trigger_mode="always_last")
    demo.load(restore, [inputs.memory], [inputs.panel, *fields], api_visibility="private")


def follow_launches(inputs: EndpointInputs, launches: list[Launch]) -> None:
    """After every start: the panel closes to its line when the run started (the endpoint answered
    its check), and the browser keeps what was typed."""
    fields = inputs.remembered()

    def after_start(run_id, *values):
        kept = typed(values)
        if not run_id:
            return gr.skip(), kept
        return gr.Accordion(open=False, label=panel_line(kept["base_url"], kept["model"], True)), kept

    for launch in launches:
        launch.started.then(after_start, [launch.run_id, *fields], [inputs.panel, inputs.memory],
                            api_visibility="private", show_progress="hidden")


def build_local_model_row(base: gr.Textbox, model: gr.Textbox) -> None:
    """Start or stop the offline local model, and point the endpoint at it."""
    from evalui.endpoint.local import model as local

    with gr.Row():
        start = gr.Button(t("local.start"), size="sm", elem_id="local-model-start",
                          interactive=local.is_installed())
        stop = gr.Button(t("local.stop"), size="sm", elem_id="local-model-stop", interactive=local.is_installed())
        note = gr.Markdown(t("local.notice") if local.is_installed() else t("local.missing"))

    def start_local():
        require_access("start the local model")
        try:
            url = local.local_model().start()
        except local.LocalModelUnavailable as exc:
            raise gr.Error(str(exc)) from None
        # The server's own model listens on loopback, which a shared deployment refuses to visitors' URLs.
        allow_server_host(urlsplit(url).netloc)
        gr.Info(say("local.notice"))
        return url, local.MODEL_NAME, say("msg.local_running", url=url, notice=say("local.notice"))

    def stop_local():
        require_access("stop the local model")
        local.local_model().stop()
        return say("msg.local_stopped")

    start.click(start_local, None, [base, model, note], api_name="local_model_start")
    stop.click(stop_local, None, [note], api_name="local_model_stop")


def endpoint_settings(base_url: str, model: str, api_key: str, temperature: float, max_tokens: float, timeout: float,
                      price_input: float | None = None, price_output: float | None = None) -> EndpointSettings:
    """Settings from the page; an empty base URL is the server's own. The server's key is used only
    for the server's own endpoint, so a visitor cannot send it to a URL of their choosing."""
    base_url = (base_url or "").strip() or default_endpoint()[0]
    model = (model or "").strip()
    if not base_url:
        raise gr.Error(say("msg.need_base_url"))
    try:
        check_base_url(base_url)
    except RefusedURL as exc:
        raise gr.Error(say("msg.url_refused", reason=html.escape(str(exc)))) from None
    if not model:
        raise gr.Error(say("msg.need_model"))
    key = (api_key or "").strip() or key_for(base_url)
    return EndpointSettings(
        base_url=base_url,
        model=model,
        api_key=key,
        temperature=float(temperature) if temperature not in (None, "") else DEFAULT_TEMPERATURE,
        max_tokens=int(max_tokens) if max_tokens else None,
        timeout_s=float(timeout or 60),
        price_input_per_m=float(price_input) if price_input not in (None, "") else None,
        price_output_per_m=float(price_output) if price_output not in (None, "") else None,
    )


def preflight(settings: EndpointSettings) -> str:
    """One tiny request before a run: a message for the page, or gr.Error saying what is wrong."""
    try:
        answer = probe_endpoint(settings, timeout_s=min(float(settings.timeout_s or PREFLIGHT_MAX_S), PREFLIGHT_MAX_S))
    except (RefusedURL, PreflightError) as exc:
        raise gr.Error(preflight_reason(exc)) from None
    note = say("msg.endpoint_rate_limited") if answer.rate_limited else ""
    return say("msg.endpoint_ok", host=html.escape(answer.host), seconds=f"{answer.seconds:.2f}") + note
