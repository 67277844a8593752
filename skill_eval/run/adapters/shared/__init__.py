"""What the builtin adapters share: protocol I/O, the agent CLI base, failure causes, bundled
skills, the judge prompt, trajectories, Codex's session log. Imported by the builtin adapter
modules beside it and by run; imports none of them."""
