package dev.orchestrate.item;

import dev.orchestrate.outcome.CommandRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * One project command a job ran, as job history keeps it (schema 11): a {@code workspace.setup}
 * step before the agent or a {@code verify:} gate after it, for {@code jobs}, {@code status ID},
 * {@code logs --gate} and the dashboard.
 *
 * @param kind     set-up or gate
 * @param name     the command's name in the config
 * @param exitCode its exit code; null when it never started or was stopped
 * @param ending   how it ended
 * @param duration how long it ran
 * @param logFile  its log's file name in the job's directory (beside output.log), or null
 */
public record CheckRecord(CommandRun.Kind kind, String name, Integer exitCode, CommandRun.Ending ending,
    Duration duration, String logFile) {
  public CheckRecord {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(ending, "ending");
    Objects.requireNonNull(duration, "duration");
  }

  /**
   * Its log, beside the job's output.log; null when it has none, when the job has no log
   * directory, or when the stored name is not one plain file name (it never leaves the job's
   * directory).
   */
  public Path log(JobRecord job) {
    if (logFile == null || job.logPath() == null || job.logPath().getParent() == null || !plainName(logFile)) {
      return null;
    }
    return job.logPath().resolveSibling(logFile);
  }

  /** A name that stays in its directory: no separator, not {@code .} or {@code ..}, no NUL. */
  static boolean plainName(String name) {
    return !name.isEmpty() && !name.equals(".") && !name.equals("..") && name.indexOf('/') < 0
        && name.indexOf('\\') < 0 && name.indexOf('\0') < 0;
  }
}
