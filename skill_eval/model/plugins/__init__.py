"""A Claude Code plugin under test: ``layout`` (which folder is the plugin the skills belong to,
its name, eval folder and the files the with-skill arm loads), ``folder_suite`` (a plugin folder
run as a suite with ``claude plugin eval``'s defaults). Imported by ``model.config``, the planner
and the runner."""
