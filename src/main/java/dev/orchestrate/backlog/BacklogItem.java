package dev.orchestrate.backlog;

import dev.orchestrate.yaml.Names;

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
  /**
   * The longest id. An id names its job directories, {@code run<R>-<NNNN>-<ID>-<PHASE>-<A>}: with
   * at most 100 characters here and {@link Names#MAX_NAME_CHARS} for the phase, the name stays
   * under the 255-byte file-name limit of common file systems (ids are ASCII) with room for the
   * numbers.
   */
  public static final int MAX_ID_CHARS = 100;

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
