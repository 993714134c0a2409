package dev.orchestrate.scheduler;

import dev.orchestrate.backlog.Priority;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.limits.Quote;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which items a run may work on: {@code --only KEY=V[,V]} criteria and {@code --target ID} targets.
 *
 * <ul>
 *   <li>{@code --only}: keys {@code status}, {@code priority}, {@code tag}, {@code pipeline}; the
 *       values of one flag are alternatives (OR), repeated flags must all hold (AND). {@code tag}
 *       matches when any of the item's tags is one of the values.
 *   <li>{@code --target}: sequential targets. Only the first target that is not finished (done,
 *       blocked, or no longer listed in the backlog) is worked on, together with its unmet
 *       dependencies, transitively; when it finishes, the next target. A target held by a blocked
 *       dependency is not finished: the run waits on it rather than skipping ahead.
 *   <li>Both given: an item must satisfy both (a dependency of the target that {@code --only}
 *       excludes is not worked on, and the target waits on it).
 * </ul>
 *
 * <p>Statuses change as a run works on items, so a run pins them with {@link #asOfRunStart}:
 * {@code --only status=ready} then means "the items that were ready when the run began".
 *
 * @param criteria      the {@code --only} flags, all of which must hold
 * @param targets       the {@code --target} ids in order, without repeats
 * @param statusAtStart item id → status to match {@code status} against (items not in it are
 *                      matched on their current status)
 */
public record ItemFilter(List<Criterion> criteria, List<String> targets, Map<String, ItemStatus> statusAtStart) {
  /** No filter: every item, no targets. */
  public static final ItemFilter ALL = new ItemFilter(List.of(), List.of(), Map.of());

  public ItemFilter {
    criteria = List.copyOf(criteria);
    targets = List.copyOf(new LinkedHashSet<>(targets));
    statusAtStart = Map.copyOf(statusAtStart);
  }

  /** The field an {@code --only} flag filters on. */
  public enum Key {
    STATUS, PRIORITY, TAG, PIPELINE;

    public String key() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One {@code --only} flag: the item's {@code key} is one of {@code values}. */
  public record Criterion(Key key, Set<String> values) {
    public Criterion {
      Objects.requireNonNull(key, "key");
      values = Set.copyOf(values);
      if (values.isEmpty()) {
        throw new IllegalArgumentException("a criterion needs at least one value");
      }
    }

    boolean matches(ItemState item, ItemStatus status) {
      return switch (key) {
        case STATUS -> values.contains(status.key());
        case PRIORITY -> values.contains(item.definition().priority().key());
        case PIPELINE -> values.contains(item.definition().pipeline());
        case TAG -> item.definition().tags().stream().anyMatch(values::contains);
      };
    }
  }

  /**
   * Parses the flags' raw values.
   *
   * @param only    each {@code --only} value, e.g. {@code status=new,ready}
   * @param targets each {@code --target} value, an item id
   * @throws ItemFilterException for a malformed flag, an unknown key, or a bad status or priority
   */
  public static ItemFilter parse(List<String> only, List<String> targets) {
    List<Criterion> criteria = new ArrayList<>();
    for (String flag : only) {
      criteria.add(criterion(flag));
    }
    for (String target : targets) {
      if (target == null || target.isBlank()) {
        throw new ItemFilterException(ItemFilterException.Part.TARGET,
            "expected an item id, got " + Quote.value(target == null ? "" : target));
      }
    }
    return new ItemFilter(criteria, targets.stream().map(String::strip).toList(), Map.of());
  }

  /**
   * Checks the targets against the ids of the items in the backlog.
   *
   * @return this filter
   * @throws ItemFilterException naming the first unknown target
   */
  public ItemFilter checkTargets(Collection<String> knownIds) {
    if (targets.isEmpty()) {
      return this;
    }
    Set<String> known = knownIds instanceof Set<String> set ? set : new HashSet<>(knownIds);
    for (String target : targets) {
      if (!known.contains(target)) {
        throw new ItemFilterException(ItemFilterException.Part.TARGET, "unknown item " + Quote.value(target));
      }
    }
    return this;
  }

  /**
   * Checks {@code --only pipeline=…} values against the configured pipelines.
   *
   * @return this filter
   * @throws ItemFilterException naming the first unknown pipeline
   */
  public ItemFilter checkPipelines(Collection<String> pipelineNames) {
    List<String> names = pipelineNames.stream().sorted().toList();
    for (Criterion c : criteria) {
      if (c.key() != Key.PIPELINE) {
        continue;
      }
      for (String value : c.values().stream().sorted().toList()) {
        if (!names.contains(value)) {
          throw new ItemFilterException(ItemFilterException.Part.CRITERION,
              "unknown pipeline " + Quote.value(value) + " (use " + alternatives(names) + ")");
        }
      }
    }
    return this;
  }

  /**
   * This filter with {@code status} matched against the statuses the given items have now; this
   * filter itself when no {@code --only status=} asks for them (a million-item run would copy a
   * million statuses it never reads).
   */
  public ItemFilter asOfRunStart(Collection<ItemState> items) {
    if (criteria.stream().noneMatch(c -> c.key() == Key.STATUS)) {
      return this;
    }
    Map<String, ItemStatus> statuses = new HashMap<>();
    for (ItemState item : items) {
      statuses.put(item.id(), item.status());
    }
    return new ItemFilter(criteria, targets, statuses);
  }

  public boolean hasTargets() {
    return !targets.isEmpty();
  }

  /** Whether the item satisfies every {@code --only} flag (targets are not considered). */
  public boolean matches(ItemState item) {
    if (criteria.isEmpty()) {
      return true;
    }
    ItemStatus status = statusAtStart.getOrDefault(item.id(), item.status());
    for (Criterion c : criteria) {
      if (!c.matches(item, status)) {
        return false;
      }
    }
    return true;
  }

  /** The target being worked on: the first one not finished, or empty when there is none. */
  public Optional<String> currentTarget(Map<String, ItemState> byId) {
    for (String target : targets) {
      if (!finished(byId.get(target))) {
        return Optional.of(target);
      }
    }
    return Optional.empty();
  }

  /** True when targets were given and every one is done, blocked or no longer listed: the run halts. */
  public boolean targetsFinished(Map<String, ItemState> byId) {
    return hasTargets() && currentTarget(byId).isEmpty();
  }

  /**
   * The ids the current target allows: the target and its dependencies that are not done,
   * transitively (unknown ids included, so that callers can report them). Empty when targets were
   * given and all are finished; {@code Optional.empty()} when there are no targets.
   */
  public Optional<Set<String>> targetScope(Map<String, ItemState> byId) {
    if (!hasTargets()) {
      return Optional.empty();
    }
    Set<String> scope = new LinkedHashSet<>();
    Optional<String> current = currentTarget(byId);
    if (current.isEmpty()) {
      return Optional.of(scope);
    }
    Deque<String> todo = new ArrayDeque<>(List.of(current.get()));
    while (!todo.isEmpty()) {
      String id = todo.pop();
      if (!scope.add(id)) {
        continue; // already seen: dependency cycles cannot loop forever
      }
      ItemState item = byId.get(id);
      if (item == null) {
        continue;
      }
      for (String dep : item.definition().dependsOn()) {
        ItemState d = byId.get(dep);
        if (d == null || d.status() != ItemStatus.DONE) {
          todo.push(dep);
        }
      }
    }
    return Optional.of(scope);
  }

  /** The items a run may work on now, given every item's current state: {@link #matches} and the target scope. */
  public Predicate<ItemState> admission(Map<String, ItemState> byId) {
    Optional<Set<String>> scope = targetScope(byId);
    if (scope.isEmpty()) {
      return this::matches;
    }
    Set<String> ids = scope.get();
    return item -> ids.contains(item.id()) && matches(item);
  }

  private static boolean finished(ItemState target) {
    return target == null || !target.inBacklog() || target.status().isTerminal();
  }

  private static Criterion criterion(String flag) {
    int eq = flag == null ? -1 : flag.indexOf('=');
    if (eq <= 0) {
      throw new ItemFilterException(ItemFilterException.Part.CRITERION,
          "expected KEY=VALUE, got " + Quote.value(flag == null ? "" : flag));
    }
    String rawKey = flag.substring(0, eq).strip();
    Key key = Arrays.stream(Key.values()).filter(k -> k.key().equals(rawKey)).findFirst()
        .orElseThrow(() -> new ItemFilterException(ItemFilterException.Part.CRITERION,
            "unknown key " + Quote.value(rawKey) + " (use "
                + alternatives(Arrays.stream(Key.values()).map(Key::key).toList()) + ")"));
    Set<String> values = new LinkedHashSet<>();
    for (String raw : flag.substring(eq + 1).split(",", -1)) {
      String value = raw.strip();
      if (value.isEmpty()) {
        throw new ItemFilterException(ItemFilterException.Part.CRITERION,
            "empty value in " + Quote.value(flag) + " (expected KEY=VALUE[,VALUE])");
      }
      checkValue(key, value);
      values.add(value);
    }
    return new Criterion(key, values);
  }

  private static void checkValue(Key key, String value) {
    List<String> allowed = switch (key) {
      case STATUS -> Arrays.stream(ItemStatus.values()).map(ItemStatus::key).toList();
      case PRIORITY -> Arrays.stream(Priority.values()).map(Priority::key).toList();
      case TAG, PIPELINE -> null;
    };
    if (allowed != null && !allowed.contains(value)) {
      throw new ItemFilterException(ItemFilterException.Part.CRITERION,
          "bad value " + Quote.value(value) + " for " + key.key()
              + " (use " + alternatives(allowed) + ")");
    }
  }

  /** {@code a, b or c}. */
  private static String alternatives(List<String> names) {
    if (names.isEmpty()) {
      return "nothing";
    }
    if (names.size() == 1) {
      return names.get(0);
    }
    return String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
  }
}
