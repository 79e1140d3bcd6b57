"""Where model-written code runs: never in evalui's process, always behind the Sandbox interface.

``base`` defines the interface (a sandbox opens a session per task; a session runs programs in its
own working folder), ``local`` the subprocess sandbox evalui ships, and ``child`` the small
program that sets the limits inside that subprocess before the model's code starts.
"""
