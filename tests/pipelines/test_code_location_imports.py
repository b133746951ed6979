"""Loading the code location imports Dagster and the definitions, not what the steps compute with: the
code server `banco up` keeps running (and every step's process) stays small and starts quickly."""

import json
import subprocess
import sys

#: Loaded by a step when it runs, never by loading the definitions: each costs tens to hundreds of MB.
COMPUTE = ("numba", "scipy", "pyiceberg", "models.metrics.build", "models.simulate.run", "models.warehouse.ingest")


def test_loading_the_definitions_leaves_the_compute_libraries_unloaded():
    code = "import json, sys; import pipelines.definitions; print(json.dumps(sorted(sys.modules)))"
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout))
    assert "dagster" in loaded and "pipelines.defs.marts.assets" in loaded
    assert not [name for name in COMPUTE if name in loaded]
