package dev.orchestrate.backlog;

import java.util.List;
import java.util.Objects;

/**
 * One validated backlog entry. {@code pipeline} is already resolved (the config's default pipeline
 * when the entry names none).
 */
public record BacklogItem(
    String id,
    String title,
    String pipeline,
    Priority priority,
    List<String> dependsOn,
    List<String> tags,
    String description,
    InitialStatus initialStatus) {

  public BacklogItem {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(pipeline, "pipeline");
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(initialStatus, "initialStatus");
    dependsOn = List.copyOf(dependsOn);
    tags = List.copyOf(tags);
    description = description == null ? "" : description;
  }
}
