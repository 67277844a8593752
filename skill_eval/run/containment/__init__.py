"""Keeping an adapter's processes contained: its cgroup, the reaper of escaped descendants, the
owner lock. Imported by run's process, workspace and judge process."""
