"""File-system primitives: atomic writes through temp files with the umask's mode, storage faults
(a full disk, a read-only folder) named in one line, stat-cached content hashes, and the one
mapping from a user's name to a path component.

Everything that writes or hashes files uses these: the store, the runner, the engine and the
results layer alike, so none of them reaches into the model for them. Imports nothing of ours
but ``skill_eval.errors``.
"""
