"""Reading untrusted files: YAML and JSON with the position of every key, our schemas loaded and
checked (every error with its path), bounds on size and nesting, text no file can hold, risky
regexes, and JSON Schemas that eval sets bring.

The model's readers call these to turn a user's file into Problems or plain data; above the
model only the layers that meet untrusted bytes themselves use them (``run`` for adapter
responses, ``grade`` for a ``json_schema`` check). Imports nothing of ours but
``skill_eval.errors``.
"""
