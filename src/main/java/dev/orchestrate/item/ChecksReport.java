package dev.orchestrate.item;

/**
 * What one poll of an item's checks said ({@link ItemLanding#checkSlowly}).
 *
 * @param kind    pending, green, red (back to the phase with the report), or blocked (too many
 *                red rounds, or pending past checks_timeout)
 * @param message the report (red), the block reason, or what happened
 * @param round   the red round this report is (red), else the rounds so far
 * @param phase   execution.checks_phase, or null: the pipeline's last phase
 * @param last    the session kept by {@link ItemLanding#lastSession}, or null
 */
public record ChecksReport(String kind, String message, int round, String phase, LastSession last) {
  public ChecksReport(String kind, String message, int round, String phase) {
    this(kind, message, round, phase, null);
  }
}
