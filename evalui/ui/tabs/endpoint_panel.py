"""The endpoint settings shared by every launcher tab: base URL, model and a masked key."""

from __future__ import annotations

import html
from dataclasses import dataclass
from urllib.parse import urlsplit

import gradio as gr

from evalui.endpoint.default_key import key_for
from evalui.endpoint.preflight import PreflightError, probe_endpoint
from evalui.endpoint.settings import DEFAULT_TEMPERATURE, EndpointSettings, default_endpoint
from evalui.endpoint.url_policy import RefusedURL, allow_server_host, check_base_url
from evalui.reports.markdown import defuse_links
from evalui.ui.i18n.strings import t
from evalui.ui.launcher import preflight_reason
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

    def components(self) -> list:
        return [self.base_url, self.model, self.api_key, self.temperature, self.max_tokens, self.timeout]

    def price_components(self) -> list:
        return [self.price_input, self.price_output]


def build_endpoint_panel() -> EndpointInputs:
    base_url, key, _ = default_endpoint()
    key_note = t("endpoint.key_server") if key else t("endpoint.key_none")
    with gr.Accordion(t("endpoint.title"), open=not base_url, elem_id="endpoint-panel") as panel:
        with gr.Row():
            # The server's own base URL never goes to the page (its config is anyone's to read): an
            # empty box stands for it.
            base = gr.Textbox(value="", label=t("endpoint.base_url"), elem_id="endpoint-base-url",
                              placeholder=t("endpoint.base_url_server") if base_url else "http://127.0.0.1:8000/v1")
            model = gr.Textbox(label=t("endpoint.model"), placeholder=t("endpoint.model_hint"), elem_id="endpoint-model")
            # The server's own key is never sent to the page; an empty box means "use it".
            api_key = gr.Textbox(label=t("endpoint.key"), type="password", placeholder=key_note, elem_id="endpoint-api-key")
        with gr.Row():
            # bfcl-eval's defaults: temperature 0.001, and no max_tokens sent (an empty box)
            temperature = gr.Slider(0.0, 2.0, value=DEFAULT_TEMPERATURE, step=0.001, label=t("endpoint.temperature"))
            max_tokens = gr.Number(value=None, precision=0, label=t("endpoint.max_tokens"))
            timeout = gr.Number(value=60, label=t("endpoint.timeout"))
            # 0 is "no price" (pricing.resolve), as the budget's 0 is "no budget"; a default also lets
            # API callers leave the prices out.
            price_input = gr.Number(value=0, minimum=0, label=t("endpoint.price_input"), info=t("endpoint.price_info"),
                                    elem_id="endpoint-price-input")
            price_output = gr.Number(value=0, minimum=0, label=t("endpoint.price_output"),
                                     info=t("endpoint.price_info"), elem_id="endpoint-price-output")
        inputs = EndpointInputs(base, model, api_key, temperature, max_tokens, timeout, price_input, price_output)
        test = gr.Button(t("endpoint.test"), size="sm", elem_id="endpoint-test", scale=0, min_width=160)
        build_local_model_row(base, model)
    # Below the panel, not in it: the panel closes after a good check, and its result stays in view.
    result = gr.Markdown(elem_id="endpoint-test-result")
    wire_test(inputs, test, result, panel)
    return inputs


def wire_test(inputs: EndpointInputs, test: gr.Button, result: gr.Markdown, panel: gr.Accordion) -> None:
    def test_connection(base_url, model, api_key, temperature, max_tokens, timeout):
        require_access("test endpoints")
        try:
            answer = defuse_links(preflight(endpoint_settings(base_url, model, api_key, temperature, max_tokens,
                                                              timeout)))
        except gr.Error as exc:  # the endpoint's own words, in a Markdown: no link, no image
            return f"❌ {defuse_links(exc.message)}", gr.skip()
        # A good endpoint needs no more room: closed, the run's controls and progress come into view.
        return answer, gr.Accordion(open=False)

    test.click(test_connection, inputs.components(), [result, panel], api_name="endpoint_test", concurrency_limit=4,
               concurrency_id="endpoint_test")


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
