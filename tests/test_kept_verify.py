"""Kept workspace files are verified on read like the rest of a run entry: one edited in place
(same size, mtime restored) is noticed by a no-op `run`, which runs it again, and by `report`,
which names it and exits 2."""

from __future__ import annotations

import json
import os

from suitekit import ADAPTER, Kit

from skill_eval.engine.state import entry_stamp

# The counting adapter, leaving one file in its workspace (kept with the run under files/).
_ANSWER = "sys.stdout.write(dumps(answer))"
assert _ANSWER in ADAPTER
KEEPING = ADAPTER.replace(_ANSWER, 'open(os.path.join(req["workspace"], "notes.txt"), "w").write('
                          '"notes of " + req["mode"] + "\\n")\n' + _ANSWER, 1)


def _kit(tmp_path) -> Kit:
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1", "a2"]})
    (kit.root / "adapter.py").write_text(KEEPING)
    assert kit.run()[0] == 0
    kit.reset()
    return kit


def _damage_kept_file(kit: Kit, case: str) -> str:
    """Flip one byte of a kept file, keeping its size and mtime: only its ctime moves."""
    key = next(k for k in kit.stored_runs()
               if json.loads((kit.store / "runs" / k[:2] / k / "meta.json").read_text())["case"] == case)
    path = kit.store / "runs" / key[:2] / key / "files" / "notes.txt"
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[0] ^= 1
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    return key


def test_the_adapter_file_is_kept_and_stamped(tmp_path):
    kit = _kit(tmp_path)
    key = kit.stored_runs()[0]
    assert (kit.store / "runs" / key[:2] / key / "files" / "notes.txt").read_text().startswith("notes of ")
    stamp = entry_stamp(kit.store, key)
    assert stamp is not None and not stamp.endswith(":k0")
    assert kit.run()[1].startswith("Up to date") and kit.calls() == 0


def test_a_noop_run_reruns_an_entry_whose_kept_file_was_edited_in_place(tmp_path):
    kit = _kit(tmp_path)
    key = _damage_kept_file(kit, "a1")
    code, out, err = kit.run()
    assert code == 0, out + err
    assert kit.calls() == 1
    [line] = [line for line in err.splitlines() if "damaged" in line]
    assert "agent:alpha/a1/" in line and "removed and run again" in line
    path = kit.store / "runs" / key[:2] / key / "files" / "notes.txt"
    assert path.read_text().startswith("notes of ")  # stored afresh
    kit.reset()
    assert kit.run()[1].startswith("Up to date") and kit.calls() == 0


def test_report_names_an_entry_whose_kept_file_was_edited_in_place(tmp_path):
    kit = _kit(tmp_path)
    _damage_kept_file(kit, "a2")
    code, out, err = kit.cli("report", "suite.yaml", "--format", "json")
    assert code == 2, out + err
    [line] = [line for line in err.splitlines() if "damaged" in line]
    assert line.startswith("skill-eval: the stored run agent:alpha/a2/") and "'skill-eval run'" in line
    assert kit.calls() == 0  # report runs nothing
    assert kit.run()[0] == 0 and kit.calls() == 1


def test_an_entry_without_kept_files_costs_no_folder_listing(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    assert kit.run()[0] == 0
    key = kit.stored_runs()[0]
    stamp = entry_stamp(kit.store, key)
    assert stamp is not None and stamp.endswith(":k0")
    # With the hint, files/ is not listed: a file dropped there later does not move the stamp.
    (kit.store / "runs" / key[:2] / key / "files" / "late.txt").write_text("x")
    assert entry_stamp(kit.store, key, stamp) == stamp
    assert entry_stamp(kit.store, key) != stamp
