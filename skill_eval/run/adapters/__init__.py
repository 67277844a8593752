"""Adapters: every kind is a protocol-v1 process; one module per builtin.

``skill_eval.run.resolve`` turns a suite's ``adapter:`` into a process to start;
``skill_eval.model.builtins`` registers the builtins, one descriptor each naming its module here
and what it can do.

Builtins are modules run as ``python -m skill_eval.run.adapters.<module>``. They are imported only
when a suite names them (to read their version), so one missing or broken builtin never breaks
the others. A builtin module may define:

- ``BUILTIN_VERSION`` (str): bump it when the adapter's behaviour changes; it is in the run key.
- ``ENV`` (tuple of names): environment variables it always needs passed through.
- ``build_args(options: dict, suite) -> list[str]``: its command-line from ``adapter.options``;
  without it, options become ``--name value`` flags (``_`` → ``-``, lists repeat, true → flag).
- ``identity_extra(options: dict, suite) -> dict``: more run-key material (e.g. a digest of
  recorded answers); never absolute paths or environment values.
"""
