"""The GAIA agent's tools: ``python`` (code in the sandbox), ``files`` (the attachment) and ``web``.

Each tool is a name, a description and a JSON schema (sent as an OpenAI tool, or described in the
text protocol), and a ``run(arguments, context)`` that returns text for the model. A tool never
raises for the model's mistakes: bad arguments, a failed program or an offline web come back as
an error result the model can read, and the run goes on.
"""
