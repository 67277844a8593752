"""The shared remote tier behind the local store (``remote:``; docs/remote.md).

``objects`` is the one client of the object store (obstore: S3, GCS, Azure, a local folder);
``entries`` packs, signs and verifies one write-once entry; ``provenance`` says who wrote it;
``tier`` is what the engine and the commands use: fetch, verify and adopt into the local store,
push in the background, warn once and carry on locally when the remote fails. Part of the store
floor: it imports nothing above the store.
"""
