"""doit entry point: `doit [suite=configs/x.yaml] [doit options]` runs the same tasks as
`skill-eval run`. Every task is listed; up-to-date checks ask skill-eval's store."""

import atexit
import sys

from doit import get_var

from skill_eval.engine.engine import Engine
from skill_eval.engine.tasks import DOIT_COMMANDS, dodo_groups, doit_config  # noqa: F401
from skill_eval.errors import InvalidInput
from skill_eval.model.project import load_project
from skill_eval.store.store import Store

try:
    _project = load_project(get_var("suite", "configs/demo.yaml"))
    if _project.errors:
        raise InvalidInput(_project.problems)
except InvalidInput as _exc:  # the same one-line problems as `skill-eval validate`, no traceback
    for _problem in _exc.problems:
        print(_problem.format(), file=sys.stderr)
    sys.exit(2)
_engine = Engine(_project, Store(_project.suite.store))
# What ran is recorded for `skill-eval status` (its reasons), as after `skill-eval run`.
atexit.register(_engine.save_state)
DOIT_CONFIG = {k: v for k, v in doit_config(_engine).items() if k != "reporter"}


def _group(base: str, dicts: list) -> object:
    def creator():  # noqa: ANN202
        yield {"basename": base, "name": None, "doc": f"{base} tasks"}
        for d in dicts:
            yield {"basename": base, **d}
    creator.__name__ = f"task_{base}"
    return creator


for _base, _dicts in dodo_groups(_engine):
    if _base == "summary":
        globals()["task_summary"] = (lambda d=_dicts[0]: {k: v for k, v in d.items() if k != "basename"})
    else:
        globals()[f"task_{_base}"] = _group(_base, _dicts)
