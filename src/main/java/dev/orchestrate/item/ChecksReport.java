package dev.orchestrate.item;

/**
 * What one poll of an item's checks said ({@link ItemLanding#checkSlowly}).
 *
 * @param kind    pending, green (with review_feedback: and approved), merged (land: auto merged the
 *                pull request, or the forge says it is merged), red (back to the phase with the
 *                report), changes_requested (back to the phase with the reviews not sent before), or
 *                blocked (too many red rounds or rounds of changes requested, pending past
 *                checks_timeout, unapproved past review_feedback_timeout, land_command failing)
 * @param message the report (red), the reviews (changes_requested), the block reason, or what happened
 * @param round   the red round (red) or the round of changes requested this report is, else the rounds so far
 * @param phase   where red (execution.checks_phase) or changes_requested (review_feedback_phase, else
 *                checks_phase) sends the item, or null: the pipeline's last phase
 * @param last    the session kept by {@link ItemLanding#lastSession}, or null
 */
public record ChecksReport(String kind, String message, int round, String phase, LastSession last) {
  public ChecksReport(String kind, String message, int round, String phase) {
    this(kind, message, round, phase, null);
  }
}
