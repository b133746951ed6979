"""Build the marts for the gaming days of a run (one partition, or a whole backfill in one run)."""

import dagster as dg

from models.warehouse import schema
from pipelines.defs.core.assets import key_of
from pipelines.defs.marts.shards import SHARD_MARTS
from pipelines.defs.metadata import table_metadata
from pipelines.defs.partitions import GAMING_DAYS, run_days
from pipelines.defs.resources import Warehouse
from pipelines.defs.shards import SERVING, SHARDING

DESCRIPTIONS = {
    schema.MARTS_BANKER_STREAKS: "Bank tenures (banker-pass streaks) per shoe, observed or by the passing rule; "
    "chemin_de_fer bank size and levy.",
    schema.MARTS_DECISION_RUNS: "Runs of consecutive Banker and Player decisions per shoe.",
    schema.MARTS_TENURE_FIT: "Tenure lengths against the geometric law per table, game and month.",
    schema.MARTS_COMMISSION: "Commission revenue per table and gaming day against its expectation.",
    schema.MARTS_COMMISSION_BY_DEALER: "Commission revenue per dealer and gaming day.",
    schema.MARTS_COMMISSION_PER_UNIT: "Commission per unit staked on every Banker decision (logs without bets).",
    schema.MARTS_TIE_FREQUENCY: "Tie rate per table and gaming day against exact, with p-values and FDR flags.",
    schema.MARTS_TIE_FREQUENCY_BY_SHOE: "Tie rate per shoe against exact.",
    schema.MARTS_TIE_FREQUENCY_BY_DEALER: "Tie rate per dealer and gaming day against exact.",
    schema.MARTS_TIES_BY_TOTAL: "Ties by total against the exact distribution.",
    schema.MARTS_TABLE_DAY: "Handle, house win, theoretical win, hold and win-vs-theo z per table and day.",
    schema.MARTS_DEALER_DAY: "Handle, house win, theo and win-vs-theo z per dealer, table and gaming day.",
    schema.MARTS_SHOE_SUMMARY: "Per shoe: B/P/T, naturals, pairs, longest runs, cards dealt, reconciliation.",
    schema.MARTS_PLAYER_SESSIONS: "Player ratings: each player's continuous play at one table, with decisions, "
    "average bet, house win, theo and win-vs-theo z.",
    schema.MARTS_PLAYER_DAY: "Per player and gaming day: the ratings' sums, sessions, tables and comp value.",
    schema.MARTS_PLAYER_BETS: "Per player, gaming day and bet: wagers, handle, house win and theo.",
    schema.MARTS_PLAYERS: "Per player over all time: visits, totals, average bet, theo, house win and z.",
    schema.MARTS_SIDE_BETS: "Per table, gaming day and side bet (tie, pairs, dragon7, panda8, egalite): hold "
    "against theo and z.",
    schema.MARTS_DEALER_PACE: "Coups per hour per dealer, table and gaming day against the house median, with "
    "the dealer's quarantined rows by reason.",
    schema.MARTS_COUP_EDGES: "Surveillance: the exact house edge of every bet before each coup of a shoe whose "
    "cards are logged, given the cards dealt before it, with the player's best bet.",
    schema.MARTS_DECISIONS: "Every free draw of Chemin de Fer and Baccarat Banque (the punter on 5, the banker's "
    "optional draws): what the decider saw, the exact worth of drawing and of standing, and the cost of the choice.",
    schema.MARTS_DECISION_SUMMARY: "Per punter's day at a table and per bank tenure: free decisions, deviations from "
    "the better choice and their expected cost in money.",
    schema.MARTS_DECISION_STYLES: "Per player over all time, in each game and role: the free decisions' "
    "log-likelihood under always drawing, always standing, the equilibrium and the house's policy, and the "
    "best-fitting style with its evidence.",
    schema.MARTS_SURVEILLANCE_SESSIONS: "Surveillance per rating: wagers at an advantage against the share "
    "expected by chance, edge won, a permutation test of betting when the edge is high, and Zender's pattern.",
    schema.MARTS_SURVEILLANCE_PLAYER_DAY: "Surveillance per player and gaming day: the ratings' evidence summed, "
    "a combined p-value and its false-discovery q-value over the day's players.",
    schema.MARTS_SURVEILLANCE_FLAGS: "Surveillance flags: players and ratings whose timing beat chance after the "
    "false-discovery correction, and Zender's sit-out-then-bet-the-maximum pattern.",
    schema.MARTS_TABLE_SHIFT: "The count room per table and shift: opener, closer, fills, credits, drop and win "
    "by the count, beside the wagers' house win and theo, and the difference, reconciled or not.",
    schema.MARTS_COUNT_ROOM: "The count room per table and gaming day: the shifts' drop, win and hold beside the "
    "wagers' win and theoretical hold, and the shifts left unreconciled.",
    schema.MARTS_STATISTICAL_REPORT: "The regulators' statistical report per table, game and gaming day: daily, "
    "month- and year-to-date drop, win and win-to-drop, with Maryland's, Kansas's and Ohio's investigation flags.",
}
SHARDS = [asset.key for asset in SHARD_MARTS]


@dg.multi_asset(
    name="marts",
    specs=[
        dg.AssetSpec(key_of(table), description=text, deps=SHARDS, kinds={"polars", "duckdb"}, group_name="marts")
        for table, text in DESCRIPTIONS.items()
    ],
    partitions_def=GAMING_DAYS,
    backfill_policy=dg.BackfillPolicy.single_run(),
    pool="duckdb",
    op_tags=SERVING,
)
def build_marts(context: dg.AssetExecutionContext, warehouse: Warehouse):
    """Every shard's marts of the run's gaming days combined (the tie marts' false-discovery
    correction over the whole day, the per-dealer marts over every table) and stored in the serving
    file, with the tenure fit of their months."""
    from models.metrics import staleness
    from models.metrics.build import build_from_partials
    from models.metrics.days import days_with_coups

    asked = run_days(context)
    with warehouse.latest() as con:
        with_coups = set(days_with_coups(con, warehouse.gaming_day))
    days = [day for day in asked if day in with_coups]
    context.log.info(f"{len(days)} of {len(asked)} gaming days hold coups")
    if not days:  # nothing dealt on these days: no rows to compute
        for table in DESCRIPTIONS:
            yield dg.MaterializeResult(asset_key=key_of(table), metadata={"rows_written": 0, "days_with_coups": 0})
        return
    # a build that fails raises (the run fails) and is noted beside the warehouse for its readers
    written = build_from_partials(warehouse.db_path, warehouse.mart_config, days, SHARDING)
    for held in written.held_back:  # stored without them: the marts lack these table-days
        context.log.warning(staleness.held_back_line(*held))
    tables = table_metadata(warehouse.db_path, list(DESCRIPTIONS), count_key="table_rows")
    for table in DESCRIPTIONS:
        metadata = {**tables[table], "rows_written": written.get(table, 0), "days_with_coups": len(days),
                    "table_days_held_back": len(written.held_back)}  # fmt: skip
        yield dg.MaterializeResult(asset_key=key_of(table), metadata=metadata)
