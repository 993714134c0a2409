package dev.orchestrate.stats;

/** The state database file: sizes from the file system and SQLite's pragmas, no table scans. */
public record DatabaseFigures(long fileBytes, long walBytes, long pageSize, long pageCount, long freelistPages) {
  public static final DatabaseFigures NONE = new DatabaseFigures(0, 0, 0, 0, 0);

  /** Free pages inside the file: reclaimed by {@code orchestrate compact --vacuum}. */
  public long freelistBytes() {
    return freelistPages * pageSize;
  }
}
