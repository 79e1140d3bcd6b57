"""The offline model: a llama.cpp server started on this machine."""
