package dev.orchestrate.app;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.Config;
import dev.orchestrate.item.FollowUpItem;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.limits.SizeCap;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.yaml.Names;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * New items from outside the backlog file ({@code orchestrate mcp}'s {@code add_item}): written to
 * the state, never to the file, which is the user's and which orchestrate never rewrites (DESIGN
 * §3). Such an item is stored as a follow-up is, with an origin ({@link #MCP}) instead of a place
 * in the file, so that a sync of the file neither reports it as gone nor drops it; the next run
 * takes it with the others (a run already working takes it at its next reload of the backlog:
 * an edit of the file). It starts {@code new}, at the end of backlog order. Should the file later
 * list the same id, the file's definition wins, as for a follow-up.
 */
public final class Inbox {
  /** The origin of the items added through {@code orchestrate mcp}. */
  public static final String MCP = "mcp";

  private final StateBackend backend;
  private final Clock clock;

  public Inbox(StateBackend backend, Clock clock) {
    this.backend = backend;
    this.clock = clock;
  }

  /**
   * An item to add. {@code id} null: {@code <origin>-<8 hex digits of the title's sha256>}, the same
   * for the same title; {@code pipeline} null: the config's default; {@code priority} null: medium.
   */
  public record NewItem(String id, String title, String description, String pipeline, String priority,
      List<String> dependsOn, List<String> tags) {
    public NewItem {
      dependsOn = dependsOn == null ? List.of() : List.copyOf(dependsOn);
      tags = tags == null ? List.of() : List.copyOf(tags);
    }
  }

  /**
   * Adds the item (creating the state if there is none yet) and returns it as stored.
   *
   * @throws ItemRefusedException naming every problem of the item, or an id the state already holds;
   *                              nothing was written
   */
  public ItemState add(NewItem item, Config config, String origin) {
    List<String> problems = new ArrayList<>();
    BacklogItem definition = definition(item, config, origin, problems);
    if (!problems.isEmpty()) {
      throw new ItemRefusedException(String.join("; ", problems));
    }
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      List<String> unknown = definition.dependsOn().stream().filter(d -> store.items().item(d).isEmpty()).toList();
      if (!unknown.isEmpty()) {
        throw new ItemRefusedException("depends_on names " + (unknown.size() == 1 ? "an item" : "items")
            + " the state does not know: " + String.join(", ", unknown) + " (list_items shows the known ones)");
      }
      Optional<ItemState> added = store.items().add(new FollowUpItem(definition, origin), clock.instant());
      return added.orElseThrow(() -> new ItemRefusedException("an item " + Quote.value(definition.id())
          + " already exists (choose another id)"));
    }
  }

  private static BacklogItem definition(NewItem item, Config config, String origin, List<String> problems) {
    String title = item.title() == null ? "" : item.title().strip();
    if (title.isEmpty()) {
      problems.add("title must not be empty");
    } else if (title.length() > FollowUpItem.TITLE_MAX_CHARS) {
      problems.add("title is " + title.length() + " characters, at most " + FollowUpItem.TITLE_MAX_CHARS);
    }
    String description = item.description() == null ? "" : item.description();
    if (description.length() > FollowUpItem.DESCRIPTION_MAX_CHARS) {
      problems.add("description is " + description.length() + " characters, at most "
          + FollowUpItem.DESCRIPTION_MAX_CHARS);
    }
    String id = item.id() == null ? origin + "-" + SizeCap.sha256Prefix(title).substring(0, 8) : item.id();
    if (!Names.isValid(id) || id.length() > BacklogItem.MAX_ID_CHARS) {
      problems.add("id " + Quote.value(id) + " is not a valid id: " + Names.RULE + ", at most "
          + BacklogItem.MAX_ID_CHARS + " characters");
    }
    String pipeline = item.pipeline() == null ? config.defaultPipeline() : item.pipeline();
    if (!config.pipelines().containsKey(pipeline)) {
      problems.add("unknown pipeline " + Quote.value(pipeline) + " (the config's: "
          + Names.choice(List.copyOf(config.pipelines().keySet())) + ")");
    }
    Priority priority = priority(item.priority(), problems);
    for (String tag : item.tags()) {
      if (!Names.isValid(tag)) {
        problems.add("tag " + Quote.value(tag) + ": " + Names.RULE);
      }
    }
    for (String dep : item.dependsOn()) {
      if (dep.equals(id)) {
        problems.add("an item cannot depend on itself");
      }
    }
    if (!problems.isEmpty()) {
      return null;
    }
    return new BacklogItem(id, title, pipeline, priority, List.copyOf(new java.util.LinkedHashSet<>(item.dependsOn())),
        item.tags(), description, InitialStatus.NEW);
  }

  private static Priority priority(String given, List<String> problems) {
    if (given == null) {
      return Priority.MEDIUM;
    }
    for (Priority p : Priority.values()) {
      if (p.key().equals(given.toLowerCase(Locale.ROOT))) {
        return p;
      }
    }
    problems.add("priority " + Quote.value(given) + ": use high, medium or low");
    return Priority.MEDIUM;
  }
}
