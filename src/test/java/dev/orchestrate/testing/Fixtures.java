package dev.orchestrate.testing;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/** Small builders shared by tests. */
public final class Fixtures {
  private Fixtures() {
  }

  public static BacklogItem item(String id, String... dependsOn) {
    return new BacklogItem(id, "Title of " + id, "feature", Priority.MEDIUM, List.of(dependsOn), List.of(), "",
        InitialStatus.NEW);
  }

  public static BacklogItem item(String id, InitialStatus status) {
    return new BacklogItem(id, "Title of " + id, "feature", Priority.MEDIUM, List.of(), List.of(), "", status);
  }

  public static PhaseDef phase(String name) {
    return new PhaseDef(name, "Do " + name + ".", null, false);
  }

  /** scope | design, build, review */
  public static Pipeline feature() {
    return new Pipeline("feature", List.of(phase("scope")), List.of(phase("design"), phase("build"), phase("review")));
  }

  public static AgentOutcome outcome(AgentResult result, String summary, String context) {
    return new AgentOutcome(result, summary, context, List.of(), List.of(), OptionalInt.of(0),
        AgentOutcome.Ending.EXITED, Duration.ofMillis(5));
  }
}
