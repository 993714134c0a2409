package dev.orchestrate.backlog;

/**
 * The {@code retention} section: one entry per bounded structure, so that max_age, max_rows and
 * delete budgets can be added per structure later without reshaping the config.
 *
 * @param events  how much of the event log's routine (not load-bearing) rows compaction keeps
 */
public record RetentionConfig(StructureRetention events) {
  public static final int DEFAULT_EVENTS_KEEP_RECENT = 10_000;

  public static RetentionConfig defaults() {
    return new RetentionConfig(new StructureRetention(DEFAULT_EVENTS_KEEP_RECENT));
  }

  /** The retention of one structure; {@code keepRecent}: newest prunable rows kept (>= 0). */
  public record StructureRetention(int keepRecent) {
    public StructureRetention {
      if (keepRecent < 0) {
        throw new IllegalArgumentException("keep_recent must be 0 or more, got " + keepRecent);
      }
    }
  }
}
