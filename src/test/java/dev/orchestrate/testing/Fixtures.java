package dev.orchestrate.testing;

import dev.orchestrate.app.Reviewing;
import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.ConfigLoader;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/** Small builders shared by tests. */
public final class Fixtures {
  private Fixtures() {
  }

  /**
   * A project in {@code dir} whose pipeline {@code feature} ends in review ({@code review:
   * required}) after two phases, build and docs: its {@code orchestrate.yaml} written there.
   */
  public static Reviewing.Project reviewedProject(Path dir) throws IOException {
    Path yaml = Files.writeString(dir.resolve("orchestrate.yaml"), """
        pipelines:
          feature:
            review: required
            phases:
              - {name: build, instructions: Build it.}
              - {name: docs, instructions: Document it.}
        """);
    return new Reviewing.Project(ConfigLoader.load(yaml), dir);
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
