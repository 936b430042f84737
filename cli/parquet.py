"""Writing a season's tables (application/season.py) as Parquet files, one a table, a few games at a time.

pyarrow is the optional extra `history` (`pip install 'zioncheck[history]'`): `need_pyarrow` says how to
install it, in one line, when it is missing. Each file is written beside its final name and put in
place only once the export is whole, so a failed export leaves no half-written table behind.
"""
from pathlib import Path

from zioncheck.application.season import TABLES
from zioncheck.cli import words
from zioncheck.cli.options import CommandFailed

SUFFIX = ".parquet"
PART = ".part"


def need_pyarrow() -> None:
    """CommandFailed, saying how to install it, when pyarrow is not installed."""
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise CommandFailed(words.NO_PYARROW) from None


class ParquetTables:
    def __init__(self, folder: Path):
        import pyarrow as pa
        import pyarrow.parquet as pq

        kinds = {"string": pa.string(), "int32": pa.int32(), "int64": pa.int64(), "bool": pa.bool_(),
                 "timestamp": pa.timestamp("ns", tz="UTC"), "list<int32>": pa.list_(pa.int32()),
                 "list<string>": pa.list_(pa.string())}
        self.pa, self.folder = pa, folder
        self.schemas = {name: pa.schema([(column.name, kinds[column.kind]) for column in columns])
                        for name, columns in TABLES.items()}
        self.writers = {name: pq.ParquetWriter(self._part(name), schema, compression="zstd")
                        for name, schema in self.schemas.items()}

    def path(self, table: str) -> Path:
        return self.folder / f"{table}{SUFFIX}"

    def _part(self, table: str) -> Path:
        return self.folder / f"{table}{SUFFIX}{PART}"

    def write(self, tables: dict[str, dict[str, list]]) -> None:
        """The rows of a few games (Season.take), one row group a table."""
        for name, columns in tables.items():
            if columns["game"]:
                self.writers[name].write_table(self.pa.Table.from_pydict(columns, schema=self.schemas[name]))

    def finish(self) -> list[Path]:
        """Every table closed and put in place; their paths."""
        for writer in self.writers.values():
            writer.close()
        for name in self.writers:
            self._part(name).replace(self.path(name))
        return [self.path(name) for name in self.writers]

    def abandon(self) -> None:
        """The export failed: its half-written files go."""
        for name, writer in self.writers.items():
            writer.close()
            self._part(name).unlink(missing_ok=True)
