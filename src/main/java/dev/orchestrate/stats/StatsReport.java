package dev.orchestrate.stats;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.limits.StructureName;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What {@code orchestrate stats} concludes (docs/how-it-works.md), computed from a {@link StatsInput} and
 * nothing else: per structure its utilisation against its row limit and a status, an overall
 * pressure level, warnings naming the structure and a remedy, and the growth trend.
 *
 * <p>Utilisation is the rows retention may delete over the row limit ({@code max_rows}); rows it
 * never deletes (load-bearing events) do not count against it. Status: ok below
 * {@value #WARN_PERCENT} %, warn from there up to 100 %, over above 100 %. A structure without a
 * row limit (items, summaries, memory, whose bound is {@code compact --keep-recent}) is always ok.
 * Pressure is the highest utilisation: normal, elevated from 70 %, high from 85 %, critical from
 * 95 %.
 *
 * <p>Every structure from {@value #ELEVATED_PERCENT} % gets a warning naming it, its utilisation
 * and a remedy, at a {@link Level}: {@code elevated} below the warn threshold (status stays ok, so
 * {@code --check} still exits 0), else its status. Memory, which only {@code compact} bounds, gets
 * an {@code elevated} warning when the episodic memories over {@code keep_recent} are at least as
 * many as {@code keep_recent} (and at least {@value #MEMORY_WARN_MIN_OVER}): it then holds twice
 * what compact would keep.
 */
public record StatsReport(Instant generatedAt, boolean databaseExists, List<Row> structures,
    DatabaseFigures database, Memory memory, LastRun lastRun, Trend trend, Pressure pressure, Status status,
    List<Warning> warnings) {

  public static final int WARN_PERCENT = 85;
  /** From here a structure gets a warning (pressure elevated), before its status turns to warn. */
  public static final int ELEVATED_PERCENT = 70;
  /** Memory warns only from this many episodic memories over keep_recent (keep_recent 0 would warn at 1). */
  public static final long MEMORY_WARN_MIN_OVER = 50;
  /** The trend looks back this far (the samples themselves are bounded by retention.stats_samples). */
  public static final Duration TREND_WINDOW = Duration.ofHours(24);
  /** A trend needs samples spanning at least this long to mean anything. */
  public static final Duration TREND_MIN_SPAN = Duration.ofMinutes(1);

  public enum Status {
    OK, WARN, OVER;

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** {@code stats --check}: 0 ok, 4 warn, 5 over. */
    public int exitCode() {
      return switch (this) {
        case OK -> 0;
        case WARN -> 4;
        case OVER -> 5;
      };
    }
  }

  /**
   * How pressing a warning is: {@code elevated} (70 % up to the warn threshold; no change of
   * status), then the structure's status {@code warn} or {@code over}.
   */
  public enum Level {
    ELEVATED, WARN, OVER;

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    static Level of(Status status) {
      return status == Status.OVER ? OVER : status == Status.WARN ? WARN : ELEVATED;
    }
  }

  public enum Pressure {
    NORMAL(0), ELEVATED(ELEVATED_PERCENT), HIGH(WARN_PERCENT), CRITICAL(95);

    private final int fromPercent;

    Pressure(int fromPercent) {
      this.fromPercent = fromPercent;
    }

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    static Pressure of(double utilisation) {
      Pressure level = NORMAL;
      for (Pressure p : values()) {
        if (utilisation * 100 >= p.fromPercent) {
          level = p;
        }
      }
      return level;
    }
  }

  /**
   * One structure in the report.
   *
   * @param utilisation prunable rows / max_rows; null without a row limit
   * @param perHour     net rows per hour over the trend window; null without enough samples
   */
  public record Row(Structure figures, Double utilisation, Status status, Double perHour) {
    public String name() {
      return figures.name();
    }
  }

  /**
   * Episodic memories {@code compact} may delete and how many of them are over {@code keep_recent}.
   */
  public record Memory(long prunable, long keepRecent, long overKeepRecent) {
  }

  /** The window the trend was computed over: first and last sample used, how many. */
  public record Trend(Instant from, Instant to, int samples) {
  }

  public record Warning(String structure, Level level, String message) {
  }

  /** The default keep_recent, when no compact or run has recorded one yet. */
  public static final long DEFAULT_KEEP_RECENT = 50;

  public static StatsReport of(StatsInput input) {
    Sample first = input.trend().oldest();
    boolean trendUsable = first != null && Duration.between(first.at(), input.now()).compareTo(TREND_MIN_SPAN) >= 0;

    List<Row> rows = new ArrayList<>();
    List<Warning> warnings = new ArrayList<>();
    double highest = 0;
    Status worst = Status.OK;
    Memory memory = new Memory(0, DEFAULT_KEEP_RECENT, 0);
    for (Structure s : input.structures()) {
      Double utilisation = null;
      Status status = Status.OK;
      boolean limited = s.maxRows() != null && !s.name().equals("memory");
      if (limited) {
        utilisation = s.maxRows() == 0 ? (s.prunableRows() == 0 ? 0.0 : Double.POSITIVE_INFINITY)
            : (double) s.prunableRows() / s.maxRows();
        status = utilisation > 1.0 ? Status.OVER : utilisation * 100 >= WARN_PERCENT ? Status.WARN : Status.OK;
        highest = Math.max(highest, utilisation);
        if (utilisation * 100 >= ELEVATED_PERCENT) {
          warnings.add(new Warning(s.name(), Level.of(status), warning(s, utilisation, Level.of(status))));
        }
        if (status.ordinal() > worst.ordinal()) {
          worst = status;
        }
      }
      if (s.name().equals("memory")) {
        long keep = s.maxRows() == null ? DEFAULT_KEEP_RECENT : s.maxRows();
        memory = new Memory(s.prunableRows(), keep, Math.max(0, s.prunableRows() - keep));
        if (memory.overKeepRecent() >= Math.max(keep, MEMORY_WARN_MIN_OVER)) {
          warnings.add(new Warning(s.name(), Level.ELEVATED, memoryWarning(memory)));
        }
      }
      Double perHour = null;
      if (trendUsable) {
        Long then = first.rows().get(s.name());
        if (then != null) {
          double hours = Duration.between(first.at(), input.now()).toMillis() / 3_600_000.0;
          perHour = (s.rowsNow() - then) / hours;
        }
      }
      rows.add(new Row(s, utilisation, status, perHour));
    }
    Trend trend = first == null ? null : new Trend(first.at(), input.now(), input.trend().samples());
    return new StatsReport(input.now(), input.databaseExists(), List.copyOf(rows), input.database(), memory,
        input.lastRun(), trend, Pressure.of(Double.isInfinite(highest) ? 1.0 : highest), worst,
        List.copyOf(warnings));
  }

  private static String warning(Structure s, double utilisation, Level level) {
    String what = Double.isInfinite(utilisation) ? "has rows beyond max_rows 0"
        : String.format(java.util.Locale.ROOT, "at %.0f%% of max_rows %d", utilisation * 100, s.maxRows());
    String key = s.name().equals(StructureName.JOB_LOGS.key()) ? StructureName.JOBS.key() : s.name();
    String remedy = switch (level) {
      case OVER -> "run `orchestrate compact` (retention catches up in budgeted passes during a run), or raise "
          + "retention." + key + ".max_rows";
      case WARN -> "retention keeps it there during a run; raise retention." + key + ".max_rows if that is too little";
      case ELEVATED -> "a run's maintenance brings it back to " + RetentionConfig.TARGET_PERCENT
          + "% in budgeted passes; without a run, `orchestrate compact` does; raise retention." + key
          + ".max_rows if it keeps climbing";
    };
    return s.name() + " " + what + ": " + remedy;
  }

  private static String memoryWarning(Memory m) {
    return String.format(java.util.Locale.ROOT, "memory has %d episodic memories over keep_recent %d (%d prunable): "
        + "run `orchestrate compact` (it keeps the %d most recent and every load-bearing memory)",
        m.overKeepRecent(), m.keepRecent(), m.prunable(), m.keepRecent());
  }

  /** Rows now per structure, for a new sample. */
  Map<String, Long> rowsNow() {
    Map<String, Long> out = new java.util.LinkedHashMap<>();
    structures.forEach(r -> out.put(r.name(), r.figures().rowsNow()));
    return out;
  }
}
