"""One clean-room adapter call: resolving the adapter, the workspace, the process (group,
timeout, caps, cgroup, reaper), protocol v1, the builtin adapters and the judge process.
Imported by the floors above; imports store, plan and below.
"""
