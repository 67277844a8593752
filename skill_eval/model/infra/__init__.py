"""Suite keys about the machinery, not the measurement: where runs execute (``executor:``) and
where results are shared (``remote:``); ``where`` reads both. Imported by ``model.config``."""
