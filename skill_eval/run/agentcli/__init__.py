"""An agent CLI's builtin before its first run: where its executable is on the user's PATH and
what of it the sandbox must mount (``locate``), and whether a run can start at all (``preflight``:
the CLI, its version, its credentials, the scaffolds, the judge). Imported by run/resolve.py
(mounts), run/judge_process.py's callers and the CLI (validate, run)."""
