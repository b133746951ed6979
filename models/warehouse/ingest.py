"""Ingest round-log files into the warehouse: every row accepted, quarantined or counted a duplicate.

One transaction per file: a crash mid-file leaves the warehouse as it was, and running again
completes it. A file already ingested (same sha256) is skipped. Order of checks (data.md): each row
on its own, then duplicates by natural key against rows already accepted, then each shoe in round
order. Bets come after the rounds of the same batch of files.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from models.contract import NATURAL_KEY
from models.game.cards import RANKS, SUITS
from models.game.paytable import DEFAULT_PAYTABLE, PayTable
from models.logs import hands
from models.logs.checks import check_bets, check_rounds
from models.logs.read import UnreadableFile, columns_of, kind_of, looks_like_round_log, read_batches
from models.logs.reconcile import BY_CARD, BY_RANK, BY_VALUE, GRANULARITY, overdrawn_rows
from models.warehouse import schema, settlement
from models.warehouse.store import write

KEY = list(NATURAL_KEY)
BET_KEY = [*KEY, "seat", "bet", "side"]
ROUND_CONTENT = [
    *KEY,
    "started_at",
    "player_cards",
    "banker_cards",
    "player2_cards",
    "game",
    "decks",
    "dealer_id",
    "bank_holder",
    "logged_outcome",
]
BET_CONTENT = [*BET_KEY, "amount", "payout", "player_id"]
HANDS = (("p", "player_cards"), ("b", "banker_cards"), ("q", "player2_cards"))


@dataclass
class FileResult:
    """What became of one file's rows."""

    path: Path
    kind: str | None = None
    rows_read: int = 0
    accepted: int = 0
    duplicates: int = 0
    quarantined: Counter = field(default_factory=Counter)
    status: str = "ok"  # ok, failed, skipped (already ingested)
    error: str | None = None

    def add(self, other: FileResult) -> None:
        self.rows_read += other.rows_read
        self.accepted += other.accepted
        self.duplicates += other.duplicates
        self.quarantined.update(other.quarantined)


SHOE = ["table_id", "shoe_id"]


