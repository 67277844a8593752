"""Who runs the eval cases: a suite's ``adapter:`` and its ``agents:`` axis as frozen configs
(``configs``). Imported by ``model.config``, which builds the Suite; nothing here reads a skill."""
