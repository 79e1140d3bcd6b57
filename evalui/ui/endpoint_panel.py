"""The endpoint settings shared by every launcher tab: base URL, model and a masked key."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from evalui.engine.default_key import key_for
from evalui.engine.settings import EndpointSettings, default_endpoint
from evalui.ui.access import require_access
from evalui.ui.strings import t


@dataclass
class EndpointInputs:
    base_url: gr.Textbox
    model: gr.Textbox
    api_key: gr.Textbox
    temperature: gr.Slider
    max_tokens: gr.Number
    timeout: gr.Number

    def components(self) -> list:
        return [self.base_url, self.model, self.api_key, self.temperature, self.max_tokens, self.timeout]


def build_endpoint_panel() -> EndpointInputs:
    base_url, key, _ = default_endpoint()
    key_note = t("endpoint.key_server") if key else t("endpoint.key_none")
    with gr.Accordion(t("endpoint.title"), open=not base_url):
        with gr.Row():
            base = gr.Textbox(value=base_url, label=t("endpoint.base_url"), placeholder="http://127.0.0.1:8000/v1", elem_id="endpoint-base-url")
            model = gr.Textbox(label=t("endpoint.model"), placeholder=t("endpoint.model_hint"), elem_id="endpoint-model")
            # The server's own key is never sent to the page; an empty box means "use it".
            api_key = gr.Textbox(label=t("endpoint.key"), type="password", placeholder=key_note, elem_id="endpoint-api-key")
        with gr.Row():
            temperature = gr.Slider(0.0, 2.0, value=0.0, step=0.1, label=t("endpoint.temperature"))
            max_tokens = gr.Number(value=1024, precision=0, label=t("endpoint.max_tokens"))
            timeout = gr.Number(value=60, label=t("endpoint.timeout"))
        build_local_model_row(base, model)
    return EndpointInputs(base, model, api_key, temperature, max_tokens, timeout)


def build_local_model_row(base: gr.Textbox, model: gr.Textbox) -> None:
    """Start or stop the offline local model, and point the endpoint at it."""
    from evalui.engine import local_model as local

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
        gr.Info(local.NOTICE)
        return url, local.MODEL_NAME, f"**Local model running at {url}.** {local.NOTICE}"

    def stop_local():
        require_access("stop the local model")
        local.local_model().stop()
        return "Local model stopped."

    start.click(start_local, None, [base, model, note], api_name="local_model_start")
    stop.click(stop_local, None, [note], api_name="local_model_stop")


def endpoint_settings(base_url: str, model: str, api_key: str, temperature: float, max_tokens: float, timeout: float) -> EndpointSettings:
    """Settings from the page. The server's key is used only for the server's own endpoint, so a
    visitor cannot send it to a URL of their choosing."""
    base_url = (base_url or "").strip()
    model = (model or "").strip()
    if not base_url:
        raise gr.Error("Set the endpoint's base URL first.")
    if not model:
        raise gr.Error("Set the model name first.")
    key = (api_key or "").strip() or key_for(base_url)
    return EndpointSettings(
        base_url=base_url,
        model=model,
        api_key=key,
        temperature=float(temperature or 0.0),
        max_tokens=int(max_tokens) if max_tokens else None,
        timeout_s=float(timeout or 60),
    )