@dataclass
class StoredShoes:
    """The shoes that already have rows in a core table or in this file's staged batches: only
    their new rows need looking up (for duplicates and reconciliation), so fresh shoes never scan
    the growing table."""

    table: str
    shoes: pl.DataFrame
    staged: list[Path] = field(default_factory=list)

    @classmethod
    def load(cls, con, table: str) -> StoredShoes:
        return cls(table, con.sql(f"SELECT DISTINCT table_id, shoe_id FROM {table}").pl())

    def relation(self) -> str:
        """SQL for the rows stored so far: the table, and the batches of the file being ingested."""
        if not self.staged:
            return self.table
        files = ", ".join(f"'{path}'" for path in self.staged)
        return f"(SELECT * FROM {self.table} UNION ALL BY NAME SELECT * FROM read_parquet([{files}]))"

    def known(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The rows of `frame` whose shoe already has stored rows."""
        return frame.join(self.shoes, on=SHOE, how="semi") if self.shoes.height else frame.head(0)

    def add(self, frame: pl.DataFrame) -> None:
        self.shoes = pl.concat([self.shoes, frame.select(SHOE)], how="vertical_relaxed").unique()


def expand(paths: list[Path]) -> list[Path]:
    """Files named, and the round logs inside folders named (recursively, passing over names that
    start with `.` or `_`, such as the simulator's fault labels), in a stable order."""
    files = []
    for path in paths:
        if path.is_dir():
            files += sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and looks_like_round_log(p)
                and not any(part[0] in "._" for part in p.relative_to(path).parts)
            )
        elif path.exists():
            files.append(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")
    return list(dict.fromkeys(files))


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _with_raw(quarantined: pl.DataFrame, batch: pl.DataFrame) -> pl.DataFrame:
    """Quarantined rows with `raw`: the row exactly as read, as JSON text (or a broken JSON line)."""
    columns = [name for name in batch.columns if not name.startswith("_")]
    rows = batch.join(quarantined.select("_line"), on="_line", how="semi")
    text = pl.struct([pl.col(name).cast(pl.String) for name in columns]).struct.json_encode() if columns else None
    if "_unparsed" in rows.columns:
        text = pl.col("_unparsed") if text is None else pl.coalesce(pl.col("_unparsed"), text)
    return quarantined.join(rows.select("_line", raw=text), on="_line", how="left")


@dataclass
class Stage:
    """A file's batches, written to Parquet beside the warehouse until the file is done; then one
    transaction moves them in. The warehouse never holds a half-ingested file, however large."""

    folder: Path
    files: dict[str, list[Path]] = field(default_factory=dict)

    def write(self, table: str, frame: pl.DataFrame) -> Path | None:
        if frame.height == 0:
            return None
        path = self.folder / f"{table}.{len(self.files.get(table, []))}.parquet"
        frame.write_parquet(path, compression="lz4", statistics=False)
        self.files.setdefault(table, []).append(path)
        return path

    def commit(self, con) -> None:
        """Insert every staged batch; the caller holds the transaction."""
        for table, paths in self.files.items():
            files = ", ".join(f"'{path}'" for path in paths)
            con.execute(f"INSERT INTO {table} SELECT * FROM read_parquet([{files}])")


def _quarantine(stage: Stage, table: str, frame: pl.DataFrame, source: str, now: dt.datetime) -> None:
    if frame.height == 0:
        return
    frame = frame.with_columns(pl.lit(None, pl.String).alias(c) for c in KEY if c not in frame.columns)
    rows = frame.select(
        "raw", "reason", "detail",
        pl.col("table_id").cast(pl.String), pl.col("shoe_id").cast(pl.String),
        pl.col("round_no").cast(pl.Int32, strict=False),
        source_file=pl.lit(source), line_no=pl.col("_line"), ingested_at=pl.lit(now),
    )  # fmt: skip
    stage.write(table, rows)


def _split_duplicates(con, frame: pl.DataFrame, stored_shoes: StoredShoes, key: list[str], content: list[str]):
    """(new rows, duplicate count, conflicting rows): within the frame (first line wins) and
    against rows already stored."""
    frame = frame.with_columns(content_hash=pl.struct(content).hash(seed=20261129))
    if frame.select(pl.struct(key).n_unique()).item() == frame.height:  # the usual case: no key twice
        frame = frame.with_columns(_first_hash=pl.col("content_hash"), _first_line=pl.col("_line"), _seen=pl.lit(0))
    else:
        frame = frame.sort("_line").with_columns(
            _first_hash=pl.col("content_hash").first().over(key),
            _first_line=pl.col("_line").first().over(key),
            _seen=pl.int_range(pl.len()).over(key),
        )
    repeated = frame.filter(pl.col("_seen") > 0)
    duplicates = repeated.filter(pl.col("content_hash") == pl.col("_first_hash")).height
    conflicts = repeated.filter(pl.col("content_hash") != pl.col("_first_hash")).with_columns(
        reason=pl.lit("conflicting_duplicate"),
        detail=pl.format("logged again with other content (first at line {})", pl.col("_first_line")),
    )
    first = frame.filter(pl.col("_seen") == 0)
    table = stored_shoes.relation()
    con.register("candidate_keys", stored_shoes.known(first).select(*key, "content_hash"))
    join = " AND ".join(f"c.{name} IS NOT DISTINCT FROM s.{name}" for name in key)
    stored = con.sql(
        f"SELECT {', '.join(f'c.{name}' for name in key)}, s.content_hash AS stored_hash, s.source_file AS stored_in "
        f"FROM candidate_keys c JOIN {table} s ON {join}"
    ).pl()
    con.unregister("candidate_keys")
    first = first.join(stored, on=key, how="left", nulls_equal=True)
    known = first.filter(pl.col("stored_hash").is_not_null())
    duplicates += known.filter(pl.col("stored_hash") == pl.col("content_hash")).height
    conflicts = pl.concat(
        [
            conflicts,
            known.filter(pl.col("stored_hash") != pl.col("content_hash")).with_columns(
                reason=pl.lit("conflicting_duplicate"),
                detail=pl.format("already stored with other content from {}", pl.col("stored_in")),
            ),
        ],
        how="diagonal_relaxed",
    )
    return first.filter(pl.col("stored_hash").is_null()), duplicates, conflicts


def _card_codes(frame: pl.DataFrame) -> pl.DataFrame:
    """Per row: `_granularity` of its shoe (card when every card there has a suit, rank when every
    card has a rank, else value) and `_c0`.. `_c8`, each card's code at that granularity (-1: none)."""
    slots = [(f"{p}{i}_value", f"{p}{i}_rank", f"{p}{i}_suit") for p, _ in HANDS for i in range(hands.MAX_CARDS)]
    suited = pl.all_horizontal(pl.col(value).is_null() | pl.col(suit).is_not_null() for value, _, suit in slots)
    ranked = pl.all_horizontal(pl.col(value).is_null() | pl.col(rank).is_not_null() for value, rank, _ in slots)
    frame = frame.with_columns(
        _granularity=pl.when(suited.all().over(SHOE))
        .then(BY_CARD)
        .when(ranked.all().over(SHOE))
        .then(BY_RANK)
        .otherwise(BY_VALUE)
    )
    by = pl.col("_granularity")
    return frame.with_columns(
        pl.when(by == BY_CARD)
        .then(pl.col(rank).cast(pl.Int16) * 4 + pl.col(suit).cast(pl.Int16))
        .when(by == BY_RANK)
        .then(pl.col(rank).cast(pl.Int16))
        .otherwise(pl.col(value).cast(pl.Int16))
        .fill_null(-1)
        .alias(f"_c{j}")
        for j, (value, rank, suit) in enumerate(slots)
    )


def _parse_stored(frame: pl.DataFrame) -> pl.DataFrame:
    parsed = frame.with_columns(**{name: hands.tokens(name) for _, name in HANDS})
    return parsed.with_columns(
        *(
            expr
            for prefix, name in HANDS
            for i in range(hands.MAX_CARDS)
            for expr in hands.card_at(pl.col(name), i, prefix)
        )
    )


def _code_label(granularity: int, code: int) -> str:
    """A reconciliation code as people write it: KH (card), K (rank) or 0 (value)."""
    if granularity == BY_CARD:
        return RANKS[code // 4] + SUITS[code % 4]
    return RANKS[code] if granularity == BY_RANK else str(code)


def _reconcile(con, rows: pl.DataFrame, stored_shoes: StoredShoes) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(accepted, overdrawn) for new rows with cards, counting the shoes' stored rows first."""
    with_cards = rows.filter(pl.col("has_cards"))
    if with_cards.height == 0:
        return rows, rows.head(0)
    shoes = stored_shoes.known(with_cards).select(SHOE).unique()
    con.register("touched_shoes", shoes)
    stored = con.sql(
        f"SELECT r.table_id, r.shoe_id, r.round_no, r.decks, r.player_cards, r.banker_cards, r.player2_cards "
        f"FROM {stored_shoes.relation()} r SEMI JOIN touched_shoes USING (table_id, shoe_id) WHERE r.has_cards"
    ).pl()
    con.unregister("touched_shoes")
    stored = _parse_stored(stored).with_columns(_new=pl.lit(False), _line=pl.lit(0, pl.Int64))
    new = with_cards.with_columns(_new=pl.lit(True))
    columns = ["table_id", "shoe_id", "round_no", "decks", "_new", "_line"] + [
        f"{p}{i}_{part}" for p, _ in HANDS for i in range(hands.MAX_CARDS) for part in ("value", "rank", "suit")
    ]
    both = pl.concat([stored.select(columns), new.select(columns)], how="vertical_relaxed")
    both = (
        _card_codes(both)
        .with_columns(_shoe=pl.struct(SHOE).hash(seed=7))  # groups a shoe's rows; cheaper than ranking text
        .sort("_shoe", "_new", "round_no", "_line")
    )
    granularity = both["_granularity"].to_numpy()
    codes = both.select(f"_c{j}" for j in range(len(HANDS) * hands.MAX_CARDS)).to_numpy().astype(np.int64)
    over = overdrawn_rows(
        both["_shoe"].to_numpy().view(np.int64),
        codes,
        granularity.astype(np.int64),
        both["decks"].to_numpy().astype(np.int64),
    )
    verdict = both.with_columns(_over=pl.Series(over), _g=pl.Series(granularity)).filter(
        pl.col("_new") & (pl.col("_over") >= 0)
    )
    verdict = verdict.with_columns(
        detail=pl.format(
            "{} {} seen more often than a {}-deck shoe holds",
            pl.col("_g").replace_strict(dict(enumerate(GRANULARITY)), return_dtype=pl.String),
            pl.struct("_g", "_over").map_elements(
                lambda case: _code_label(case["_g"], case["_over"]), return_dtype=pl.String
            ),
            pl.col("decks"),
        ),
        reason=pl.lit("shoe_overdrawn"),
    ).select("_line", "reason", "detail")
    overdrawn = rows.drop("reason", "detail").join(verdict, on="_line")
    return rows.join(verdict.select("_line"), on="_line", how="anti"), overdrawn


QUARANTINE_OF = {schema.CORE_ROUNDS: schema.QUARANTINE_ROUNDS, schema.CORE_BETS: schema.QUARANTINE_BETS}


def _stage(con, stage: Stage, stored: StoredShoes, result: FileResult, accepted: pl.DataFrame,
           quarantined: pl.DataFrame, source: str, now: dt.datetime) -> FileResult:  # fmt: skip
    """Stage a batch's accepted and quarantined rows, and count them in the file's result."""
    _quarantine(stage, QUARANTINE_OF[stored.table], quarantined, source, now)
    columns = [name for name, *_ in con.sql(f"DESCRIBE {stored.table}").fetchall()]
    staged = stage.write(stored.table, accepted.select(columns))
    if staged:
        stored.staged.append(staged)
        stored.add(accepted)
    result.accepted = accepted.height
    result.quarantined.update(dict(quarantined["reason"].value_counts().iter_rows()))
    return result


def _checked(batch: pl.DataFrame, check) -> pl.DataFrame:
    """The batch through its row checks; a JSON line that was no object is `bad_type`."""
    checked = check(batch.drop("_unparsed", strict=False))
    if "_unparsed" not in batch.columns:
        return checked
    unparsed = pl.col("_unparsed").is_not_null()
    return checked.join(batch.select("_line", "_unparsed"), on="_line", how="left").with_columns(
        reason=pl.when(unparsed).then(pl.lit("bad_type")).otherwise(pl.col("reason")),
        detail=pl.when(unparsed).then(pl.lit("not a JSON object")).otherwise(pl.col("detail")),
    )


def _ingest_rounds(
    con, batch: pl.DataFrame, source: str, now: dt.datetime, stored: StoredShoes, stage: Stage
) -> FileResult:
    result = FileResult(Path(source), kind="rounds", rows_read=batch.height)
    checked = _checked(batch, check_rounds)
    bad = checked.filter(pl.col("reason").is_not_null())
    good = checked.filter(pl.col("reason").is_null())
    new, result.duplicates, conflicts = _split_duplicates(con, good, stored, KEY, ROUND_CONTENT)
    accepted, overdrawn = _reconcile(con, new, stored)
    quarantined = pl.concat([bad, conflicts, overdrawn], how="diagonal_relaxed")
    rows = accepted.with_columns(source_file=pl.lit(source), line_no=pl.col("_line"), ingested_at=pl.lit(now))
    return _stage(con, stage, stored, result, rows, _with_raw(quarantined, batch), source, now)


def _ingest_bets(
    con, batch: pl.DataFrame, source: str, now: dt.datetime, table: PayTable, stored: StoredShoes, stage: Stage
) -> FileResult:
    result = FileResult(Path(source), kind="bets", rows_read=batch.height)
    checked = _checked(batch, check_bets)
    bad = checked.filter(pl.col("reason").is_not_null())
    good = checked.filter(pl.col("reason").is_null())
    new, result.duplicates, conflicts = _split_duplicates(con, good, stored, BET_KEY, BET_CONTENT)
    con.register("bet_keys", new.select(KEY).unique())
    rounds = con.sql(
        f"SELECT r.table_id, r.shoe_id, r.round_no, r.game, r.decks, r.outcome, r.outcome2, r.has_cards, "
        f"r.player_total, r.banker_total, r.player2_total, r.player_third IS NOT NULL AS player_drew, "
        f"r.banker_third IS NOT NULL AS banker_drew, r.player_pair, r.banker_pair, "
        f"length(string_split(r.player2_cards, ' ')) = 3 AS player2_drew "
        f"FROM {schema.CORE_ROUNDS} r SEMI JOIN bet_keys USING (table_id, shoe_id, round_no)"
    ).pl()
    con.unregister("bet_keys")
    joined = new.join(rounds, on=KEY, how="left")
    orphans = joined.filter(pl.col("game").is_null()).with_columns(
        reason=pl.lit("orphan_bet"),
        detail=pl.format("no accepted round {} / {} / {}", pl.col("table_id"), pl.col("shoe_id"), pl.col("round_no")),
    )
    placed = joined.filter(pl.col("game").is_not_null())
    second = pl.col("side") == 2
    player = pl.when(second).then(pl.col("player2_total")).otherwise(pl.col("player_total"))
    drew = pl.when(second).then(pl.col("player2_drew")).otherwise(pl.col("player_drew")).fill_null(False)
    cell = ((player.cast(pl.Int16) * 10 + pl.col("banker_total")) * 2 + drew.cast(pl.Int16)) * 2
    placed = placed.with_columns(
        cell=(cell + pl.col("banker_drew").cast(pl.Int16)).cast(pl.Int16),
        pair=pl.when(pl.col("bet") == "player_pair").then(pl.col("player_pair"))
        .when(pl.col("bet") == "banker_pair").then(pl.col("banker_pair")).otherwise(False),
        _outcome=pl.when(second).then(pl.col("outcome2")).otherwise(pl.col("outcome")),
    )  # fmt: skip
    by_cell = settlement.by_cell(table)
    by_outcome = settlement.by_outcome(table).rename(
        {"outcome": "_outcome", "net_unit": "_net_o", "commission_unit": "_com_o"}
    )
    placed = (
        placed.join(by_cell, on=["game", "bet", "cell", "pair"], how="left")
        .join(by_outcome, on=["game", "bet", "_outcome"], how="left")
        .join(settlement.house_expectation(table), on=["game", "decks", "bet"], how="left")
        .with_columns(
            net_unit=pl.when(pl.col("has_cards")).then(pl.col("net_unit")).otherwise(pl.col("_net_o")),
            commission_unit=pl.when(pl.col("has_cards")).then(pl.col("commission_unit")).otherwise(pl.col("_com_o")),
        )
        .with_columns(
            _expected=(pl.col("net_unit") * pl.col("amount")).cast(settlement.MONEY),
            commission=(pl.col("commission_unit") * pl.col("amount")).cast(settlement.MONEY),
        )
    )
    stray_side = pl.col("side").is_not_null() & (pl.col("game") != "baccarat_banque")
    mismatch = pl.concat(
        [
            placed.filter(stray_side).with_columns(
                reason=pl.lit("bad_type"),
                detail=pl.format("side {} names a second hand, which only baccarat_banque deals", pl.col("side")),
            ),
            placed.filter(
                ~stray_side
                & pl.col("payout").is_not_null()
                & pl.col("_expected").is_not_null()
                & (pl.col("payout") != pl.col("_expected"))
            ).with_columns(
                reason=pl.lit("payout_mismatch"),
                detail=pl.format("payout {} but the pay table gives {}", pl.col("payout"), pl.col("_expected")),
            ),
        ]
    )
    accepted = placed.join(mismatch.select("_line"), on="_line", how="anti")
    player_banked = pl.col("game").is_in([game.value for game in settlement.PLAYER_BANKED])
    accepted = accepted.with_columns(
        house_net=pl.when(player_banked).then(pl.col("commission"))
        .otherwise(-pl.coalesce(pl.col("_expected"), pl.col("payout"))).cast(settlement.MONEY),
        theo=(pl.col("amount").cast(pl.Float64) * pl.col("edge")).cast(pl.Decimal(18, 6)),
        source_file=pl.lit(source), line_no=pl.col("_line"), ingested_at=pl.lit(now),
    )  # fmt: skip
    quarantined = pl.concat([bad, conflicts, orphans, mismatch], how="diagonal_relaxed")
    return _stage(con, stage, stored, result, accepted, _with_raw(quarantined, batch), source, now)


def refresh_shoes(con) -> None:
    """Rebuild core.shoes from the accepted rounds and the shoes' overdrawn rows."""
    con.execute(f"""
        DELETE FROM {schema.CORE_SHOES};
        INSERT INTO {schema.CORE_SHOES}
        WITH overdrawn AS (
            SELECT table_id, shoe_id, count(*) AS rows FROM {schema.QUARANTINE_ROUNDS}
            WHERE reason = 'shoe_overdrawn' GROUP BY ALL
        ), cards AS (  -- a lone character is a token without a suit; a lone 0 has no rank
            SELECT table_id, shoe_id,
                bool_and(NOT regexp_matches(concat_ws(' ', player_cards, banker_cards, player2_cards),
                    '(^|\\s)\\S(\\s|$)')) AS suited,
                bool_and(NOT regexp_matches(concat_ws(' ', player_cards, banker_cards, player2_cards),
                    '(^|\\s)0(\\s|$)')) AS ranked
            FROM {schema.CORE_ROUNDS} WHERE has_cards GROUP BY ALL
        )
        SELECT r.table_id, r.shoe_id, any_value(r.game), max(r.decks), count(*)::INTEGER,
            min(r.started_at), max(r.started_at), sum(r.cards_used)::INTEGER,
            CASE WHEN any_value(c.suited) THEN 'card' WHEN any_value(c.ranked) THEN 'rank'
                 WHEN any_value(c.suited) IS NULL THEN 'none' ELSE 'value' END,
            coalesce(any_value(o.rows), 0)::INTEGER,
            CASE WHEN any_value(c.suited) IS NULL THEN 'no cards'
                 WHEN coalesce(any_value(o.rows), 0) > 0 THEN 'overdrawn' ELSE 'reconciled' END
        FROM {schema.CORE_ROUNDS} r
        LEFT JOIN cards c USING (table_id, shoe_id)
        LEFT JOIN overdrawn o USING (table_id, shoe_id)
        GROUP BY r.table_id, r.shoe_id
    """)


def _log(con, result: FileResult, digest: str, started: dt.datetime) -> None:
    con.execute(
        f"INSERT INTO {schema.INGEST_LOG} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            str(result.path), digest, result.kind, result.rows_read, result.accepted,
            sum(result.quarantined.values()), result.duplicates, result.status, result.error,
            started, dt.datetime.now(dt.UTC),
        ],
    )  # fmt: skip


def ingest_file(
    con, path: Path, kind: str, table: PayTable, stored: dict[str, StoredShoes], staging: Path
) -> FileResult:
    """One file: its batches are checked and staged, then moved in by one transaction. A crash or an
    unreadable file leaves the warehouse as it was (the file is logged as failed when it can be)."""
    digest = sha256(path)
    done = con.execute(
        f"SELECT count(*) FROM {schema.INGEST_LOG} WHERE sha256 = ? AND status = 'ok'", [digest]
    ).fetchall()  # fetch to the end: DuckDB 2 keeps an unfinished result busy
    if done[0][0]:
        return FileResult(path, kind=kind, status="skipped")
    started = dt.datetime.now(dt.UTC)
    result = FileResult(path, kind=kind)
    stage = Stage(Path(tempfile.mkdtemp(prefix=f"{digest[:12]}-", dir=staging)))
    try:
        for batch in read_batches(path):
            if kind == "rounds":
                result.add(_ingest_rounds(con, batch, str(path), started, stored["rounds"], stage))
            else:
                result.add(_ingest_bets(con, batch, str(path), started, table, stored["bets"], stage))
        con.execute("BEGIN TRANSACTION")
        try:
            stage.commit(con)
            _log(con, result, digest, started)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    except Exception as error:
        message = str(error) if isinstance(error, UnreadableFile) else f"cannot ingest {path.name}: {error}"
        result = FileResult(path, kind=kind, status="failed", error=message.strip().splitlines()[0])
        _log(con, result, digest, started)
    finally:  # the staged rows are in the tables now, or nowhere; the shoes seen stay (a harmless superset)
        for shoes in stored.values():
            shoes.staged = [p for p in shoes.staged if stage.folder not in p.parents]
        shutil.rmtree(stage.folder, ignore_errors=True)
    return result


def ingest(db: Path, paths: list[Path], table: PayTable = DEFAULT_PAYTABLE) -> list[FileResult]:
    """Ingest files and folders (rounds before bets), then refresh core.shoes and publish."""
    files = expand(paths)
    kinds, results = {}, []
    for path in files:
        try:
            kinds[path] = kind_of(columns_of(path))
        except UnreadableFile as error:
            results.append(FileResult(path, status="failed", error=str(error)))
    with write(db) as con:
        for result in results:
            _log(con, result, sha256(result.path), dt.datetime.now(dt.UTC))
        stored = {"rounds": StoredShoes.load(con, schema.CORE_ROUNDS), "bets": StoredShoes.load(con, schema.CORE_BETS)}
        staging = db.with_name(db.name + ".staging")
        shutil.rmtree(staging, ignore_errors=True)  # left by a writer that was killed
        staging.mkdir()
        for path in sorted(kinds, key=lambda p: kinds[p] != "rounds"):
            results.append(ingest_file(con, path, kinds[path], table, stored, staging))
        shutil.rmtree(staging, ignore_errors=True)
        refresh_shoes(con)
    return results
