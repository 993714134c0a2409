package dev.orchestrate.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * {@code backlog.source}: a backlog printed by a command as JSON instead of read from the backlog
 * file (docs/backlog.md, "A backlog from a command"), and the commands run when its items reach
 * done, blocked or awaiting review.
 *
 * @param command          prints the items: a JSON array of objects
 * @param refresh          how often a run runs {@code command} again to pick up new and changed items
 * @param idField          the field of each object whose value, after {@code idPrefix}, is the item's id
 *                         (and, alone, its {@code {source_id}})
 * @param idPrefix         put before the id field's value: {@code GH-} makes issue 12 item GH-12
 * @param onDone           run once when an item reaches done, or null
 * @param onBlocked        run once each time an item is blocked, or null
 * @param onAwaitingReview run once each time an item awaits review, or null
 */
public record BacklogSourceConfig(ProjectCommand command, Duration refresh, String idField, String idPrefix,
    ProjectCommand onDone, ProjectCommand onBlocked, ProjectCommand onAwaitingReview) {
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(60);
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(1);
  public static final String DEFAULT_ID_FIELD = "number";
  /** What a transition command may name: each is a value, never shell text. */
  public static final List<String> PLACEHOLDERS = List.of("id", "source_id", "title", "reason", "pull_request");

  public BacklogSourceConfig {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(refresh, "refresh");
    Objects.requireNonNull(idField, "idField");
    Objects.requireNonNull(idPrefix, "idPrefix");
  }

  /** The transition command of {@code hook} ({@code on_done}, ...), or null. */
  public ProjectCommand hook(String hook) {
    return switch (hook) {
      case "on_done" -> onDone;
      case "on_blocked" -> onBlocked;
      case "on_awaiting_review" -> onAwaitingReview;
      default -> throw new IllegalArgumentException("unknown backlog hook " + hook);
    };
  }

  /** Whether any transition command is set. */
  public boolean hasHooks() {
    return onDone != null || onBlocked != null || onAwaitingReview != null;
  }
}
