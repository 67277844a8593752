"""doit entry point: `doit [suite=configs/x.yaml] [doit options]` runs the same tasks as
`skill-eval run` and ends with the ``verdict`` task (doit exits 1 unless the verdict is pass).
Every task is listed; up-to-date checks ask skill-eval's store.

The example of a dodo.py of your own: in your project, beside your own tasks,

    from skill_eval.doit import task_creators
    globals().update(task_creators("evals/suite.yaml", task_dep=["fixtures"]))

or, without a dodo.py, `skill-eval doit evals/suite.yaml [doit arguments]`.
"""

import sys

from doit import get_var

from skill_eval.engine.dodo import SuiteTasks
from skill_eval.errors import InvalidInput

_tasks = SuiteTasks(get_var("suite", "configs/demo.yaml"))
try:
    DOIT_CONFIG = _tasks.config()  # the suite's own doit DB in its store; `verdict` by default
except InvalidInput as _exc:  # the same one-line problems as `skill-eval validate`, no traceback
    for _problem in _exc.problems:
        print(_problem.format(), file=sys.stderr)
    sys.exit(2)
globals().update(_tasks.creators())
