"""The line a simulation run prints: its rate leaves out the one-time build of the compiled kernels."""

from numba.core.event import Event, EventStatus

from models.simulate.run import Summary, _outermost_seconds


def test_nested_compiles_count_once():
    start, end = (Event("numba:compile", status) for status in (EventStatus.START, EventStatus.END))
    # a compile that compiles a callee (1.0 to 4.0), then another (10.0 to 10.5)
    events = [(1.0, start), (2.0, start), (3.0, end), (4.0, end), (10.0, start), (10.5, end)]
    assert _outermost_seconds(events) == 3.5


def test_the_rate_is_of_dealing_alone():
    built = Summary(shoes=10, coups=2_000_000, seconds=46.0, compiling=45.0).line()
    assert "(2.00 M coups/s; 45.0 s of that built the compiled kernels, once)" in built
    cached = Summary(shoes=10, coups=2_000_000, seconds=1.0).line()
    assert cached.endswith("in 1.0 s (2.00 M coups/s)")
