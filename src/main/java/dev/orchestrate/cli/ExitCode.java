package dev.orchestrate.cli;

/** The process exit codes, as documented in the README and {@code orchestrate --help}. */
public final class ExitCode {
  public static final int OK = 0;
  /** The work ended badly: a run that completed nothing and blocked something. */
  public static final int WORK_FAILED = 1;
  /** Bad flag, bad backlog or config, bad value. */
  public static final int USAGE = 2;
  /** Another run holds the state directory. */
  public static final int LOCKED = 3;
  public static final int STATS_WARN = 4;
  public static final int STATS_OVER = 5;
  /**
   * With {@code run --strict-exit}: a run stopped with work it could not finish: an item it works on is blocked, or a limit (the
   * phase cap, the circuit breaker, a budget, an agent's usage limit) halted it with items left.
   */
  public static final int INCOMPLETE = 6;
  public static final int INTERRUPTED = 130;

  private ExitCode() {
  }
}
