"""The domain: the games, exact odds, the shoe simulator, round-log validation and the metrics.

Nothing here imports dagster or streamlit; callers decide where frames come from and go to.
"""

from models.kernel_cache import use_kernel_cache

use_kernel_cache()
