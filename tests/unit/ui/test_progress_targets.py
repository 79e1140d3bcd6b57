"""Events mark few components with their progress: Gradio 6's page pays for every marked one on
every status message (see evalui/ui/tabs/progress_targets.py)."""

import gradio as gr

from evalui.ui.tabs.progress_targets import limit_progress_targets


def _targets(demo: gr.Blocks) -> dict[str, list | None]:
    return {dep["api_name"]: dep["show_progress_on"] for dep in demo.get_config_file()["dependencies"]}


def test_hidden_progress_marks_nothing_and_shown_progress_marks_the_first_shown_output():
    with gr.Blocks() as demo:
        kept = gr.State(None)
        status = gr.Markdown()
        table = gr.Dataframe()
        log = gr.Textbox()
        gr.Timer(1).tick(lambda s: (s, "", None, ""), [kept], [kept, status, table, log], api_name="tick",
                         show_progress="hidden")
        gr.Button("go").click(lambda s: (s, "", None), [kept], [kept, status, table], api_name="go")
        gr.Button("one").click(lambda: "", None, [log], api_name="one")
        gr.Button("state").click(lambda s: (s, ""), [kept], [kept, log], api_name="state")
        gr.Button("own").click(lambda: ("", ""), None, [status, log], api_name="own", show_progress_on=[log])
    limit_progress_targets(demo)
    ids = _targets(demo)
    assert ids["tick"] == []
    assert ids["go"] == [status._id]  # the State before it is not on the page
    assert ids["state"] == [log._id]
    assert ids["one"] is None  # one output already: left to Gradio
    assert ids["own"] == [log._id]  # chosen where the event was wired


def test_no_event_of_the_dashboard_marks_more_than_one_component(monkeypatch, tmp_path):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    for name in ("EVALUI_ALLOWED_USERS", "SPACE_ID", "EVALUI_SHARED"):
        monkeypatch.delenv(name, raising=False)
    import app

    demo = app.build_demo()
    config = demo.get_config_file()
    many = [(dep["api_name"], len(dep["outputs"])) for dep in config["dependencies"]
            if len(dep["show_progress_on"] if dep["show_progress_on"] is not None else dep["outputs"]) > 1]
    assert many == []
    timers = [dep for dep in config["dependencies"] if any(t[1] == "tick" for t in dep["targets"])]
    assert timers and all(dep["show_progress_on"] == [] for dep in timers)
