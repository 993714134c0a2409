package dev.orchestrate.scheduler;

import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.ItemState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Everything {@link ActionSelection} decides from, frozen for one round.
 *
 * @param items         every item the state knows (listed in the backlog or not), or, for a run, the
 *                      part of them a decision depends on ({@link SelectionIndex#frontier}, selected
 *                      with {@link ActionSelection#select(Snapshot, Map)} and all the items); kept in
 *                      backlog order ({@link ItemState#seq()}) whatever order they are given in
 * @param pipelines     pipelines by name; every listed, non-terminal item's pipeline must be here
 * @param maxWip        at most this many items in_progress (at least 1)
 * @param maxConcurrent at most this many jobs at once (at least 1)
 * @param running       item id → whether the phase its running job works on is destructive
 * @param filter        {@code --only} / {@code --target}; {@link ItemFilter#ALL} for none. For a
 *                      run, pin statuses with {@link ItemFilter#asOfRunStart} first.
 * @param elsewhere     items other runners hold ({@link ItemLeases}): never eligible here, and
 *                      in_progress ones count for WIP as this runner's running items do
 */
public record Snapshot(
    List<ItemState> items,
    Map<String, Pipeline> pipelines,
    int maxWip,
    int maxConcurrent,
    Map<String, Boolean> running,
    ItemFilter filter,
    Set<String> elsewhere) {

  public Snapshot {
    Objects.requireNonNull(filter, "filter");
    elsewhere = Set.copyOf(elsewhere);
    if (maxWip < 1) {
      throw new IllegalArgumentException("maxWip must be >= 1, got " + maxWip);
    }
    if (maxConcurrent < 1) {
      throw new IllegalArgumentException("maxConcurrent must be >= 1, got " + maxConcurrent);
    }
    List<ItemState> sorted = new ArrayList<>(items);
    sorted.sort(Comparator.comparingLong(ItemState::seq));
    Set<String> ids = new HashSet<>();
    for (ItemState item : sorted) {
      if (!ids.add(item.id())) {
        throw new IllegalArgumentException("item " + item.id() + " appears twice");
      }
      if (item.inBacklog() && !item.status().isTerminal() && !pipelines.containsKey(item.definition().pipeline())) {
        throw new IllegalArgumentException(
            "item " + item.id() + " uses pipeline '" + item.definition().pipeline() + "', which is not given");
      }
    }
    items = List.copyOf(sorted);
    pipelines = Map.copyOf(pipelines);
    running = Map.copyOf(running);
  }

  /** One runner's snapshot: no item is held elsewhere. */
  public Snapshot(List<ItemState> items, Map<String, Pipeline> pipelines, int maxWip, int maxConcurrent,
      Map<String, Boolean> running, ItemFilter filter) {
    this(items, pipelines, maxWip, maxConcurrent, running, filter, Set.of());
  }

  public Snapshot(List<ItemState> items, Map<String, Pipeline> pipelines, int maxWip, int maxConcurrent,
      Map<String, Boolean> running) {
    this(items, pipelines, maxWip, maxConcurrent, running, ItemFilter.ALL);
  }

  /** The items by id, in backlog order. */
  public Map<String, ItemState> byId() {
    Map<String, ItemState> out = new LinkedHashMap<>();
    for (ItemState item : items) {
      out.put(item.id(), item);
    }
    return out;
  }
}
